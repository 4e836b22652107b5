package cli

import (
	"context"
	"fmt"
	"strings"

	"pragmalab/domain"
	"pragmalab/recruit"
	"pragmalab/studies"
)

const prolificScreeningUsage = `Usage:
  pragmalab prolific filters --study ID [--add FILTER=VALUE[,VALUE…]]… [--range FILTER=LO:HI]… [--remove FILTER]… [--yes]
  pragmalab prolific eligible --study ID
  pragmalab prolific return --study ID --participant PID --reason TEXT [--yes]

filters shows the study's screening on Prolific; with changes, what it
would become, saved with --yes (names are Prolific's filters and their
choices, e.g. first-language=Italian, age=18:40). eligible asks Prolific how
many participants the screening admits. return asks a participant to
return their submission instead of rejecting it; it is sent once
(docs/prolific.md#screening, #request-return).

`

// repeatFlag is a flag that may be given more than once; unlike listFlag
// it keeps commas, which separate a filter's values.
type repeatFlag []string

func (l *repeatFlag) String() string     { return strings.Join(*l, " ") }
func (l *repeatFlag) Set(v string) error { *l = append(*l, v); return nil }

// runProlificScreening is `pragmalab prolific filters|eligible|return`:
// their flags (--add, --remove) mean other things to the other actions.
func runProlificScreening(ctx context.Context, action string, args []string, env *Env) error {
	fs := newFlagSet("prolific "+action, prolificScreeningUsage, env)
	studyID := fs.Int64("study", 0, "the crowd study's id")
	dbPath := dbFlag(fs, env)
	yes := fs.Bool("yes", false, "save or send it (without: show what would be done)")
	var adds, ranges, removes repeatFlag
	fs.Var(&adds, "add", "filters: FILTER=VALUE[,VALUE…] (repeatable)")
	fs.Var(&ranges, "range", "filters: FILTER=LO:HI (repeatable)")
	fs.Var(&removes, "remove", "filters: FILTER to remove (repeatable)")
	pid := fs.String("participant", "", "return: the participant's PROLIFIC_PID")
	reason := fs.String("reason", "", "return: why (sent to the participant)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *studyID <= 0 {
		return usagef("prolific %s: --study is required", action)
	}
	svc, err := openApp(ctx, *dbPath, studies.OpenOptions{})
	if err != nil {
		return err
	}
	defer svc.Close()
	actor := "cli"
	if u := env.getenv("USER"); u != "" {
		actor = "cli:" + u
	}
	c := &prolificCmd{ctx: ctx, svc: svc, p: svc.recruit(env.getenv), actor: actor, out: env.stdout, action: action, studyID: *studyID, yes: *yes, pid: *pid}
	switch action {
	case "filters":
		return c.filters(recruit.ScreeningChange{Add: adds, Range: ranges, Remove: removes})
	case "eligible":
		return c.eligible()
	default:
		return c.requestReturn(*reason)
	}
}

// screeningActions are the actions runProlificScreening runs.
var screeningActions = map[string]bool{"filters": true, "eligible": true, "return": true}


func (c *prolificCmd) filters(ch recruit.ScreeningChange) error {
	if len(ch.Add)+len(ch.Range)+len(ch.Remove) == 0 {
		sc, err := c.p.Screening(c.ctx, c.studyID)
		if err != nil {
			return c.fail(err)
		}
		printScreening(c, "screening", sc.Filters)
		if sc.Proposed != "" {
			fmt.Fprintf(c.out, "the study's language proposes --add %s (not saved until you add it)\n", sc.Proposed)
		}
		return nil
	}
	if !c.yes {
		plan, err := c.p.PlanScreening(c.ctx, c.studyID, ch)
		if err != nil {
			return c.fail(err)
		}
		printScreening(c, "screening now", plan.Before)
		printScreening(c, "would become", plan.After)
		fmt.Fprintln(c.out, "nothing saved: add --yes")
		return nil
	}
	plan, err := c.p.SaveScreening(c.ctx, c.studyID, ch)
	if err != nil {
		return c.fail(err)
	}
	printScreening(c, "screening saved", plan.After)
	var names []string
	for _, f := range plan.After {
		names = append(names, recruit.FormatFilter(f))
	}
	return c.audit("Prolific screening", "screening set to %s", orNone(strings.Join(names, " ")))
}

func printScreening(c *prolificCmd, title string, fs []domain.ScreeningFilter) {
	if len(fs) == 0 {
		fmt.Fprintf(c.out, "%s: none (everybody on Prolific)\n", title)
		return
	}
	fmt.Fprintf(c.out, "%s:\n", title)
	for _, f := range fs {
		fmt.Fprintf(c.out, "  %s\n", recruit.FormatFilter(f))
	}
}

func (c *prolificCmd) eligible() error {
	e, err := c.p.EligibleCount(c.ctx, c.studyID)
	if err != nil {
		return c.fail(err)
	}
	fmt.Fprintf(c.out, "eligible participants: %s (for %d places)\n", e.Text(), e.Places)
	if w := e.Warning(); w != "" {
		fmt.Fprintf(c.out, "warning: %s\n", w)
	}
	return nil
}

func (c *prolificCmd) requestReturn(reason string) error {
	if c.pid == "" {
		return usagef("prolific return: --participant is required")
	}
	if !c.yes {
		plan, err := c.p.PlanReturn(c.ctx, c.studyID, c.pid, reason)
		if err != nil {
			return c.fail(err)
		}
		fmt.Fprintf(c.out, "would ask %s to return submission %s (%s) with the reason:\n%s\nnothing sent: add --yes\n", plan.PID, plan.SubmissionID, plan.Status, plan.Reason)
		return nil
	}
	plan, err := c.p.RequestReturn(c.ctx, c.studyID, c.actor, c.pid, reason)
	if err != nil {
		return c.fail(err)
	}
	fmt.Fprintf(c.out, "asked %s to return submission %s\n", plan.PID, plan.SubmissionID)
	return c.audit("Prolific return request", "asked %s to return submission %s", plan.PID, plan.SubmissionID)
}

// warnEligible adds the eligible count's warning to a publish preview; a
// count Prolific cannot give is said, not fatal.
func (c *prolificCmd) warnEligible() {
	e, err := c.p.EligibleCount(c.ctx, c.studyID)
	switch {
	case err != nil:
		fmt.Fprintf(c.out, "eligible participants: unknown (%s)\n", domain.ErrorMessage(err))
	case e.Warning() != "":
		fmt.Fprintf(c.out, "warning: %s\n", e.Warning())
	}
}
