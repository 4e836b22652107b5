// Package scoringtest is a fake OpenAI-compatible model server for tests and
// the scoring benchmark: it answers /v1/chat/completions and
// /v1/completions with log-probabilities (or sampled replies) derived from
// a hash of the prompt, after an optional latency, and counts what it was
// asked.
package scoringtest

import (
	"encoding/json"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Server is a running fake model server.
type Server struct {
	*httptest.Server
	// Latency is added to every reply.
	Latency time.Duration

	requests atomic.Int64
	mu       sync.Mutex
	asked    map[string]int
	auth     map[string]bool
	batch    batchState
}

// NewServer starts a fake server with the given latency.
func NewServer(latency time.Duration) *Server {
	s := &Server{Latency: latency, asked: map[string]int{}, auth: map[string]bool{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Requests is the number of requests served.
func (s *Server) Requests() int64 { return s.requests.Load() }

// Asked returns how many times each prompt text was asked.
func (s *Server) Asked() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.asked))
	for k, v := range s.asked {
		out[k] = v
	}
	return out
}

// SawAuthorization reports whether some request carried this header value.
func (s *Server) SawAuthorization(v string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.auth[v]
}

// PTrue is the probability of "True" the server gives a prompt: a hash of
// the prompt with its option lines removed, so both orders of a question
// agree, spread over (0, 1).
func PTrue(prompt string) float64 {
	h := fnv.New64a()
	for _, ln := range strings.Split(prompt, "\n") {
		if !strings.HasPrefix(ln, "A) ") && !strings.HasPrefix(ln, "B) ") {
			h.Write([]byte(ln))
		}
	}
	return float64(h.Sum64()%998+1) / 1000
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	if s.serveBatchAPI(w, r) {
		return
	}
	if r.URL.Path != "/v1/chat/completions" && r.URL.Path != "/v1/completions" {
		// Echo the credentials as careless servers do, to test that
		// clients keep them out of errors.
		http.Error(w, `{"error":"no such endpoint for `+r.Header.Get("Authorization")+`"}`, http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
	if err != nil {
		http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.asked[promptOf(r.URL.Path, body)]++
	s.auth[r.Header.Get("Authorization")] = true
	s.mu.Unlock()
	if s.Latency > 0 {
		select {
		case <-time.After(s.Latency):
		case <-r.Context().Done():
			return
		}
	}
	status, out := s.reply(r.URL.Path, body)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(out)
}

// request is the part of a completion request the fake reads.
type request struct {
	Model    string `json:"model"`
	Prompt   string `json:"prompt"`
	Messages []struct {
		Content string `json:"content"`
	} `json:"messages"`
	N        int `json:"n"`
	Logprobs any `json:"logprobs"`
}

// promptOf is the prompt text of a completion request ("" if unreadable).
func promptOf(path string, body []byte) string {
	var req request
	json.Unmarshal(body, &req)
	if path == "/v1/chat/completions" && len(req.Messages) > 0 {
		return req.Messages[0].Content
	}
	return req.Prompt
}

// reply answers one completion request, a live one or a line of a batch.
func (s *Server) reply(path string, body []byte) (int, []byte) {
	var req request
	if err := json.Unmarshal(body, &req); err != nil {
		return http.StatusBadRequest, []byte(`{"error":{"message":"bad request"}}`)
	}
	chat := path == "/v1/chat/completions"
	prompt := req.Prompt
	if chat && len(req.Messages) > 0 {
		prompt = req.Messages[0].Content
	}
	if k := scalePoints(prompt); k > 0 {
		return http.StatusOK, pointReply(req.Model, chat, req.Logprobs != nil && req.Logprobs != false, max(1, req.N), PointDist(prompt, k))
	}
	p := PTrue(prompt)
	trueLetter, falseLetter := "A", "B"
	if strings.Contains(prompt, "A) False") {
		trueLetter, falseLetter = "B", "A"
	}
	var choices []any
	if req.Logprobs != nil && req.Logprobs != false {
		top := [][2]any{{" " + trueLetter, math.Log(0.9 * p)}, {" " + falseLetter, math.Log(0.9 * (1 - p))}, {" The", math.Log(0.1)}}
		if chat {
			var tl []any
			for _, t := range top {
				tl = append(tl, map[string]any{"token": t[0], "logprob": t[1]})
			}
			choices = append(choices, map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": top[0][0]},
				"logprobs": map[string]any{"content": []any{map[string]any{"token": top[0][0], "logprob": top[0][1], "top_logprobs": tl}}}})
		} else {
			m := map[string]any{}
			for _, t := range top {
				m[t[0].(string)] = t[1]
			}
			choices = append(choices, map[string]any{"index": 0, "text": top[0][0], "logprobs": map[string]any{"tokens": []any{top[0][0]}, "top_logprobs": []any{m}}})
		}
	} else {
		for i := range max(1, req.N) {
			text := falseLetter
			if float64(i)+0.5 < p*float64(max(1, req.N)) {
				text = trueLetter
			}
			if chat {
				choices = append(choices, map[string]any{"index": i, "message": map[string]any{"role": "assistant", "content": text}})
			} else {
				choices = append(choices, map[string]any{"index": i, "text": text})
			}
		}
	}
	out, _ := json.Marshal(map[string]any{"object": "chat.completion", "model": req.Model, "choices": choices})
	return http.StatusOK, out
}

// scaleRe finds the instruction of a prompt answered with a number
// ("Answer with one number from 1 to 7 only.", "… da 1 a 5.").
var scaleRe = regexp.MustCompile(`(?:from|da) 1 (?:to|a) (\d)\b`)

// scalePoints is the number of options of a prompt answered with a number
// (0 for a letter).
func scalePoints(prompt string) int {
	m := scaleRe.FindStringSubmatch(prompt)
	if m == nil {
		return 0
	}
	k, _ := strconv.Atoi(m[1])
	return k
}

// PointDist is the probability the fake gives each number 1…k as the
// answer to a prompt (in the order the prompt lists them): weights from a
// hash of the whole prompt, normalised.
func PointDist(prompt string, k int) []float64 {
	h := fnv.New64a()
	h.Write([]byte(prompt))
	v := h.Sum64()
	d := make([]float64, k)
	sum := 0.0
	for i := range d {
		d[i] = float64(v>>(6*i)&63) + 1
		sum += d[i]
	}
	for i := range d {
		d[i] /= sum
	}
	return d
}

// pointReply answers a numbered prompt: the number tokens with 0.9 of the
// probability mass spread as d (and " The" with 0.1), or n sampled
// numbers drawn deterministically from d.
func pointReply(model string, chat, logprobs bool, n int, d []float64) []byte {
	var choices []any
	if logprobs {
		best := 0
		var tl []any
		m := map[string]any{}
		for i, p := range d {
			if p > d[best] {
				best = i
			}
			tok := " " + strconv.Itoa(i+1)
			tl = append(tl, map[string]any{"token": tok, "logprob": math.Log(0.9 * p)})
			m[tok] = math.Log(0.9 * p)
		}
		tl = append(tl, map[string]any{"token": " The", "logprob": math.Log(0.1)})
		m[" The"] = math.Log(0.1)
		first := " " + strconv.Itoa(best+1)
		if chat {
			choices = append(choices, map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": first},
				"logprobs": map[string]any{"content": []any{map[string]any{"token": first, "logprob": math.Log(0.9 * d[best]), "top_logprobs": tl}}}})
		} else {
			choices = append(choices, map[string]any{"index": 0, "text": first, "logprobs": map[string]any{"tokens": []any{first}, "top_logprobs": []any{m}}})
		}
	} else {
		for i := range n {
			u, acc, pick := (float64(i)+0.5)/float64(n), 0.0, len(d)
			for j, p := range d {
				acc += p
				if u < acc {
					pick = j + 1
					break
				}
			}
			text := strconv.Itoa(pick)
			if chat {
				choices = append(choices, map[string]any{"index": i, "message": map[string]any{"role": "assistant", "content": text}})
			} else {
				choices = append(choices, map[string]any{"index": i, "text": text})
			}
		}
	}
	out, _ := json.Marshal(map[string]any{"object": "chat.completion", "model": model, "choices": choices})
	return out
}
