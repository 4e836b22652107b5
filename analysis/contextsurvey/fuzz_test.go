package contextsurvey

import (
	"bytes"
	"math"
	"pragmalab/analysis/internal/atest"
	"strings"
	"testing"
)

func FuzzReadContextAnswers(f *testing.F) {
	h := strings.Join(ContextColumns, ",") + "\n"
	f.Add([]byte(h + "e1,S1,22185,Impl,1994–2023,0,yes\ne2,S1,22185,Impl,1994–2023,2,yes\ne3,S1,22185,Impl,1994–2023,4,no\ne1,S2,41290,Ppp,1973–1993,5,no\n"))
	f.Add([]byte("\uFEFFSufficient,sentences,period,kind,item_id,survey_id,annotator_id\r\nY,1,,Ppp,7,S,a\r\n"))
	f.Add([]byte(h + "e1,S1,1,Impl,,6,yes\n"))
	f.Add([]byte(h + "e1,S1,1,Impl,,1,yes\ne1,S1,1,Impl,,2,no\n"))
	// A passage of four preceding sentences: "no" at 4 is final there.
	f.Add([]byte(strings.TrimSuffix(h, "\n") + "," + ContextMaxColumn + "\ne1,S1,22185,Impl,1994–2023,4,no,4\ne2,S1,22185,Impl,1994–2023,1,yes,4\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		as, err := ReadContextAnswers(bytes.NewReader(data))
		if err != nil {
			atest.CheckInputError(t, err, data)
			return
		}
		rows := atest.FileRows(t, data)
		if len(as) != len(rows) {
			t.Fatalf("read %d answers; the file has %d rows", len(as), len(rows))
		}
		items := map[[2]string]bool{}
		perSurvey := map[string]int{}
		for i, a := range as {
			r := rows[i]
			if a.Annotator != r["annotator_id"] || a.Survey != r["survey_id"] || a.Item != r["item_id"] || a.Kind != r["kind"] || a.Period != r["period"] {
				t.Fatalf("answer %d is %+v; the file says %v", i+1, a, r)
			}
			if c := a.Category(); c < 0 || c > MaxAddedSentences+1 {
				t.Fatalf("answer %d: category %d", i+1, c)
			}
			items[[2]string{a.Survey, a.Item}] = true
			perSurvey[a.Survey]++
		}
		c := ComputeContext(as)
		if c.Overall.Judgements != len(as) || c.Overall.Items != len(items) || len(c.Surveys) != len(perSurvey) {
			t.Fatalf("overall %d judgements of %d items in %d surveys; the file has %d, %d, %d",
				c.Overall.Judgements, c.Overall.Items, len(c.Surveys), len(as), len(items), len(perSurvey))
		}
		for s, n := range perSurvey {
			if c.Surveys[s].Judgements != n {
				t.Fatalf("survey %q: %d judgements, the file has %d", s, c.Surveys[s].Judgements, n)
			}
		}
		for k, p := range c.Overall.CumulativeJudgements {
			atest.CheckShare(t, "cumulative judgements", p, 0)
			if k > 0 && p != nil && *p < *c.Overall.CumulativeJudgements[k-1]-1e-9 {
				t.Fatalf("cumulative judgements fall at %d: %v", k, *p)
			}
		}
		atest.CheckShare(t, "fleiss", c.Overall.FleissKappa, math.Inf(-1))
	})
}
