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
  pragmalab prolific inbox --study ID
  pragmalab prolific test-participant --study ID --email EMAIL [--yes]
  pragmalab prolific flags --study ID [--yes]

filters shows the study's screening on Prolific; with changes, what it
would become, saved with --yes (names are Prolific's filters and their
choices, e.g. first-language=Italian, age=18:40). eligible asks Prolific how
many participants the screening admits. return asks a participant to
return their submission instead of rejecting it; it is sent once. inbox
lists the participants' messages about the study, unread first (reply with
message --to one). test-participant creates a Prolific test participant
for your email, to try the study as a participant. flags shows the
integrity flags of the participants with a submission on Prolific and, with
--yes, uploads them to Prolific as evidence — never a rejection; the same
flags are sent once (docs/prolific.md#screening, #request-return,
#inbound-messages, #flags-to-prolific).

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
	email := fs.String("email", "", "test-participant: an email not registered on Prolific")
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
	c := &prolificCmd{ctx: ctx, svc: svc, p: svc.recruit(env.getenv), actor: env.actor(), out: env.stdout, action: action, studyID: *studyID, yes: *yes, pid: *pid}
	switch action {
	case "filters":
		return c.filters(recruit.ScreeningChange{Add: adds, Range: ranges, Remove: removes})
	case "eligible":
		return c.eligible()
	case "inbox":
		return c.inbox()
	case "test-participant":
		return c.testParticipant(*email)
	case "flags":
		return c.signals()
	default:
		return c.requestReturn(*reason)
	}
}

// screeningActions are the actions runProlificScreening runs.
var screeningActions = map[string]bool{"filters": true, "eligible": true, "return": true, "inbox": true, "test-participant": true, "flags": true}

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

// signals shows the flags an upload would send, or sends them with --yes.
func (c *prolificCmd) signals() error {
	plan, err := c.p.PlanSignals(c.ctx, c.studyID)
	if c.yes && err == nil {
		plan, err = c.p.SendSignals(c.ctx, c.studyID, c.actor)
	}
	if err != nil {
		return c.fail(err)
	}
	for _, r := range plan.Rows {
		fmt.Fprintf(c.out, "%s\tsubmission %s\t%s\n", r.PID, r.SubmissionID, strings.Join(r.Flags, ", "))
	}
	if !c.yes {
		fmt.Fprintf(c.out, "would upload %s (%d participants) to Prolific as evidence, not a rejection\nnothing sent: add --yes\n", plan.Filename, len(plan.Rows))
		return nil
	}
	fmt.Fprintf(c.out, "uploaded %s (%d participants) to Prolific as evidence; no submission was rejected\n", plan.Filename, len(plan.Rows))
	return c.audit("Prolific flags upload", "uploaded the integrity flags of %d participants as %s", len(plan.Rows), plan.Filename)
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

func (c *prolificCmd) inbox() error {
	msgs, err := c.p.Inbox(c.ctx, c.studyID)
	if err != nil {
		return c.fail(err)
	}
	if len(msgs) == 0 {
		fmt.Fprintln(c.out, "no message from the study's participants in the last 30 days")
		return nil
	}
	for _, m := range msgs {
		state := "read"
		if m.Unread {
			state = "UNREAD"
		}
		fmt.Fprintf(c.out, "%s  %s  %s  %s\n  %s\n", state, m.SentAt.UTC().Format("2006-01-02 15:04"), m.PID, orNone(m.Category), strings.ReplaceAll(m.Body, "\n", "\n  "))
	}
	fmt.Fprintln(c.out, "reply: pragmalab prolific message --to one --participant PID --message TEXT --yes")
	return nil
}

func (c *prolificCmd) testParticipant(email string) error {
	if email == "" {
		return usagef("prolific test-participant: --email is required")
	}
	if !c.yes {
		fmt.Fprintf(c.out, "would create a Prolific test participant for %s (POST /api/v1/researchers/participants/)\nnothing sent: add --yes\n", email)
		return nil
	}
	id, err := c.p.CreateTestParticipant(c.ctx, c.studyID, c.actor, email)
	if err != nil {
		return c.fail(err)
	}
	fmt.Fprintf(c.out, "test participant %s for %s: reset its password on Prolific, log in with it, and add it to a participant group or allowlist the study admits\n", id, email)
	return c.audit("Prolific test participant", "created test participant %s", id)
}
