package report

import (
	"fmt"
	"pragmalab/analysis"
	"pragmalab/analysis/integrity"
	"strconv"
	"strings"
)

// IntegrityTable is the participants' flags for people: one row each, the
// LLM-echo's numbers against the model it echoes (or, unflagged, the model
// with the largest gap), and the evidence of every flag as notes.
func IntegrityTable(ps []integrity.ParticipantIntegrity) *Table {
	t := &Table{Name: "integrity", Title: "Integrity flags per participant",
		Columns: []string{"participant_id", "answers", "flags", "model", "agree model", "agree humans", "others agree model", "p divergent", "longest run", "median rt ms", "fast share"}}
	for _, p := range ps {
		flags := analysis.Missing
		if len(p.Flags) > 0 {
			flags = strings.Join(p.Flags, ";")
		}
		model, am, ah, om, pv := analysis.Missing, (*float64)(nil), (*float64)(nil), (*float64)(nil), PValue{}
		if m := p.LLMEcho.Closest(); m != nil {
			model, am, ah, om, pv = m.Model, &m.AgreeModel, &m.AgreeHumans, &m.OthersAgreeModel, PValue{m.PValue}
		}
		rt, fs := analysis.Missing, analysis.Missing
		if p.Timed > 0 {
			rt, fs = strconv.Itoa(p.MedianRT), analysis.Fixed(p.FastShare, 2)
		}
		t.Rows = append(t.Rows, []any{p.Participant, p.Answers, flags, model, am, ah, om, pv, p.LongestRun, rt, fs})
		for _, f := range p.Flags {
			t.Notes = append(t.Notes, fmt.Sprintf("%s %s: %s.", p.Participant, f, p.Evidence[f]))
		}
	}
	return t
}
