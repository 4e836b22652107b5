package comparisons

import (
	"context"
	"fmt"
	"strings"

	"pragmalab/analysis/report"
	"pragmalab/domain"
	"pragmalab/studies"
)

// IntegrityMethods is the paragraph of a crowd study's methods section on
// the integrity of its participants, as the Analysis page shows it below
// the toplines' (docs/statistics.md#integrity-methods): the layers the
// study used, their measured rates, and how many participants each flag
// marked — with LLM-echo run as on the study page. It is "" for a study
// of a kind without the crowd flow (a crowd or judgement study has it) or without participants. Flags mark participants for
// review; the paragraph says that none was excluded on them alone.
func (c *Service) IntegrityMethods(ctx context.Context, st *domain.Study) (string, error) {
	if !domain.IsCrowdKind(st.Kind) {
		return "", nil
	}
	set, err := studies.CrowdSettings(st)
	if err != nil {
		return "", err
	}
	reps, err := c.db.CrowdParticipants(ctx, st.ID, set)
	if err != nil || len(reps) == 0 {
		return "", err
	}
	echo, err := c.LLMEcho(ctx, st.ID, set, reps)
	if err != nil {
		return "", err
	}
	flagged := map[string]int{}
	any := 0
	for _, p := range reps {
		if len(p.Flags) > 0 {
			any++
		}
		for _, f := range p.Flags {
			flagged[f.Name]++
		}
	}
	return integrityParagraph(set, len(reps), any, flagged, echo), nil
}

// integrityParagraph words IntegrityMethods from the study's settings, its
// n participants (flaggedAny of them with at least one flag), the count of
// each flag and the LLM-echo sentence of the participants table.
func integrityParagraph(set domain.CrowdSettings, n, flaggedAny int, flagged map[string]int, echo string) string {
	layers := []string{
		"the server's own record of when each screen was sent and answered, against which the times a browser reported were checked (clock_mismatch), and a per-screen token that only the page's script derives, so that signals sent without it were evidence of a client writing them (unscripted_signals)",
		"a decoy field and a rating field whose names, labels and places were drawn per participant, hidden from sight, from screen readers and from password managers (honeypot)",
		"the browser's own signals where the page's script sent them (synthetic input, navigator.webdriver, no pointer or key event), never counted when absent",
	}
	if set.MachineCheck {
		layers = append(layers, "a hidden instruction addressed to AI models on screens drawn per participant, in wording drawn from a pool in the study's language; a participant was flagged when they obeyed most of its instances (machine_instruction)")
	}
	if set.Justifications > 0 {
		layers = append(layers, fmt.Sprintf("%d typed justification(s) per participant, judged by how they were typed (pauses before words and clauses, revisions), of which only summaries were kept (transcribed_text; in simulations 0–0.1 %% of composing, dictating or pasting writers and 88–100 %% of transcribing agents were flagged, rates not measured on people)", set.Justifications))
	}
	if set.SignedURL {
		layers = append(layers, "Prolific's signed study URLs, each arrival's token verified against Prolific's published keys")
	}
	// The participants table's sentence says whether the check ran, and
	// against which humans (llm_echo.go, llm_echo_reference.go).
	if strings.HasPrefix(echo, "LLM-echo: assessed") {
		ref := report.EchoMeasuredPool
		rule := "the study's own participants as the reference humans"
		if strings.Contains(echo, "trusted participants") {
			ref, rule = report.EchoMeasuredReference, "the participants the researchers marked as trusted as the reference humans"
		}
		layers = append(layers, fmt.Sprintf("LLM-echo against the study's finished scoring jobs, with %s (in %s, flagging %.1f %% of copying agents for a model as noisy as one person and %.1f %% for a good one, and %.1f–%.1f %% of honest raters)",
			rule, "simulated studies of pragmalab's bench integrity", ref[0].Detection, ref[1].Detection, min(ref[0].FalseFlagLo, ref[1].FalseFlagLo), max(ref[0].FalseFlagHi, ref[1].FalseFlagHi)))
	}
	var counts []string
	for _, name := range domain.IntegrityFlagNames {
		if k := flagged[name]; k > 0 {
			counts = append(counts, fmt.Sprintf("%s %d", name, k))
		}
	}
	said := "No participant was flagged."
	if flaggedAny > 0 {
		// n counts everyone who started, finished or not: more than the
		// participants the paragraph above analysed, and said so.
		said = fmt.Sprintf("%d of the %d participants who started (finished or not) were flagged for review (%s); a participant may carry several flags.", flaggedAny, n, strings.Join(counts, ", "))
	}
	return "Participant integrity was checked with " + strings.Join(layers, "; ") + ". " + said +
		" No participant was excluded or rejected on a flag alone. A participant whose answers equal a good model's answers cannot be told from a copier of that model by any of these checks."
}
