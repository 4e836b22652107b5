package itemfiles

// Fuzz tests of the file importers. `go test ./studies` replays the seeds
// (the f.Add calls and testdata/fuzz/FuzzXxx/); docs/testing.md says how to
// fuzz further. Each target checks what a researcher would notice: a file is
// either accepted with items that are valid and survive export → import, or
// refused with a message naming a line of the file — never a panic.

import (
	"bytes"
	"encoding/csv"
	"errors"
	"path/filepath"
	"pragmalab/domain"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// lineOf matches the "line N" a message of the item and outputs importers
// starts with.
var lineOf = regexp.MustCompile(`^line (\d+)[:,] `)

// numLines is the number of lines of data: its last line need not end in a
// line break.
func numLines(data []byte) int { return bytes.Count(data, []byte("\n")) + 1 }

// checkInvalid fails unless err is a store EINVALID error whose message
// names a line of data, or is one of the whole-file messages.
func checkInvalid(t *testing.T, err error, data []byte, wholeFile ...string) {
	t.Helper()
	if code := domain.ErrorCode(err); code != domain.EINVALID {
		t.Fatalf("error %q has code %s, want %s", err, code, domain.EINVALID)
	}
	msg := domain.ErrorMessage(err)
	if m := lineOf.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		if n < 1 || n > numLines(data) {
			t.Fatalf("error %q names line %d; the file has %d lines", msg, n, numLines(data))
		}
		return
	}
	for _, w := range wholeFile {
		if msg == w {
			return
		}
	}
	t.Fatalf("error %q names no line and is not about the whole file", msg)
}

var itemWholeFile = []string{"the file is empty", "the file has a header but no items"}

// checkItems checks accepted items: at least one, each valid as it stands
// (Validate changes nothing, so the import normalised it once and for all),
// ids unique, and the same items back after writing them as CSV and as JSON
// Lines.
func checkItems(t *testing.T, items []domain.Item) {
	t.Helper()
	if len(items) == 0 {
		t.Fatal("no error and no items")
	}
	seen := map[string]bool{}
	for i, it := range items {
		again := it
		if err := again.Validate(); err != nil {
			t.Fatalf("item %d %+v was accepted but does not validate: %v", i+1, it, err)
		}
		if !reflect.DeepEqual(again, it) {
			t.Fatalf("item %d changes when validated again:\n got %+v\nthen %+v", i+1, it, again)
		}
		if seen[it.Key] {
			t.Fatalf("item id %q accepted twice", it.Key)
		}
		seen[it.Key] = true
	}
	var buf bytes.Buffer
	if err := WriteItemsCSV(&buf, items); err != nil {
		t.Fatal(err)
	}
	back, err := ParseItemsCSV(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("the items written as CSV do not import again: %v\n%q", err, buf.Bytes())
	}
	if !reflect.DeepEqual(back, items) {
		t.Fatalf("CSV round trip changed the items:\n got %+v\nwant %+v", back, items)
	}
	buf.Reset()
	if err := WriteItemsJSONL(&buf, items); err != nil {
		t.Fatal(err)
	}
	back, err = ParseItemsJSONL(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("the items written as JSON Lines do not import again: %v\n%q", err, buf.Bytes())
	}
	if !reflect.DeepEqual(back, items) {
		t.Fatalf("JSON Lines round trip changed the items:\n got %+v\nwant %+v", back, items)
	}
}

func FuzzParseItemsCSV(f *testing.F) {
	f.Add([]byte(goodCSV))
	f.Add([]byte("\xef\xbb\xbf" + goodCSV))
	f.Add([]byte("ID, Type ,utterance,implicature,cancellation\r\nn1,NATURAL,\"He said \"\"fine\"\".\",\"She is\nnot fine.\",She is.\r\n\r\n"))
	f.Add([]byte("id,type,utterance,implicature,cancellation\ns1,scalar,u,i,c\ns1,scalar,u2,i2,c2\n"))
	f.Add([]byte("id,type,context,utterance,implicature,cancellation\ns1,scalar,,\"u,i,c\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		items, err := ParseItemsCSV(bytes.NewReader(data))
		if err != nil {
			checkInvalid(t, err, data, itemWholeFile...)
			return
		}
		checkItems(t, items)
	})
}

func FuzzParseItemsJSONL(f *testing.F) {
	f.Add([]byte(`{"id":"s1","type":"scalar","context":"","utterance":"Some guests left.","implicature":"Not all guests left.","cancellation":"In fact all did."}` + "\n" +
		`{"id":7,"type":"Discourse","utterance":"Sales fell.","implicature":"Because rates rose.","cancellation":"Another cause.","negation":null,"check":"LOW"}` + "\r\n"))
	f.Add([]byte("\xef\xbb\xbf" + `{"id":"a","type":"natural","utterance":"u\u00e8","implicature":"i\n2","cancellation":"c"}`))
	f.Add([]byte(`{"id":"a","type":"scalar","utterance":"u","cancellation":"c"}` + "\n"))
	f.Add([]byte(`{"id":"a","type":"scalar","utterance":"u","implicature":"i","cancellation":"c"}` + "\n{nope\n"))
	f.Add([]byte(`{"id":"a","type":"scalar","utterance":"u","implicature":"i","cancellation":"c","colour":"red"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		items, err := ParseItemsJSONL(bytes.NewReader(data))
		if err != nil {
			checkInvalid(t, err, data, itemWholeFile...)
			// Fields are looked at in a fixed order, so the message is too.
			for range 3 {
				if _, again := ParseItemsJSONL(bytes.NewReader(data)); again.Error() != err.Error() {
					t.Fatalf("the same file gets two messages: %q, then %q", err, again)
				}
			}
			return
		}
		checkItems(t, items)
	})
}

// FuzzParseItemFile checks the choice of format: the file's extension when
// it names one, else its first character; the result is exactly what the
// parser of that format gives.
func FuzzParseItemFile(f *testing.F) {
	jsonl := `{"id":"a","type":"scalar","utterance":"u","implicature":"i","cancellation":"c"}` + "\n"
	f.Add("items.csv", []byte(goodCSV))
	f.Add("items.jsonl", []byte(jsonl))
	f.Add("items.txt", []byte("\xef\xbb\xbf \n"+jsonl))
	f.Add("ITEMS.JSON", []byte(goodCSV))
	f.Add("items", []byte(goodCSV))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		items, err := ParseItemFile(name, bytes.NewReader(data))
		csvItems, csvErr := ParseItemsCSV(bytes.NewReader(data))
		jsonItems, jsonErr := ParseItemsJSONL(bytes.NewReader(data))
		same := func(it []domain.Item, e error) bool {
			return reflect.DeepEqual(items, it) && (err == nil) == (e == nil) && (err == nil || err.Error() == e.Error())
		}
		var want string
		switch strings.ToLower(filepath.Ext(name)) {
		case ".csv":
			want = "csv"
		case ".jsonl", ".json", ".ndjson":
			want = "jsonl"
		}
		switch {
		case want == "csv" && !same(csvItems, csvErr):
			t.Fatalf("%q: not read as CSV: %v", name, err)
		case want == "jsonl" && !same(jsonItems, jsonErr):
			t.Fatalf("%q: not read as JSON Lines: %v", name, err)
		case !same(csvItems, csvErr) && !same(jsonItems, jsonErr):
			t.Fatalf("%q: read as neither CSV nor JSON Lines: %v", name, err)
		}
	})
}

// FuzzParsePassagesTSV checks the IMPAQTS TSV reader: every error is an
// *ImportError naming a line of the file; every accepted passage is valid,
// clean UTF-8 and split into its sentences.
func FuzzParsePassagesTSV(f *testing.F) {
	f.Add([]byte(sampleHeader + "1\tADGA46-A1.xmi\tImpl_cvrs\tImpl\t3\tPrima frase. Seconda frase.\tA. Uno.\tA\t" + goodMCs + "\n"))
	f.Add([]byte("\uFEFF" + sampleHeader + "2\tABER22-A1.xmi\tPpp_rel\tPpp\t-1\t\"Disse: \"\"basta\"\".\r\nPoi usc\x92.\"\tSpiegazione\t\t\r\n\r\n"))
	f.Add([]byte(sampleHeader + "3\tX\tT\tImpl\t1\t\"aperta\tB\t\t\n"))
	f.Add([]byte("IMPAQTS_id\tIMPAQTS_file\ttag_simpl_IMPAQTS-PID\ttext\tright_answer\tperiod\n4\tf\tImpl\tTesto.\tSpiegazione.\t1994\n4\tf\tImpl\tTesto.\tSpiegazione.\t1985\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, err := ParsePassagesTSV(bytes.NewReader(data))
		if err != nil {
			checkImportErrors(t, err, data)
			return
		}
		if len(ps) == 0 {
			t.Fatal("no error and no passages")
		}
		seen := map[string]bool{}
		for _, p := range ps {
			if err := p.Validate(); err != nil {
				t.Fatalf("passage %q accepted but invalid: %v", p.Key, err)
			}
			if seen[p.Key] {
				t.Fatalf("passage id %q accepted twice", p.Key)
			}
			seen[p.Key] = true
			for _, s := range append([]string{p.Key, p.Tag, p.Kind, p.Source, p.Text, p.Explanation, p.Answer}, p.Options[:]...) {
				if !utf8.ValidString(s) || strings.ContainsRune(s, '\uFEFF') || s != strings.TrimSpace(s) {
					t.Fatalf("passage %q: field %q is not clean, trimmed UTF-8", p.Key, s)
				}
			}
			if !reflect.DeepEqual(p.Sentences, SplitSentences(p.Text)) {
				t.Fatalf("passage %q: sentences %q are not the text's", p.Key, p.Sentences)
			}
		}
	})
}

// checkImportErrors fails unless err is one or more *ImportError naming
// lines of data (joined), possibly followed by the note that reading stopped.
func checkImportErrors(t *testing.T, err error, data []byte) {
	t.Helper()
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for i, e := range errs {
		var ie *ImportError
		if !errors.As(e, &ie) {
			if i == len(errs)-1 && i > 0 && e.Error() == "stopped after 20 bad rows" {
				continue
			}
			t.Fatalf("error %q (%T) is not an *ImportError", e, e)
		}
		if ie.Line < 1 || ie.Line > numLines(data) || ie.Row < 0 || ie.Msg == "" {
			t.Fatalf("error %q: line %d, row %d; the file has %d lines", ie, ie.Line, ie.Row, numLines(data))
		}
	}
}

// FuzzParseOutputsCSV checks the model outputs reader: errors name a line,
// accepted outputs are valid and survive being written back as CSV.
func FuzzParseOutputsCSV(f *testing.F) {
	f.Add([]byte("model,item_id,strategy,output\nm1,22185,zero-shot,\"Gli altri, dice, svendono.\"\nm1,37246,few-shot,\n"))
	f.Add([]byte("\uFEFFitem_id,strategy,model,output,extra\r\n41290, cot ,gemma-3,\"Riga uno\r\nriga due\",x\r\n"))
	f.Add([]byte("item_id,strategy,model,output\n1,a,m\n"))
	f.Add([]byte("item_id,strategy,model,output\n,a,m,b\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		outs, err := ParseOutputsCSV(bytes.NewReader(data))
		if err != nil {
			checkInvalid(t, err, data, "the outputs file is empty", "no outputs after the header")
			return
		}
		if len(outs) == 0 {
			t.Fatal("no error and no outputs")
		}
		header, _ := csv.NewReader(bytes.NewReader(data)).Read()
		for _, c := range domain.OutputColumns {
			n := 0
			for _, h := range header {
				if strings.TrimSpace(strings.TrimPrefix(h, "\uFEFF")) == c {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("accepted a header with column %q %d times: %q", c, n, header)
			}
		}
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		w.Write(domain.OutputColumns)
		for i, o := range outs {
			again := o
			if err := again.Validate(); err != nil || again != o {
				t.Fatalf("output %d %+v accepted but not valid as it stands (%v, %+v)", i+1, o, err, again)
			}
			for _, s := range []string{o.ItemKey, o.Strategy, o.Model, o.Output} {
				if !utf8.ValidString(s) {
					t.Fatalf("output %d: %q is not UTF-8", i+1, s)
				}
			}
			w.Write([]string{o.ItemKey, o.Strategy, o.Model, o.Output})
		}
		w.Flush()
		back, err := ParseOutputsCSV(&buf)
		if err != nil {
			t.Fatalf("the outputs written back do not import: %v", err)
		}
		if !reflect.DeepEqual(back, outs) {
			t.Fatalf("CSV round trip changed the outputs:\n got %+v\nwant %+v", back, outs)
		}
	})
}

// FuzzSplitSentences checks the splitter's contract: no empty or untrimmed
// sentence, the sentences are the text's non-space characters in order, and
// splitting them again, joined by single spaces, gives the same sentences.
func FuzzSplitSentences(f *testing.F) {
	for _, s := range []string{
		"Ha parlato l'on. Moro. Poi Fanfani.",
		"Lo dice l'art. 87 della Costituzione e la legge n. 240 del 2010. Basta.",
		"Scrive: «Caro senatore, la questione è aperta (...)». Era inverno.",
		"Disse: “Basta così. A domani”. Poi uscì.",
		"Non è successo neanche questo… Presidente, ho detto “irrilevanza”!",
		"Il d.P.R. 616 lo prevede. Sono 1.000 euro. Perché? perché lo dico io.",
		"  \n ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got := SplitSentences(text)
		var joined strings.Builder
		for i, s := range got {
			if s == "" || s != strings.TrimSpace(s) {
				t.Fatalf("sentence %d of %q is %q: empty or untrimmed", i, text, s)
			}
			joined.WriteString(s)
		}
		if a, b := dropSpace(joined.String()), dropSpace(text); a != b {
			t.Fatalf("sentences %q of %q do not cover its characters:\n got %q\nwant %q", got, text, a, b)
		}
		if again := SplitSentences(strings.Join(got, " ")); !reflect.DeepEqual(again, got) {
			t.Fatalf("%q splits into %q, but those joined split into %q", text, got, again)
		}
	})
}

// dropSpace removes what strings.TrimSpace would trim, wherever it is, and
// keeps every other byte (invalid UTF-8 too) as it is.
func dropSpace(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
