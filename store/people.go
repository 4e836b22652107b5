package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"pragmalab/domain"
	"strings"
	"unicode/utf8"
)

// The people of a study (docs/studies.md#people): experts of every kind
// share the annotators table and its invitation tokens.

// annotatorName checks an expert's name as typed.
func annotatorName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > 100 || strings.ContainsAny(name, ",\"\r\n\t") {
		return "", domain.Errorf(domain.EINVALID, "an expert's name must be 1–100 characters, without commas or quotes")
	}
	if err := domain.CheckName("the expert's name", name, 100); err != nil {
		return "", err
	}
	return name, nil
}

// RenameAnnotator changes an expert's name. Their answers follow, since the
// exports name experts by their current name.
func (db *DB) RenameAnnotator(ctx context.Context, studyID, id int64, name string) error {
	name, err := annotatorName(name)
	if err != nil {
		return err
	}
	return db.tx(ctx, func(tx *sql.Tx) error {
		var other int64
		err := tx.QueryRowContext(ctx, `SELECT id FROM annotators WHERE study_id = ? AND name = ?`, studyID, name).Scan(&other)
		if err == nil && other != id {
			return domain.Errorf(domain.ECONFLICT, "the study already has an expert named %q", name)
		}
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("rename expert: %w", err)
		}
		return annotatorUpdate(ctx, tx, studyID, id, `UPDATE annotators SET name = ? WHERE study_id = ? AND id = ?`, name)
	})
}

// RevokeAnnotator makes an expert's invitation link stop working at once:
// the token is replaced by one nobody is given. Their answers stay.
func (db *DB) RevokeAnnotator(ctx context.Context, studyID, id int64) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		return annotatorUpdate(ctx, tx, studyID, id, `UPDATE annotators SET token = ?, revoked_at = ?, link_no = link_no + 1 WHERE study_id = ? AND id = ?`,
			RandomToken(), db.now())
	})
}

// ReissueAnnotator gives an expert a new invitation link (the old one stops
// working) and returns it; a revoked expert works again with it.
func (db *DB) ReissueAnnotator(ctx context.Context, studyID, id int64) (*domain.Annotator, error) {
	token := RandomToken()
	err := db.tx(ctx, func(tx *sql.Tx) error {
		return annotatorUpdate(ctx, tx, studyID, id, `UPDATE annotators SET token = ?, revoked_at = '', link_no = link_no + 1 WHERE study_id = ? AND id = ?`, token)
	})
	if err != nil {
		return nil, err
	}
	a, err := db.AnnotatorByToken(ctx, token)
	if err != nil {
		return nil, fmt.Errorf("reissue link: %w", err)
	}
	return a, nil
}

// annotatorUpdate runs an update of one expert of a study; the last two
// arguments bound are the study and the expert.
func annotatorUpdate(ctx context.Context, tx *sql.Tx, studyID, id int64, query string, args ...any) error {
	res, err := tx.ExecContext(ctx, query, append(args, studyID, id)...)
	if err != nil {
		return fmt.Errorf("update expert: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return domain.Errorf(domain.ENOTFOUND, "expert not found in this study")
	}
	return nil
}
