package runner

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"pragmalab/domain"
	"pragmalab/scoring"
	"pragmalab/store"
)

// Size and cost before a run (docs/scoring.md#size-and-cost-before-the-run). No tokenizer
// of the model is known here, so tokens are estimated by one published
// rule of thumb and labelled so: a token is about 4 characters of English
// text (OpenAI's guide), counted as 4 bytes of UTF-8 so accented Italian
// letters weigh more, plus the few tokens a chat message adds.

// Token estimate rule.
const (
	bytesPerToken    = 4
	chatTokensPerMsg = 7
	// TokenRule says how tokens are counted, wherever they are shown.
	TokenRule = "estimated: 1 token per 4 bytes of UTF-8 text, plus 7 per chat message (no tokenizer of the model is known here)"
	// DefaultBatchShare is the share of the live price the batch engine
	// costs when no batch price is given (the OpenAI Batch API's 50 %).
	DefaultBatchShare = 0.5
)

// EstimateTokens is the estimated token count of a prompt text.
func EstimateTokens(text string) int {
	return (len(text) + bytesPerToken - 1) / bytesPerToken
}

// Price is a model's price in USD per million tokens, live and batch.
type Price struct {
	Input, Output           float64
	BatchInput, BatchOutput float64
}

// ParsePrices reads prices per model: "MODEL=IN/OUT" or
// "MODEL=IN/OUT/BATCH_IN/BATCH_OUT", USD per million tokens, entries
// separated by commas, semicolons or spaces (PRAGMALAB_PRICES, --price).
// Without batch prices the batch engine costs DefaultBatchShare of live.
func ParsePrices(s string) (map[string]Price, error) {
	out := map[string]Price{}
	for _, e := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' || r == ' ' || r == '\n' }) {
		model, vals, ok := strings.Cut(e, "=")
		model = strings.TrimSpace(model)
		if !ok || model == "" {
			return nil, fmt.Errorf("price %q: write MODEL=IN/OUT in USD per million tokens, e.g. gpt-4o-mini=0.15/0.60", e)
		}
		parts := strings.Split(vals, "/")
		if len(parts) != 2 && len(parts) != 4 {
			return nil, fmt.Errorf("price of %s: give IN/OUT or IN/OUT/BATCH_IN/BATCH_OUT in USD per million tokens, not %q", model, vals)
		}
		var v [4]float64
		for i, p := range parts {
			f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
				return nil, fmt.Errorf("price of %s: %q is not a price (a number of USD per million tokens)", model, p)
			}
			v[i] = f
		}
		if len(parts) == 2 {
			v[2], v[3] = v[0]*DefaultBatchShare, v[1]*DefaultBatchShare
		}
		out[model] = Price{v[0], v[1], v[2], v[3]}
	}
	return out, nil
}

// Cost is an estimated cost in USD: the input's, and at most the output's
// (every reply using its whole token limit).
type Cost struct {
	Input, OutputMax float64
}

// Max is the cost when every reply uses its token limit.
func (c Cost) Max() float64 { return c.Input + c.OutputMax }

// Estimate is the size of a job (or of what is left of one) and, with a
// price, its cost live and in batch.
type Estimate struct {
	Model    string `json:"model"`
	Engine   string `json:"engine"`
	Prompts  int    `json:"prompts"`
	Requests int    `json:"requests"`
	// InputTokens are estimated (TokenRule); OutputTokensMax is the sum of
	// the token limits of the replies asked for.
	InputTokens     int    `json:"input_tokens"`
	OutputTokensMax int    `json:"output_tokens_max"`
	TokenRule       string `json:"token_rule"`
	Price           *Price `json:"-"`
	Live            *Cost  `json:"cost_live_usd,omitempty"`
	Batch           *Cost  `json:"cost_batch_usd,omitempty"`
}

// outputPerRequest is the token limit of one request's replies.
func outputPerRequest(cfg scoring.Config, task scoring.Task) int {
	switch {
	case task == scoring.Generation:
		return cfg.GenMaxTokens
	case cfg.Mode == scoring.Logprobs:
		return 1
	case task == scoring.TrueFalse || scoring.IsHumanTask(task):
		return cfg.Samples * cfg.MaxTokens
	}
	return cfg.MaxTokens
}

// estimate counts texts asked of a model job with configuration cfg.
func estimate(cfg scoring.Config, task scoring.Task, texts func(func(string)) error, prices map[string]Price) (Estimate, error) {
	cfg = cfg.WithDefaults()
	e := Estimate{Model: cfg.Model, Engine: string(cfg.Engine), TokenRule: TokenRule}
	per := outputPerRequest(cfg, task)
	err := texts(func(t string) {
		e.Prompts++
		e.Requests++
		e.InputTokens += EstimateTokens(t)
		if cfg.API == scoring.ChatAPI {
			e.InputTokens += chatTokensPerMsg
		}
		e.OutputTokensMax += per
	})
	if p, ok := prices[cfg.Model]; ok {
		e.Price = &p
		e.Live = &Cost{float64(e.InputTokens) * p.Input / 1e6, float64(e.OutputTokensMax) * p.Output / 1e6}
		e.Batch = &Cost{float64(e.InputTokens) * p.BatchInput / 1e6, float64(e.OutputTokensMax) * p.BatchOutput / 1e6}
	}
	return e, err
}

// EstimateSpecs is the size and cost of the jobs specs would create (one
// per model over the same prompts); built-in scorers count prompts only.
func EstimateSpecs(ctx context.Context, db *store.DB, specs []Spec, prices map[string]Price) ([]Estimate, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	prompts, err := BuildPrompts(ctx, db, specs[0])
	if err != nil {
		return nil, err
	}
	var out []Estimate
	for _, s := range specs {
		if s.Scorer != ModelScorer {
			out = append(out, Estimate{Model: s.Scorer, Engine: "built-in", Prompts: len(prompts), TokenRule: TokenRule})
			continue
		}
		e, _ := estimate(s.Config, s.Task, func(f func(string)) error {
			for _, p := range prompts {
				f(p.Text)
			}
			return nil
		}, prices)
		out = append(out, e)
	}
	return out, nil
}

// EstimateJob is the size and cost of what a job has left to ask: its
// unanswered prompts.
func EstimateJob(ctx context.Context, db *store.DB, j *domain.Job, prices map[string]Price) (Estimate, error) {
	if j.Scorer != ModelScorer {
		p, err := db.JobProgress(ctx, j.ID)
		return Estimate{Model: j.Scorer, Engine: "built-in", Prompts: p.Total - p.Answered, TokenRule: TokenRule}, err
	}
	cfg, err := JobConfig(j)
	if err != nil {
		return Estimate{}, err
	}
	return estimate(cfg, scoring.Task(j.Task), func(f func(string)) error {
		after := 0
		for {
			page, err := db.PendingPrompts(ctx, j.ID, after, feedPage)
			if err != nil || len(page) == 0 {
				return err
			}
			for _, p := range page {
				f(p.Text)
			}
			after = page[len(page)-1].Seq
		}
	}, prices)
}

// PriceModels lists the models prices are given for, sorted.
func PriceModels(prices map[string]Price) []string {
	out := make([]string, 0, len(prices))
	for m := range prices {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}
