package store

import (
	"context"
	"database/sql"

	"pragmalab/domain"
)

// judgementItemsFrozen refuses, inside tx, a change of the items of a
// judgement study that has opened (docs/studies.md#frozen-design): its
// items' texts, conditions and roles are what the participants rated, so
// they are neither replaced, corrected, re-marked nor added to. A crowd
// study's items stay versioned as before.
func judgementItemsFrozen(ctx context.Context, tx *sql.Tx, studyID int64) error {
	var kind string
	err := tx.QueryRowContext(ctx, `SELECT kind FROM studies WHERE id = ?`, studyID).Scan(&kind)
	if err != nil || kind != domain.KindJudgement {
		return nil // a missing study is the caller's to report
	}
	state, frozen, err := designFrozen(ctx, tx, studyID)
	if err != nil || !frozen {
		return err
	}
	return domain.Errorf(domain.ECONFLICT, "Study %d has opened (it is %s now): its design is frozen, and a judgement study's items — their sentences, contexts, conditions and roles — are part of it; nothing was changed. "+
		"To run changed items, close this study and clone it (the clone starts as a draft with the same settings and items, and no participants).", studyID, state)
}
