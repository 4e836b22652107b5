package scoring

import (
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeModel is an in-process OpenAI-compatible server. pTrue decides, from
// the prompt text and the option order, the probability the model puts on
// "True"; the server spells that out as top log-probabilities (the True
// letter split over " X" and "X" tokens, a distractor token, all masses
// scaled by 0.8 so renormalising is needed) or as samples.
type fakeModel struct {
	pTrue func(prompt string, o Order) float64
	// letter answers a multiple-choice prompt (logprob and reply modes).
	letter func(prompt string) string
	// ignoreN makes the server answer one choice whatever n asked.
	ignoreN bool
	delay   time.Duration

	requests atomic.Int64
	inFlight atomic.Int64
	maxIn    atomic.Int64
	mu       sync.Mutex
	auth     []string
}

func (f *fakeModel) server(t *testing.T) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(s.Close)
	return s
}

func orderOf(prompt string) Order {
	if strings.Contains(prompt, "A) False") {
		return FalseFirst
	}
	return TrueFirst
}

func (f *fakeModel) serve(w http.ResponseWriter, r *http.Request) {
	f.requests.Add(1)
	n := f.inFlight.Add(1)
	defer f.inFlight.Add(-1)
	for {
		m := f.maxIn.Load()
		if n <= m || f.maxIn.CompareAndSwap(m, n) {
			break
		}
	}
	f.mu.Lock()
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.mu.Unlock()
	if f.delay > 0 {
		time.Sleep(f.delay)
	}
	var req struct {
		Prompt   string `json:"prompt"`
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
		N           int `json:"n"`
		Logprobs    any `json:"logprobs"`
		TopLogprobs int `json:"top_logprobs"`
		MaxTokens   int `json:"max_tokens"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad json", 400)
		return
	}
	chat := strings.HasSuffix(r.URL.Path, "/v1/chat/completions")
	if !chat && !strings.HasSuffix(r.URL.Path, "/v1/completions") {
		http.NotFound(w, r)
		return
	}
	prompt := req.Prompt
	if chat {
		prompt = req.Messages[0].Content
	}
	wantLogprobs := req.Logprobs != nil && req.Logprobs != false
	var choices []map[string]any
	switch {
	case wantLogprobs:
		top := f.top(prompt)
		choices = append(choices, f.logprobChoice(chat, top))
	default:
		n := max(req.N, 1)
		if f.ignoreN {
			n = 1
		}
		for i := range n {
			text := f.reply(prompt, i)
			if chat {
				choices = append(choices, map[string]any{"message": map[string]any{"role": "assistant", "content": text}})
			} else {
				choices = append(choices, map[string]any{"text": text})
			}
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"choices": choices})
}

// top returns the candidate tokens of the next position.
func (f *fakeModel) top(prompt string) []topLogprob {
	if f.letter != nil && strings.Contains(prompt, "D. ") {
		// Multiple choice: the chosen letter gets 0.6, the others 0.1 each,
		// "X" for none of them.
		l := f.letter(prompt)
		var out []topLogprob
		for _, x := range letters {
			p := 0.1
			if x == l {
				p = 0.6
			}
			out = append(out, topLogprob{" " + x, math.Log(p)})
		}
		if l == Refusal {
			out = []topLogprob{{"I", math.Log(0.9)}, {"Sorry", math.Log(0.05)}}
		}
		return out
	}
	o := orderOf(prompt)
	p := f.pTrue(prompt, o)
	tl, fl := "A", "B"
	if o == FalseFirst {
		tl, fl = "B", "A"
	}
	return []topLogprob{
		{"The", math.Log(0.2)},
		{" " + tl, math.Log(0.8 * p * 2 / 3)},
		{strings.ToLower(tl), math.Log(0.8 * p / 3)},
		{" " + fl, math.Log(0.8 * (1 - p))},
	}
}

func (f *fakeModel) logprobChoice(chat bool, top []topLogprob) map[string]any {
	if chat {
		var tl []map[string]any
		for _, t := range top {
			tl = append(tl, map[string]any{"token": t.Token, "logprob": t.Logprob, "bytes": []byte(t.Token)})
		}
		return map[string]any{
			"message":  map[string]any{"content": top[0].Token},
			"logprobs": map[string]any{"content": []any{map[string]any{"token": top[0].Token, "logprob": top[0].Logprob, "top_logprobs": tl}}},
		}
	}
	m := map[string]float64{}
	for _, t := range top {
		m[t.Token] = t.Logprob
	}
	return map[string]any{
		"text":     top[0].Token,
		"logprobs": map[string]any{"tokens": []string{top[0].Token}, "token_logprobs": []float64{top[0].Logprob}, "top_logprobs": []any{m}},
	}
}

// reply is sample i of a sampled reply. For True/False prompts the first
// round(5·p) of five samples answer True, in varied spellings, the rest
// False; for multiple choice the reply names f.letter.
func (f *fakeModel) reply(prompt string, i int) string {
	if f.letter != nil && strings.Contains(prompt, "D. ") {
		switch l := f.letter(prompt); l {
		case Refusal:
			return "I cannot answer that."
		default:
			return "The answer is " + l + "."
		}
	}
	o := orderOf(prompt)
	p := f.pTrue(prompt, o)
	k := i
	if f.ignoreN {
		k = int(f.requests.Load()-1) % 5
	}
	trueSpell := []string{o.letterOfTrue(), " " + strings.ToLower(o.letterOfTrue()) + ")", "True", "**" + o.letterOfTrue() + "**", "Answer: " + o.letterOfTrue()}
	other := "B"
	if o.letterOfTrue() == "B" {
		other = "A"
	}
	falseSpell := []string{other, "False", " " + other + ".", "(" + other + ")", "False."}
	if k < int(math.Round(p*5)) {
		return trueSpell[k%5]
	}
	return falseSpell[k%5]
}
