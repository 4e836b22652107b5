package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The layers' boundary (docs/architecture.md#dependencies): handlers and
// commands never hold the store — they call a use case or one of domain's
// small store interfaces — and templates take view models, so they import
// none of store, the services or prolific. Each rule covers its folder and
// every package below it. A file that crosses the boundary fails the test,
// unless it is on the short allowed list, which says why.
var boundary = []struct {
	dir       string
	forbidden []string
	// allowed are files or folders (relative to dir) that cross the
	// boundary by design: the command line's composition root,
	// cli/open.go, opens the store and builds the web server (with its job
	// runner) over it, so no other cli file holds the store; cli/seed fills
	// a database as a fixture does, writing what participants would
	// (docs/architecture.md#cli).
	allowed []string
}{
	{dir: "handlers", forbidden: []string{"pragmalab/store"}},
	{dir: "cli", forbidden: []string{"pragmalab/store"}, allowed: []string{"open.go", "seed"}},
	// The comparisons of models and humans are a room above the studies'
	// use cases (docs/architecture.md#comparisons): studies reach the
	// LLM-echo check only through the function SetLLMEcho hands them.
	{dir: "studies", forbidden: []string{"pragmalab/comparisons", "pragmalab/recruit"}},
	{dir: "templates", forbidden: []string{"pragmalab/store", "pragmalab/studies", "pragmalab/prolific", "pragmalab/recruit", "pragmalab/signin"}},
}

func TestLayerBoundary(t *testing.T) {
	for _, b := range boundary {
		used := map[string]bool{}
		for _, path := range sourceFiles(t, b.dir) {
			rel, _ := filepath.Rel(b.dir, path)
			allowedBy := ""
			for _, a := range b.allowed {
				if rel == a || strings.HasPrefix(rel, a+string(filepath.Separator)) {
					allowedBy = a
				}
			}
			crosses := imports(t, path, b.forbidden)
			if allowedBy != "" {
				used[allowedBy] = used[allowedBy] || len(crosses) > 0
				continue
			}
			if len(crosses) > 0 {
				t.Errorf("%s crosses the layers' boundary: it imports %s; call a use case or a store interface of domain/stores.go instead", path, strings.Join(crosses, ", "))
			}
		}
		for _, a := range b.allowed {
			if !used[a] {
				t.Errorf("%s is allowed to cross the boundary but no longer does: take it off the allowed list in boundary_test.go", filepath.Join(b.dir, a))
			}
		}
	}
}

// TestNoExportedStoreFields: outside store, the web server's composition
// (web/server.go) and the command line, no struct exports a field typed
// from store — a handler reaching through one into the database is how a
// god service starts (docs/architecture.md#dependencies).
func TestNoExportedStoreFields(t *testing.T) {
	for _, path := range sourceFiles(t, ".") {
		top := strings.Split(filepath.ToSlash(path), "/")[0]
		if top == "store" || top == "cli" || filepath.ToSlash(path) == "web/server.go" || strings.HasSuffix(path, ".templ") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		storeName := ""
		for _, im := range f.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); p == "pragmalab/store" {
				storeName = "store"
				if im.Name != nil {
					storeName = im.Name.Name
				}
			}
		}
		if storeName == "" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			st, ok := n.(*ast.StructType)
			if !ok {
				return true
			}
			for _, field := range st.Fields.List {
				if !mentions(field.Type, storeName) {
					continue
				}
				for _, name := range field.Names {
					if name.IsExported() {
						t.Errorf("%s: exported field %s is typed from store; keep it private and offer methods", path, name.Name)
					}
				}
				if len(field.Names) == 0 {
					t.Errorf("%s: an embedded store type exports the store's methods; hold it in a private field", path)
				}
			}
			return true
		})
	}
}

// mentions reports whether the type expression names package pkg.
func mentions(e ast.Expr, pkg string) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == pkg {
				found = true
			}
		}
		return !found
	})
	return found
}

// TestBoundaryCatches: the walk sees sub-packages, and the rules catch a
// file that crosses them, so a green boundary test means something.
func TestBoundaryCatches(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "handlers", "deep")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	src := "package deep\n\nimport \"pragmalab/store\"\n\ntype Leak struct{ DB *store.DB }\n"
	file := filepath.Join(sub, "leak.go")
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	files := sourceFiles(t, filepath.Join(dir, "handlers"))
	if !slices.Contains(files, file) {
		t.Fatalf("the walk of handlers/ found %v, not the file in a sub-package", files)
	}
	if got := imports(t, file, []string{"pragmalab/store"}); len(got) != 1 {
		t.Errorf("the import of store in a sub-package was not seen: %v", got)
	}
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	field := f.Decls[1].(*ast.GenDecl).Specs[0].(*ast.TypeSpec).Type.(*ast.StructType).Fields.List[0]
	if !mentions(field.Type, "store") {
		t.Error("a field of type *store.DB is not seen as typed from store")
	}
}

// sourceFiles lists the hand-written Go and templ files under dir, sub-
// packages included, tests and generated files left out.
func sourceFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != dir && (name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, "_test.go") || strings.HasSuffix(name, "_templ.go") ||
			!(strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".templ")) {
			return nil
		}
		out = append(out, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
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

// TestNoStrayFileNames: a file whose name holds a space, a quote, a pipe
// or ":=" is a shell slip (a heredoc or a redirection that went astray),
// not project material: one such file, named after a line of Go, sat in
// the root for weeks (docs/testing.md#what-the-root-holds). Every file and folder of the tree is
// checked, but .git and the fuzzers' corpora, whose names Go chooses.
func TestNoStrayFileNames(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "fuzz" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if strayName(d.Name()) {
			t.Errorf("%q looks like a shell slip, not a project file: remove it", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// strayName says whether name holds a character no project file uses.
func strayName(name string) bool {
	return strings.ContainsAny(name, " \"'|`$\\<>*?") || strings.Contains(name, ":=")
}

func TestStrayNameCatches(t *testing.T) {
	for _, name := range []string{`ant := "annotator_id,item_id\|Anna,`, "a b.go", "x|y", "q'", "out>log"} {
		if !strayName(name) {
			t.Errorf("strayName(%q) = false, want true", name)
		}
	}
	for _, name := range []string{"boundary_test.go", "impaqts-pid-sample.tsv", "crowd_templ.go", ".ci", "0350_prolific_index.sql"} {
		if strayName(name) {
			t.Errorf("strayName(%q) = true, want false", name)
		}
	}
}

// analysisRooms are the rooms of analysis (docs/architecture.md#analysis),
// each with the rooms it may import: the core, pragmalab/analysis, imports
// none of them, so the generic statistics cannot come to speak of one
// study's design; report, which writes every room's tables, methods, plots
// and R files, may import them all and none imports it. Besides these,
// analysis and its rooms import no project package but domain and csvsafe.
var analysisRooms = map[string][]string{
	"analysis":                {},
	"analysis/toplines":       {"analysis"},
	"analysis/agreement":      {"analysis"},
	"analysis/contextsurvey":  {"analysis"},
	"analysis/conditions":     {"analysis"},
	"analysis/modelhuman":     {"analysis", "analysis/toplines"},
	"analysis/integrity":      {"analysis", "analysis/toplines"},
	"analysis/plan":           {"analysis", "analysis/toplines", "analysis/agreement", "analysis/contextsurvey", "analysis/conditions", "analysis/modelhuman"},
	"analysis/report":         {"analysis", "analysis/toplines", "analysis/agreement", "analysis/contextsurvey", "analysis/conditions", "analysis/modelhuman", "analysis/integrity", "analysis/plan"},
	"analysis/internal/atest": {"analysis"},
	"analysis/echobench":      {"analysis", "analysis/toplines", "analysis/integrity", "analysis/plan"},
}

func TestAnalysisRooms(t *testing.T) {
	for _, v := range roomViolations(t, ".") {
		t.Error(v)
	}
}

// roomViolations lists the files under root/analysis that import a room
// their own may not, or a project package outside analysis but domain and
// csvsafe, and the folders of Go files that are no room of the table.
func roomViolations(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	for _, path := range sourceFiles(t, filepath.Join(root, "analysis")) {
		if !strings.HasSuffix(path, ".go") {
			continue
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		room := filepath.ToSlash(rel)
		allowed, ok := analysisRooms[room]
		if !ok {
			out = append(out, room+" is no room of analysis: add it to analysisRooms in boundary_test.go with the rooms it may import, and to docs/architecture.md")
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			dep, project := strings.CutPrefix(p, "pragmalab/")
			switch {
			case !project || dep == "domain" || dep == "csvsafe":
			case dep == "analysis" || strings.HasPrefix(dep, "analysis/"):
				if !slices.Contains(allowed, dep) {
					out = append(out, path+" imports "+p+": the room "+room+" may import only "+strings.Join(allowed, ", ")+" (docs/architecture.md#analysis)")
				}
			default:
				out = append(out, path+" imports "+p+": analysis and its rooms import no project package but domain and csvsafe")
			}
		}
	}
	return out
}

func TestAnalysisRoomsCatch(t *testing.T) {
	root := t.TempDir()
	write := func(rel, src string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("analysis/core.go", "package analysis\n\nimport _ \"pragmalab/analysis/toplines\"\n")
	write("analysis/toplines/t.go", "package toplines\n\nimport (\n\t_ \"pragmalab/analysis\"\n\t_ \"pragmalab/analysis/report\"\n\t_ \"pragmalab/domain\"\n)\n")
	write("analysis/plan/p.go", "package plan\n\nimport _ \"pragmalab/store\"\n")
	write("analysis/plan/p_test.go", "package plan\n\nimport _ \"pragmalab/analysis/report\"\n")
	write("analysis/judgement/j.go", "package judgement\n")
	got := strings.Join(roomViolations(t, root), "\n")
	for _, want := range []string{
		"core.go imports pragmalab/analysis/toplines",
		"t.go imports pragmalab/analysis/report",
		"p.go imports pragmalab/store",
		"analysis/judgement is no room",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the rooms' rule missed %q; it said:\n%s", want, got)
		}
	}
	if strings.Contains(got, "p_test.go") || strings.Contains(got, "pragmalab/domain") || strings.Contains(got, "t.go imports pragmalab/analysis:") {
		t.Errorf("the rooms' rule flagged an allowed import:\n%s", got)
	}
}
