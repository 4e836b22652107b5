package handlers_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestCrowdAnswerTraces: the hidden trace fields are stored with each
// rating and exported after the answer times; a page without JavaScript
// (empty fields) and a tampered trace (out of bounds) store the rating
// without a trace; the participants table and export summarise them.
func TestCrowdAnswerTraces(t *testing.T) {
	e := newCrowdEnv(t, 40, 10, nil)
	ctx := context.Background()
	walk := func(pid string, trace func(pos int) url.Values) {
		b := e.browser()
		b.get(e.entry(pid, "s"+pid[20:]))
		b.post(e.base()+"/consent", nil)
		b.training()
		for !b.has("done") {
			pos := b.position()
			form := url.Values{"position": {strconv.Itoa(pos)}, "rating": {"4"}, "rt_ms": {"2400"}}
			for k, v := range trace(pos) {
				form[k] = v
			}
			b.post(e.base()+"/answer", form)
		}
	}
	walk(pidN(1), func(pos int) url.Values {
		return url.Values{"answer_changes": {strconv.Itoa(pos % 3)}, "hidden_ms": {"1000"}, "first_input_ms": {strconv.Itoa(600 + pos)}}
	})
	walk(pidN(2), func(int) url.Values {
		return url.Values{"answer_changes": {""}, "hidden_ms": {""}, "first_input_ms": {""}}
	})
	walk(pidN(3), func(int) url.Values {
		return url.Values{"answer_changes": {"-2"}, "hidden_ms": {"99999999999"}, "first_input_ms": {"12"}}
	})

	a := e.admin()
	study := fmt.Sprintf("/admin/studies/%d", e.study)
	a.get(study + "/export/ratings.csv")
	recs, err := csv.NewReader(strings.NewReader(a.body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if head := strings.Join(recs[0], ","); !strings.Contains(head, ",shown_at,answered_at,rt_ms,answer_changes,hidden_ms,first_input_ms,") {
		t.Fatalf("ratings header %s", head)
	}
	end := slices.Index(recs[0], "first_input_ms") + 1
	rows := map[string]int{}
	changes := 0
	for _, r := range recs[1:] {
		pid, tr := r[0], strings.Join(r[end-3:end], ",")
		rows[pid]++
		switch pid {
		case pidN(1):
			if r[end-2] != "1000" || r[end-3] == "" || r[end-1] == "" {
				t.Errorf("traced answer exported as %q", tr)
			}
			n, _ := strconv.Atoi(r[end-3])
			changes += n
		case pidN(2), pidN(3):
			if tr != ",," {
				t.Errorf("%s: answer without a (valid) trace exported as %q", pid, tr)
			}
		}
	}
	if rows[pidN(1)] == 0 || rows[pidN(2)] != rows[pidN(1)] || rows[pidN(3)] != rows[pidN(1)] {
		t.Fatalf("ratings per participant %v: every answer must be stored, traced or not", rows)
	}
	reps, _ := e.db.CrowdParticipants(ctx, e.study, e.set)
	for _, r := range reps {
		want := 0
		if r.PID == pidN(1) {
			want = rows[pidN(1)]
		}
		if r.Traces.Answers != want {
			t.Errorf("%s: %d traced answers, want %d", r.PID, r.Traces.Answers, want)
		}
		if r.PID == pidN(1) && (r.Traces.Changes != changes || r.Traces.HiddenMS != 1000*want) {
			t.Errorf("%s summary %+v, want %d changes and %d ms hidden", r.PID, r.Traces, changes, 1000*want)
		}
	}
	a.get(study)
	if !strings.Contains(a.body, fmt.Sprintf(`data-testid="traces">%d changes · %d s hidden`, changes, rows[pidN(1)])) {
		t.Errorf("participants table lacks the trace summary")
	}
	a.get(study + "/export/participants.csv")
	precs, _ := csv.NewReader(strings.NewReader(a.body)).ReadAll()
	const cols = "traced_answers,answer_changes,hidden_ms,median_first_input_ms"
	at := slices.Index(precs[0], "traced_answers")
	if at < 0 || strings.Join(precs[0][at:at+4], ",") != cols {
		t.Fatalf("participants header %v lacks %s", precs[0], cols)
	}
	for _, r := range precs[1:] {
		if r[0] == pidN(2) && strings.Join(r[at:at+4], ",") != "0,,," {
			t.Errorf("participant without JavaScript: %v", r[at:at+4])
		}
		if r[0] == pidN(1) && (r[at] != strconv.Itoa(rows[pidN(1)]) || r[at+2] != strconv.Itoa(1000*rows[pidN(1)])) {
			t.Errorf("traced participant: %v", r[at:at+4])
		}
	}
}
