package agreement

import (
	"bytes"
	"math"
	"pragmalab/analysis/internal/atest"
	"slices"
	"strings"
	"testing"
)

func FuzzReadJudgements(f *testing.F) {
	h := strings.Join(JudgementsColumns, ",") + "\n"
	f.Add([]byte(h + "a,i1,scalar,yes,yes\nb,i1,scalar,yes,no\nc,i1,scalar,no,\na,i2,natural,Y,N\nb,i2,natural,true,false\n"))
	f.Add([]byte("\uFEFFitem_id, Annotator_ID ,item_type,cancellation_correct,plausible\r\ni1,e1,discourse,,no\r\ni1,e2,discourse,1,1\r\n"))
	f.Add([]byte(h + "a,i1,scalar,yes,yes\na,i1,scalar,no,\n"))
	f.Add([]byte(h + "a,i1,scalar,maybe,\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		js, err := ReadJudgements(bytes.NewReader(data))
		if err != nil {
			atest.CheckInputError(t, err, data)
			return
		}
		rows := atest.FileRows(t, data)
		if len(js) != len(rows) {
			t.Fatalf("read %d judgements; the file has %d rows", len(js), len(rows))
		}
		judged := map[string]map[string]bool{}
		for i, j := range js {
			r := rows[i]
			if j.Annotator != r["annotator_id"] || j.Item != r["item_id"] || j.Type != r["item_type"] || j.HasCancellation != (r["cancellation_correct"] != "") {
				t.Fatalf("judgement %d is %+v; the file says %v", i+1, j, r)
			}
			if judged[j.Annotator] == nil {
				judged[j.Annotator] = map[string]bool{}
			}
			judged[j.Annotator][j.Item] = true
		}
		ag := ComputeAgreement(js)
		n := len(judged)
		if len(ag.Annotators) != n || !slices.IsSorted(ag.Annotators) || len(ag.Pairs) != n*(n-1)/2 {
			t.Fatalf("%d annotators %q in %d pairs; the file has %d annotators", len(ag.Annotators), ag.Annotators, len(ag.Pairs), n)
		}
		for _, p := range ag.Pairs {
			both := 0
			for it := range judged[p.A] {
				if judged[p.B][it] {
					both++
				}
			}
			if p.Plausibility.Items != both || p.Cancellation.Items > both {
				t.Fatalf("pair %s–%s: %d and %d items; they judged %d items both", p.A, p.B, p.Plausibility.Items, p.Cancellation.Items, both)
			}
		}
		for what, b := range map[string]Binary{"plausibility": ag.Plausibility.Binary, "cancellation": ag.Cancellation.Binary} {
			atest.CheckShare(t, what+" raw", b.Raw, 0)
			atest.CheckShare(t, what+" kappa", b.Kappa, math.Inf(-1))
			atest.CheckShare(t, what+" pabak", b.PABAK, -1)
			atest.CheckShare(t, what+" fleiss", b.FleissKappa, math.Inf(-1))
		}
	})
}
