package prolifictest

import (
	"crypto/rand"
	"encoding/hex"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The fake's submission feedback upload (docs/prolific.md#flags-to-prolific):
// GET /api/v1/submissions/signals/upload-url/{filename}?workspace_id=…
// answers a pre-signed address on the fake itself, under /upload/, which
// takes one PUT of the file without the API token.

// SignalUpload is a file the fake received.
type SignalUpload struct {
	Filename, WorkspaceID, ContentType string
	Body                               string
}

// signalURL is an upload address handed out and not yet used.
type signalURL struct {
	filename, workspace string
	used                bool
}

// SignalUploads lists the files uploaded, in order.
func (s *Server) SignalUploads() []SignalUpload {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]SignalUpload(nil), s.signalUploads...)
}

// SetAfterSignalUpload runs f after an upload is stored and before it is
// answered; a panic with http.ErrAbortHandler loses the answer, as a crash
// or a cut connection would.
func (s *Server) SetAfterSignalUpload(f func(filename string)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.afterSignalUpload = f
}

// serveSignalURL answers the upload-url route; false when it is not it.
func (s *Server) serveSignalURL(w http.ResponseWriter, r *http.Request, p []string, route func(string) bool) bool {
	if r.Method != http.MethodGet || len(p) != 4 || p[0] != "submissions" || p[1] != "signals" || p[2] != "upload-url" {
		return false
	}
	if !route("signals-upload-url") {
		return true
	}
	ws := r.URL.Query().Get("workspace_id")
	if ws == "" {
		fail(w, http.StatusBadRequest, "workspace_id is required.")
		return true
	}
	if ws != WorkspaceID {
		fail(w, http.StatusNotFound, "Workspace not found.")
		return true
	}
	b := make([]byte, 16)
	rand.Read(b)
	sig := hex.EncodeToString(b)
	s.mu.Lock()
	if s.signalURLs == nil {
		s.signalURLs = map[string]*signalURL{}
	}
	s.signalURLs[sig] = &signalURL{filename: p[3], workspace: ws}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"upload_url":  s.URL + "/upload/signals/" + url.PathEscape(p[3]) + "?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=" + sig,
		"http_method": "PUT",
		"expires_at":  time.Now().Add(15 * time.Minute).UTC().Format(time.RFC3339),
	})
	return true
}

// serveSignalUpload takes a PUT to an address handed out, once; it needs
// no API token (it must carry none).
func (s *Server) serveSignalUpload(w http.ResponseWriter, r *http.Request) bool {
	if !strings.HasPrefix(r.URL.Path, "/upload/signals/") {
		return false
	}
	s.mu.Lock()
	s.calls[r.Method+" signals-upload"]++
	u := s.signalURLs[r.URL.Query().Get("X-Amz-Signature")]
	f, refused := s.failures[r.Method+" signals-upload"]
	s.mu.Unlock()
	switch {
	case r.Method != http.MethodPut:
		fail(w, http.StatusMethodNotAllowed, "Method not allowed.")
		return true
	case r.Header.Get("Authorization") != "":
		fail(w, http.StatusBadRequest, "Only one auth mechanism allowed.")
		return true
	case u == nil || u.used:
		fail(w, http.StatusForbidden, "SignatureDoesNotMatch")
		return true
	case refused:
		fail(w, f.status, f.detail)
		return true
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		fail(w, http.StatusBadRequest, "unreadable body")
		return true
	}
	s.mu.Lock()
	u.used = true
	s.signalUploads = append(s.signalUploads, SignalUpload{Filename: u.filename, WorkspaceID: u.workspace, ContentType: r.Header.Get("Content-Type"), Body: string(body)})
	after := s.afterSignalUpload
	s.mu.Unlock()
	if after != nil {
		after(u.filename)
	}
	w.WriteHeader(http.StatusOK)
	return true
}
