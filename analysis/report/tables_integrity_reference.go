package report

import (
	"fmt"
	"strconv"
	"strings"

	"pragmalab/analysis"
	"pragmalab/analysis/integrity"
)

// IntegrityReferenceTable is IntegrityTable when llm_echo was measured
// against a trusted reference: the numbers of the model echoed (or,
// unflagged, the one followed most).
func IntegrityReferenceTable(ps []integrity.ParticipantIntegrity) *Table {
	t := &Table{Name: "integrity", Title: "Integrity flags per participant (LLM-echo against a trusted reference)",
		Columns: []string{"participant_id", "answers", "flags", "model", "items", "follow", "follow se", "follow t", "p", "reference max follow", "reference max t", "longest run", "median rt ms", "fast share"}}
	for _, p := range ps {
		flags := analysis.Missing
		if len(p.Flags) > 0 {
			flags = strings.Join(p.Flags, ";")
		}
		row := []any{p.Participant, p.Answers, flags, analysis.Missing, analysis.Missing, (*float64)(nil), (*float64)(nil), (*float64)(nil), PValue{}, (*float64)(nil), (*float64)(nil)}
		if m := p.LLMEchoReference.Closest(); m != nil {
			row = []any{p.Participant, p.Answers, flags, m.Model, m.Items, m.Follow, m.FollowSE, m.FollowT, PValue{m.PValue}, m.ReferenceMaxFollow, m.ReferenceMaxT}
		}
		rt, fs := analysis.Missing, analysis.Missing
		if p.Timed > 0 {
			rt, fs = strconv.Itoa(p.MedianRT), analysis.Fixed(p.FastShare, 2)
		}
		t.Rows = append(t.Rows, append(row, p.LongestRun, rt, fs))
		for _, f := range p.Flags {
			t.Notes = append(t.Notes, fmt.Sprintf("%s %s: %s.", p.Participant, f, p.Evidence[f]))
		}
	}
	return t
}
