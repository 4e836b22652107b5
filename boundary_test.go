package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The layers' boundary (docs/architecture.md#dependencies): handlers and
// commands reach the database only through studies, and templates take
// view models, so they import neither store nor studies nor prolific. A
// file that crosses the boundary fails the test, unless it is on the short
// allowed list, which says why.
var boundary = []struct {
	dir       string
	forbidden []string
	// allowed are files that cross the boundary by design: the command
	// line's composition root, cli/open.go, opens the store and builds the
	// web server (with its job runner) over it, so no other cli file holds
	// the store (docs/architecture.md#cli).
	allowed []string
}{
	{dir: "handlers", forbidden: []string{"pragmalab/store"}},
	{dir: "cli", forbidden: []string{"pragmalab/store"}, allowed: []string{"open.go"}},
	{dir: "templates", forbidden: []string{"pragmalab/store", "pragmalab/studies", "pragmalab/prolific"}},
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
			crosses := imports(t, path, b.forbidden)
			switch allowed := slices.Contains(b.allowed, name); {
			case allowed && len(crosses) == 0:
				t.Errorf("%s is allowed to cross the boundary but no longer does: take it off the allowed list in boundary_test.go", path)
			case !allowed && len(crosses) > 0:
				t.Errorf("%s reaches past studies: it imports %s; call a studies.Service method instead", path, strings.Join(crosses, ", "))
			}
		}
	}
}

// imports lists the forbidden packages one file imports.
func imports(t *testing.T, path string, forbidden []string) []string {
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
				out = append(out, p)
			}
		}
	} else {
		// A .templ file's imports are Go import lines.
		for _, p := range forbidden {
			if strings.Contains(string(src), strconv.Quote(p)) {
				out = append(out, p)
			}
		}
	}
	return out
}
