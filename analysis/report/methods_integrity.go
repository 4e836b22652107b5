package report

import (
	"fmt"
	"strings"

	"pragmalab/analysis/integrity"
)

// EchoMeasured is one line of `pragmalab bench integrity`'s table as the
// methods paragraph quotes it (docs/statistics.md#llm-echo-measured):
// at one model noise, the share of copying agents flagged and the range
// over the generators of honest raters flagged, in percent.
type EchoMeasured struct {
	ModelNoise               float64
	Detection                float64
	FalseFlagLo, FalseFlagHi float64
}

// EchoMeasuredReference and EchoMeasuredPool are the bench's figures for
// the two rules at model noise 1 (a model as noisy as one person) and 0.5
// (a good model), from the run docs/statistics.md#llm-echo-measured
// reports (seed 44, 150 studies per cell); TestEchoMeasuredInDocs keeps
// them equal to the docs' table.
var (
	EchoMeasuredReference = []EchoMeasured{{1, 85.6, 0.3, 0.3}, {0.5, 35.0, 0.7, 0.8}}
	EchoMeasuredPool      = []EchoMeasured{{1, 42.7, 0.6, 0.6}, {0.5, 30.6, 0.5, 0.9}}
)

// EchoMethodsInput is what the methods paragraph says about LLM-echo.
type EchoMethodsInput struct {
	// Rule is "reference", "pool" or "none" (no models).
	Rule            string
	Models          []string
	ReferenceHumans int
	// Rules: the study's response-time or straight-lining rules were set.
	Rules bool
}

// IntegrityMethods is the methods paragraph of `analyze integrity`
// (docs/statistics.md#integrity-flags): the layers used, LLM-echo's
// measured rates for the rule used, and the number flagged by each flag.
func IntegrityMethods(ps []integrity.ParticipantIntegrity, in EchoMethodsInput, markdown bool) string {
	code := func(s string) string {
		if markdown {
			return "`" + s + "`"
		}
		return s
	}
	var b strings.Builder
	var layers []string
	signals, machine := false, false
	for _, p := range ps {
		signals = signals || p.Signals.AnswersWithSignals > 0
		machine = machine || p.Signals.MachineInstructed > 0
	}
	if signals {
		layers = append(layers, "the browser's integrity signals where the page's script reported them (a filled hidden field, script-dispatched input, navigator.webdriver, pastes into text fields, answers without any pointer or key event; an empty signal was never counted as evidence)")
	}
	if machine {
		layers = append(layers, "a hidden instruction addressed to automated agents")
	}
	if in.Rules {
		layers = append(layers, "the study's response-time and straight-lining rules")
	}
	switch in.Rule {
	case "reference":
		layers = append(layers, fmt.Sprintf("LLM-echo against %d model%s (%s), each participant's ratings compared with those of %d trusted reference raters: a participant was flagged when their ratings followed a model beyond the combination of the model and the reference raters' mean that the reference raters themselves follow (one-sided t-test, family-wise α over the models, a slope of at least 0.5, where a copy has 1 and an honest rater 0, and closer to the model, in standard errors, than every reference rater)",
			len(in.Models), pluralS(len(in.Models)), strings.Join(in.Models, ", "), in.ReferenceHumans))
	case "pool":
		layers = append(layers, fmt.Sprintf("LLM-echo against %d model%s (%s), each participant's agreement with a model compared with their agreement with the other participants (Correlated Agreement); no trusted reference was used, so agents forming a large share of the pool would not be detected",
			len(in.Models), pluralS(len(in.Models)), strings.Join(in.Models, ", ")))
	}
	switch len(layers) {
	case 0:
		b.WriteString("Participants were not screened for automated responding: the ratings carried no integrity signal, no rule was set and no model was compared. ")
	case 1:
		fmt.Fprintf(&b, "Participants were screened for automated responding with one layer: %s. ", layers[0])
	default:
		fmt.Fprintf(&b, "Participants were screened for automated responding with %d layers: %s. ", len(layers), strings.Join(layers, "; "))
	}
	if in.Rule == "reference" || in.Rule == "pool" {
		rates := EchoMeasuredReference
		name := "against a trusted reference of 3 raters"
		if in.Rule == "pool" {
			rates, name = EchoMeasuredPool, "against the pool's own participants"
		}
		var parts []string
		for i, r := range rates {
			ff := fmt.Sprintf("%.1f–%.1f %%", r.FalseFlagLo, r.FalseFlagHi)
			if r.FalseFlagLo == r.FalseFlagHi {
				ff = fmt.Sprintf("%.1f %%", r.FalseFlagLo)
			}
			if i == 0 {
				parts = append(parts, fmt.Sprintf("with a model as noisy as one person (noise %.1f) it flagged %.1f %% of agents copying the model with a quarter of their answers moved one point, and %s of honest raters (the range over two generators of honest ratings)", r.ModelNoise, r.Detection, ff))
			} else {
				parts = append(parts, fmt.Sprintf("with a better model (noise %.1f), %.1f %% and %s", r.ModelNoise, r.Detection, ff))
			}
		}
		fmt.Fprintf(&b, "On simulated studies (%s, 10–60 items, agents 0–75 %% of the pool), LLM-echo %s was measured: %s. ",
			code("pragmalab bench integrity"), name, strings.Join(parts, "; "))
		b.WriteString("A participant whose answers equal a good model's cannot be told from a copier of it, and a copier of a model not among those compared is not detected by this layer. ")
	}
	counts := map[string]int{}
	flagged := 0
	for _, p := range ps {
		if len(p.Flags) > 0 {
			flagged++
		}
		for _, f := range p.Flags {
			counts[f]++
		}
	}
	var per []string
	for _, f := range integrity.IntegrityFlagNames {
		if counts[f] > 0 {
			per = append(per, fmt.Sprintf("%s %d", code(f), counts[f]))
		}
	}
	fmt.Fprintf(&b, "Of %d participants, %d were flagged", len(ps), flagged)
	if len(per) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(per, ", "))
	}
	b.WriteString("; flags were reviewed as evidence, and no participant was excluded automatically.\n")
	return b.String()
}

func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
