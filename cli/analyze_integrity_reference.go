package cli

import (
	"slices"

	"pragmalab/analysis/integrity"
	"pragmalab/analysis/report"
)

// checkReferenceFlags checks --reference and --methods beside the others.
func checkReferenceFlags(reference, ratings, models, methods string, asJSON bool, opt *integrity.IntegrityOptions) error {
	switch {
	case reference != "" && models == "":
		return usagef("analyze integrity: --reference needs --models (the reference is what the models are weighed against)")
	case reference == "-" && (ratings == "-" || models == "-"):
		return usagef("analyze integrity: only one of --ratings, --models and --reference can read standard input")
	case methods != "" && methods != "text" && methods != "markdown":
		return usagef("analyze integrity: --methods %q: want text or markdown", methods)
	case methods != "" && asJSON:
		return usagef("analyze integrity: choose one of --json and --methods")
	}
	// The reference rule shares --min-items and --alpha with the pool's.
	opt.Fit.MinItems, opt.Fit.Alpha = opt.Echo.MinItems, opt.Echo.Alpha
	if reference != "" {
		if err := opt.Fit.Validate(); err != nil {
			return usagef("analyze integrity: --%v", err)
		}
	}
	return nil
}

// readReference reads the trusted humans' ratings (the ratings file's
// format; attention checks left out) and refuses a reference that rates
// no item of the ratings, or a rating above the scale.
func readReference(path string, rows []integrity.IntegrityRow, points int, env *Env) ([]integrity.EchoRating, error) {
	if path == "" {
		return nil, nil
	}
	ref, err := readIntegrityFile(path, env, integrity.ReadIntegrityRatings)
	if err != nil {
		return nil, err
	}
	if err := checkScale(ref, path, points); err != nil {
		return nil, err
	}
	items := map[[2]string]bool{}
	for _, r := range rows {
		items[[2]string{r.Item, r.Condition}] = true
	}
	var out []integrity.EchoRating
	shared := false
	for _, r := range ref {
		if r.Check != "" {
			continue
		}
		shared = shared || items[[2]string{r.Item, r.Condition}]
		out = append(out, integrity.EchoRating{Participant: r.Participant, Item: r.Item, Condition: r.Condition, Rating: r.Rating})
	}
	if !shared {
		return nil, usagef("%s: the reference rates no item (and condition) of the ratings file: a reference must rate the same items", fileLabel(path))
	}
	return out, nil
}

// echoSummary says how llm_echo was assessed (the JSON's
// llm_echo_summary, docs/formats.md#integrity-json).
type echoSummary struct {
	// Rule is "reference" (trusted humans), "pool" (the pool's own other
	// participants) or "none" (no models).
	Rule            string                `json:"rule"`
	Models          []string              `json:"models"`
	ReferenceHumans int                   `json:"reference_humans"`
	ReferenceOpts   *integrity.FitOptions `json:"reference_options"`
	Participants    int                   `json:"participants"`
	Assessed        int                   `json:"assessed"`
	Flagged         int                   `json:"flagged"`
	// Caveat is the warning printed without a reference ("" with one).
	Caveat string `json:"caveat"`
	// rules: a speed or straight-lining rule was set (for --methods).
	rules bool
}

// PoolCaveat is printed (and in the JSON) when llm_echo compared the
// participants with the pool's own humans.
const PoolCaveat = "LLM-echo compared each participant with the pool's other participants, not with humans you trust: when agents are many, \"the other humans\" are agents and copiers of a model go unflagged (docs/statistics.md#llm-echo-measured). Give --reference FILE, ratings of trusted humans on the same items."

func echoSummaryOf(res []integrity.ParticipantIntegrity, answers []integrity.ModelAnswer, opt integrity.IntegrityOptions) echoSummary {
	q := opt.Quality
	s := echoSummary{Rule: "none", Models: []string{}, Participants: len(res),
		rules: q.ExcludeFastPercent > 0 || q.ExcludeMedianRT > 0 || q.ExcludeRun > 0}
	for _, a := range answers {
		if !slices.Contains(s.Models, a.Model) {
			s.Models = append(s.Models, a.Model)
		}
	}
	if len(answers) == 0 {
		return s
	}
	if len(opt.Reference) > 0 {
		s.Rule, s.ReferenceHumans = "reference", len(integrity.FitReferenceIDs(opt.Reference))
		fo := opt.Fit
		s.ReferenceOpts = &fo
	} else {
		s.Rule, s.Caveat = "pool", PoolCaveat
	}
	for _, p := range res {
		switch {
		case p.LLMEchoReference != nil:
			if p.LLMEchoReference.Assessed() {
				s.Assessed++
			}
			if p.LLMEchoReference.Flagged {
				s.Flagged++
			}
		case p.LLMEcho != nil:
			if p.LLMEcho.Assessed(opt.Echo) {
				s.Assessed++
			}
			if p.LLMEcho.Flagged {
				s.Flagged++
			}
		}
	}
	return s
}

// integrityMethods is the --methods paragraph.
func integrityMethods(res []integrity.ParticipantIntegrity, s echoSummary, markdown bool) string {
	return report.IntegrityMethods(res, report.EchoMethodsInput{Rule: s.Rule, Models: s.Models, ReferenceHumans: s.ReferenceHumans, Rules: s.rules}, markdown)
}
