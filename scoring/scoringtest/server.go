// Package scoringtest is a fake OpenAI-compatible model server for tests and
// the scoring benchmark: it answers /v1/chat/completions and
// /v1/completions with log-probabilities (or sampled replies) derived from
// a hash of the prompt, after an optional latency, and counts what it was
// asked.
package scoringtest

import (
	"encoding/json"
	"hash/fnv"
	"math"
	"net/http"
	"net/http/httptest"
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
	if r.URL.Path != "/v1/chat/completions" && r.URL.Path != "/v1/completions" {
		// Echo the credentials as careless servers do, to test that
		// clients keep them out of errors.
		http.Error(w, `{"error":"no such endpoint for `+r.Header.Get("Authorization")+`"}`, http.StatusNotFound)
		return
	}
	var req struct {
		Prompt   string `json:"prompt"`
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
		N        int `json:"n"`
		Logprobs any `json:"logprobs"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil {
		http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
		return
	}
	chat := r.URL.Path == "/v1/chat/completions"
	prompt := req.Prompt
	if chat && len(req.Messages) > 0 {
		prompt = req.Messages[0].Content
	}
	s.mu.Lock()
	s.asked[prompt]++
	s.auth[r.Header.Get("Authorization")] = true
	s.mu.Unlock()
	if s.Latency > 0 {
		select {
		case <-time.After(s.Latency):
		case <-r.Context().Done():
			return
		}
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
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "chat.completion", "choices": choices})
}
