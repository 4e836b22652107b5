package scoring

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// The OpenAI batch JSONL format (docs/scoring.md#openai-batch-api), which
// the OpenAI Batch API, `vllm run-batch` and other offline runners read and
// write: one request a line, with a custom_id that maps the reply back to
// its prompt whatever the order of the output.

// Batch file limits of the OpenAI Batch API: a file holds at most this many
// requests and bytes.
const (
	BatchMaxRequests = 50_000
	BatchMaxBytes    = 200 << 20
)

// BatchLine is one request of a batch input file.
type BatchLine struct {
	CustomID string          `json:"custom_id"`
	Method   string          `json:"method"`
	URL      string          `json:"url"`
	Body     json.RawMessage `json:"body"`
}

// BatchOutput is one line of a batch output or error file.
type BatchOutput struct {
	ID       string `json:"id,omitempty"`
	CustomID string `json:"custom_id"`
	Response *struct {
		StatusCode int             `json:"status_code"`
		RequestID  string          `json:"request_id,omitempty"`
		Body       json.RawMessage `json:"body"`
	} `json:"response"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// CheckLogprobs is an error naming the first positive log-probability of
// the line's reply, nil when it has none (or no reply).
func (o BatchOutput) CheckLogprobs() error {
	if o.Response == nil || o.Response.StatusCode/100 != 2 {
		return nil
	}
	var b responseBody
	if json.Unmarshal(o.Response.Body, &b) != nil {
		return nil
	}
	return positiveLogprob(b)
}

// Model is the model named by the line's reply ("" when it names none, or
// the line carries an error).
func (o BatchOutput) Model() string {
	if o.Response == nil || o.Response.StatusCode/100 != 2 {
		return ""
	}
	var b struct {
		Model string `json:"model"`
	}
	if json.Unmarshal(o.Response.Body, &b) != nil {
		return ""
	}
	return b.Model
}

// SameModel reports whether a reply's model name is the job's model: the
// same name, or that name with a suffix after a hyphen, as hosted APIs
// answer "gpt-4o-mini" with the snapshot "gpt-4o-mini-2024-07-18".
func SameModel(reply, job string) bool {
	return reply == job || strings.HasPrefix(reply, job+"-")
}

// BatchEndpoint is the URL path batch lines are posted to ("/v1/chat/completions"
// or "/v1/completions").
func (c *Client) BatchEndpoint() string {
	_, path := c.newRequest("", 1, 0, 1)
	return "/v1/" + path
}

// BatchRequest is the line asking prompt p exactly as the live client asks
// it (same body: model, token limit, temperature, samples, log-probabilities).
func (c *Client) BatchRequest(p Prompt) (BatchLine, error) {
	q, err := c.askOf(p)
	if err != nil {
		return BatchLine{}, err
	}
	var rb requestBody
	var path string
	if q.logprobs {
		rb, path = c.logprobsRequest(p.Text)
	} else {
		rb, path = c.newRequest(p.Text, q.maxTokens, q.temp, q.n)
	}
	body, err := json.Marshal(c.compatible(rb))
	if err != nil {
		return BatchLine{}, fmt.Errorf("prompt %s: %w", p.Key, err)
	}
	return BatchLine{CustomID: p.Key, Method: "POST", URL: "/v1/" + path, Body: body}, nil
}

// BatchAnswer reads the output line of prompt p as Score reads a live reply:
// the same parser, so a result stored from a batch is the answer the live
// client would have stored. A line carrying an error, or a reply that is
// not a success, is the prompt's error.
func (c *Client) BatchAnswer(p Prompt, out BatchOutput) (Answer, error) {
	if out.Error != nil {
		return Answer{}, fmt.Errorf("batch: %s: %s", c.redactString(out.Error.Code), clipBody(c.redactString(out.Error.Message)))
	}
	if out.Response == nil {
		return Answer{}, errors.New("batch: the line has neither a response nor an error")
	}
	if out.Response.StatusCode/100 != 2 {
		return Answer{}, fmt.Errorf("batch: status %d: %s", out.Response.StatusCode, clipBody(c.redactString(string(out.Response.Body))))
	}
	q, err := c.askOf(p)
	if err != nil {
		return Answer{}, err
	}
	var resp responseBody
	if err := json.Unmarshal(out.Response.Body, &resp); err != nil {
		return Answer{}, fmt.Errorf("batch: the reply is not the expected JSON: %v", err)
	}
	if q.logprobs {
		return c.fromLogprobs(p, q, resp)
	}
	samples := c.choiceTexts(resp)
	if len(samples) < q.n {
		return Answer{}, fmt.Errorf("the server returned %d of %d samples", len(samples), q.n)
	}
	return c.fromSamples(p, samples[:q.n])
}

// EncodeBatchLine is l as one JSON line ending in a newline.
func EncodeBatchLine(l BatchLine) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(l); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
