package studies

import (
	"context"
	"fmt"

	"pragmalab/domain"
	"pragmalab/itemfiles"
)

// ItemFileUpdate is what re-importing a corrected items file from the
// command line did or, with a dry run, would do.
type ItemFileUpdate struct {
	Update        domain.ItemUpdate
	Kept, Cleared []itemfiles.MissingField
	Applied       bool
}

// UpdateItemsFromFile re-imports a corrected items file into a study, as
// the web's preview and Apply do: items matched by id get a new version,
// new ids are added, the optional fields the file leaves out are kept
// unless clear; with dryRun nothing is written. actor is who the audit log
// names.
func (v *Service) UpdateItemsFromFile(ctx context.Context, actor string, studyID int64, name string, data []byte, clear, dryRun bool, note string) (ItemFileUpdate, error) {
	var u ItemFileUpdate
	items, err := v.parseCorrectedItemFile(ctx, studyID, name, data)
	if err != nil {
		return u, err
	}
	current, err := v.db.ListItems(ctx, studyID)
	if err != nil {
		return u, err
	}
	u.Kept, u.Cleared = itemfiles.FillMissingFields(current, items, clear)
	if u.Update, err = v.db.PreviewItemUpdate(ctx, studyID, items); err != nil || dryRun || len(u.Update.Changes) == 0 {
		return u, err
	}
	done, err := v.db.ApplyItemUpdate(ctx, studyID, items, u.Update.Digest, note)
	if err != nil {
		return u, err
	}
	u.Applied = true
	detail := fmt.Sprintf("%s applied: %d items changed, %d added", name, done.Changed(), done.Added())
	if len(u.Cleared) > 0 {
		detail += fmt.Sprintf("; %d fields the file leaves out cleared", len(u.Cleared))
	}
	return u, v.db.Audit(ctx, actor, studyID, "apply corrected items", detail)
}
