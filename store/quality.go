package store

import (
	"context"
	"database/sql"
	"math"
	"pragmalab/domain"
	"time"
)

// answerRT is the response time the quality rules judge
// (docs/studies.md#server-evidence): the server's sent→answered interval,
// or the browser's rt_ms when it is shorter — a browser measures inside
// that interval, without the network, so an honest report is never
// longer, and a longer one cannot make an answer look slower than the
// server saw it. Without a server interval (a screen shown before the
// times were recorded, or never sent), rt_ms as reported; else 0.
func answerRT(t AnswerTimes) int {
	server, ok := serverInterval(t)
	switch {
	case !ok:
		return t.RTms
	case t.RTms > 0 && t.RTms < server:
		return t.RTms
	}
	return server
}

// serverInterval is the server's sent→answered interval of an answer in
// ms, when both times are known.
func serverInterval(t AnswerTimes) (int, bool) {
	if t.ShownAt.IsZero() || t.AnsweredAt.IsZero() || t.AnsweredAt.Before(t.ShownAt) {
		return 0, false
	}
	return int(t.AnsweredAt.Sub(t.ShownAt) / time.Millisecond), true
}

// crowdQuality computes the flags of one participant's ratings, with
// domain.CrowdQualityOf over their response times.
func crowdQuality(ratings []int, times []AnswerTimes, fastMS int) domain.CrowdQuality {
	rts := make([]int, len(times))
	for i, t := range times {
		rts[i] = answerRT(t)
	}
	return domain.CrowdQualityOf(ratings, rts, fastMS)
}

// crowdQualities computes the flags of every participant of a study that
// rated at least one screen, by participant id; answers are the study's
// questionnaires by participant id (db.questionnaires), whose signals count
// with the ratings'.
func (db *DB) crowdQualities(ctx context.Context, studyID int64, reps []CrowdParticipantReport, s domain.CrowdSettings, answers map[int64]domain.Questionnaire) (map[int64]domain.CrowdQuality, error) {
	type row struct {
		pid    int64
		rating int
		AnswerTimes
		trace   domain.AnswerTrace
		machine sql.NullInt64
		script  sql.NullInt64
	}
	rows, err := queryRows(ctx, db, "crowd quality", `
		SELECT r.participant_id, r.rating, r.shown_at, r.answered_at, r.rt_ms, r.answer_changes, r.hidden_ms, r.first_input_ms, `+signalSQL+`, r.machine_instruction, r.script
		FROM crowd_ratings r JOIN crowd_participants p ON p.id = r.participant_id
		WHERE p.study_id = ? AND (p.pilot = 0 OR ?)
		ORDER BY r.participant_id, r.position`, []any{studyID, pilotIncluded(ctx)}, func(rows *sql.Rows, r *row) error {
		times, done := r.AnswerTimes.dest()
		trace, traced := traceDest(&r.trace)
		err := rows.Scan(append(append(append([]any{&r.pid, &r.rating}, times...), trace...), &r.machine, &r.script)...)
		done()
		traced()
		r.trace.Script = domain.Signal{Valid: r.script.Valid, N: int(r.script.Int64)}
		return err
	})
	if err != nil {
		return nil, err
	}
	ratings := map[int64][]int{}
	times := map[int64][]AnswerTimes{}
	traces := map[int64][]domain.AnswerTrace{}
	last := map[int64]time.Time{}
	machine := map[int64][2]int{} // instructed, obeyed
	for _, r := range rows {
		if r.machine.Valid {
			m := machine[r.pid]
			m[0]++
			m[1] += int(r.machine.Int64)
			machine[r.pid] = m
		}
		ratings[r.pid] = append(ratings[r.pid], r.rating)
		times[r.pid] = append(times[r.pid], r.AnswerTimes)
		traces[r.pid] = append(traces[r.pid], r.trace)
		if r.AnsweredAt.After(last[r.pid]) {
			last[r.pid] = r.AnsweredAt
		}
	}
	out := make(map[int64]domain.CrowdQuality, len(ratings))
	for _, p := range reps {
		if len(ratings[p.ID]) == 0 {
			continue
		}
		q := crowdQuality(ratings[p.ID], times[p.ID], s.FastMS)
		q.Traces = summariseTraces(traces[p.ID])
		q.Integrity = integrityEvidence(traces[p.ID], times[p.ID], answers[p.ID])
		q.Integrity.MachineInstructed, q.Integrity.MachineObeyed = machine[p.ID][0], machine[p.ID][1]
		q.Finished = p.Status == CrowdCompleted
		end := p.CompletedAt
		if end.IsZero() {
			end = last[p.ID]
		}
		if end.After(p.StartedAt) {
			q.TotalSeconds = int(end.Sub(p.StartedAt) / time.Second)
		}
		out[p.ID] = q
	}
	markExceptionallyFast(reps, out)
	return out, nil
}

// markExceptionallyFast flags the completed participants whose total time
// is more than domain.ExceptionallyFastSD standard deviations below the
// mean total time of the completed participants (three or more). A session
// in progress is neither in the mean nor flagged: its total time so far is
// no total time (docs/studies.md#integrity-flags).
func markExceptionallyFast(reps []CrowdParticipantReport, qs map[int64]domain.CrowdQuality) {
	var totals []float64
	for _, p := range reps {
		if q, ok := qs[p.ID]; ok && p.Status == CrowdCompleted && q.TotalSeconds > 0 {
			totals = append(totals, float64(q.TotalSeconds))
		}
	}
	if len(totals) < 3 {
		return
	}
	var mean, ss float64
	for _, t := range totals {
		mean += t
	}
	mean /= float64(len(totals))
	for _, t := range totals {
		ss += (t - mean) * (t - mean)
	}
	cut := mean - domain.ExceptionallyFastSD*math.Sqrt(ss/float64(len(totals)-1))
	for _, p := range reps {
		if q, ok := qs[p.ID]; ok && p.Status == CrowdCompleted && q.TotalSeconds > 0 && float64(q.TotalSeconds) < cut {
			q.ExceptionallyFast = true
			qs[p.ID] = q
		}
	}
}
