package studies

import (
	"bytes"
	"context"
	"fmt"
	"pragmalab/domain"
	"pragmalab/itemfiles"
	"reflect"
	"strings"
	"testing"

	"pragmalab/store"
)

// goodCSV is a small valid items file (three items, one a check), shared
// with itemfiles' tests.
var goodCSV = mustReadFile("../itemfiles/testdata/items-good.csv")

func mustStudy(t *testing.T, db *store.DB, kind string) *domain.Study {
	t.Helper()
	s := &domain.Study{Kind: kind, Name: "test " + kind, Lang: "en"}
	if err := db.CreateStudy(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	return s
}

func countItems(t *testing.T, db *store.DB) int {
	t.Helper()
	var n int
	if err := db.Reader().QueryRow(`SELECT COUNT(*) FROM items`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestImportItemsCSV(t *testing.T) {
	db := mustOpenDB(t)
	s := mustStudy(t, db, domain.KindExpert)
	items, err := itemfiles.ParseItemsCSV(strings.NewReader(goodCSV))
	if err != nil {
		t.Fatal(err)
	}
	if err := db.ImportItems(context.Background(), s.ID, items); err != nil {
		t.Fatal(err)
	}
	got, err := db.ListItems(context.Background(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[1].Context != "Rates rose." || got[2].Check != "low" || got[0].Status != "active" {
		t.Fatalf("stored items = %+v", got)
	}
	// Importing the same ids again is refused whole, and changes nothing.
	err = db.ImportItems(context.Background(), s.ID, items)
	if err == nil || !strings.Contains(err.Error(), `"s1"`) {
		t.Fatalf("re-import: err = %v, want one naming s1", err)
	}
	if n := countItems(t, db); n != 3 {
		t.Fatalf("after a refused re-import: %d items, want 3", n)
	}
}

func TestImportBadFiles(t *testing.T) {
	header := "id,type,context,utterance,implicature,cancellation\n"
	long := header + "x1,scalar,," + strings.Repeat("a", 10<<20) + ",b,c\n"
	tests := []struct {
		name, file string
		jsonl      bool
		want       []string // all must appear in the message
	}{
		{"missing column", "id,type,context,utterance,cancellation\ns1,scalar,,u,c\n", false, []string{"line 1", `missing column "implicature"`}},
		{"unknown column", "id,type,utterance,implicature,cancellation,colour\ns1,scalar,u,i,c,red\n", false, []string{"line 1", `unknown column "colour"`}},
		{"unknown type", header + "s1,scalar,,u,i,c\ns2,scaler,,u,i,c\n", false, []string{"line 3", `field "type"`, "scaler"}},
		{"pooled type name", header + "s1,scalar,,u,i,c\ns2,ALL,,u,i,c\n", false, []string{"line 3", `field "type"`, "reserved"}},
		{"pooled type name overall", header + "s1,scalar,,u,i,c\ns2,Overall,,u,i,c\n", false, []string{"line 3", `field "type"`, "reserved"}},
		{"empty belief", header + "s1,scalar,,u,i,c\ns2,scalar,,u,  ,c\n", false, []string{"line 3", `field "implicature"`, "empty"}},
		{"duplicate id", header + "s1,scalar,,u,i,c\ns1,scalar,,u2,i2,c2\n", false, []string{"line 3", `field "id"`, "duplicate", "line 2"}},
		{"10 MB line", long, false, []string{"line 2", "longer than"}},
		{"bad quote", header + "s1,scalar,,\"u,i,c\n", false, []string{"line 2"}},
		{"wrong field count", header + "s1,scalar,,u,i\n", false, []string{"line 2", "5 fields"}},
		{"empty file", "", false, []string{"empty"}},
		{"header only", header, false, []string{"no items"}},
		{"bad check", "id,type,utterance,implicature,cancellation,check\ns1,scalar,u,i,c,maybe\n", false, []string{"line 2", `field "check"`}},
		{"jsonl bad json", `{"id":"a","type":"scalar","utterance":"u","implicature":"i","cancellation":"c"}` + "\n{nope\n", true, []string{"line 2", "JSON"}},
		{"jsonl missing field", `{"id":"a","type":"scalar","utterance":"u","cancellation":"c"}` + "\n", true, []string{"line 1", `field "implicature"`}},
		{"jsonl unknown type", `{"id":"a","type":"weird","utterance":"u","implicature":"i","cancellation":"c"}` + "\n", true, []string{"line 1", `field "type"`}},
		{"NUL in a text", header + "s1,scalar,,u,i,c\ns2,scalar,,Some\x00guests,i,c\n", false, []string{"line 3", `field "utterance"`, "character 5", "U+0000 (NUL)"}},
		{"control character in a text", header + "s1,scalar,,u,i\x1b[31m,c\n", false, []string{"line 2", `field "implicature"`, "character 2", "U+001B"}},
		{"tab in an id", header + "s\t1,scalar,,u,i,c\n", false, []string{"line 2", `field "id"`, "character 2", "tab"}},
		{"jsonl escaped NUL", `{"id":"a","type":"scalar","utterance":"u\u0000","implicature":"i","cancellation":"c"}` + "\n", true, []string{"line 1", `field "utterance"`, "character 2", "NUL"}},
		{"jsonl duplicated key", `{"id":"a","type":"scalar","utterance":"u","implicature":"i","cancellation":"c"}` + "\n" + `{"id":"b","type":"scalar","utterance":"harmless","implicature":"i","cancellation":"c","utterance":"other"}` + "\n", true, []string{"line 2", `field "utterance"`, "twice"}},
		{"jsonl 10 MB line", `{"id":"a","type":"scalar","utterance":"` + strings.Repeat("u", 10<<20) + `","implicature":"i","cancellation":"c"}` + "\n", true, []string{"line 1", "longer than"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := mustOpenDB(t)
			s := mustStudy(t, db, domain.KindExpert)
			var items []domain.Item
			var err error
			if tt.jsonl {
				items, err = itemfiles.ParseItemsJSONL(strings.NewReader(tt.file))
			} else {
				items, err = itemfiles.ParseItemsCSV(strings.NewReader(tt.file))
			}
			if err == nil {
				err = db.ImportItems(context.Background(), s.ID, items)
			}
			if err == nil {
				t.Fatal("bad file accepted")
			}
			if domain.ErrorCode(err) != domain.EINVALID {
				t.Errorf("code = %s, want invalid", domain.ErrorCode(err))
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message %q does not say %q", err.Error(), w)
				}
			}
			if n := countItems(t, db); n != 0 {
				t.Errorf("%d items stored after a rejected file, want 0", n)
			}
		})
	}
}

func TestItemsRoundTrip(t *testing.T) {
	items, err := itemfiles.ParseItemsCSV(strings.NewReader("\xef\xbb\xbf" + goodCSV))
	if err != nil {
		t.Fatal(err)
	}
	items[1].Context = "S1: hello\nS2: \"quoted\", with comma"
	for _, format := range []string{"csv", "jsonl"} {
		var buf bytes.Buffer
		var back []domain.Item
		if format == "csv" {
			itemfiles.WriteItemsCSV(&buf, items)
			back, err = itemfiles.ParseItemsCSV(&buf)
		} else {
			itemfiles.WriteItemsJSONL(&buf, items)
			back, err = itemfiles.ParseItemsJSONL(&buf)
		}
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if len(back) != len(items) || back[1].Context != items[1].Context || back[2].Check != "low" {
			t.Errorf("%s round trip: got %+v", format, back)
		}
	}
}

// TestTextsMayHoldTabsAndLineBreaks: the control characters a text may
// hold are still accepted.
func TestTextsMayHoldTabsAndLineBreaks(t *testing.T) {
	header := "id,type,context,utterance,implicature,cancellation\n"
	items, err := itemfiles.ParseItemsCSV(strings.NewReader(header + "s1,scalar,\"A: hi\r\nB:\tho\",u,i,c\n"))
	if err != nil {
		t.Fatal(err)
	}
	if items[0].Context != "A: hi\nB:\tho" {
		t.Errorf("context %q", items[0].Context)
	}
}

// TestItemsRoundTripFormulaTexts: texts a spreadsheet would run as formulas
// are written neutralised, numbers as they are, and the import reads every
// one back unchanged.
func TestItemsRoundTripFormulaTexts(t *testing.T) {
	items, err := itemfiles.ParseItemsCSV(strings.NewReader(goodCSV))
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"=1+1", "-foo", "+SUM(A1:A9)", "@cmd", "'=already quoted", "-1.5", "'Twas a dark night"}
	for i, tx := range texts {
		it := items[i%len(items)]
		it.Key = fmt.Sprintf("f%d", i)
		it.Neutral, it.Negation = tx, tx
		items = append(items, it)
	}
	items[0].Key = "-s1"
	var buf bytes.Buffer
	if err := itemfiles.WriteItemsCSV(&buf, items); err != nil {
		t.Fatal(err)
	}
	raw := buf.String()
	for _, cell := range []string{",'=1+1,", ",'-foo,", "'-s1,", "''=already quoted", ",-1.5,", ",'Twas a dark night,"} {
		if !strings.Contains(raw, cell) {
			t.Errorf("the export lacks %q:\n%s", cell, raw)
		}
	}
	back, err := itemfiles.ParseItemsCSV(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for i := range items {
		if !reflect.DeepEqual(back[i], items[i]) {
			t.Errorf("item %d read back as %+v, want %+v", i, back[i], items[i])
		}
	}
}
