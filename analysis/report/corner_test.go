package report

import (
	"errors"
	"pragmalab/analysis"
	"pragmalab/analysis/agreement"
	"pragmalab/analysis/contextsurvey"
	"pragmalab/analysis/internal/atest"
	"pragmalab/analysis/modelhuman"
	"pragmalab/analysis/toplines"
	"pragmalab/domain"
	"strings"
	"testing"
)

// The corner cases of docs/statistics.md#conventions and
// docs/formats.md#analysis-input-files, each as a user would meet it.

func TestMeanZZeroUpToRoundingIsNotRecognised(t *testing.T) {
	// 6.7e-16 is what averaging z-scores that cancel exactly gives in
	// floating point; it must not count as a recognised implicature.
	items := []toplines.ItemMeans{{ID: "a", Type: "scalar"}, {ID: "b", Type: "scalar"}}
	for i := range items {
		for c := range toplines.NumConditions {
			items[i].MeanZ[c] = 0
		}
		items[i].N[toplines.Trigger], items[i].N[toplines.Cancel] = 2, 2
	}
	items[0].MeanZ[toplines.Trigger], items[0].MeanZ[toplines.Cancel] = 6.7e-16, 0
	items[1].MeanZ[toplines.Trigger], items[1].MeanZ[toplines.Cancel] = 0.5, 0.5-3e-16
	tt := toplines.TypeToplinesOf(items, domain.TypeAll)
	if tt.ImplicatureRecognition == nil || *tt.ImplicatureRecognition != 0.5 {
		t.Errorf("implicature recognition = %s, want 0.5 (6.7e-16 is zero)", atest.FmtPtr(tt.ImplicatureRecognition))
	}
	if tt.CancellationRecognition == nil || *tt.CancellationRecognition != 0 {
		t.Errorf("cancellation recognition = %s, want 0 (differences of 1e-16 are none)", atest.FmtPtr(tt.CancellationRecognition))
	}
}

func TestPooledNamesAreInputErrors(t *testing.T) {
	expl := func(s string) error { _, err := modelhuman.ReadExplanationRatings(strings.NewReader(s)); return err }
	judg := func(s string) error { _, err := agreement.ReadJudgements(strings.NewReader(s)); return err }
	ctx := func(s string) error { _, err := contextsurvey.ReadContextAnswers(strings.NewReader(s)); return err }
	rat := func(s string) error { _, err := toplines.ReadRatings(strings.NewReader(s)); return err }
	for _, name := range []string{"all", "ALL", "All", "overall", "Overall", "OVERALL"} {
		for _, tc := range []struct {
			what, csv, column string
			read              func(string) error
		}{
			{"explanation kind", "annotator_id,item_id,kind,strategy,judgment\ne1,i0,Impl,zs,totally_correct\ne1,i1,%s,zero-shot,totally_correct\n", "kind", expl},
			{"explanation strategy", "annotator_id,item_id,kind,strategy,judgment\ne1,i0,Impl,zs,totally_correct\ne1,i1,Impl,%s,totally_correct\n", "strategy", expl},
			{"explanation model", "annotator_id,item_id,kind,strategy,judgment,model\ne1,i0,Impl,zs,totally_correct,m\ne1,i1,Impl,zs,totally_correct,%s\n", "model", expl},
			{"judgement type", "annotator_id,item_id,item_type,plausible,cancellation_correct\na,i0,scalar,yes,yes\na,i1,%s,yes,yes\n", "item_type", judg},
			{"context survey", "annotator_id,survey_id,item_id,kind,period,sentences,sufficient\ne1,S1,i0,Impl,p,0,yes\ne1,%s,i1,Impl,p,0,yes\n", "survey_id", ctx},
			{"context period", "annotator_id,survey_id,item_id,kind,period,sentences,sufficient\ne1,S1,i0,Impl,p,0,yes\ne1,S1,i1,Impl,%s,0,yes\n", "period", ctx},
			{"rating type", atest.RatingsHeader + "p1,B,s0,scalar,trigger,5,\np1,B,s1,%s,trigger,5,\n", "item_type", rat},
		} {
			var ie *analysis.InputError
			err := tc.read(strings.ReplaceAll(tc.csv, "%s", name))
			if !errors.As(err, &ie) || ie.Line != 3 || ie.Column != tc.column || !strings.Contains(ie.Msg, "reserved") || !strings.Contains(ie.Msg, `"`+name+`"`) {
				t.Errorf("%s %q: err = %v, want line 3 column %q: %q reserved", tc.what, name, err, tc.column, name)
			}
		}
	}
	if err := expl("annotator_id,item_id,kind,strategy,judgment\ne1,i1,By_Model,zs,totally_correct\n"); err == nil || !strings.Contains(err.Error(), "reserved") {
		t.Errorf("kind By_Model: err = %v, want reserved", err)
	}
	// A model named like a kind is fine, and the pooled rows stay apart.
	rs, err := modelhuman.ReadExplanationRatings(strings.NewReader("annotator_id,item_id,kind,strategy,judgment,model\n" +
		"e1,i1,Impl,zs,totally_correct,m1\ne1,i1,Impl,zs,totally_wrong,m2\ne1,i2,Ppp,zs,totally_wrong,m1\n"))
	if err != nil {
		t.Fatal(err)
	}
	e := modelhuman.ComputeExplanations(rs)
	if e.Table[domain.TypeAll][domain.TypeAll].N != 3 || e.ByModel["m1"].Table[domain.TypeAll][domain.TypeAll].N != 2 || e.ByModel["m2"].Table["Impl"]["zs"].Counts[3] != 1 {
		t.Errorf("pooled %d, m1 %d", e.Table[domain.TypeAll][domain.TypeAll].N, e.ByModel["m1"].Table[domain.TypeAll][domain.TypeAll].N)
	}
}

func TestTablesListTypesInTheDocumentedOrder(t *testing.T) {
	js, err := agreement.ReadJudgements(strings.NewReader("annotator_id,item_id,item_type,plausible,cancellation_correct\n" +
		"a,n1,natural,yes,yes\nb,n1,natural,yes,no\na,x1,zebra,yes,yes\nb,x1,zebra,no,\na,s1,synthetic,no,\nb,s1,synthetic,no,\n" +
		"a,d1,discourse,yes,yes\nb,d1,discourse,yes,yes\na,c1,scalar,yes,no\nb,c1,scalar,yes,no\na,e1,apple,yes,yes\nb,e1,apple,yes,yes\n"))
	if err != nil {
		t.Fatal(err)
	}
	a := agreement.ComputeAgreementWith(js, analysis.Bootstrap{})
	want := "scalar discourse synthetic natural zebra apple all"
	if got := strings.Join(a.TypeOrder, " "); got != want {
		t.Errorf("agreement types %q, want %q", got, want)
	}
	var rows []string
	for i, r := range AgreementIntervalsTable(a).Rows {
		if i%2 == 0 {
			rows = append(rows, r[0].(string))
		}
	}
	if got := strings.Join(rows, " "); got != want {
		t.Errorf("agreement_intervals rows %q, want %q", got, want)
	}
	rs, err := modelhuman.ReadExplanationRatings(strings.NewReader("annotator_id,item_id,kind,strategy,judgment\n" +
		"e1,i1,natural,zs,totally_correct\ne1,i2,Impl,zs,totally_wrong\ne1,i3,scalar,fs,totally_wrong\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(modelhuman.ComputeExplanations(rs).KindOrder, " "); got != "scalar natural Impl all" {
		t.Errorf("explanation kinds %q, want scalar natural Impl all", got)
	}
}

func TestChecksOnlyParticipantsListedApart(t *testing.T) {
	csv := atest.RatingsHeader + "pC,B,chk1,,trigger,6,high\npC,B,chk2,,trigger,2,low\n" +
		"pK,B,s1,scalar,trigger,4,\npK,B,s2,scalar,cancel,4,\n" +
		"pA,B,s1,scalar,trigger,6,\npA,B,s2,scalar,cancel,2,\n"
	rs, err := toplines.ReadRatings(strings.NewReader(csv))
	if err != nil {
		t.Fatal(err)
	}
	top := toplines.ComputeToplines(rs, toplines.DefaultOptions())
	ps := top.Participants
	if strings.Join(ps.ChecksOnly, ",") != "pC" || strings.Join(ps.ZeroVariance, ",") != "pK" || ps.Analysed != 1 {
		t.Errorf("checks only %v, zero variance %v, analysed %d", ps.ChecksOnly, ps.ZeroVariance, ps.Analysed)
	}
	if note := ToplinesTable(top).Notes[0]; !strings.Contains(note, "3 in the file, 0 excluded") || !strings.Contains(note, "1 with constant ratings (no z-scores), 1 with attention checks only, 1 analysed") {
		t.Errorf("participants note %q does not add up to 3", note)
	}
	if got := ParticipantsTable(top).Rows[0][4]; got != "attention checks only" {
		t.Errorf("status of pC = %v", got)
	}
}

func TestRatingsInputErrorsOfIssue12(t *testing.T) {
	for _, tc := range []struct {
		name, csv, column, msg string
		line                   int
	}{
		{"same item, two conditions", atest.RatingsHeader + "p1,B,s1,scalar,trigger,5,\np1,B,s2,scalar,trigger,5,\np1,B,s1,scalar,cancel,2,\n",
			"item_id", `already rated item "s1" in condition trigger on line 2`, 4},
		{"participant id not UTF-8", atest.RatingsHeader + "p\xe91,B,s1,scalar,trigger,5,\n", "participant_id", "not valid UTF-8", 2},
		{"item id not UTF-8", atest.RatingsHeader + "p1,B,caf\xe9,scalar,trigger,5,\n", "item_id", "not valid UTF-8", 2},
	} {
		_, err := toplines.ReadRatings(strings.NewReader(tc.csv))
		var ie *analysis.InputError
		if !errors.As(err, &ie) || ie.Line != tc.line || ie.Column != tc.column || !strings.Contains(ie.Msg, tc.msg) {
			t.Errorf("%s: err = %v, want line %d column %q %q", tc.name, err, tc.line, tc.column, tc.msg)
		}
	}
	// A within-participant design is read when asked for.
	if _, err := toplines.ReadRatingsWith(strings.NewReader(atest.RatingsHeader+"p1,B,s1,scalar,trigger,5,\np1,B,s1,scalar,cancel,2,\n"), toplines.ReadOptions{WithinParticipant: true}); err != nil {
		t.Errorf("within-participant: %v", err)
	}
	// Non-UTF-8 ids fail the other files too.
	if _, err := agreement.ReadJudgements(strings.NewReader("annotator_id,item_id,item_type,plausible,cancellation_correct\n\xffa,i1,scalar,yes,yes\n")); err == nil {
		t.Error("judgements: a non-UTF-8 annotator id was accepted")
	}
}

// TestItemMeansSortedByID: the per-item table lists items by id, numbers
// in ids read as numbers (docs/statistics.md#toplines), whatever the file's order or type.
func TestItemMeansSortedByID(t *testing.T) {
	rs, err := toplines.ReadRatings(strings.NewReader(atest.RatingsHeader + "p1,B,n1,natural,trigger,5,\np1,B,s10,scalar,trigger,2,\np1,B,d1,discourse,trigger,6,\np1,B,s2,scalar,cancel,3,\np1,B,s02,scalar,cancel,4,\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range ItemMeansTable(toplines.ComputeToplines(rs, toplines.DefaultOptions())).Rows {
		got = append(got, r[0].(string))
	}
	if strings.Join(got, " ") != "d1 n1 s02 s2 s10" {
		t.Errorf("item_means rows %v, want d1 n1 s02 s2 s10", got)
	}
}
