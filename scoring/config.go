package scoring

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// API selects the OpenAI-compatible endpoint a Client posts to.
type API string

// The two endpoints: /v1/chat/completions (logprobs + top_logprobs) and the
// legacy /v1/completions (logprobs = k).
const (
	ChatAPI        API = "chat"
	CompletionsAPI API = "completions"
)

// Config describes one model behind one or more OpenAI-compatible endpoints.
// It holds the NAME of the environment variable with the API key, never the
// key, so a Config can be stored and shown.
type Config struct {
	// BaseURLs are endpoints serving the same model, used round-robin, e.g.
	// "http://gpu1:8000/v1". A URL not ending in /v1 gets /v1 appended.
	BaseURLs []string `json:"base_urls"`
	Model    string   `json:"model"`
	// APIKeyEnv names the environment variable holding the API key; empty
	// means the servers need none. Only names starting with KeyEnvPrefix or
	// listed in KeyEnvNames are accepted.
	APIKeyEnv string `json:"api_key_env,omitempty"`
	API       API    `json:"api"`
	Mode      Mode   `json:"mode"`
	// Concurrency is the number of requests in flight per endpoint.
	Concurrency int `json:"concurrency"`
	// Timeout bounds each HTTP request (each attempt, not the whole retry).
	Timeout time.Duration `json:"timeout"`
	// MaxRetries is how many times a 429, 5xx, time-out or network error is
	// retried before the prompt fails.
	MaxRetries int `json:"max_retries"`
	// TopLogprobs is how many candidate tokens to ask for (OpenAI allows up
	// to 20 on chat, 5 on completions; vLLM 20 by default).
	TopLogprobs int `json:"top_logprobs"`
	// Samples per prompt (per option order) in sampling mode.
	Samples     int     `json:"samples"`
	Temperature float64 `json:"temperature"`
	// MaxTokens bounds sampled True/False and multiple-choice replies;
	// GenMaxTokens bounds generation replies.
	MaxTokens    int `json:"max_tokens"`
	GenMaxTokens int `json:"gen_max_tokens"`
	// Engine is how the prompts are sent: live requests (EngineLive, the
	// default), the Batch API of the first base URL (EngineBatch), or an
	// offline runner the researcher runs on a file (EngineOffline, which
	// needs no base URL).
	Engine Engine `json:"engine,omitempty"`
}

// Engine is how a model job's prompts reach the model
// (docs/scoring.md#engines).
type Engine string

// The engines.
const (
	EngineLive    Engine = "live"
	EngineBatch   Engine = "batch"
	EngineOffline Engine = "offline"
)

// Limits on configuration values; forms and flags are checked against them.
const (
	MaxBaseURLs    = 16
	MaxConcurrency = 256
	MaxTimeout     = 10 * time.Minute
	MaxRetriesCap  = 20
	MaxSamples     = 50
)

// WithDefaults fills unset fields with the values we use.
func (c Config) WithDefaults() Config {
	if c.API == "" {
		c.API = ChatAPI
	}
	if c.Engine == "" {
		c.Engine = EngineLive
	}
	if c.Mode == "" {
		c.Mode = Logprobs
	}
	if c.Concurrency == 0 {
		c.Concurrency = 4
	}
	if c.Timeout == 0 {
		c.Timeout = 60 * time.Second
	}
	if c.TopLogprobs == 0 {
		c.TopLogprobs = 20
		if c.API == CompletionsAPI {
			c.TopLogprobs = 5
		}
	}
	if c.Samples == 0 {
		c.Samples = 5
	}
	if c.Temperature == 0 {
		c.Temperature = 1
	}
	if c.MaxTokens == 0 {
		c.MaxTokens = 16
	}
	if c.GenMaxTokens == 0 {
		c.GenMaxTokens = 1024
	}
	return c
}

var envNameRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,99}$`)

// Validate checks every field and names each one that is wrong.
func (c Config) Validate() error {
	var errs []error
	bad := func(field, format string, a ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, a...)))
	}
	c.checkEndpoints(bad)
	c.checkModel(bad)
	for _, r := range c.ranges() {
		if r.out {
			bad(r.field, "%s", r.want)
		}
	}
	return errors.Join(errs...)
}

// checkEndpoints checks the engine and the base URLs: at least one (but
// offline), at most MaxBaseURLs, each a URL of an allowed host.
func (c Config) checkEndpoints(bad func(field, format string, a ...any)) {
	switch c.Engine {
	case EngineLive, EngineBatch, EngineOffline, "":
	default:
		bad("engine", "must be %q, %q or %q", EngineLive, EngineBatch, EngineOffline)
	}
	if len(c.BaseURLs) == 0 && c.Engine != EngineOffline {
		bad("base_urls", "at least one base URL is needed")
	}
	if len(c.BaseURLs) > MaxBaseURLs {
		bad("base_urls", "at most %d base URLs, got %d", MaxBaseURLs, len(c.BaseURLs))
	}
	for i, raw := range c.BaseURLs {
		if _, err := endpointURL(raw, "chat/completions"); err != nil {
			bad("base_urls", "URL %d: %v", i+1, err)
		} else if err := CheckHost(raw, false); err != nil {
			bad("base_urls", "URL %d: %v", i+1, err)
		}
	}
}

// checkModel checks what names the model and how it is asked: the model,
// the API key's variable, the API and the mode.
func (c Config) checkModel(bad func(field, format string, a ...any)) {
	if strings.TrimSpace(c.Model) == "" || len(c.Model) > 200 {
		bad("model", "a model name of 1 to 200 characters is needed")
	}
	if c.APIKeyEnv != "" && !envNameRe.MatchString(c.APIKeyEnv) {
		bad("api_key_env", "must be an environment variable name (letters, digits, underscore), not the key itself")
	} else if c.APIKeyEnv != "" && !keyEnvAllowed(c.APIKeyEnv) {
		bad("api_key_env", "%s may not hold an API key: use a variable whose name starts with %s, or one of %s", c.APIKeyEnv, KeyEnvPrefix, strings.Join(KeyEnvNames, ", "))
	}
	if c.API != ChatAPI && c.API != CompletionsAPI {
		bad("api", "must be %q or %q", ChatAPI, CompletionsAPI)
	}
	if _, ok := ParseMode(string(c.Mode)); !ok {
		bad("mode", "must be %q or %q", Logprobs, Sampling)
	}
}

// rangeRule is one numeric field's bounds: out when the value is outside
// them, want saying what they are.
type rangeRule struct {
	field string
	out   bool
	want  string
}

// ranges are the numeric fields' rules, in the order Validate reports them.
func (c Config) ranges() []rangeRule {
	return []rangeRule{
		{"concurrency", c.Concurrency < 1 || c.Concurrency > MaxConcurrency, fmt.Sprintf("must be 1 to %d", MaxConcurrency)},
		{"timeout", c.Timeout < time.Second || c.Timeout > MaxTimeout, fmt.Sprintf("must be 1s to %s", MaxTimeout)},
		{"max_retries", c.MaxRetries < 0 || c.MaxRetries > MaxRetriesCap, fmt.Sprintf("must be 0 to %d", MaxRetriesCap)},
		{"top_logprobs", c.TopLogprobs < 2 || c.TopLogprobs > 20, "must be 2 to 20"},
		{"samples", c.Samples < 1 || c.Samples > MaxSamples, fmt.Sprintf("must be 1 to %d", MaxSamples)},
		{"temperature", c.Temperature < 0 || c.Temperature > 2, "must be 0 to 2"},
		{"max_tokens", c.MaxTokens < 1 || c.MaxTokens > 32768 || c.GenMaxTokens < 1 || c.GenMaxTokens > 32768, "must be 1 to 32768"},
	}
}

// endpointURL joins a base URL and an API path ("completions" or
// "chat/completions"), accepting bases with or without the /v1 suffix.
func endpointURL(base, path string) (string, error) {
	if len(base) > 2000 {
		return "", errors.New("longer than 2000 characters")
	}
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil {
		return "", errors.New("not a URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", errors.New("must be an http:// or https:// URL with a host")
	}
	if u.User != nil {
		return "", errors.New("must not carry a user name or password; give the key through an environment variable")
	}
	u.RawQuery, u.Fragment = "", ""
	p := strings.TrimRight(u.Path, "/")
	if !strings.HasSuffix(p, "/v1") {
		p += "/v1"
	}
	u.Path = p + "/" + path
	return u.String(), nil
}
