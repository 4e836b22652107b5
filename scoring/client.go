package scoring

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"pragmalab/domain"
)

// Client asks a model behind OpenAI-compatible endpoints (vLLM, llama.cpp
// server, Ollama, OpenAI). It implements Scorer.
type Client struct {
	cfg  Config
	key  string // from the environment; never logged, stored or put in errors
	eps  []*endpoint
	next atomic.Uint64
	hc   *http.Client
	log  *slog.Logger

	// Learnt from servers' 400 replies; see adapt.
	useMaxCompletion atomic.Bool
	omitTemperature  atomic.Bool

	// Back-off: once every usable endpoint has failed a prompt, round k
	// waits a random time in [d/2, d] with d = min(backoffBase·2^k,
	// backoffMax); a Retry-After header is honoured up to maxRetryAfter.
	backoffBase   time.Duration
	backoffMax    time.Duration
	maxRetryAfter time.Duration
	// An endpoint failing benchAfter times in a row rests cooldownBase,
	// doubling with each benching up to cooldownMax.
	cooldownBase time.Duration
	cooldownMax  time.Duration
	// publicOnly refuses loopback and private addresses when dialling.
	publicOnly bool
	// proxy is the environment's proxy rule (domain.ProxyFunc).
	proxy func(*url.URL) (*url.URL, error)
	sleep func(context.Context, time.Duration) error
	now   func() time.Time
}

// ClientOption adjusts a Client; tests use them to avoid real waiting.
type ClientOption func(*Client)

// WithHTTPClient sets the HTTP client (default: a fresh one sized for the
// configured concurrency).
func WithHTTPClient(hc *http.Client) ClientOption { return func(c *Client) { c.hc = hc } }

// WithLogger sets where retries are logged (default: discarded).
func WithLogger(l *slog.Logger) ClientOption { return func(c *Client) { c.log = l } }

// WithBackoff sets the first back-off delay and its cap.
func WithBackoff(base, max time.Duration) ClientOption {
	return func(c *Client) { c.backoffBase, c.backoffMax = base, max }
}

// WithSleep replaces the context-aware sleep between retries.
func WithSleep(f func(context.Context, time.Duration) error) ClientOption {
	return func(c *Client) { c.sleep = f }
}

// WithCooldown sets how long a failing endpoint is benched at first, and
// the cap of the doubling cool-down.
func WithCooldown(first, max time.Duration) ClientOption {
	return func(c *Client) { c.cooldownBase, c.cooldownMax = first, max }
}

// WithPublicOnly makes the client's own transport refuse loopback, private
// and shared addresses (pragmalab serve --public-endpoints-only).
func WithPublicOnly(on bool) ClientOption { return func(c *Client) { c.publicOnly = on } }

// WithClock sets the clock used to read HTTP-date Retry-After headers and
// to bench endpoints.
func WithClock(now func() time.Time) ClientOption { return func(c *Client) { c.now = now } }

// NewClient checks cfg (after defaults) and reads the API key from the
// environment variable it names, through getenv.
func NewClient(cfg Config, getenv func(string) string, opts ...ClientOption) (*Client, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := &Client{
		cfg: cfg, log: slog.New(slog.DiscardHandler),
		backoffBase: 500 * time.Millisecond, backoffMax: 8 * time.Second, maxRetryAfter: time.Minute,
		cooldownBase: 10 * time.Second, cooldownMax: 2 * time.Minute,
		sleep: sleepCtx, now: time.Now,
	}
	if cfg.APIKeyEnv != "" {
		c.key = getenv(cfg.APIKeyEnv)
		if c.key == "" {
			return nil, fmt.Errorf("api_key_env: the environment variable %s is empty or unset", cfg.APIKeyEnv)
		}
	}
	for _, b := range cfg.BaseURLs {
		c.eps = append(c.eps, &endpoint{base: strings.TrimSpace(b), sem: make(chan struct{}, cfg.Concurrency)})
	}
	for _, o := range opts {
		o(c)
	}
	c.proxy = domain.ProxyFunc(getenv)
	if c.hc == nil {
		c.hc = &http.Client{Transport: c.transport()}
	}
	return c, nil
}

// Name is the model name.
func (c *Client) Name() string { return c.cfg.Model }

// Config returns the configuration in use (it holds no secret).
func (c *Client) Config() Config { return c.cfg }

// Concurrency is the number of requests the client can usefully have in
// flight: per-endpoint concurrency times the number of endpoints.
func (c *Client) Concurrency() int { return c.cfg.Concurrency * len(c.eps) }

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Score asks one prompt in the configured mode.
func (c *Client) Score(ctx context.Context, p Prompt) (Answer, error) {
	q, err := c.askOf(p)
	if err != nil {
		return Answer{}, err
	}
	if q.logprobs {
		rb, path := c.logprobsRequest(p.Text)
		var resp responseBody
		if err := c.post(ctx, path, rb, &resp); err != nil {
			return Answer{}, err
		}
		return c.fromLogprobs(p, q, resp)
	}
	samples, err := c.sample(ctx, p.Text, q.n, q.temp, q.maxTokens)
	if err != nil {
		return Answer{}, err
	}
	return c.fromSamples(p, samples)
}

// ask is what a prompt's request asks for: one greedy token with its top
// log-probabilities over the allowed letters, or n replies at temperature
// temp of at most maxTokens tokens. The live client and the batch lines
// (batch.go) ask the same.
type ask struct {
	logprobs  bool
	allowed   []string
	n         int
	temp      float64
	maxTokens int
}

// askOf is the request of prompt p in the configured mode.
func (c *Client) askOf(p Prompt) (ask, error) {
	switch {
	case p.Task == TrueFalse && c.cfg.Mode == Logprobs:
		return ask{logprobs: true, allowed: letters[:2], n: 1}, nil
	case p.Task == TrueFalse:
		return ask{n: c.cfg.Samples, temp: c.cfg.Temperature, maxTokens: c.cfg.MaxTokens}, nil
	case p.Task == MultipleChoice && c.cfg.Mode == Logprobs:
		return ask{logprobs: true, allowed: letters[:], n: 1}, nil
	case p.Task == MultipleChoice:
		return ask{n: 1, maxTokens: c.cfg.MaxTokens}, nil
	case p.Task == Generation:
		return ask{n: 1, maxTokens: c.cfg.GenMaxTokens}, nil
	case IsHumanTask(p.Task) && c.cfg.Mode == Logprobs:
		return ask{logprobs: true, allowed: humanTokens(p), n: 1}, nil
	case IsHumanTask(p.Task):
		return ask{n: c.cfg.Samples, temp: c.cfg.Temperature, maxTokens: c.cfg.MaxTokens}, nil
	}
	return ask{}, fmt.Errorf("prompt %s: unknown task %q", p.Key, p.Task)
}

// fromLogprobs reads a log-probability reply to prompt p.
func (c *Client) fromLogprobs(p Prompt, q ask, resp responseBody) (Answer, error) {
	lp, tok, err := readLogprobs(resp, q.allowed)
	if err != nil {
		return Answer{}, err
	}
	if p.Task == TrueFalse {
		pt, ok := pTrueFromLogprobs(lp, p.Order)
		if !ok {
			return Answer{}, fmt.Errorf("neither A nor B among the top %d next tokens (model began %q)", c.cfg.TopLogprobs, tok)
		}
		return Answer{PTrue: pt, Logprobs: lp}, nil
	}
	if IsHumanTask(p.Task) {
		return humanFromLogprobs(p, lp, c.cfg.TopLogprobs, tok)
	}
	best, bestLP := Refusal, math.Inf(-1)
	for _, l := range letters {
		if v, ok := lp[l]; ok && v > bestLP {
			best, bestLP = l, v
		}
	}
	return Answer{Letter: best, Reply: tok, Logprobs: lp}, nil
}

// fromSamples reads the sampled replies to prompt p.
func (c *Client) fromSamples(p Prompt, samples []string) (Answer, error) {
	switch p.Task {
	case TrueFalse:
		return tfFromSamples(samples, p.Order)
	case MultipleChoice:
		return Answer{Letter: ParseLetter(samples[0], letters[:]), Reply: samples[0]}, nil
	case Likert, Expert, ContextTask, ExplanationRating:
		return humanFromSamples(p, samples)
	}
	a := Answer{Reply: ExtractExplanation(samples[0])}
	if a.Reply != strings.TrimSpace(samples[0]) {
		a.Samples = samples
	}
	return a, nil
}

// tfFromSamples is P(True) as the share of True among the samples that
// answer True or False; a sample answering neither is unparseable, counted
// and kept, never read as False.
func tfFromSamples(samples []string, o Order) (Answer, error) {
	trues, unparsed := 0, 0
	for _, s := range samples {
		t, ok := ParseTrueFalse(s, o)
		switch {
		case !ok:
			unparsed++
		case t:
			trues++
		}
	}
	parsed := len(samples) - unparsed
	if parsed == 0 {
		return Answer{}, fmt.Errorf("none of the %d samples answers True or False (first: %q)", len(samples), clipText(samples[0], 80))
	}
	return Answer{PTrue: float64(trues) / float64(parsed), Samples: samples, Unparsed: unparsed}, nil
}

// clipText cuts s to at most n characters for a message.
func clipText(s string, n int) string {
	r := []rune(strings.TrimSpace(s))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n]) + "…"
}

// Wire types of the two OpenAI endpoints (only the fields we use).
type (
	chatMessage struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	requestBody struct {
		Model     string        `json:"model"`
		Prompt    string        `json:"prompt,omitempty"`
		Messages  []chatMessage `json:"messages,omitempty"`
		MaxTokens int           `json:"max_tokens,omitempty"`
		// MaxCompletionTokens replaces MaxTokens for servers that refuse
		// the older name (OpenAI's reasoning models).
		MaxCompletionTokens int      `json:"max_completion_tokens,omitempty"`
		Temperature         *float64 `json:"temperature,omitempty"`
		N                   int      `json:"n,omitempty"`
		// Logprobs is an int (top-k) on /completions, a bool on /chat.
		Logprobs    any `json:"logprobs,omitempty"`
		TopLogprobs int `json:"top_logprobs,omitempty"`
	}
	responseBody struct {
		Model   string `json:"model"`
		Choices []struct {
			Text    string `json:"text"`
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
			Logprobs *struct {
				// completions
				Tokens      []string             `json:"tokens"`
				TopLogprobs []map[string]float64 `json:"top_logprobs"`
				// chat
				Content []struct {
					Token       string  `json:"token"`
					Logprob     float64 `json:"logprob"`
					TopLogprobs []struct {
						Token   string  `json:"token"`
						Logprob float64 `json:"logprob"`
					} `json:"top_logprobs"`
				} `json:"content"`
			} `json:"logprobs"`
		} `json:"choices"`
	}
)

func (c *Client) newRequest(text string, maxTokens int, temp float64, n int) (requestBody, string) {
	rb := requestBody{Model: c.cfg.Model, MaxTokens: maxTokens, Temperature: &temp}
	if n > 1 {
		rb.N = n
	}
	if c.cfg.API == CompletionsAPI {
		rb.Prompt = text
		return rb, "completions"
	}
	rb.Messages = []chatMessage{{Role: "user", Content: text}}
	return rb, "chat/completions"
}

// logprobsRequest asks for one greedy token with its top candidates.
func (c *Client) logprobsRequest(text string) (requestBody, string) {
	rb, path := c.newRequest(text, 1, 0, 1)
	if c.cfg.API == CompletionsAPI {
		rb.Logprobs = c.cfg.TopLogprobs
	} else {
		rb.Logprobs, rb.TopLogprobs = true, c.cfg.TopLogprobs
	}
	return rb, path
}

// readLogprobs folds a reply's top candidates into one log-probability per
// allowed letter, from the first position whose candidates name any. tok
// is the token the model produced, for errors.
func readLogprobs(resp responseBody, allowed []string) (map[string]float64, string, error) {
	if len(resp.Choices) == 0 || resp.Choices[0].Logprobs == nil {
		return nil, "", errors.New("the server returned no log-probabilities (does it support logprobs? try sampling mode)")
	}
	if err := positiveLogprob(resp); err != nil {
		return nil, "", err
	}
	lps := resp.Choices[0].Logprobs
	var positions [][]topLogprob
	var first string
	for _, m := range lps.TopLogprobs {
		pos := make([]topLogprob, 0, len(m))
		for t, v := range m {
			pos = append(pos, topLogprob{t, v})
		}
		positions = append(positions, pos)
	}
	if len(lps.Tokens) > 0 {
		first = lps.Tokens[0]
	}
	for _, ct := range lps.Content {
		pos := make([]topLogprob, 0, len(ct.TopLogprobs))
		for _, t := range ct.TopLogprobs {
			pos = append(pos, topLogprob{t.Token, t.Logprob})
		}
		positions = append(positions, pos)
		if first == "" {
			first = ct.Token
		}
	}
	for _, pos := range positions {
		if lp := letterLogprobs(pos, allowed); len(lp) > 0 {
			return lp, first, nil
		}
	}
	if len(positions) == 0 {
		return nil, "", errors.New("the server returned no top log-probabilities (does it support top_logprobs? try sampling mode)")
	}
	return map[string]float64{}, first, nil
}

// positiveLogprob refuses a reply holding a log-probability above 0 (a
// probability above 1): a broken server or an edited file, whose numbers
// would make every share computed from them wrong.
func positiveLogprob(resp responseBody) error {
	bad := func(tok string, v float64) error {
		return fmt.Errorf("the log-probability %g of token %q is positive; a log-probability is at most 0", v, tok)
	}
	for _, ch := range resp.Choices {
		if ch.Logprobs == nil {
			continue
		}
		for _, m := range ch.Logprobs.TopLogprobs {
			for t, v := range m {
				if v > 0 {
					return bad(t, v)
				}
			}
		}
		for _, ct := range ch.Logprobs.Content {
			if ct.Logprob > 0 {
				return bad(ct.Token, ct.Logprob)
			}
			for _, t := range ct.TopLogprobs {
				if t.Logprob > 0 {
					return bad(t.Token, t.Logprob)
				}
			}
		}
	}
	return nil
}

// choiceTexts are the replies of a response, in order.
func (c *Client) choiceTexts(resp responseBody) []string {
	out := make([]string, 0, len(resp.Choices))
	for _, ch := range resp.Choices {
		if c.cfg.API == CompletionsAPI {
			out = append(out, ch.Text)
		} else {
			out = append(out, ch.Message.Content)
		}
	}
	return out
}

// sample draws n replies. Servers that ignore n (some llama.cpp and Ollama
// versions answer with one choice) are asked again for the rest, at most n
// requests in all.
func (c *Client) sample(ctx context.Context, text string, n int, temp float64, maxTokens int) ([]string, error) {
	out := make([]string, 0, n)
	for req := 0; len(out) < n && req < n; req++ {
		rb, path := c.newRequest(text, maxTokens, temp, n-len(out))
		var resp responseBody
		if err := c.post(ctx, path, rb, &resp); err != nil {
			return nil, err
		}
		for _, t := range c.choiceTexts(resp) {
			if len(out) == n {
				break
			}
			out = append(out, t)
		}
	}
	if len(out) < n {
		return nil, fmt.Errorf("the server returned %d of %d samples", len(out), n)
	}
	return out, nil
}

// maxResponse bounds how much of a reply is read.
const maxResponse = 8 << 20

// post sends body as JSON to path and decodes the reply into out,
// retrying 429s, 5xx, time-outs and network errors. Each retry goes to
// another endpoint that is not benched and has not failed this prompt yet,
// at once; only when every usable endpoint has failed it does the prompt
// wait (capped exponential back-off) and start a new round.
func (c *Client) post(ctx context.Context, path string, body requestBody, out any) error {
	adapted, round := 0, 0
	tried := map[*endpoint]bool{}
	for attempt := 0; ; attempt++ {
		payload, err := json.Marshal(c.compatible(body))
		if err != nil {
			return fmt.Errorf("encoding request: %w", err)
		}
		ep, _ := c.pick(tried)
		url, _ := endpointURL(ep.base, path) // validated in NewClient
		status, data, retryAfter, err := c.once(ctx, ep, url, payload)
		if status == http.StatusBadRequest && adapted < 2 && c.adapt(string(data)) {
			// The server named a parameter it wants otherwise: ask again
			// at once, without counting a retry.
			adapted++
			attempt--
			continue
		}
		if err == nil {
			ep.succeeded()
			if err := json.Unmarshal(data, out); err != nil {
				return fmt.Errorf("POST %s: reply is not the expected JSON: %v", url, err)
			}
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		retryable := status == 0 || status == http.StatusTooManyRequests || status >= 500
		if retryable {
			if benched, d := ep.failed(c.now(), c.cooldownBase, c.cooldownMax, err.Error()); benched {
				c.log.LogAttrs(ctx, slog.LevelWarn, "scoring: endpoint benched",
					slog.String("endpoint", ep.base), slog.Duration("cool_down", d), slog.String("error", err.Error()))
			}
		}
		if !retryable || attempt >= c.cfg.MaxRetries {
			if retryable && attempt > 0 {
				err = fmt.Errorf("%w (gave up after %d attempts)", err, attempt+1)
			}
			if retryable {
				return &TransientError{err}
			}
			return err
		}
		tried[ep] = true
		if next, fresh := c.pick(tried); fresh && next != ep {
			continue // another endpoint may answer: no reason to wait
		}
		clear(tried)
		wait := c.backoff(round)
		round++
		if retryAfter >= 0 {
			wait = min(retryAfter, c.maxRetryAfter)
		}
		c.log.LogAttrs(ctx, slog.LevelWarn, "scoring: retrying",
			slog.String("endpoint", url), slog.Int("status", status),
			slog.Int("attempt", attempt+1), slog.Duration("wait", wait), slog.String("error", err.Error()))
		if err := c.sleep(ctx, wait); err != nil {
			return err
		}
	}
}

// compatible applies what servers have told this client about parameters
// they refuse.
func (c *Client) compatible(rb requestBody) requestBody {
	if c.useMaxCompletion.Load() {
		rb.MaxCompletionTokens, rb.MaxTokens = rb.MaxTokens, 0
	}
	if c.omitTemperature.Load() {
		rb.Temperature = nil
	}
	return rb
}

// adapt reads a 400 reply for the two refusals OpenAI's reasoning models
// give ("Use 'max_completion_tokens' instead"; "'temperature' does not
// support 0 … Only the default (1) value is supported") and switches the
// client to what they accept. It reports whether anything changed.
func (c *Client) adapt(body string) bool {
	low := strings.ToLower(body)
	if strings.Contains(low, "max_completion_tokens") && !c.useMaxCompletion.Load() {
		c.useMaxCompletion.Store(true)
		return true
	}
	if strings.Contains(low, "temperature") && (strings.Contains(low, "unsupported") || strings.Contains(low, "does not support") || strings.Contains(low, "only the default")) && !c.omitTemperature.Load() {
		c.omitTemperature.Store(true)
		return true
	}
	return false
}

// once makes one attempt. It returns the HTTP status (0 when none came
// back), the body of the reply, the Retry-After wait (negative if none)
// and an error for anything but 2xx. Error texts carry the URL and the
// server's message with the API key blanked, never the request headers.
func (c *Client) once(ctx context.Context, ep *endpoint, url string, payload []byte) (int, []byte, time.Duration, error) {
	select {
	case ep.sem <- struct{}{}:
	case <-ctx.Done():
		return 0, nil, -1, ctx.Err()
	}
	defer func() { <-ep.sem }()
	rctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return 0, nil, -1, fmt.Errorf("POST %s: %v", url, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if rctx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
			return 0, nil, -1, fmt.Errorf("POST %s: no reply within the %s time-out", url, c.cfg.Timeout)
		}
		return 0, nil, -1, fmt.Errorf("POST %s: %v", url, c.redact(errors.Unwrap(err)))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		if rctx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
			return 0, nil, -1, fmt.Errorf("POST %s: reply not complete within the %s time-out", url, c.cfg.Timeout)
		}
		return 0, nil, -1, fmt.Errorf("POST %s: reading reply: %v", url, c.redact(err))
	}
	if resp.StatusCode/100 == 2 {
		return resp.StatusCode, data, -1, nil
	}
	// The key is blanked before the cut, so no part of it survives at the
	// edge.
	msg := clipBody(c.redactString(string(data)))
	if len(data) > 4096 {
		data = data[:4096]
	}
	return resp.StatusCode, data, parseRetryAfter(resp.Header.Get("Retry-After"), c.now()),
		fmt.Errorf("POST %s: %s: %s", url, resp.Status, msg)
}

// redact turns an error into text with the API key blanked.
func (c *Client) redact(err error) string {
	if err == nil {
		return "unknown error"
	}
	return c.redactString(err.Error())
}

// redactString is s cleaned as outside text with the key (domain.CleanOutside):
// any 8-character run of the key, in any encoding, and credentials by
// their shape blanked.
func (c *Client) redactString(s string) string { return domain.CleanOutside(s, c.key) }

// CleanError is err's text fit to store and show: cleaned as outside text
// with the client's key (domain.CleanOutside). The runner stores every
// prompt's error through it, live or read from a batch file.
func (c *Client) CleanError(err error) string {
	if err == nil {
		return ""
	}
	return c.redactString(err.Error())
}

// backoff is the wait before retry attempt+1: exponential, capped, with
// "equal jitter" (half fixed, half random) so concurrent workers hitting the
// same 429 spread out but never retry immediately.
func (c *Client) backoff(attempt int) time.Duration {
	d := c.backoffMax
	if attempt < 30 {
		d = min(c.backoffBase<<attempt, c.backoffMax)
	}
	half := d / 2
	return half + time.Duration(rand.Int64N(int64(half)+1))
}

// parseRetryAfter reads a Retry-After header: delay-seconds or an HTTP date.
// It returns a negative duration when the header is absent or unreadable.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return -1
	}
	if s, err := strconv.Atoi(v); err == nil {
		if s < 0 {
			return -1
		}
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return -1
}
