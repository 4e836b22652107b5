package cli

import (
	"context"
	"fmt"
	"io"

	"pragmalab/domain"
	"pragmalab/itemfiles"
)

// updateItems is `pragmalab import --update`: a corrected items file
// applied to a study's items as the admin pages' re-import does, the
// fields it leaves out kept unless clear (docs/items.md#correcting-items).
func updateItems(ctx context.Context, svc *app, s *domain.Study, name, format string, r io.Reader, clear, dryRun bool, note string, env *Env) error {
	// A judgement study's refusal is the service's (studies.parseCorrectedItemFile).
	if s.Kind != domain.KindExpert && s.Kind != domain.KindCrowd && s.Kind != domain.KindJudgement {
		return usagef("import --update: a %s study has passages, not implicature items, to correct", s.Kind)
	}
	switch format {
	case "":
	case "csv", "jsonl":
		name = "file." + format
	default:
		return usagef("import --update: --format %q: items are csv or jsonl", format)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	u, err := svc.UpdateItemsFromFile(ctx, cliActor, s.ID, name, data, clear, dryRun, note)
	if err != nil {
		if domain.ErrorCode(err) == domain.EINTERNAL {
			return err
		}
		return usagef("import --update: nothing was changed: %s", domain.ErrorMessage(err))
	}
	w := env.stdout
	for _, c := range u.Update.Changes {
		if c.Old == nil {
			fmt.Fprintf(w, "%s: new %s item\n", domain.TerminalSafe(c.Key), c.New.Type)
			continue
		}
		fmt.Fprintf(w, "%s: version %d → %d\n", domain.TerminalSafe(c.Key), c.Old.Version, c.Old.Version+1)
		for _, f := range c.Fields {
			fmt.Fprintf(w, "  %s: %q → %q\n", f.Field, f.Old, f.New)
		}
	}
	for _, l := range itemfiles.MissingSummary(u.Kept) {
		fmt.Fprintf(w, "kept (the file leaves them out): %s\n", domain.TerminalSafe(l))
	}
	for _, l := range itemfiles.MissingSummary(u.Cleared) {
		fmt.Fprintf(w, "cleared (the file leaves them out): %s\n", domain.TerminalSafe(l))
	}
	done := "applied"
	switch {
	case dryRun:
		done = "dry run, nothing applied"
	case !u.Applied:
		done = "nothing to apply"
	}
	fmt.Fprintf(w, "study %d (%s): %d items changed, %d added, %d unchanged (%s)\n", s.ID, domain.TerminalSafe(s.Name), u.Update.Changed(), u.Update.Added(), u.Update.Unchanged, done)
	return nil
}
