package cli

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"pragmalab/domain"
	"pragmalab/store"
)

// TestImportUpdateKeepsMissingFields: `import --update` corrects an item
// and keeps the negation the corrected file leaves out; --dry-run changes
// nothing; --clear-missing empties it; each run says which fields it
// keeps or clears.
func TestImportUpdateKeepsMissingFields(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "p.db")
	db, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	s := &domain.Study{Kind: domain.KindExpert, Name: "S", Lang: "en"}
	if err := db.CreateStudy(ctx, s); err != nil {
		t.Fatal(err)
	}
	db.Close()
	id := strconv.FormatInt(s.ID, 10)
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	first := write("items.csv", "id,type,context,utterance,implicature,cancellation,negation\n"+
		"s1,scalar,,Some guests left.,Not all guests left.,In fact all did.,In fact all of them did; none stayed.\n")
	if code, _, errOut := runCLI(t, "", nil, "import", "--study", id, "--file", first, "--db", dbPath); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
	fixed := write("fixed.csv", "id,type,utterance,implicature,cancellation\n"+
		"s1,scalar,Some guests left.,Not every guest left.,In fact all did.\n")
	item := func() domain.Item {
		db, err := store.Open(ctx, dbPath)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		items, _ := db.ListItems(ctx, s.ID)
		return items[0]
	}

	code, out, errOut := runCLI(t, "", nil, "import", "--study", id, "--file", fixed, "--update", "--dry-run", "--db", dbPath)
	if code != 0 || !strings.Contains(out, "kept (the file leaves them out): s1: negation") || !strings.Contains(out, "1 items changed, 0 added, 0 unchanged (dry run, nothing applied)") {
		t.Fatalf("dry run: exit %d\n%s%s", code, out, errOut)
	}
	if it := item(); it.Implicature != "Not all guests left." {
		t.Fatalf("the dry run changed %+v", it)
	}
	code, out, errOut = runCLI(t, "", nil, "import", "--study", id, "--file", fixed, "--update", "--note", "typo", "--db", dbPath)
	if code != 0 || !strings.Contains(out, `implicature: "Not all guests left." → "Not every guest left."`) || strings.Contains(out, "negation:") {
		t.Fatalf("update: exit %d\n%s%s", code, out, errOut)
	}
	if it := item(); it.Implicature != "Not every guest left." || it.Negation != "In fact all of them did; none stayed." || it.Version != 2 {
		t.Fatalf("after the update: %+v", it)
	}
	code, out, errOut = runCLI(t, "", nil, "import", "--study", id, "--file", fixed, "--update", "--clear-missing", "--db", dbPath)
	if code != 0 || !strings.Contains(out, "cleared (the file leaves them out): s1: negation") {
		t.Fatalf("clear: exit %d\n%s%s", code, out, errOut)
	}
	if it := item(); it.Negation != "" || it.Version != 3 {
		t.Fatalf("after clearing: %+v", it)
	}
	if code, _, errOut := runCLI(t, "", nil, "import", "--study", id, "--file", fixed, "--clear-missing", "--db", dbPath); code != 2 || !strings.Contains(errOut, "--update") {
		t.Fatalf("--clear-missing without --update: exit %d: %s", code, errOut)
	}
}
