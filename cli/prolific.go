package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"pragmalab/domain"
	"pragmalab/recruit"
	"strings"
	"text/tabwriter"

	"pragmalab/prolific"
	"pragmalab/studies"
)

const prolificUsage = `Usage: pragmalab prolific ACTION --study ID [options] [--db FILE]

Drives Prolific's API for a crowd study (docs/prolific.md). The token is
read from PRAGMALAB_PROLIFIC_TOKEN, the API's address from
PRAGMALAB_PROLIFIC_API (default https://api.prolific.com). Every call that
approves, rejects or pays is recorded before it is sent: a retry never does
it twice. Without --yes, approve, reject, bonus, pay, create and group only
show what they would send.

Actions:
  check     test the token and the linked study
  link      --prolific-study PSID: link the study to its Prolific study
  sync      read the submissions; free the slots of returned and timed-out ones
  review    list every participant with both statuses and the disagreements
  approve   approve the completed participants the rules do not exclude
  reject    --participant PID --category C [--message TEXT]: reject one
  bonus     --csv FILE | --amount 0.50: set up bonuses (pays nothing)
  pay       --setup ID: pay bonuses set up before
  create    --url URL --reward-cents N --minutes M: create the study as a draft
  group     --group ID: add the study's participants to a participant group
  publish, pause, resume
            the study on Prolific (publish and resume need the go-live checklist)
  places    --add N: raise the places on Prolific, and pragmalab's quota with them
  cost      the study's cost with Prolific's fees
  screen-out
            move the screened-out's submissions to SCREENED OUT (paid)
  message   --to one --participant PID | --to completed|excluded|unfinished,
            --template thanks|bonus|question | --message TEXT: write through Prolific
  hooks     [--url https://SERVER] [--remove SUBSCRIPTION]: list, create or remove
            the webhook subscriptions
  filters   [--add FILTER=VALUE[,VALUE…]] [--range FILTER=LO:HI] [--remove FILTER]:
            show or change the study's screening (who may take part)
  eligible  how many participants the screening admits
  return    --participant PID --reason TEXT: ask one to return their submission
  inbox     the participants' messages about the study, unread first
  test-participant
            --email EMAIL: a Prolific test participant to try the study
  flags     send the flagged participants' integrity flags to Prolific as
            evidence (submission feedback upload), never as a rejection

`

// runProlific is `pragmalab prolific`.
func runProlific(ctx context.Context, args []string, env *Env) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprint(env.stderr, prolificUsage)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			return nil
		}
		return usagef("prolific: say which action (check, link, sync, review, approve, reject, bonus, pay, create, group, publish, pause, resume, places, cost, screen-out, message, hooks, filters, eligible, return, inbox, test-participant, flags)")
	}
	action := args[0]
	if screeningActions[action] {
		return runProlificScreening(ctx, action, args[1:], env)
	}
	fs := newFlagSet("prolific "+action, prolificUsage, env)
	studyID := fs.Int64("study", 0, "the crowd study's id")
	dbPath := dbFlag(fs, env)
	yes := fs.Bool("yes", false, "send it (without: show what would be sent)")
	psid := fs.String("prolific-study", "", "link: the Prolific study id")
	pid := fs.String("participant", "", "reject: the participant's PROLIFIC_PID")
	category := fs.String("category", "FAILED_CHECK", "reject: one of "+strings.Join(prolific.RejectionCategories, ", "))
	message := fs.String("message", "", "reject: the message (at least 100 characters; default: the failed-checks template)")
	csvFile := fs.String("csv", "", "bonus: a CSV of participant id, amount")
	amount := fs.String("amount", "", "bonus: a fixed bonus for every completed, included participant (e.g. 0.50)")
	setup := fs.String("setup", "", "pay: the bonus setup id that bonus printed")
	notSent := fs.Bool("not-sent", false, "pay: mark a payment whose answer was lost as not made (after checking on Prolific)")
	studyURL := fs.String("url", "", "create: the study's entry URL (as the study page shows it)")
	reward := fs.Int("reward-cents", 0, "create: the reward in pence or cents")
	minutes := fs.Int("minutes", 0, "create: the estimated time in minutes")
	description := fs.String("description", "", "create: the description participants read")
	group := fs.String("group", "", "group: the participant group id")
	add := fs.Int("add", 0, "places: how many places to add")
	to := fs.String("to", "", "message: one, completed, excluded or unfinished")
	template := fs.String("template", "", "message: thanks, bonus or question")
	remove := fs.String("remove", "", "hooks: the subscription id to remove")
	if err := parseFlags(fs, args[1:]); err != nil {
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
	p := svc.recruit(env.getenv)
	c := &prolificCmd{ctx: ctx, svc: svc, p: p, actor: env.actor(), out: env.stdout, action: action, studyID: *studyID, yes: *yes,
		psid: *psid, pid: *pid, category: *category, message: *message, csvFile: *csvFile, amount: *amount, setup: *setup,
		notSent: *notSent, studyURL: *studyURL, reward: *reward, minutes: *minutes, description: *description, groupID: *group,
		add: *add, to: *to, template: *template, remove: *remove}
	run, ok := map[string]func() error{
		"check":      c.check,
		"link":       c.link,
		"sync":       c.sync,
		"review":     c.review,
		"approve":    c.approve,
		"reject":     c.reject,
		"bonus":      c.bonus,
		"pay":        c.pay,
		"create":     c.create,
		"group":      c.group,
		"publish":    c.transition,
		"pause":      c.transition,
		"resume":     c.transition,
		"places":     c.places,
		"cost":       c.cost,
		"screen-out": c.screenOut,
		"message":    c.sendMessage,
		"hooks":      c.hooks,
	}[action]
	if !ok {
		return usagef("prolific: unknown action %q", action)
	}
	return run()
}

// prolificCmd is one `pragmalab prolific` action with its flags.
type prolificCmd struct {
	ctx                                           context.Context
	svc                                           *app
	p                                             *recruit.Service
	actor, action                                 string
	out                                           io.Writer
	studyID                                       int64
	yes, notSent                                  bool
	psid, pid, category, message, csvFile, amount string
	setup, studyURL, description, groupID         string
	reward, minutes                               int
	add                                           int
	to, template, remove                          string
}

// audit records a change in the study's record of researcher actions, as
// the pages do.
func (c *prolificCmd) audit(action, format string, a ...any) error {
	return c.svc.store.Audit(c.ctx, cliActor, c.studyID, action, c.actor+": "+fmt.Sprintf(format, a...))
}

// fail shows a domain error as the action's message.
func (c *prolificCmd) fail(err error) error {
	if err == nil {
		return nil
	}
	if code := domain.ErrorCode(err); code == domain.EINVALID || code == domain.ENOTFOUND || code == domain.ECONFLICT {
		return fmt.Errorf("prolific %s: %s", c.action, domain.ErrorMessage(err))
	}
	return err
}

func (c *prolificCmd) check() error {
	st, err := c.p.Check(c.ctx, c.studyID)
	if err != nil {
		return c.fail(err)
	}
	fmt.Fprintf(c.out, "connected to %s: study %s %q (%s, %d places)\n", c.p.Connection().APIBase, st.ID, st.Name, st.Status, st.TotalAvailablePlaces)
	return nil
}

func (c *prolificCmd) link() error {
	if err := c.svc.store.LinkProlific(c.ctx, c.studyID, c.psid); err != nil {
		return c.fail(err)
	}
	fmt.Fprintf(c.out, "study %d linked to Prolific study %s\n", c.studyID, strings.ToLower(c.psid))
	if err := c.audit("link Prolific study", "linked to %s", strings.ToLower(c.psid)); err != nil {
		return err
	}
	return nil
}

func (c *prolificCmd) sync() error {
	res, err := c.p.Sync(c.ctx, c.studyID)
	if err != nil {
		return c.fail(err)
	}
	fmt.Fprintf(c.out, "%d submissions read; %d slots freed (returned or timed out): %s\n", res.Submissions, len(res.Freed), strings.Join(res.Freed, ", "))
	rev, err := c.p.Review(c.ctx, c.studyID)
	if err != nil {
		return c.fail(err)
	}
	printDisagreements(c.out, rev)
	return nil
}

func (c *prolificCmd) review() error {
	rev, err := c.p.Review(c.ctx, c.studyID)
	if err != nil {
		return c.fail(err)
	}
	printReview(c.out, rev)
	return nil
}

func (c *prolificCmd) approve() error {
	if !c.yes {
		if _, err := c.p.Sync(c.ctx, c.studyID); err != nil {
			return c.fail(err)
		}
		rev, err := c.p.Review(c.ctx, c.studyID)
		if err != nil {
			return c.fail(err)
		}
		a := rev.Approvable()
		fmt.Fprintf(c.out, "would approve %d submissions (completed here, not excluded, awaiting review):\n", len(a))
		for _, r := range a {
			fmt.Fprintf(c.out, "  %s  %s\n", r.PID, r.SubmissionID)
		}
		fmt.Fprintln(c.out, "nothing sent: add --yes to approve them")
		return nil
	}
	res, err := c.p.Approve(c.ctx, c.studyID, c.actor, nil)
	if err != nil {
		return c.fail(err)
	}
	fmt.Fprintf(c.out, "approved %d submissions; %d were approved before\n", len(res.Approved), len(res.Already))
	if so := res.ScreenedOut; len(so.Moved) > 0 {
		fmt.Fprintf(c.out, "moved %d screened-out submissions to SCREENED OUT\n", len(so.Moved))
		if err := c.audit("screen out on Prolific", "moved %d submissions to SCREENED OUT: %s", len(so.Moved), strings.Join(so.Moved, ", ")); err != nil {
			return err
		}
	} else if so.NotPaid {
		fmt.Fprintf(c.out, "%d screened out, but the study on Prolific has no FIXED_SCREENOUT code %q: nothing sent for them; do not reject them\n", so.Due, so.Code)
	}
	if err := c.audit("approve Prolific submissions", "approved %d submissions: %s", len(res.Approved), strings.Join(res.Approved, ", ")); err != nil {
		return err
	}
	return nil
}

func (c *prolificCmd) reject() error {
	if c.pid == "" {
		return usagef("prolific reject: --participant is required")
	}
	// The template needs pragmalab's own record of the checks; Reject
	// itself syncs with Prolific before it sends anything.
	rev, err := c.p.Review(c.ctx, c.studyID)
	if err != nil {
		return c.fail(err)
	}
	msg := c.message
	if msg == "" {
		r := rev.Row(c.pid)
		if r == nil {
			return c.fail(domain.Errorf(domain.ENOTFOUND, "participant %s never reached the study: write the message with --message", c.pid))
		}
		msg = recruit.RejectionMessage(recruit.DefaultRejectionTemplate, *r)
	}
	if !c.yes {
		fmt.Fprintf(c.out, "would reject %s (%s) with the message:\n%s\nnothing sent: add --yes to reject\n", c.pid, c.category, msg)
		return nil
	}
	if err := c.p.Reject(c.ctx, c.studyID, c.actor, c.pid, c.category, msg); err != nil {
		return c.fail(err)
	}
	fmt.Fprintf(c.out, "rejected %s\n", c.pid)
	if err := c.audit("reject Prolific submissions", "rejected %s (%s)", c.pid, c.category); err != nil {
		return err
	}
	return nil
}

func (c *prolificCmd) bonus() error {
	var lines []recruit.BonusLine
	switch {
	case (c.csvFile == "") == (c.amount == ""):
		return usagef("prolific bonus: give --csv FILE or --amount X")
	case c.csvFile != "":
		f, err := os.Open(c.csvFile)
		if err != nil {
			return usagef("prolific bonus: %v", err)
		}
		lines, err = recruit.ParseBonusCSV(f)
		f.Close()
		if err != nil {
			return &usageError{c.fail(err)}
		}
	default:
		if _, err := c.p.Sync(c.ctx, c.studyID); err != nil {
			return c.fail(err)
		}
		var err error
		if lines, err = c.p.BonusRule(c.ctx, c.studyID, c.amount); err != nil {
			return c.fail(err)
		}
	}
	plan, err := c.p.PlanBonuses(c.ctx, c.studyID, lines)
	if err != nil {
		return c.fail(err)
	}
	for _, l := range plan.Lines {
		note := ""
		if l.Before > 0 {
			note = fmt.Sprintf("  (had %s before)", recruit.FormatCents(l.Before))
		}
		fmt.Fprintf(c.out, "  %s  %s%s\n", l.PID, recruit.FormatCents(l.AmountCents), note)
	}
	fmt.Fprintf(c.out, "%d bonuses, total %s before Prolific's fees\n", len(plan.Lines), recruit.FormatCents(plan.TotalCents))
	if !c.yes {
		fmt.Fprintln(c.out, "nothing sent: add --yes to set them up (this pays nothing yet)")
		return nil
	}
	s, err := c.p.SetUpBonuses(c.ctx, c.studyID, c.actor, plan)
	if err != nil {
		return c.fail(err)
	}
	fmt.Fprintf(c.out, "set up on Prolific as %s: amount %.2f + fees %.2f + VAT %.2f = %.2f\nto pay: pragmalab prolific pay --study %d --setup %s --yes\n",
		s.ID, s.Amount, s.Fees, s.VAT, s.TotalAmount, c.studyID, s.ID)
	if err := c.audit("set up Prolific bonus", "%d bonuses set up as %s, total %.2f with fees", len(plan.Lines), s.ID, s.TotalAmount); err != nil {
		return err
	}
	return nil
}

func (c *prolificCmd) pay() error {
	if c.setup == "" {
		return usagef("prolific pay: --setup is required")
	}
	if c.notSent {
		if err := c.p.MarkPaymentNotSent(c.ctx, c.studyID, c.actor, c.setup); err != nil {
			return c.fail(err)
		}
		fmt.Fprintf(c.out, "payment of %s marked as not made; it may be paid again\n", c.setup)
		if err := c.audit("mark Prolific payment not sent", "payment of %s marked as not made", c.setup); err != nil {
			return err
		}
		return nil
	}
	if !c.yes {
		fmt.Fprintf(c.out, "would pay bonus setup %s\nnothing sent: add --yes to pay\n", c.setup)
		return nil
	}
	if err := c.p.PayBonuses(c.ctx, c.studyID, c.actor, c.setup); err != nil {
		return c.fail(err)
	}
	fmt.Fprintf(c.out, "paid bonus setup %s\n", c.setup)
	if err := c.audit("pay Prolific bonus", "paid bonus setup %s", c.setup); err != nil {
		return err
	}
	return nil
}

func (c *prolificCmd) create() error {
	in := recruit.DraftInput{Description: c.description, StudyURL: c.studyURL, RewardCents: c.reward, Minutes: c.minutes}
	if !c.yes {
		fmt.Fprintf(c.out, "would create a draft study on Prolific for study %d (reward %d, %d minutes, URL %s)\nnothing sent: add --yes\n", c.studyID, c.reward, c.minutes, c.studyURL)
		return nil
	}
	st, err := c.p.CreateDraft(c.ctx, c.studyID, c.actor, in)
	if err != nil {
		return c.fail(err)
	}
	fmt.Fprintf(c.out, "created draft study %s on Prolific and linked it; publish it there\n", st.ID)
	if err := c.audit("create Prolific draft", "created draft study %s", st.ID); err != nil {
		return err
	}
	return nil
}

func (c *prolificCmd) group() error {
	if !c.yes {
		fmt.Fprintf(c.out, "would add the study's participants to group %s\nnothing sent: add --yes\n", c.groupID)
		return nil
	}
	n, err := c.p.AddToGroup(c.ctx, c.studyID, c.actor, c.groupID)
	if err != nil {
		return c.fail(err)
	}
	fmt.Fprintf(c.out, "added %d participants to group %s\n", n, c.groupID)
	if err := c.audit("add Prolific participant group", "added %d participants to group %s", n, c.groupID); err != nil {
		return err
	}
	return nil
}

func printReview(w io.Writer, rev *recruit.Review) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "participant\there\tprolific\texcluded\tchecks failed\tscreened out")
	for _, r := range rev.Rows {
		st := r.ProlificStatus
		if st == "" {
			st = "—"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%v\t%d of %d\t%s\n", domain.TerminalSafe(r.PID), r.Here, domain.TerminalSafe(st), r.Excluded, r.ChecksFailed, r.ChecksAnswered, domain.TerminalSafe(orNone(r.ScreenOut)))
	}
	tw.Flush()
	printDisagreements(w, rev)
}

func printDisagreements(w io.Writer, rev *recruit.Review) {
	for _, r := range rev.NeverReached {
		fmt.Fprintf(w, "never reached pragmalab: %s (%s on Prolific)\n", r.PID, r.ProlificStatus)
	}
	for _, r := range rev.Disagreements() {
		fmt.Fprintf(w, "statuses disagree: %s is %s here but %s on Prolific\n", r.PID, r.Here, r.ProlificStatus)
	}
}
