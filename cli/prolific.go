package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"pragmalab/prolific"
	"pragmalab/store"
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

`

// runProlific is `pragmalab prolific`.
func runProlific(ctx context.Context, args []string, env *Env) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprint(env.stderr, prolificUsage)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			return nil
		}
		return usagef("prolific: say which action (check, link, sync, review, approve, reject, bonus, pay, create, group)")
	}
	action := args[0]
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
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if *studyID <= 0 {
		return usagef("prolific %s: --study is required", action)
	}
	db, err := store.Open(ctx, *dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	p := studies.NewProlific(db, env.getenv)
	actor := "cli"
	if u := env.getenv("USER"); u != "" {
		actor = "cli:" + u
	}
	out := env.stdout
	fail := func(err error) error {
		if err == nil {
			return nil
		}
		if c := store.ErrorCode(err); c == store.EINVALID || c == store.ENOTFOUND || c == store.ECONFLICT {
			return fmt.Errorf("prolific %s: %s", action, store.ErrorMessage(err))
		}
		return err
	}
	switch action {
	case "check":
		st, err := p.Check(ctx, *studyID)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(out, "connected to %s: study %s %q (%s, %d places)\n", p.API.BaseURL(), st.ID, st.Name, st.Status, st.TotalAvailablePlaces)
	case "link":
		if err := db.LinkProlific(ctx, *studyID, *psid); err != nil {
			return fail(err)
		}
		fmt.Fprintf(out, "study %d linked to Prolific study %s\n", *studyID, strings.ToLower(*psid))
	case "sync":
		res, err := p.Sync(ctx, *studyID)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(out, "%d submissions read; %d slots freed (returned or timed out): %s\n", res.Submissions, len(res.Freed), strings.Join(res.Freed, ", "))
		rev, err := p.Review(ctx, *studyID)
		if err != nil {
			return fail(err)
		}
		printDisagreements(out, rev)
	case "review":
		rev, err := p.Review(ctx, *studyID)
		if err != nil {
			return fail(err)
		}
		printReview(out, rev)
	case "approve":
		if !*yes {
			if _, err := p.Sync(ctx, *studyID); err != nil {
				return fail(err)
			}
			rev, err := p.Review(ctx, *studyID)
			if err != nil {
				return fail(err)
			}
			a := rev.Approvable()
			fmt.Fprintf(out, "would approve %d submissions (completed here, not excluded, awaiting review):\n", len(a))
			for _, r := range a {
				fmt.Fprintf(out, "  %s  %s\n", r.PID, r.SubmissionID)
			}
			fmt.Fprintln(out, "nothing sent: add --yes to approve them")
			return nil
		}
		res, err := p.Approve(ctx, *studyID, actor, nil)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(out, "approved %d submissions; %d were approved before\n", len(res.Approved), len(res.Already))
	case "reject":
		if *pid == "" {
			return usagef("prolific reject: --participant is required")
		}
		if _, err := p.Sync(ctx, *studyID); err != nil {
			return fail(err)
		}
		rev, err := p.Review(ctx, *studyID)
		if err != nil {
			return fail(err)
		}
		msg := *message
		if msg == "" {
			r := rev.Row(*pid)
			if r == nil {
				return fail(store.Errorf(store.ENOTFOUND, "participant %s never reached the study: write the message with --message", *pid))
			}
			msg = studies.RejectionMessage(studies.DefaultRejectionTemplate, *r)
		}
		if !*yes {
			fmt.Fprintf(out, "would reject %s (%s) with the message:\n%s\nnothing sent: add --yes to reject\n", *pid, *category, msg)
			return nil
		}
		if err := p.Reject(ctx, *studyID, actor, *pid, *category, msg); err != nil {
			return fail(err)
		}
		fmt.Fprintf(out, "rejected %s\n", *pid)
	case "bonus":
		var lines []studies.BonusLine
		switch {
		case (*csvFile == "") == (*amount == ""):
			return usagef("prolific bonus: give --csv FILE or --amount X")
		case *csvFile != "":
			f, err := os.Open(*csvFile)
			if err != nil {
				return usagef("prolific bonus: %v", err)
			}
			lines, err = studies.ParseBonusCSV(f)
			f.Close()
			if err != nil {
				return &usageError{fail(err)}
			}
		default:
			if _, err := p.Sync(ctx, *studyID); err != nil {
				return fail(err)
			}
			if lines, err = p.BonusRule(ctx, *studyID, *amount); err != nil {
				return fail(err)
			}
		}
		plan, err := p.PlanBonuses(ctx, *studyID, lines)
		if err != nil {
			return fail(err)
		}
		for _, l := range plan.Lines {
			note := ""
			if l.Before > 0 {
				note = fmt.Sprintf("  (had %s before)", studies.FormatCents(l.Before))
			}
			fmt.Fprintf(out, "  %s  %s%s\n", l.PID, studies.FormatCents(l.AmountCents), note)
		}
		fmt.Fprintf(out, "%d bonuses, total %s before Prolific's fees\n", len(plan.Lines), studies.FormatCents(plan.TotalCents))
		if !*yes {
			fmt.Fprintln(out, "nothing sent: add --yes to set them up (this pays nothing yet)")
			return nil
		}
		s, err := p.SetUpBonuses(ctx, *studyID, actor, plan)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(out, "set up on Prolific as %s: amount %.2f + fees %.2f + VAT %.2f = %.2f\nto pay: pragmalab prolific pay --study %d --setup %s --yes\n",
			s.ID, s.Amount, s.Fees, s.VAT, s.TotalAmount, *studyID, s.ID)
	case "pay":
		if *setup == "" {
			return usagef("prolific pay: --setup is required")
		}
		if *notSent {
			if err := p.MarkPaymentNotSent(ctx, *studyID, actor, *setup); err != nil {
				return fail(err)
			}
			fmt.Fprintf(out, "payment of %s marked as not made; it may be paid again\n", *setup)
			return nil
		}
		if !*yes {
			fmt.Fprintf(out, "would pay bonus setup %s\nnothing sent: add --yes to pay\n", *setup)
			return nil
		}
		if err := p.PayBonuses(ctx, *studyID, actor, *setup); err != nil {
			return fail(err)
		}
		fmt.Fprintf(out, "paid bonus setup %s\n", *setup)
	case "create":
		in := studies.DraftInput{Description: *description, StudyURL: *studyURL, RewardCents: *reward, Minutes: *minutes}
		if !*yes {
			fmt.Fprintf(out, "would create a draft study on Prolific for study %d (reward %d, %d minutes, URL %s)\nnothing sent: add --yes\n", *studyID, *reward, *minutes, *studyURL)
			return nil
		}
		st, err := p.CreateDraft(ctx, *studyID, actor, in)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(out, "created draft study %s on Prolific and linked it; publish it there\n", st.ID)
	case "group":
		if !*yes {
			fmt.Fprintf(out, "would add the study's participants to group %s\nnothing sent: add --yes\n", *group)
			return nil
		}
		n, err := p.AddToGroup(ctx, *studyID, actor, *group)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(out, "added %d participants to group %s\n", n, *group)
	default:
		return usagef("prolific: unknown action %q", action)
	}
	return nil
}

func printReview(w io.Writer, rev *studies.Review) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "participant\there\tprolific\texcluded\tchecks failed")
	for _, r := range rev.Rows {
		st := r.ProlificStatus
		if st == "" {
			st = "—"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%v\t%d of %d\n", r.PID, r.Here, st, r.Excluded, r.ChecksFailed, r.ChecksAnswered)
	}
	tw.Flush()
	printDisagreements(w, rev)
}

func printDisagreements(w io.Writer, rev *studies.Review) {
	for _, r := range rev.NeverReached {
		fmt.Fprintf(w, "never reached pragmalab: %s (%s on Prolific)\n", r.PID, r.ProlificStatus)
	}
	for _, r := range rev.Disagreements() {
		fmt.Fprintf(w, "statuses disagree: %s is %s here but %s on Prolific\n", r.PID, r.Here, r.ProlificStatus)
	}
}
