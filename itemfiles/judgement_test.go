package itemfiles

import (
	"bytes"
	"io"
	"maps"
	"reflect"
	"strings"
	"testing"

	"pragmalab/domain"
)

// judgementSettings is a 5-point German judgement study with the
// conditions kontrolle and zielsatz (docs/studies.md#judgement-study).
func judgementSettings(t *testing.T) domain.CrowdSettings {
	t.Helper()
	s := domain.DefaultJudgementSettings()
	s.Conditions = []string{"kontrolle", "zielsatz"}
	s.ScalePoints = 5
	s.CheckHighMin, s.CheckLowMax = 4, 2
	s.ScaleLabels = map[string]string{"1": "völlig unnatürlich", "5": "völlig natürlich"}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestJudgementItemsFile: the rows of one item id become one judgement
// item with its texts by condition; checks and practice items are one row
// each (docs/items.md#judgement-items). CSV and JSON Lines read alike.
func TestJudgementItemsFile(t *testing.T) {
	rules := JudgementRules{Settings: judgementSettings(t)}
	csvFile := "item,condition,sentence,context,check,training\n" +
		"1,kontrolle,Der Koch hat die Suppe versalzen.,In der Küche:,,\n" +
		"2,zielsatz,Sie hat gestern gelesen das Buch.,,,\n" +
		"1,zielsatz,Der Koch hat die Suppe versalzt.,In der Küche:,,\n" +
		"2,kontrolle,Sie hat gestern das Buch gelesen.,,,\n" +
		"c1,zielsatz,Die Sonne scheint am Tag.,,HIGH,\n" +
		"p1,kontrolle,Das Kind spielt.,,,4–5\n"
	items, err := ParseJudgementItemFile("items.csv", strings.NewReader(csvFile), rules)
	if err != nil {
		t.Fatal(err)
	}
	want := []domain.Item{
		{Key: "1", Type: "judgement", Variants: map[string]domain.Variant{
			"kontrolle": {Context: "In der Küche:", Sentence: "Der Koch hat die Suppe versalzen."},
			"zielsatz":  {Context: "In der Küche:", Sentence: "Der Koch hat die Suppe versalzt."}}},
		{Key: "2", Type: "judgement", Variants: map[string]domain.Variant{
			"zielsatz":  {Sentence: "Sie hat gestern gelesen das Buch."},
			"kontrolle": {Sentence: "Sie hat gestern das Buch gelesen."}}},
		{Key: "c1", Type: "judgement", Check: "high", Variants: map[string]domain.Variant{"zielsatz": {Sentence: "Die Sonne scheint am Tag."}}},
		{Key: "p1", Type: "judgement", Training: "4-5", Variants: map[string]domain.Variant{"kontrolle": {Sentence: "Das Kind spielt."}}},
	}
	if !reflect.DeepEqual(items, want) {
		t.Fatalf("items:\n got %+v\nwant %+v", items, want)
	}
	// Written back, the file reads as the same items; as JSON Lines too.
	var b bytes.Buffer
	if err := WriteJudgementItemsCSV(&b, items, rules.Settings.Conditions); err != nil {
		t.Fatal(err)
	}
	again, err := ParseJudgementItemFile("x.csv", &b, rules)
	if err != nil || !reflect.DeepEqual(again, want) {
		t.Fatalf("written and read again: %+v %v", again, err)
	}
	b.Reset()
	if err := WriteJudgementItemsJSONL(&b, items, rules.Settings.Conditions); err != nil {
		t.Fatal(err)
	}
	if again, err := ParseJudgementItemFile("x.jsonl", &b, rules); err != nil || !reflect.DeepEqual(again, want) {
		t.Fatalf("written as JSON Lines and read again: %+v %v", again, err)
	}
	jsonl := `{"item":1,"condition":"kontrolle","sentence":"A."}` + "\n" + `{"item":"1","condition":"zielsatz","sentence":"B.","context":null}` + "\n" +
		`{"item":"p","condition":"zielsatz","sentence":"C.","training":5}` + "\n"
	items, err = ParseJudgementItemFile("items.jsonl", strings.NewReader(jsonl), rules)
	if err != nil || len(items) != 2 || items[0].Variants["zielsatz"].Sentence != "B." || items[0].Key != "1" || items[1].Training != "5" {
		t.Fatalf("JSON Lines: %+v %v", items, err)
	}
}

// TestJudgementItemsFileRefused: each fault refuses the whole file,
// naming its line and field (docs/items.md#judgement-items).
func TestJudgementItemsFileRefused(t *testing.T) {
	rules := JudgementRules{Settings: judgementSettings(t)}
	const head = "item,condition,sentence,check,training\n"
	pair := "1,kontrolle,A.,,\n1,zielsatz,B.,,\n"
	for _, c := range []struct{ name, file, want string }{
		{"undeclared condition", head + pair + "2,kontrolle,C.,,\n2,target,D.,,\n",
			`line 5, field "condition": item "2" is in the condition "target", which the study does not declare (its conditions: kontrolle, zielsatz)`},
		{"missing condition", head + pair + "2,kontrolle,C.,,\n",
			`line 4, field "condition": item "2" has no sentence in the condition "zielsatz"`},
		{"twice in a condition", head + pair + "1,zielsatz,B2.,,\n",
			`line 4, field "condition": item "1" is given twice in the condition "zielsatz" (first on line 3)`},
		{"check in two conditions", head + pair + "c,kontrolle,C.,high,\nc,zielsatz,D.,,\n",
			`line 5, field "check": item "c" is an attention check and is given in a second condition`},
		{"practice in two conditions", head + pair + "p,kontrolle,C.,,\np,zielsatz,D.,,any\n",
			`line 5, field "training": item "p" is a practice item and is given in a second condition`},
		{"practice range off the scale", head + pair + "p,kontrolle,C.,,6-7\n",
			`line 4, field "training": practice range 6–7 lies outside the 5-point scale`},
		{"practice range the whole scale", head + pair + "p,kontrolle,C.,,1-5\n",
			`line 4, field "training": practice range 1–5 is the whole 5-point scale`},
		{"bad check", head + pair + "c,kontrolle,C.,maybe,\n", `line 4, field "check": unknown value "maybe"`},
		{"empty sentence", head + "1,kontrolle,,,\n1,zielsatz,B.,,\n", `line 2, field "sentence": (condition kontrolle) is empty`},
		{"empty condition", head + "1,,A.,,\n", `line 2, field "condition": is empty`},
		{"implicature column", "item,condition,sentence,utterance\n1,kontrolle,A.,x\n",
			`line 1, field "utterance": is an implicature item's column`},
		{"implicature file", "id,type,utterance,implicature,cancellation\n", `line 1, field "id": is an implicature item's column`},
		{"unknown column", "item,condition,sentence,comment\n", `line 1, field "comment": unknown column`},
		{"missing column", "item,sentence\n1,A.\n", `line 1: missing column "condition"`},
		{"JSON Lines unknown key", `{"item":"1","condition":"kontrolle","sentence":"A.","note":"x"}`, `line 1, field "note": unknown column`},
		{"JSON Lines implicature key", `{"item":"1","condition":"kontrolle","sentence":"A.","implicature":"x"}`, `line 1, field "implicature": is an implicature item's column`},
		{"JSON Lines missing key", `{"item":"1","sentence":"A."}`, `line 1, field "condition": is missing`},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := "items.csv"
			if strings.HasPrefix(c.file, "{") {
				name = "items.jsonl"
			}
			items, err := ParseJudgementItemFile(name, strings.NewReader(c.file), rules)
			if err == nil {
				t.Fatalf("accepted: %+v", items)
			}
			if items != nil {
				t.Errorf("a refused file gave items: %+v", items)
			}
			if got := domain.ErrorMessage(err); !strings.Contains(got, c.want) {
				t.Errorf("message\n got %s\nwant …%s…", got, c.want)
			}
		})
	}
}

// TestJudgementItemsWithoutConditions: a study that names no conditions
// yet refuses its items file saying so, not "undeclared condition" row by
// row (docs/items.md#judgement-items).
func TestJudgementItemsWithoutConditions(t *testing.T) {
	s := domain.DefaultJudgementSettings()
	_, err := ParseJudgementItemFile("i.csv", strings.NewReader("item,condition,sentence\n1,a,A.\n"), JudgementRules{Settings: s})
	if err == nil || !strings.Contains(domain.ErrorMessage(err), "the study names no conditions yet") {
		t.Fatalf("got %v", err)
	}
}

// TestJudgementTemplateImports: the item template of a judgement study
// (docs/items.md#judgement-items) imports into it as it stands, with a
// minimal pair in the study's conditions, a check and a practice item.
func TestJudgementTemplateImports(t *testing.T) {
	for _, conds := range [][]string{{"kontrolle", "zielsatz"}, {"a", "b", "c", "d"}} {
		s := judgementSettings(t)
		s.Conditions = conds
		items, err := ParseJudgementItemFile("t.csv", bytes.NewReader(JudgementTemplateCSV(conds)), JudgementRules{Settings: s})
		if err != nil {
			t.Fatalf("%v: %v", conds, err)
		}
		var pair, check, practice bool
		for _, it := range items {
			pair = pair || (it.IsData() && len(it.Variants) == len(conds))
			check = check || it.Check != ""
			practice = practice || it.Training != ""
		}
		if !pair || !check || !practice {
			t.Errorf("%v: template items %+v lack a pair, check or practice item", conds, items)
		}
		if !bytes.HasPrefix(JudgementTemplateCSV(conds), []byte("item,condition,sentence,context,check,training\n")) {
			t.Errorf("header: %s", JudgementTemplateCSV(conds))
		}
	}
}

// FuzzParseJudgementItems: any file is refused as EINVALID naming a line
// (or the whole file), or gives items that each hold to the study's rules
// as they stand, with unique ids, that read back the same when written
// as CSV and as JSON Lines (docs/formats.md#judgement-items-csv).
func FuzzParseJudgementItems(f *testing.F) {
	f.Add("items.csv", []byte("item,condition,sentence,context,check,training\n1,kontrolle,A.,K:,,\n1,zielsatz,B.,K:,,\nc,kontrolle,C.,,high,\np,zielsatz,D.,,,4-5\n"))
	f.Add("items.csv", []byte("\xef\xbb\xbfItem , CONDITION,sentence\r\n1,zielsatz,\"x,\ny\"\r\n1,kontrolle,=1+1\r\n"))
	f.Add("items.csv", []byte("item,condition,sentence\n1,kontrolle,A.\n1,kontrolle,B.\n"))
	f.Add("items.jsonl", []byte(`{"item":1,"condition":"kontrolle","sentence":"A."}`+"\n"+`{"item":"1","condition":"zielsatz","sentence":"B.","check":null}`+"\n"))
	f.Add("x", []byte(`{"item":"p","condition":"kontrolle","sentence":"A.","training":"any"}`))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		rules := JudgementRules{Settings: judgementSettings(t)}
		items, err := ParseJudgementItemFile(name, bytes.NewReader(data), rules)
		if err != nil {
			checkInvalid(t, err, data, itemWholeFile...)
			return
		}
		if len(items) == 0 {
			t.Fatal("no error and no items")
		}
		seen := map[string]bool{}
		for _, it := range items {
			again := it
			again.Variants = maps.Clone(it.Variants)
			if err := CheckJudgementItem(&again, rules.Settings); err != nil || !reflect.DeepEqual(again, it) {
				t.Fatalf("item %+v was accepted but does not hold as it stands: %v, %+v", it, err, again)
			}
			if seen[it.Key] {
				t.Fatalf("id %q twice", it.Key)
			}
			seen[it.Key] = true
		}
		for _, w := range []struct {
			name  string
			write func(io.Writer, []domain.Item, []string) error
		}{{"x.csv", WriteJudgementItemsCSV}, {"x.jsonl", WriteJudgementItemsJSONL}} {
			var b bytes.Buffer
			if err := w.write(&b, items, rules.Settings.Conditions); err != nil {
				t.Fatal(err)
			}
			back, err := ParseJudgementItemFile(w.name, &b, rules)
			if err != nil || !reflect.DeepEqual(back, items) {
				t.Fatalf("written as %s and read again: %v\n got %+v\nwant %+v", w.name, err, back, items)
			}
		}
	})
}
