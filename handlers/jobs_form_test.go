package handlers

import (
	"strings"
	"testing"
	"time"

	"pragmalab/domain"
	"pragmalab/templates"
)

// modelConfig reads the launch form's model settings: base URLs one a
// line, each limit in its range (the error names the field), the token
// limits left to our defaults when empty.
func TestModelConfigFromTheLaunchForm(t *testing.T) {
	form := templates.JobForm{Model: "fake-7b\nignored", BaseURLs: " http://a/v1 \n\nhttp://b\n", API: "chat", Mode: "logprobs",
		Concurrency: "4", Timeout: "30", Retries: "2", Samples: "5"}
	c, err := modelConfig(form)
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != "fake-7b" || len(c.BaseURLs) != 2 || c.BaseURLs[0] != "http://a/v1" || c.Concurrency != 4 ||
		c.Timeout != 30*time.Second || c.MaxRetries != 2 || c.Samples != 5 || c.MaxTokens != 0 || c.GenMaxTokens != 0 {
		t.Errorf("config %+v", c)
	}
	for field, edit := range map[string]func(*templates.JobForm){
		"concurrency":    func(f *templates.JobForm) { f.Concurrency = "0" },
		"timeout":        func(f *templates.JobForm) { f.Timeout = "x" },
		"retries":        func(f *templates.JobForm) { f.Retries = "-1" },
		"samples":        func(f *templates.JobForm) { f.Samples = "" },
		"max_tokens":     func(f *templates.JobForm) { f.MaxTokens = "40000" },
		"gen_max_tokens": func(f *templates.JobForm) { f.GenMaxTokens = "0" },
	} {
		bad := form
		edit(&bad)
		_, err := modelConfig(bad)
		if domain.ErrorCode(err) != domain.EINVALID || !strings.HasPrefix(domain.ErrorMessage(err), field+":") {
			t.Errorf("%s: %v", field, err)
		}
	}
}
