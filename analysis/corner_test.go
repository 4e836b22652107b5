package analysis

import (
	"errors"
	"pragmalab/domain"
	"strings"
	"testing"
)

// The corner cases of docs/statistics.md#conventions and
// docs/formats.md#analysis-input-files, each as a user would meet it.

func TestMeanZZeroUpToRoundingIsNotRecognised(t *testing.T) {
	// 6.7e-16 is what averaging z-scores that cancel exactly gives in
	// floating point; it must not count as a recognised implicature.
	items := []ItemMeans{{ID: "a", Type: "scalar"}, {ID: "b", Type: "scalar"}}
	for i := range items {
		for c := range numConditions {
			items[i].MeanZ[c] = 0
		}
		items[i].N[Trigger], items[i].N[Cancel] = 2, 2
	}
	items[0].MeanZ[Trigger], items[0].MeanZ[Cancel] = 6.7e-16, 0
	items[1].MeanZ[Trigger], items[1].MeanZ[Cancel] = 0.5, 0.5-3e-16
	tt := typeToplines(items, domain.TypeAll)
	if tt.ImplicatureRecognition == nil || *tt.ImplicatureRecognition != 0.5 {
		t.Errorf("implicature recognition = %s, want 0.5 (6.7e-16 is zero)", fmtPtr(tt.ImplicatureRecognition))
	}
	if tt.CancellationRecognition == nil || *tt.CancellationRecognition != 0 {
		t.Errorf("cancellation recognition = %s, want 0 (differences of 1e-16 are none)", fmtPtr(tt.CancellationRecognition))
	}
}

func TestNamedAllIsAnInputError(t *testing.T) {
	for _, tc := range []struct {
		name, csv, column string
		read              func(string) error
	}{
		{"explanation kind", "annotator_id,item_id,kind,strategy,judgment\ne1,i1,all,zero-shot,totally_correct\n", "kind",
			func(s string) error { _, err := ReadExplanationRatings(strings.NewReader(s)); return err }},
		{"explanation strategy", "annotator_id,item_id,kind,strategy,judgment\ne1,i1,Impl,all,totally_correct\n", "strategy",
			func(s string) error { _, err := ReadExplanationRatings(strings.NewReader(s)); return err }},
		{"explanation model", "annotator_id,item_id,kind,strategy,judgment,model\ne1,i1,Impl,zs,totally_correct,all\n", "model",
			func(s string) error { _, err := ReadExplanationRatings(strings.NewReader(s)); return err }},
		{"judgement type", "annotator_id,item_id,item_type,plausible,cancellation_correct\na,i1,all,yes,yes\n", "item_type",
			func(s string) error { _, err := ReadJudgements(strings.NewReader(s)); return err }},
		{"context period", "annotator_id,survey_id,item_id,kind,period,sentences,sufficient\ne1,S1,i1,Impl,all,0,yes\n", "period",
			func(s string) error { _, err := ReadContextAnswers(strings.NewReader(s)); return err }},
	} {
		var ie *InputError
		if err := tc.read(tc.csv); !errors.As(err, &ie) || ie.Line != 2 || ie.Column != tc.column || !strings.Contains(ie.Msg, "reserved") {
			t.Errorf("%s: err = %v, want line 2 column %q reserved", tc.name, err, tc.column)
		}
	}
	// A model named like a kind is fine, and the pooled rows stay apart.
	rs, err := ReadExplanationRatings(strings.NewReader("annotator_id,item_id,kind,strategy,judgment,model\n" +
		"e1,i1,Impl,zs,totally_correct,m1\ne1,i1,Impl,zs,totally_wrong,m2\ne1,i2,Ppp,zs,totally_wrong,m1\n"))
	if err != nil {
		t.Fatal(err)
	}
	e := ComputeExplanations(rs)
	if e.Table[domain.TypeAll][domain.TypeAll].N != 3 || e.ByModel["m1"].Table[domain.TypeAll][domain.TypeAll].N != 2 || e.ByModel["m2"].Table["Impl"]["zs"].Counts[3] != 1 {
		t.Errorf("pooled %d, m1 %d", e.Table[domain.TypeAll][domain.TypeAll].N, e.ByModel["m1"].Table[domain.TypeAll][domain.TypeAll].N)
	}
}

func TestChecksOnlyParticipantsListedApart(t *testing.T) {
	csv := ratingsHeader + "pC,B,chk1,,trigger,6,high\npC,B,chk2,,trigger,2,low\n" +
		"pK,B,s1,scalar,trigger,4,\npK,B,s2,scalar,cancel,4,\n" +
		"pA,B,s1,scalar,trigger,6,\npA,B,s2,scalar,cancel,2,\n"
	rs, err := ReadRatings(strings.NewReader(csv))
	if err != nil {
		t.Fatal(err)
	}
	top := ComputeToplines(rs, DefaultOptions())
	ps := top.Participants
	if strings.Join(ps.ChecksOnly, ",") != "pC" || strings.Join(ps.ZeroVariance, ",") != "pK" || ps.Analysed != 1 {
		t.Errorf("checks only %v, zero variance %v, analysed %d", ps.ChecksOnly, ps.ZeroVariance, ps.Analysed)
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
		{"same item, two conditions", ratingsHeader + "p1,B,s1,scalar,trigger,5,\np1,B,s2,scalar,trigger,5,\np1,B,s1,scalar,cancel,2,\n",
			"item_id", `already rated item "s1" in condition trigger on line 2`, 4},
		{"participant id not UTF-8", ratingsHeader + "p\xe91,B,s1,scalar,trigger,5,\n", "participant_id", "not valid UTF-8", 2},
		{"item id not UTF-8", ratingsHeader + "p1,B,caf\xe9,scalar,trigger,5,\n", "item_id", "not valid UTF-8", 2},
	} {
		_, err := ReadRatings(strings.NewReader(tc.csv))
		var ie *InputError
		if !errors.As(err, &ie) || ie.Line != tc.line || ie.Column != tc.column || !strings.Contains(ie.Msg, tc.msg) {
			t.Errorf("%s: err = %v, want line %d column %q %q", tc.name, err, tc.line, tc.column, tc.msg)
		}
	}
	// A within-participant design is read when asked for.
	if _, err := ReadRatingsWith(strings.NewReader(ratingsHeader+"p1,B,s1,scalar,trigger,5,\np1,B,s1,scalar,cancel,2,\n"), ReadOptions{WithinParticipant: true}); err != nil {
		t.Errorf("within-participant: %v", err)
	}
	// Non-UTF-8 ids fail the other files too.
	if _, err := ReadJudgements(strings.NewReader("annotator_id,item_id,item_type,plausible,cancellation_correct\n\xffa,i1,scalar,yes,yes\n")); err == nil {
		t.Error("judgements: a non-UTF-8 annotator id was accepted")
	}
}
