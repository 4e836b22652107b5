package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The layers' boundary (docs/architecture.md#dependencies): handlers and
// commands reach the database only through studies, and templates take
// view models, so they import neither store nor studies nor prolific.
// A file listed here still crosses the boundary and is being moved; a new
// file that crosses it, or a listed file that no longer does, fails the
// test, so the lists only shrink.
var boundary = []struct {
	dir       string
	forbidden []string
	// calls are expressions a file may not contain (h.DB reaches the store
	// without importing it).
	calls   []string
	pending []string
}{
	{
		dir:       "handlers",
		forbidden: []string{"pragmalab/store"},
		calls:     []string{"h.DB"},
		pending: []string{
			"handler.go",
		},
	},
	{
		dir:       "cli",
		forbidden: []string{"pragmalab/store"},
		pending: []string{
			"admin.go", "backup.go", "bench_ceiling.go", "bench_import.go", "bench_load.go", "bench_scoring.go",
			"demo.go", "demo_context.go", "demo_crowd.go", "demo_explain.go", "export.go", "import.go",
			"import_impaqts.go", "prolific.go", "score.go", "serve.go", "study.go",
		},
	},
	{
		dir:       "templates",
		forbidden: []string{"pragmalab/store", "pragmalab/studies", "pragmalab/prolific"},
		pending: []string{
			"admin_manage.templ",
		},
	},
}

func TestLayerBoundary(t *testing.T) {
	for _, b := range boundary {
		entries, err := os.ReadDir(b.dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			name := e.Name()
			if strings.HasSuffix(name, "_test.go") || strings.HasSuffix(name, "_templ.go") ||
				!(strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".templ")) {
				continue
			}
			path := filepath.Join(b.dir, name)
			crosses := crossings(t, path, b.forbidden, b.calls)
			listed := slices.Contains(b.pending, name)
			switch {
			case len(crosses) > 0 && !listed:
				t.Errorf("%s reaches past studies: %s; call a studies.Service method instead", path, strings.Join(crosses, ", "))
			case len(crosses) == 0 && listed:
				t.Errorf("%s no longer crosses the boundary: take it off the pending list in boundary_test.go", path)
			}
		}
	}
}

// crossings lists the forbidden imports and calls of one file.
func crossings(t *testing.T, path string, forbidden, calls []string) []string {
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	if strings.HasSuffix(path, ".go") {
		f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range f.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); slices.Contains(forbidden, p) {
				out = append(out, "imports "+p)
			}
		}
	} else {
		// A .templ file's imports are Go import lines.
		for _, p := range forbidden {
			if strings.Contains(string(src), strconv.Quote(p)) {
				out = append(out, "imports "+p)
			}
		}
	}
	for _, c := range calls {
		if regexp.MustCompile(`\b` + regexp.QuoteMeta(c) + `\b`).Match(src) {
			out = append(out, "uses "+c)
		}
	}
	return out
}
