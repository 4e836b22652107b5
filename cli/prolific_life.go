package cli

import (
	"fmt"
	"strings"

	"pragmalab/domain"
	"pragmalab/recruit"
)

// The study's life on Prolific, screen-outs, messages and webhooks from
// the command line (docs/prolific.md): without --yes each shows what it
// would send and sends nothing.

func (c *prolificCmd) transition() error {
	if !c.yes {
		life, err := c.p.Life(c.ctx, c.studyID)
		if err != nil {
			return c.fail(err)
		}
		fmt.Fprintf(c.out, "the study is %s on Prolific (as last read)\n", orNone(life.Status))
		if c.action != "pause" && len(life.Missing) > 0 {
			fmt.Fprintf(c.out, "%s would be refused: the go-live checklist misses %s\n", c.action, strings.Join(life.Missing, "; "))
		}
		if c.action == "publish" {
			c.warnEligible()
		}
		fmt.Fprintf(c.out, "nothing sent: add --yes to %s the study on Prolific\n", c.action)
		return nil
	}
	res, err := c.p.TransitionStudy(c.ctx, c.studyID, c.actor, c.action)
	if err != nil {
		return c.fail(err)
	}
	if res.Already {
		fmt.Fprintf(c.out, "the study is %s on Prolific already: nothing sent\n", res.Status)
		return nil
	}
	fmt.Fprintf(c.out, "%s sent: the study is %s on Prolific\n", c.action, res.Status)
	return c.audit("Prolific study transition", "%s: the study is %s on Prolific", c.action, res.Status)
}

func (c *prolificCmd) places() error {
	if c.add <= 0 {
		return usagef("prolific places: --add N (more than 0) is required")
	}
	pl, err := c.p.PlanPlaces(c.ctx, c.studyID, c.add)
	if err != nil {
		return c.fail(err)
	}
	fmt.Fprintf(c.out, "places on Prolific: %d → %d\n", pl.From, pl.To)
	if pl.QuotaRaised() {
		fmt.Fprintf(c.out, "pragmalab's quota: %d → %d per batch (%d batches hold %d places)\n", pl.QuotaFrom, pl.QuotaTo, pl.Batches, pl.Capacity)
	} else {
		fmt.Fprintf(c.out, "pragmalab's quota stays %d (%d batches hold %d places)\n", pl.QuotaFrom, pl.Batches, pl.Capacity)
	}
	if pl.CostCents > 0 {
		fmt.Fprintf(c.out, "the added places cost %s with Prolific's fees\n", domain.FormatCents(pl.CostCents))
	}
	if !c.yes {
		fmt.Fprintln(c.out, "nothing sent: add --yes to add the places")
		return nil
	}
	if pl, err = c.p.AddPlaces(c.ctx, c.studyID, c.actor, c.add); err != nil {
		return c.fail(err)
	}
	fmt.Fprintf(c.out, "places raised to %d on Prolific\n", pl.To)
	return c.audit("add Prolific places", "places %d → %d; quota %d → %d", pl.From, pl.To, pl.QuotaFrom, pl.QuotaTo)
}

func (c *prolificCmd) cost() error {
	cp, err := c.p.Cost(c.ctx, c.studyID)
	if err != nil {
		return c.fail(err)
	}
	fmt.Fprintf(c.out, "reward %s × %d places = %s\n", domain.FormatCents(cp.RewardCents), cp.Places, domain.FormatCents(cp.RewardTotal))
	if cp.FromProlific {
		fmt.Fprintf(c.out, "with Prolific's fees and VAT (%s): %s\n", domain.FormatCents(cp.FeesCents), domain.FormatCents(cp.TotalCents))
	} else {
		fmt.Fprintf(c.out, "Prolific's calculator did not answer (%s): fees not included\n", cp.CalculatorErr)
	}
	if cp.Places > cp.PragmalabCap {
		fmt.Fprintf(c.out, "warning: pragmalab's batches hold %d places, fewer than Prolific's %d\n", cp.PragmalabCap, cp.Places)
	}
	return nil
}

func (c *prolificCmd) screenOut() error {
	if !c.yes {
		rev, err := c.p.Review(c.ctx, c.studyID)
		if err != nil {
			return c.fail(err)
		}
		for _, r := range rev.ScreenedOut() {
			fmt.Fprintf(c.out, "  %s  %s  %s  %s\n", r.PID, r.ScreenOut, orNone(r.SubmissionID), orNone(r.ProlificStatus))
		}
		fmt.Fprintln(c.out, "nothing sent: add --yes to move those awaiting review to SCREENED OUT")
		return nil
	}
	res, err := c.p.ScreenOut(c.ctx, c.studyID, c.actor)
	if err != nil {
		return c.fail(err)
	}
	switch {
	case res.Due == 0:
		fmt.Fprintln(c.out, "no screened-out submission awaits review on Prolific")
		return nil
	case res.NotPaid:
		fmt.Fprintf(c.out, "%d screened out, but the study on Prolific has no FIXED_SCREENOUT code %q: nothing sent; do not reject them\n", res.Due, res.Code)
		return nil
	}
	fmt.Fprintf(c.out, "moved %d submissions to SCREENED OUT\n", len(res.Moved))
	return c.audit("screen out on Prolific", "moved %d submissions to SCREENED OUT: %s", len(res.Moved), strings.Join(res.Moved, ", "))
}

func (c *prolificCmd) sendMessage() error {
	body := c.message
	if c.template != "" {
		b, ok := recruit.MessageTemplateBody(c.template)
		if !ok {
			return usagef("prolific message: --template is thanks, bonus or question")
		}
		body = b
	}
	if c.to == "" {
		return usagef("prolific message: --to one (with --participant), completed, excluded or unfinished is required")
	}
	plan, err := c.p.PlanMessage(c.ctx, c.studyID, c.to, c.pid, body)
	if err != nil {
		return c.fail(err)
	}
	fmt.Fprintf(c.out, "to %d participants: %s\n\n%s\n\n", len(plan.Recipients), strings.Join(plan.Recipients, ", "), plan.Body)
	if !c.yes {
		fmt.Fprintln(c.out, "nothing sent: add --yes to send it")
		return nil
	}
	if err := c.p.SendMessage(c.ctx, c.studyID, c.actor, plan); err != nil {
		return c.fail(err)
	}
	fmt.Fprintln(c.out, "sent")
	return c.audit("message on Prolific", "message to %d participants (%s)", len(plan.Recipients), plan.Selection)
}

func (c *prolificCmd) hooks() error {
	switch {
	case c.remove != "" && c.yes:
		if err := c.p.Unsubscribe(c.ctx, c.studyID, c.actor, c.remove); err != nil {
			return c.fail(err)
		}
		fmt.Fprintf(c.out, "subscription %s removed\n", c.remove)
		return c.audit("Prolific hooks", "removed subscription %s", c.remove)
	case c.studyURL != "" && c.yes:
		made, err := c.p.Subscribe(c.ctx, c.studyID, c.actor, c.studyURL)
		if err != nil {
			return c.fail(err)
		}
		for _, s := range made {
			fmt.Fprintf(c.out, "subscribed %s → %s (%s)\n", s.EventType, s.TargetURL, s.ID)
		}
		if len(made) == 0 {
			fmt.Fprintln(c.out, "already subscribed: nothing created")
			return nil
		}
		return c.audit("Prolific hooks", "subscribed %d event types to %s", len(made), recruit.HookTarget(c.studyURL))
	}
	list, err := c.p.ListHooks(c.ctx, c.studyID)
	if err != nil {
		return c.fail(err)
	}
	fmt.Fprintf(c.out, "workspace %s: %d subscriptions\n", list.WorkspaceID, len(list.Subscriptions))
	for _, s := range list.Subscriptions {
		state := "enabled"
		if !s.IsEnabled {
			state = "not confirmed"
		}
		fmt.Fprintf(c.out, "  %s  %-26s %s  (%s)\n", s.ID, s.EventType, s.TargetURL, state)
	}
	switch {
	case c.remove != "":
		fmt.Fprintf(c.out, "nothing sent: add --yes to remove %s\n", c.remove)
	case c.studyURL != "":
		fmt.Fprintf(c.out, "nothing sent: add --yes to subscribe %s to %s\n", recruit.HookTarget(c.studyURL), "submission.status.change and study.status.change")
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
