package modelhuman

import (
	"bytes"
	"pragmalab/analysis/internal/atest"
	"strings"
	"testing"
)

func FuzzReadExplanationRatings(f *testing.F) {
	h := strings.Join(ExplanationColumns, ",") + "\n"
	f.Add([]byte(h + "e1,i1,Impl,zero-shot,totally_correct\ne1,i2,Impl,zero-shot,Partially correct\ne2,i3,Impl,zero-shot,totally_wrong\n" +
		"e2,i4,Impl,zero-shot,Answer not given\ne1,i1,Impl,few-shot,Correct among various options\ne1,i5,Ppp,zero-shot,totally_wrong\n"))
	f.Add([]byte("\uFEFFModel,judgment,strategy,kind,item_id,annotator_id\r\ngemma,totally-correct,cot,Ppp,1,ann\r\nllama,NO ANSWER,cot,Ppp,1,ann\r\n"))
	f.Add([]byte(h + "e1,i1,Impl,zs,great\n"))
	f.Add([]byte(h + "e1,i1,Impl,zs,totally_correct\ne1,i1,Impl,zs,totally_wrong\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, err := ReadExplanationRatings(bytes.NewReader(data))
		if err != nil {
			atest.CheckInputError(t, err, data)
			return
		}
		rows := atest.FileRows(t, data)
		if len(rs) != len(rows) {
			t.Fatalf("read %d ratings; the file has %d rows", len(rs), len(rows))
		}
		type cell struct{ kind, strategy string }
		want := map[cell]int{}
		for i, e := range rs {
			r := rows[i]
			if e.Annotator != r["annotator_id"] || e.Item != r["item_id"] || e.Kind != r["kind"] || e.Strategy != r["strategy"] || e.Judgment < 0 || e.Judgment >= len(Judgments) {
				t.Fatalf("rating %d is %+v; the file says %v", i+1, e, r)
			}
			want[cell{e.Kind, e.Strategy}]++
		}
		ex := ComputeExplanations(rs)
		for c, n := range want {
			got := ex.Table[c.kind][c.strategy]
			if got == nil || got.N != n {
				t.Fatalf("cell %s × %s holds %+v; the file has %d ratings there", c.kind, c.strategy, got, n)
			}
			sum := 0
			for _, k := range got.Counts {
				sum += k
			}
			if sum != n {
				t.Fatalf("cell %s × %s: counts %v do not add up to %d", c.kind, c.strategy, got.Counts, n)
			}
			atest.CheckShare(t, "acceptable", got.Acceptable(), 0)
		}
	})
}
