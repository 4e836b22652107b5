package store

import (
	"context"
	"pragmalab/domain"
	"testing"
)

// A study with a Prolific call that may have been sent is not deleted: the
// record of what was approved or paid must stay.
func TestDeleteStudyKeepsPendingProlificCalls(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	s := &domain.Study{Kind: domain.KindCrowd, Name: "Paid", Lang: "en"}
	if err := db.CreateStudy(ctx, s); err != nil {
		t.Fatal(err)
	}
	if _, err := db.write.Exec(`INSERT INTO prolific_calls (study_id, kind, idem_key, request, actor, created_at, updated_at)
		VALUES (?, 'approve', 'k1', '{}', 'lea', ?, ?)`, s.ID, db.now(), db.now()); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteStudy(ctx, s.ID, "Paid", true); domain.ErrorCode(err) != domain.EINVALID {
		t.Fatalf("delete with a pending call: %v, want refused", err)
	}
	if _, err := db.Study(ctx, s.ID); err != nil {
		t.Fatalf("study gone: %v", err)
	}
	db.write.Exec(`UPDATE prolific_calls SET state = 'done'`)
	if err := db.DeleteStudy(ctx, s.ID, "Paid", false); err != nil {
		t.Fatalf("delete once the call is settled: %v", err)
	}
}
