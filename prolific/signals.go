package prolific

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Submission feedback upload (docs/prolific.md#flags-to-prolific): GET
// /api/v1/submissions/signals/upload-url/{filename}?workspace_id=… answers
// a pre-signed address, to which the file is PUT before it expires.

// UploadURL is Prolific's answer: where to send the file and until when.
type UploadURL struct {
	URL       string `json:"upload_url"`
	Method    string `json:"http_method"`
	ExpiresAt string `json:"expires_at"`
}

// Where is the upload's address without its query, which holds the
// signature: what may be shown and recorded.
func (u *UploadURL) Where() string {
	p, err := url.Parse(u.URL)
	if err != nil {
		return ""
	}
	p.RawQuery, p.Fragment = "", ""
	return p.String()
}

// SignalsUploadURL asks for an address to upload a feedback file named
// filename for the workspace.
func (c *Client) SignalsUploadURL(ctx context.Context, workspaceID, filename string) (*UploadURL, error) {
	var u UploadURL
	path := "/api/v1/submissions/signals/upload-url/" + url.PathEscape(filename) + "?workspace_id=" + url.QueryEscape(workspaceID)
	if err := c.do(ctx, http.MethodGet, path, nil, &u); err != nil {
		return nil, err
	}
	if u.Method == "" {
		u.Method = http.MethodPut
	}
	p, err := url.Parse(u.URL)
	base, _ := url.Parse(c.base)
	switch {
	case err != nil || p.Host == "":
		return nil, fmt.Errorf("prolific API GET %s: the answer has no upload address", path)
	case p.Scheme != "https" && !(p.Scheme == "http" && base.Scheme == "http"):
		// Only an API reached over plain http (the tests' fake) may hand
		// out a plain http upload address.
		return nil, fmt.Errorf("prolific API GET %s: the upload address is not https", path)
	case u.Method != http.MethodPut:
		return nil, fmt.Errorf("prolific API GET %s: the upload asks for %s, not PUT", path, u.Method)
	}
	return &u, nil
}

// UploadSignals sends body to the pre-signed address. The API token is
// not sent: the address carries its own signature, and it is not
// Prolific's API.
func (c *Client) UploadSignals(ctx context.Context, u *UploadURL, contentType string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, u.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := c.hc.Do(req)
	if err != nil {
		// The error may quote the address and its signature: name only
		// where it went.
		return fmt.Errorf("upload to %s: %w", u.Where(), unwrapURLError(err))
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		text := strings.TrimSpace(string(data))
		if r := []rune(text); len(r) > maxErrorBody {
			text = string(r[:maxErrorBody]) + "…"
		}
		return &APIError{Method: http.MethodPut, Path: u.Where(), Status: resp.StatusCode, Body: text}
	}
	return nil
}

// unwrapURLError drops *url.Error's quoting of the whole address.
func unwrapURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}
