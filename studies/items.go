package studies

import (
	"bytes"
	"context"

	"pragmalab/domain"
	"pragmalab/itemfiles"
)

// A study's implicature items (docs/items.md): importing a file, and
// correcting items one at a time or by re-importing a corrected file after
// a preview of what it changes.

// ImportItemFile imports an items file (CSV or JSON Lines, by its name)
// into a study, all or nothing, and returns how many items it held.
func (v *Service) ImportItemFile(ctx context.Context, studyID int64, name string, data []byte) (int, error) {
	items, err := v.parseItemFile(ctx, studyID, name, data)
	if err != nil {
		return 0, err
	}
	if err := v.db.ImportItems(ctx, studyID, items); err != nil {
		return 0, err
	}
	return len(items), nil
}

// parseItemFile reads an items file for a study, holding each item to the
// study's own rules: a crowd study refuses the follow-up texts of the
// conditions it does not declare (docs/items.md#conditions); a judgement
// study reads its own file, one row per item and condition, held to its
// conditions and scale (docs/items.md#judgement-items).
func (v *Service) parseItemFile(ctx context.Context, studyID int64, name string, data []byte) ([]domain.Item, error) {
	st, err := v.db.Study(ctx, studyID)
	if err != nil {
		return nil, err
	}
	if st.Kind == domain.KindJudgement {
		cs, err := CrowdSettings(st)
		if err != nil {
			return nil, err
		}
		return itemfiles.ParseJudgementItemFile(name, bytes.NewReader(data), itemfiles.JudgementRules{Settings: cs})
	}
	check, err := v.itemCheck(ctx, studyID)
	if err != nil {
		return nil, err
	}
	return itemfiles.ParseItemFileChecked(name, bytes.NewReader(data), check)
}

// parseCorrectedItemFile is parseItemFile for a corrected items file
// (docs/items.md#correcting-items). A judgement study's items are not
// corrected by re-import: the versioned correction compares the
// implicature fields, not texts by condition, so it would call a changed
// sentence unchanged; and once the study opens its items are frozen
// (docs/studies.md#frozen-design). The refusal says what to do instead.
func (v *Service) parseCorrectedItemFile(ctx context.Context, studyID int64, name string, data []byte) ([]domain.Item, error) {
	st, err := v.db.Study(ctx, studyID)
	if err != nil {
		return nil, err
	}
	if st.Kind == domain.KindJudgement {
		return nil, domain.Errorf(domain.EINVALID, "a judgement study's items are not corrected by re-importing a file: write the corrected items into the study's design file (pragmalab study design --study %d) and create a new study from it (pragmalab study create --design FILE)", studyID)
	}
	return v.parseItemFile(ctx, studyID, name, data)
}

// itemCheck is the study's own rule on its items, nil for none.
func (v *Service) itemCheck(ctx context.Context, studyID int64) (itemfiles.ItemCheck, error) {
	conds, crowd, err := v.DeclaredConditions(ctx, studyID)
	if err != nil || !crowd {
		return nil, err
	}
	return ConditionsCheck(conds), nil
}

// DeclaredConditions are the conditions a crowd or judgement study
// declares (docs/studies.md#conditions, docs/studies.md#judgement-study);
// crowd is false for the other kinds.
func (v *Service) DeclaredConditions(ctx context.Context, studyID int64) (conds []string, crowd bool, err error) {
	st, err := v.db.Study(ctx, studyID)
	if err != nil || !domain.IsCrowdKind(st.Kind) {
		return nil, false, err
	}
	cs, err := CrowdSettings(st)
	if err != nil {
		return nil, false, err
	}
	return cs.Conditions, true, nil
}

// CheckItemEdit holds a correction of item old to the study's own rules:
// a crowd study refuses a new or changed follow-up text of a condition it
// does not declare (domain.Item.CheckEditedConditions); a judgement
// study's item keeps to its conditions and scale
// (itemfiles.CheckJudgementItem).
func (v *Service) CheckItemEdit(ctx context.Context, studyID int64, old, next domain.Item) error {
	st, err := v.db.Study(ctx, studyID)
	if err != nil {
		return err
	}
	if st.Kind == domain.KindJudgement {
		cs, err := CrowdSettings(st)
		if err != nil {
			return err
		}
		return itemfiles.CheckJudgementItem(&next, cs)
	}
	conds, crowd, err := v.DeclaredConditions(ctx, studyID)
	if err != nil || !crowd {
		return err
	}
	return next.CheckEditedConditions(old, conds)
}

// ConditionsCheck refuses items filling the follow-up of a condition not
// among declared (domain.Item.CheckConditions).
func ConditionsCheck(declared []string) itemfiles.ItemCheck {
	return func(it *domain.Item) error { return it.CheckConditions(declared) }
}

// PendingItemUpdate is a corrected items file kept for its preview.
type PendingItemUpdate struct {
	ID       int64
	Filename string
	Items    []domain.Item
	// Update is what applying the file would change now.
	Update domain.ItemUpdate
	// ClearMissing empties the optional fields the file leaves out
	// (Cleared); otherwise they keep their text (Kept).
	ClearMissing  bool
	Kept, Cleared []itemfiles.MissingField
}

// UploadCorrectedItems checks a corrected items file against the study's
// items and keeps it for the preview; it returns the kept upload's id.
func (v *Service) UploadCorrectedItems(ctx context.Context, studyID int64, name string, data []byte) (int64, error) {
	items, err := v.parseCorrectedItemFile(ctx, studyID, name, data)
	if err != nil {
		return 0, err
	}
	if _, err := v.db.PreviewItemUpdate(ctx, studyID, items); err != nil {
		return 0, err
	}
	return v.db.SavePendingImport(ctx, studyID, name, data)
}

// PendingItemUpdate reads a kept upload again and compares it with the
// study's items now.
// clear says what becomes of the optional fields the file leaves out of an
// item that has them: kept (false) or emptied.
func (v *Service) PendingItemUpdate(ctx context.Context, studyID, uploadID int64, clear bool) (PendingItemUpdate, error) {
	p := PendingItemUpdate{ID: uploadID, ClearMissing: clear}
	name, data, err := v.db.PendingImport(ctx, studyID, uploadID)
	if err != nil {
		return p, err
	}
	p.Filename = name
	if p.Items, err = v.parseCorrectedItemFile(ctx, studyID, name, data); err != nil {
		return p, err
	}
	current, err := v.db.ListItems(ctx, studyID)
	if err != nil {
		return p, err
	}
	p.Kept, p.Cleared = itemfiles.FillMissingFields(current, p.Items, clear)
	p.Update, err = v.db.PreviewItemUpdate(ctx, studyID, p.Items)
	return p, err
}

// ApplyItemUpdate applies a kept upload if digest is still that of its
// changes (ECONFLICT if the items changed since the preview), each changed
// item getting a new version with the note, and forgets the upload.
func (v *Service) ApplyItemUpdate(ctx context.Context, studyID int64, p PendingItemUpdate, digest, note string) (domain.ItemUpdate, error) {
	if err := domain.CheckText("the note", note, 2000, domain.MultiLine); err != nil {
		return domain.ItemUpdate{}, err
	}
	done, err := v.db.ApplyItemUpdate(ctx, studyID, p.Items, digest, note)
	if err != nil {
		return done, err
	}
	return done, v.db.DropPendingImport(ctx, studyID, p.ID)
}
