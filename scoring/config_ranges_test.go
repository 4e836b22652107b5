package scoring

import (
	"math"
	"strings"
	"testing"
	"time"
)

// The numeric rules hold each bound, inclusive, and Validate reports the
// fields in the order it always has.
func TestConfigRanges(t *testing.T) {
	ok := Config{BaseURLs: []string{"http://localhost:8000/v1"}, Model: "m"}.WithDefaults()
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for field, edits := range map[string][2]func(*Config){
		"concurrency":  {func(c *Config) { c.Concurrency = 1 }, func(c *Config) { c.Concurrency = MaxConcurrency + 1 }},
		"timeout":      {func(c *Config) { c.Timeout = MaxTimeout }, func(c *Config) { c.Timeout = time.Second - 1 }},
		"max_retries":  {func(c *Config) { c.MaxRetries = MaxRetriesCap }, func(c *Config) { c.MaxRetries = -1 }},
		"top_logprobs": {func(c *Config) { c.TopLogprobs = 2 }, func(c *Config) { c.TopLogprobs = 21 }},
		"samples":      {func(c *Config) { c.Samples = MaxSamples }, func(c *Config) { c.Samples = 0 }},
		"temperature":  {func(c *Config) { c.Temperature = 2 }, func(c *Config) { c.Temperature = -0.1 }},
		"max_tokens":   {func(c *Config) { c.GenMaxTokens = 32768 }, func(c *Config) { c.GenMaxTokens = 32769 }},
	} {
		in, out := ok, ok
		edits[0](&in)
		edits[1](&out)
		if err := in.Validate(); err != nil {
			t.Errorf("%s on its bound: %v", field, err)
		}
		if err := out.Validate(); err == nil || err.Error() != field+": "+rangeWant(out, field) {
			t.Errorf("%s off its bound: %v", field, err)
		}
	}
	// NaN is not outside 0 to 2, as before the rules became a table.
	nan := ok
	nan.Temperature = math.NaN()
	if err := nan.Validate(); err != nil {
		t.Errorf("temperature NaN: %v", err)
	}
	all := ok
	all.Concurrency, all.MaxTokens = 0, 0
	all.Samples = -1
	if err := all.Validate(); err == nil || !strings.HasPrefix(err.Error(), "concurrency:") || !strings.HasSuffix(err.Error(), "max_tokens: must be 1 to 32768") {
		t.Errorf("the fields' order: %v", err)
	}
}

// rangeWant is what the rule of field says.
func rangeWant(c Config, field string) string {
	for _, r := range c.ranges() {
		if r.field == field {
			return r.want
		}
	}
	return ""
}
