package report

import (
	"pragmalab/analysis/agreement"
	"pragmalab/analysis/contextsurvey"
	"pragmalab/analysis/modelhuman"
	"pragmalab/analysis/toplines"
	"strings"
	"testing"
)

// TestReadersAcceptAnswerTimes: every reader takes files with and without
// the answer-time columns, and names a bad time by line and column.
func TestReadersAcceptAnswerTimes(t *testing.T) {
	const ratings = "participant_id,batch_id,item_id,item_type,condition,rating,check"
	rows := []string{"p1,1,i1,scalar,trigger,6,", "p1,1,i2,scalar,cancel,2,"}
	if _, err := toplines.ReadRatings(strings.NewReader(ratings + "\n" + strings.Join(rows, "\n") + "\n")); err != nil {
		t.Fatalf("without times: %v", err)
	}
	timed := ratings + ",shown_at,answered_at,rt_ms\n" +
		rows[0] + ",2026-12-01T09:00:00.000Z,2026-12-01T09:00:04.250Z,4100\n" +
		rows[1] + ",,2026-12-01T09:00:09Z,\n"
	if rs, err := toplines.ReadRatings(strings.NewReader(timed)); err != nil || rs.NumRows() != 2 {
		t.Fatalf("with times: %v", err)
	}
	for _, tc := range []struct{ file, want string }{
		{ratings + ",rt_ms\n" + rows[0] + ",fast\n", `line 2, column "rt_ms": "fast" is not a response time`},
		{ratings + ",shown_at\n" + rows[0] + ",yesterday\n", `line 2, column "shown_at": "yesterday" is not an RFC 3339 time`},
	} {
		if _, err := toplines.ReadRatings(strings.NewReader(tc.file)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err %v, want %q", err, tc.want)
		}
	}
	if _, err := agreement.ReadJudgements(strings.NewReader("annotator_id,item_id,item_type,plausible,cancellation_correct,shown_at,answered_at,rt_ms\n" +
		"A,i1,scalar,yes,yes,2026-12-01T09:00:00Z,2026-12-01T09:00:03Z,2900\n")); err != nil {
		t.Errorf("judgements with times: %v", err)
	}
	if _, err := contextsurvey.ReadContextAnswers(strings.NewReader("annotator_id,survey_id,item_id,kind,period,sentences,sufficient,shown_at,answered_at,rt_ms\n" +
		"A,1,x,Impl,1994–2023,2,yes,,2026-12-01T09:00:03Z,\n")); err != nil {
		t.Errorf("context answers with times: %v", err)
	}
	if _, err := modelhuman.ReadExplanationRatings(strings.NewReader("annotator_id,item_id,kind,strategy,judgment,model,shown_at,answered_at,rt_ms\n" +
		"A,x,Impl,cot,totally_correct,m,,2026-12-01T09:00:03Z,1500\n")); err != nil {
		t.Errorf("explanation ratings with times: %v", err)
	}
}
