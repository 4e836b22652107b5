package report

import (
	"io"
	"pragmalab/analysis/agreement"
	"pragmalab/analysis/contextsurvey"
	"pragmalab/analysis/toplines"
	"pragmalab/csvsafe"
	"pragmalab/domain"
	"slices"
	"strconv"
	"strings"
)

// AnalysedRatingsColumns is the header WriteAnalysedRatings writes
// (docs/formats.md#r-companion).
var AnalysedRatingsColumns = []string{"line", "participant_id", "item_id", "item_type", "condition", "rating", "check", "participant_status"}

// WriteAnalysedRatings writes every row the toplines t were computed from,
// in file order: the input line, the columns the analysis reads (an
// attention check's condition is not read, so it is empty) and the status
// t gave the row's participant, so a re-analysis starts from exactly these
// rows and can check its exclusions against ours.
func WriteAnalysedRatings(w io.Writer, rs *toplines.Ratings, t *toplines.Toplines) error {
	status := make([]string, len(rs.Participants))
	for i, p := range t.Participants.Details {
		status[i] = p.Status()
	}
	cw := csvsafe.NewWriter(w)
	if err := cw.Write(AnalysedRatingsColumns); err != nil {
		return err
	}
	rec := make([]string, len(AnalysedRatingsColumns))
	var err error
	rs.Each(func(rt *toplines.Rating) {
		if err != nil {
			return
		}
		rec[0] = strconv.Itoa(int(rt.Line))
		rec[1] = rs.Participants[rt.Participant]
		rec[2] = rs.ItemName(*rt)
		rec[3], rec[4], rec[6] = "", "", ""
		switch rt.Check {
		case toplines.CheckHigh:
			rec[6] = "high"
		case toplines.CheckLow:
			rec[6] = "low"
		default:
			rec[3], rec[4] = domain.TableTypes[rs.ItemType[rt.Item]], rt.Cond.String()
		}
		rec[5] = strconv.Itoa(int(rt.Value))
		rec[7] = status[rt.Participant]
		err = cw.Write(rec)
	})
	if err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// ParticipantsColumns is the header WriteParticipants writes.
var ParticipantsColumns = []string{"participant_id", "item_ratings", "checks", "failed_checks", "researcher", "status", "reasons"}

// WriteParticipants writes one row per participant of t, in first-seen
// order: counts, the researcher's decision (exclude, include or empty,
// from opt) and the status and reasons t gave.
func WriteParticipants(w io.Writer, t *toplines.Toplines, opt toplines.Options) error {
	recs := [][]string{ParticipantsColumns}
	for _, p := range t.Participants.Details {
		decision := ""
		switch {
		case slices.Contains(opt.Exclude, p.ID):
			decision = "exclude"
		case slices.Contains(opt.Include, p.ID):
			decision = "include"
		}
		recs = append(recs, []string{p.ID, strconv.Itoa(p.Ratings), strconv.Itoa(p.Checks), strconv.Itoa(p.FailedChecks), decision, p.Status(), strings.Join(p.Reasons, "; ")})
	}
	return csvsafe.NewWriter(w).WriteAll(recs)
}

// WriteJudgements writes judgements in the columns of a judgements file
// (docs/formats.md#judgements-file), as read.
func WriteJudgements(w io.Writer, js []agreement.Judgement) error {
	recs := [][]string{agreement.JudgementsColumns}
	for _, j := range js {
		canc := ""
		if j.HasCancellation {
			canc = yesNoString(j.CancellationCorrect)
		}
		recs = append(recs, []string{j.Annotator, j.Item, j.Type, yesNoString(j.Plausible), canc})
	}
	return csvsafe.NewWriter(w).WriteAll(recs)
}

// WriteContextAnswers writes answers in the columns of a context answers
// file (docs/formats.md#context-answers-file), as read (without
// max_sentences, which only checks the input).
func WriteContextAnswers(w io.Writer, as []contextsurvey.ContextAnswer) error {
	recs := [][]string{contextsurvey.ContextColumns}
	for _, a := range as {
		recs = append(recs, []string{a.Annotator, a.Survey, a.Item, a.Kind, a.Period, strconv.Itoa(a.Sentences), yesNoString(a.Sufficient)})
	}
	return csvsafe.NewWriter(w).WriteAll(recs)
}

func yesNoString(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}
