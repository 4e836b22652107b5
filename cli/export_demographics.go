package cli

import (
	"context"
	"fmt"
	"io"
)

// demographicsFlag refuses --prolific-demographics with another export.
func demographicsFlag(demographics bool, what string) error {
	if demographics && what != "participants" {
		return usagef("export: --prolific-demographics goes with --what participants")
	}
	return nil
}

// demographicsExport is the participants export joined to Prolific's
// demographic export (docs/prolific.md#demographics). Without yes it
// prints the call it would make and returns nil: nothing is written.
func demographicsExport(ctx context.Context, svc *app, studyID int64, yes bool, env *Env) func(io.Writer) error {
	if !yes {
		fmt.Fprintf(env.stderr, "would send POST /api/v1/studies/{the study linked to study %d}/demographic-export/ {\"filters\": []} and join the answer as prolific_ columns\nnothing sent, nothing written: add --yes\n", studyID)
		return nil
	}
	actor := env.actor()
	p := svc.recruit(env.getenv)
	return func(w io.Writer) error { return p.ExportParticipantsWithDemographics(ctx, studyID, actor, w) }
}
