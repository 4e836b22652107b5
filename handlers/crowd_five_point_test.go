package handlers_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"pragmalab/domain"
)

// TestFivePointStudyAnalysis: on a 5-point study the ratings stored and
// exported are on 1–5 (the export with the item texts too, and the items
// export is linked from the page), and the Analysis page and its result.json
// z-score them like any scale: three participants analysed, their
// toplines computed, the study's check thresholds (4, 2) applied
// (docs/studies.md#rating-scale).
func TestFivePointStudyAnalysis(t *testing.T) {
	e := newCrowdEnv(t, 24, 6, func(s *domain.CrowdSettings) {
		s.ScalePoints, s.CheckHighMin, s.CheckLowMax = 5, 4, 2
		s.ScaleLabels = map[string]string{"1": "surely not", "5": "surely so"}
	})
	for p := range 3 {
		b := e.browser().get(e.entry(pidN(50+p), fmt.Sprintf("s%d", p)))
		b.post(e.base()+"/consent", nil).must("training")
		for b.has("training") {
			rating := "5"
			if strings.Contains(b.body, "Cancel ") {
				rating = "1"
			}
			a := attemptRE.FindStringSubmatch(b.body)[1]
			b.post(e.base()+"/training", url.Values{"position": {strconv.Itoa(b.position())}, "attempt": {a}, "rating": {rating}})
		}
		if b.has("practice-end") {
			b.get(e.base() + "/screen?begin=1")
		}
		var batch int64
		parts, _ := e.db.CrowdParticipants(context.Background(), e.study, e.set)
		for _, x := range parts {
			if x.PID == pidN(50+p) {
				batch = x.BatchID
			}
		}
		for !b.has("done") {
			pos := b.position()
			sc, err := e.db.CrowdScreen(context.Background(), batch, pos)
			if err != nil {
				t.Fatal(err)
			}
			// Checks get their expected side; items vary over 1–5, lower
			// with the cancellation.
			r := (pos+p)%3 + 3
			switch {
			case sc.Item.Check == "high":
				r = 5
			case sc.Item.Check == "low":
				r = 1
			case strings.Contains(b.body, "Cancel "):
				r = (pos+p)%2 + 1
			}
			b.post(e.base()+"/answer", url.Values{"position": {strconv.Itoa(pos)}, "rating": {strconv.Itoa(r)}})
		}
	}
	a := e.admin()
	a.get(fmt.Sprintf("/admin/studies/%d/export/ratings.csv", e.study))
	recs, err := csv.NewReader(strings.NewReader(a.body)).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("ratings.csv: %v\n%s", err, a.body)
	}
	for _, r := range recs[1:] {
		if v, err := strconv.Atoi(r[5]); err != nil || v < 1 || v > 5 {
			t.Fatalf("a rating off the 5-point scale exported: %v", r)
		}
	}
	// The page links the items export and the ratings with their texts;
	// with texts, each rating carries what the participant read.
	a.get(fmt.Sprintf("/admin/studies/%d", e.study))
	a.must("export-items")
	a.must("export-ratings-texts")
	a.get(fmt.Sprintf("/admin/studies/%d/export/items.csv", e.study))
	if !strings.HasPrefix(a.body, "id,type,context,utterance,implicature,cancellation") || !strings.Contains(a.body, "it000,") {
		t.Fatalf("items export:\n%.300s", a.body)
	}
	a.get(fmt.Sprintf("/admin/studies/%d/export/ratings.csv?with_texts=1", e.study))
	texts, err := csv.NewReader(strings.NewReader(a.body)).ReadAll()
	if err != nil || len(texts) != len(recs) || strings.Join(texts[0][len(texts[0])-4:], ",") != "context,utterance,follow_up,implicature" {
		t.Fatalf("ratings with texts: %v, %d rows (plain %d)\n%.300s", err, len(texts), len(recs), a.body)
	}
	for i, r := range texts[1:] {
		n := len(r)
		if strings.Join(r[:n-4], ",") != strings.Join(recs[i+1], ",") {
			t.Fatalf("row %d: the texts export changes the other columns: %v vs %v", i+1, r, recs[i+1])
		}
		ctx, utt, follow, impl := r[n-4], r[n-3], r[n-2], r[n-1]
		if r[6] == "" && (ctx != "S1: Are you coming?" || !strings.HasPrefix(utt, "S2: Item ") || !strings.HasPrefix(impl, "Belief ")) {
			t.Fatalf("row %d: texts %q", i+1, r[n-4:])
		}
		if want := map[string]bool{"trigger": false, "cancel": true}[r[4]]; r[6] == "" && want != strings.HasPrefix(follow, "Cancel ") {
			t.Fatalf("row %d (%s): follow-up %q", i+1, r[4], follow)
		}
	}
	a.get(fmt.Sprintf("/admin/studies/%d/analysis", e.study))
	a.must("table-toplines")
	a.get(fmt.Sprintf("/admin/studies/%d/analysis/result.json", e.study))
	var res struct {
		Participants struct {
			Total, Analysed int
			Excluded        []string
		}
		Settings struct {
			High int `json:"high_pass_at_least"`
			Low  int `json:"low_pass_at_most"`
		}
		ByType map[string]struct {
			Items                   int      `json:"items"`
			ImplicatureRecognition  *float64 `json:"implicature_recognition"`
			CancellationRecognition *float64 `json:"cancellation_recognition"`
		} `json:"by_type"`
	}
	if err := json.Unmarshal([]byte(a.body), &res); err != nil {
		t.Fatalf("result.json: %v\n%.500s", err, a.body)
	}
	all := res.ByType[domain.TypeAll]
	if res.Participants.Total != 3 || res.Participants.Analysed != 3 || res.Settings.High != 4 || res.Settings.Low != 2 ||
		all.Items == 0 || all.ImplicatureRecognition == nil || all.CancellationRecognition == nil || *all.CancellationRecognition != 1 {
		t.Fatalf("5-point analysis: %+v, all %+v", res, all)
	}
}
