package scoring

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// BatchAPI talks to the Files and Batches APIs of an OpenAI-compatible
// server (docs/scoring.md#openai-batch-api): upload a JSONL file, create a
// batch over it, poll its status, download its output and error files. It
// goes to the first base URL of the client, with the client's key (never
// logged or put in errors) and address checks.
type BatchAPI struct {
	c    *Client
	base string
	// Transfer bounds one upload or download (files reach 200 MB).
	Transfer time.Duration
}

// Batch statuses of the Batches API. The final ones: completed, failed,
// expired, cancelled.
const (
	BatchCompleted = "completed"
	BatchFailed    = "failed"
	BatchExpired   = "expired"
	BatchCancelled = "cancelled"
)

// BatchFinal reports whether a batch status is final.
func BatchFinal(status string) bool {
	switch status {
	case BatchCompleted, BatchFailed, BatchExpired, BatchCancelled:
		return true
	}
	return false
}

// BatchStatus is what the Batches API says of one batch.
type BatchStatus struct {
	ID            string            `json:"id"`
	Status        string            `json:"status"`
	InputFileID   string            `json:"input_file_id"`
	OutputFileID  string            `json:"output_file_id"`
	ErrorFileID   string            `json:"error_file_id"`
	Metadata      map[string]string `json:"metadata"`
	RequestCounts struct {
		Total     int `json:"total"`
		Completed int `json:"completed"`
		Failed    int `json:"failed"`
	} `json:"request_counts"`
	Errors *struct {
		Data []struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Line    *int   `json:"line"`
		} `json:"data"`
	} `json:"errors"`
}

// Problem summarises a failed batch's own errors (a file refused as a
// whole), or "".
func (b BatchStatus) Problem() string {
	if b.Errors == nil {
		return ""
	}
	var parts []string
	for i, e := range b.Errors.Data {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(b.Errors.Data)-3))
			break
		}
		s := e.Code + ": " + e.Message
		if e.Line != nil {
			s = fmt.Sprintf("line %d: %s", *e.Line, s)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// BatchAPI returns the client's Batch API.
func (c *Client) BatchAPI() *BatchAPI {
	return &BatchAPI{c: c, base: c.eps[0].base, Transfer: 10 * time.Minute}
}

// Base is the base URL batches go to.
func (b *BatchAPI) Base() string { return b.base }

// UploadFile uploads a batch input file (purpose "batch") and returns its id.
func (b *BatchAPI) UploadFile(ctx context.Context, name string, data []byte) (string, error) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	if err := mw.WriteField("purpose", "batch"); err != nil {
		return "", err
	}
	fw, err := mw.CreateFormFile("file", name)
	if err != nil {
		return "", err
	}
	if _, err := fw.Write(data); err != nil {
		return "", err
	}
	if err := mw.Close(); err != nil {
		return "", err
	}
	var out struct {
		ID string `json:"id"`
	}
	if err := b.do(ctx, http.MethodPost, "files", mw.FormDataContentType(), body.Bytes(), b.Transfer, &out); err != nil {
		return "", err
	}
	if out.ID == "" {
		return "", fmt.Errorf("POST %s: the reply names no file id", b.url("files"))
	}
	return out.ID, nil
}

// CreateBatch creates a batch over an uploaded file for endpoint (the URL
// path of its lines) with a 24-hour window; metadata is kept with it, so
// the batch can be found again.
func (b *BatchAPI) CreateBatch(ctx context.Context, fileID, endpoint string, metadata map[string]string) (BatchStatus, error) {
	req, _ := json.Marshal(map[string]any{"input_file_id": fileID, "endpoint": endpoint, "completion_window": "24h", "metadata": metadata})
	var out BatchStatus
	err := b.do(ctx, http.MethodPost, "batches", "application/json", req, b.c.cfg.Timeout, &out)
	if err == nil && out.ID == "" {
		err = fmt.Errorf("POST %s: the reply names no batch id", b.url("batches"))
	}
	return out, err
}

// Batch returns a batch's status.
func (b *BatchAPI) Batch(ctx context.Context, id string) (BatchStatus, error) {
	var out BatchStatus
	err := b.do(ctx, http.MethodGet, "batches/"+url.PathEscape(id), "", nil, b.c.cfg.Timeout, &out)
	return out, err
}

// CancelBatch asks the server to cancel a batch.
func (b *BatchAPI) CancelBatch(ctx context.Context, id string) error {
	var out BatchStatus
	return b.do(ctx, http.MethodPost, "batches/"+url.PathEscape(id)+"/cancel", "application/json", []byte("{}"), b.c.cfg.Timeout, &out)
}

// FindBatch looks through the server's batches, newest first, for the one
// created over input file fileID (a batch created by a process killed
// before it could record the batch's id). It looks at most at pages pages.
func (b *BatchAPI) FindBatch(ctx context.Context, fileID string, pages int) (BatchStatus, bool, error) {
	after := ""
	for range pages {
		path := "batches?limit=100"
		if after != "" {
			path += "&after=" + url.QueryEscape(after)
		}
		var list struct {
			Data    []BatchStatus `json:"data"`
			HasMore bool          `json:"has_more"`
		}
		if err := b.do(ctx, http.MethodGet, path, "", nil, b.c.cfg.Timeout, &list); err != nil {
			return BatchStatus{}, false, err
		}
		for _, s := range list.Data {
			if s.InputFileID == fileID {
				return s, true, nil
			}
		}
		if !list.HasMore || len(list.Data) == 0 {
			break
		}
		after = list.Data[len(list.Data)-1].ID
	}
	return BatchStatus{}, false, nil
}

// FileContent downloads a file (a batch's output or error file).
func (b *BatchAPI) FileContent(ctx context.Context, id string) ([]byte, error) {
	var out []byte
	err := b.do(ctx, http.MethodGet, "files/"+url.PathEscape(id)+"/content", "", nil, b.Transfer, &out)
	return out, err
}

func (b *BatchAPI) url(path string) string {
	u, _ := endpointURL(b.base, "") // validated in NewClient
	return strings.TrimSuffix(u, "/") + "/" + path
}

// maxBatchFile bounds a downloaded file: an output file of 50,000
// log-probability replies is about 150 MB.
const maxBatchFile = 1 << 30

// do sends one request and decodes the JSON reply into out (or, for a
// *[]byte, keeps the body), retrying 429s, 5xx and network errors with the
// client's back-off. Errors carry the URL and the server's message with
// the key blanked.
func (b *BatchAPI) do(ctx context.Context, method, path, ctype string, body []byte, timeout time.Duration, out any) error {
	u := b.url(path)
	for attempt := 0; ; attempt++ {
		status, data, err := b.once(ctx, method, u, ctype, body, timeout)
		if err == nil {
			if raw, ok := out.(*[]byte); ok {
				*raw = data
				return nil
			}
			if err := json.Unmarshal(data, out); err != nil {
				return fmt.Errorf("%s %s: reply is not the expected JSON: %v", method, u, err)
			}
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		retryable := status == 0 || status == http.StatusTooManyRequests || status >= 500
		if !retryable {
			return err
		}
		if attempt >= b.c.cfg.MaxRetries {
			return &TransientError{fmt.Errorf("%w (gave up after %d attempts)", err, attempt+1)}
		}
		if err := b.c.sleep(ctx, b.c.backoff(attempt)); err != nil {
			return err
		}
	}
}

func (b *BatchAPI) once(ctx context.Context, method, u, ctype string, body []byte, timeout time.Duration) (int, []byte, error) {
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(rctx, method, u, rd)
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: %v", method, u, err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if b.c.key != "" {
		req.Header.Set("Authorization", "Bearer "+b.c.key)
	}
	resp, err := b.c.hc.Do(req)
	if err != nil {
		if rctx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
			return 0, nil, fmt.Errorf("%s %s: no reply within %s", method, u, timeout)
		}
		return 0, nil, fmt.Errorf("%s %s: %v", method, u, b.c.redact(unwrapURLError(err)))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBatchFile))
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: reading reply: %v", method, u, b.c.redact(err))
	}
	if resp.StatusCode/100 == 2 {
		return resp.StatusCode, data, nil
	}
	return resp.StatusCode, nil, fmt.Errorf("%s %s: %s: %s", method, u, resp.Status, clipBody(b.c.redactString(string(data))))
}

// unwrapURLError drops the *url.Error wrapper, whose text repeats the URL.
func unwrapURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}
