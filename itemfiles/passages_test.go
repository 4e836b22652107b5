package itemfiles

import (
	"bytes"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"pragmalab/domain"
	"strings"
	"testing"
)

const sampleHeader = "IMPAQTS_id\tIMPAQTS_file\tIMPAQTS_Implicit_content_tag\ttag_simpl_IMPAQTS-PID\ttopic\ttext\tright_answer\tright_answer_id\tMCs\n"

const goodMCs = "\"A. Uno.\nB. Due.\nC. Tre.\nD. Quattro.\""

func readSample(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/impaqts-pid-sample.tsv")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSampleCopyMatchesShared keeps the testdata copy honest against the
// shared data it was taken from, where that is checked out beside the repo.
func TestSampleCopyMatchesShared(t *testing.T) {
	shared, err := os.ReadFile(filepath.Join("..", "..", "shared", "data", "impaqts-pid-sample.tsv"))
	if err != nil {
		t.Skipf("shared data not beside the repo (%v); the testdata copy is used alone", err)
	}
	if !bytes.Equal(shared, readSample(t)) {
		t.Fatal("store/testdata/impaqts-pid-sample.tsv differs from shared/data/impaqts-pid-sample.tsv")
	}
}

func TestParsePassagesTSVSample(t *testing.T) {
	ps := mustParseSample(t)
	if len(ps) != 130 {
		t.Fatalf("got %d passages, want 130", len(ps))
	}
	cells := map[string]int{}
	for _, p := range ps {
		cells[p.Kind+" "+p.Period]++
		if p.Explanation != p.Options[p.Answer[0]-'A'] {
			t.Errorf("passage %s: explanation %q is not option %s %q", p.Key, p.Explanation, p.Answer, p.Options[p.Answer[0]-'A'])
		}
	}
	want := map[string]int{
		"Impl " + domain.Period1946: 1, "Impl " + domain.Period1973: 16, "Impl " + domain.Period1994: 43,
		"Ppp " + domain.Period1946: 7, "Ppp " + domain.Period1973: 14, "Ppp " + domain.Period1994: 49,
	}
	for k, n := range want {
		if cells[k] != n {
			t.Errorf("%s: %d passages, want %d", k, cells[k], n)
		}
	}
	p := ps[0]
	if p.Key != "22185" || p.Source != "PCAS13-C1.xmi" || p.Tag != "Impl_cvrs" || p.Kind != domain.PassageImpl ||
		p.Topic != -1 || p.Period != domain.Period1994 || p.Answer != "A" ||
		p.Explanation != "Gli altri svendono i propri ideali e valori." ||
		p.Options[3] != "Per tre mesi il governo ha tenuto in ostaggio il Paese." {
		t.Errorf("first passage = %+v", p)
	}
	if !strings.Contains(p.Text, `ho detto: "sono invidioso, voglio parlare anch'io con questo". E allora`) {
		t.Errorf("doubled quotes not undone in %q", p.Text)
	}
	if ps[1].Topic != 193 {
		t.Errorf("topic of row 2 = %d, want 193", ps[1].Topic)
	}
}

// TestParsePassagesTSVAgreesWithEncodingCSV reads the sample a second way,
// with the standard library's strict CSV reader, and expects the same fields.
func TestParsePassagesTSVAgreesWithEncodingCSV(t *testing.T) {
	cr := csv.NewReader(bytes.NewReader(readSample(t)))
	cr.Comma = '\t'
	recs, err := cr.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	ps := mustParseSample(t)
	if len(recs)-1 != len(ps) {
		t.Fatalf("encoding/csv: %d rows, ours %d", len(recs)-1, len(ps))
	}
	for i, rec := range recs[1:] {
		if rec[0] != ps[i].Key || rec[5] != ps[i].Text || !strings.HasSuffix(rec[6], ps[i].Explanation) {
			t.Errorf("row %d differs: csv %q / ours %q", i+1, rec[0], ps[i].Key)
		}
	}
}

// TestParsePassagesTSVPublishedQuirks applies to the sample the differences
// the licence file lists between it and the full published file: CR LF in
// every MCs field, a byte-order mark opening the text of 34103 and
// mis-encoded apostrophes in option D of 39290 — plus CR LF record endings
// and a BOM before an opening quote.
func TestParsePassagesTSVPublishedQuirks(t *testing.T) {
	clean := mustParseSample(t)
	b := readSample(t)
	recs := splitRecordsForTest(t, b)
	var out bytes.Buffer
	out.WriteString("\uFEFF") // a BOM before the header too
	for i, rec := range recs {
		if i > 0 {
			switch rec[0] {
			case "34103":
				rec[5] = "\uFEFF" + rec[5]
			case "22185":
				rec[5] = "\uFEFF" + rec[5] // this one is quoted: the BOM precedes the quote
			case "39290":
				rec[8] = strings.Replace(rec[8], "per l", "per l\x92", 1)       // a raw Windows-1252 byte
				rec[8] = strings.Replace(rec[8], "lessere", "l\u0092essere", 1) // a C1 control
			}
			rec[8] = strings.ReplaceAll(rec[8], "\n", "\r\n")
		}
		out.WriteString(strings.Join(rec, "\t"))
		out.WriteString("\r\n")
	}
	ps, err := ParsePassagesTSV(&out)
	if err != nil {
		t.Fatalf("ParsePassagesTSV(published shape): %v", err)
	}
	if len(ps) != len(clean) {
		t.Fatalf("%d passages, want %d", len(ps), len(clean))
	}
	for i := range ps {
		p, c := ps[i], clean[i]
		if p.Key == "39290" {
			if !strings.Contains(p.Options[3], "per l’unità") || !strings.Contains(p.Options[3], "l’essere") {
				t.Errorf("39290 option D not repaired: %q", p.Options[3])
			}
			continue
		}
		if p.Text != c.Text || p.Options != c.Options || p.Explanation != c.Explanation || len(p.Sentences) != len(c.Sentences) {
			t.Errorf("passage %s differs from the clean sample:\n got %q %q\nwant %q %q", p.Key, p.Text, p.Options, c.Text, c.Options)
		}
	}
}

// splitRecordsForTest re-quotes the sample's records so a test can edit
// fields and write the file back.
func splitRecordsForTest(t *testing.T, b []byte) [][]string {
	t.Helper()
	cr := csv.NewReader(bytes.NewReader(b))
	cr.Comma = '\t'
	recs, err := cr.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		for j, f := range rec {
			if strings.ContainsAny(f, "\"\t\n") {
				rec[j] = `"` + strings.ReplaceAll(f, `"`, `""`) + `"`
			}
		}
	}
	return recs
}

func TestParsePassagesTSVQuoting(t *testing.T) {
	in := sampleHeader +
		"1\tAMOR77-A1.xmi\tImpl_cvrs\tImpl\t-1\t\"Un campo\tcon un tab. E \"\"virgolette\"\".\nE un a capo.\"\tA. Spiegazione.\tA\t" + goodMCs + "\r\n" +
		"2\tADGA46-A1.xmi\tPpp_rel\tPpp\t7\tTesto \"libero\" senza virgolette attorno.\tB. Due.\tB\t" + goodMCs // no final newline
	ps, err := ParsePassagesTSV(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 {
		t.Fatalf("%d passages", len(ps))
	}
	if want := "Un campo\tcon un tab. E \"virgolette\".\nE un a capo."; ps[0].Text != want {
		t.Errorf("text = %q, want %q", ps[0].Text, want)
	}
	if len(ps[0].Sentences) != 3 || ps[0].Period != domain.Period1973 || ps[0].Explanation != "Spiegazione." {
		t.Errorf("passage 1 = %+v", ps[0])
	}
	if ps[1].Text != `Testo "libero" senza virgolette attorno.` || ps[1].Period != domain.Period1946 || ps[1].Topic != 7 || ps[1].Options[2] != "Tre." {
		t.Errorf("passage 2 = %+v", ps[1])
	}
}

func TestParsePassagesTSVPeriodColumnTakesPrecedence(t *testing.T) {
	in := "IMPAQTS_id\tIMPAQTS_file\ttag_simpl_IMPAQTS-PID\ttext\tright_answer\tperiod\n" +
		"1\tADGA46-A1.xmi\tImpl\tUna frase.\tSpiegazione.\t1994-2023\n" +
		"2\tADGA46-A1.xmi\tImpl\tUna frase.\tSpiegazione.\t\n" +
		"3\tsenza-anno\tPpp\tUna frase.\tSpiegazione.\t1980\n" +
		"4\tsenza-anno\tPpp\tUna frase.\tSpiegazione.\t\n"
	ps, err := ParsePassagesTSV(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	got := []string{ps[0].Period, ps[1].Period, ps[2].Period, ps[3].Period}
	want := []string{domain.Period1994, domain.Period1946, domain.Period1973, ""}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: period %q, want %q", i+1, got[i], want[i])
		}
	}
	if ps[0].HasOptions() || ps[0].Topic != -1 {
		t.Errorf("passage without MCs/topic columns = %+v", ps[0])
	}
}

func TestPeriodOfSource(t *testing.T) {
	tests := map[string]string{
		"ADGA46-A1.xmi": domain.Period1946, "MRUM70-A1.xmi": domain.Period1946, "ADGA72-A1.xmi": domain.Period1946,
		"AMOR73-A1.xmi": domain.Period1973, "AMOR77-A1.xmi": domain.Period1973, "AOCC92-A1.xmi": domain.Period1973, "XXXX93-A": domain.Period1973,
		"MMAR94-C1.xmi": domain.Period1994, "ODIL98-A1.xmi": domain.Period1994, "PFAS01-C1.xmi": domain.Period1994,
		"MaMAR18-C2.xmi": domain.Period1994, "ABER22-A1.xmi": domain.Period1994, "XXXX23-A": domain.Period1994,
		"XXXX30-A": "", "ABCD-A1.xmi": "", "": "", "12": "", "A1-B": "",
	}
	for src, want := range tests {
		if got := domain.PeriodOfSource(src); got != want {
			t.Errorf("domain.PeriodOfSource(%q) = %q, want %q", src, got, want)
		}
	}
}

func TestParsePassagesTSVRejects(t *testing.T) {
	row := func(id, kind, text string) string {
		return id + "\tAMOR77-A1.xmi\tImpl_cvrs\t" + kind + "\t-1\t" + text + "\tA. Uno.\tA\t" + goodMCs + "\n"
	}
	ok := row("1", "Impl", "Una frase.")
	tests := []struct {
		name      string
		in        string
		row, line int
		field     string
		msg       string
	}{
		{"unterminated quote", sampleHeader + ok + "2\tAMOR77-A1.xmi\tImpl_cvrs\tImpl\t-1\t\"Non chiusa.\tA. Uno.\tA\tA. x\n", 2, 6, "text", "quote opened on line 6 is never closed"},
		{"unterminated quote before another quoted field", sampleHeader + ok + row("2", "Impl", "\"Non chiusa. Mai."), 2, 6, "text", "followed by \"A. Uno.\""},
		{"quote closed early", sampleHeader + row("1", "Impl", "\"Una\" frase.") + ok, 1, 2, "text", "followed by"},
		{"missing column in header", strings.Replace(sampleHeader, "\ttext", "", 1) + ok, 0, 1, "text", "missing column"},
		{"missing field in row", sampleHeader + "1\tAMOR77-A1.xmi\tImpl_cvrs\tImpl\t-1\tUna frase.\tA. Uno.\tA\n", 1, 2, "", "has 8 fields but the header has 9"},
		{"empty text", sampleHeader + ok + row("2", "Impl", "  "), 2, 6, "text", "is empty"},
		{"empty quoted text", sampleHeader + row("2", "Impl", `""`), 1, 2, "text", "is empty"},
		{"bad kind", sampleHeader + row("1", "Imp", "Una frase."), 1, 2, "tag_simpl_IMPAQTS-PID", `"Imp"`},
		{"duplicate id", sampleHeader + ok + ok, 2, 6, "IMPAQTS_id", "first on row 1"},
		{"bad topic", sampleHeader + strings.Replace(ok, "\t-1\t", "\tx\t", 1), 1, 2, "topic", "not an integer"},
		{"three options", sampleHeader + strings.Replace(ok, "\nD. Quattro.", "", 1), 1, 2, "MCs", "four (A–D)"},
		{"answer letter", sampleHeader + strings.Replace(ok, "\tA\t", "\tE\t", 1), 1, 2, "right_answer_id", `"E"`},
		{"NUL in a text", sampleHeader + ok + row("2", "Impl", "Una\x00frase."), 2, 6, "text", "character 4 is the control character U+0000 (NUL)"},
		{"escape in an id", sampleHeader + row("1\x1b", "Impl", "Una frase."), 1, 2, "IMPAQTS_id", "U+001B"},
		{"no rows", sampleHeader, 0, 1, "", "no passages"},
		{"empty file", "", 0, 1, "", "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps, err := ParsePassagesTSV(strings.NewReader(tt.in))
			if err == nil || ps != nil {
				t.Fatalf("accepted: %d passages, err %v", len(ps), err)
			}
			var ie *ImportError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v is not an *ImportError", err)
			}
			if ie.Row != tt.row || ie.Line != tt.line || ie.Field != tt.field || !strings.Contains(ie.Msg, tt.msg) {
				t.Errorf("error = %q (row %d line %d field %q), want row %d line %d field %q containing %q",
					err, ie.Row, ie.Line, ie.Field, tt.row, tt.line, tt.field, tt.msg)
			}
		})
	}
}

func TestParsePassagesTSVReportsEveryBadRow(t *testing.T) {
	in := sampleHeader
	for i := range 30 {
		in += string(rune('a'+i)) + "\tX-1\tT\tBad\t-1\tTesto.\tA. Uno.\tA\t" + goodMCs + "\n"
	}
	_, err := ParsePassagesTSV(strings.NewReader(in))
	if err == nil {
		t.Fatal("accepted")
	}
	msg := err.Error()
	if n := strings.Count(msg, `field "tag_simpl_IMPAQTS-PID"`); n != maxImportErrors {
		t.Errorf("reported %d bad rows, want the first %d:\n%s", n, maxImportErrors, msg)
	}
	if !strings.Contains(msg, "row 1 (line 2)") || !strings.Contains(msg, "stopped after 20 bad rows") {
		t.Errorf("message lacks the first row or the stop note:\n%s", msg)
	}
}

// goodCSV is a small valid items file (three items, one a check).
var goodCSV = func() string {
	b, err := os.ReadFile("testdata/items-good.csv")
	if err != nil {
		panic(err)
	}
	return string(b)
}()

// An option's letter alone on its line, its text on the next: the text is
// the option's, without the line break before it (found by fuzzing).
func TestParsePassagesTSVOptionLetterAlone(t *testing.T) {
	in := sampleHeader + "1\tAMOR77-A1.xmi\tImpl_cvrs\tImpl\t-1\tTesto.\tA. Uno.\tA\t\"A.\nUno.\nB. Due.\nC.\n\nTre,\nsu due righe.\nD. Quattro.\"\n"
	ps, err := ParsePassagesTSV(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if want := [4]string{"Uno.", "Due.", "Tre,\nsu due righe.", "Quattro."}; ps[0].Options != want {
		t.Errorf("options = %q, want %q", ps[0].Options, want)
	}
}
