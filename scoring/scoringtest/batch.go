package scoringtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// The fake Files and Batches APIs (docs/scoring.md#openai-batch-api): an
// uploaded JSONL file becomes a batch that is "in_progress" for BatchPolls
// status reads, then ends completed (or expired, with BatchExpire) with an
// output file whose lines come in reverse order and an error file. Each
// line is answered as a live request would be.

// BatchOptions shape how the fake's batches end.
type BatchOptions struct {
	// Polls is how many status reads a batch stays in progress (default 1).
	Polls int
	// Expire makes batches expire: only the first half of their lines is
	// answered, the rest goes to the error file as batch_expired.
	Expire bool
	// FailEvery sends every k-th line of a batch to the error file with a
	// 400 reply (0: none).
	FailEvery int
	// MaxLines refuses (status failed) a batch over a file of more lines
	// (0: 50,000, the OpenAI limit).
	MaxLines int
	// OnCreate is called when a batch has been created, before the reply
	// is sent (a test stops its client there, as a kill would); the reply
	// then waits until the client has gone, so the kill always lands
	// before the client could read the batch's id.
	OnCreate func()
}

type fakeBatch struct {
	ID, Status, InputFileID, OutputFileID, ErrorFileID, Endpoint string
	Metadata                                                     map[string]string
	polls                                                        int
	total, completed, failed                                     int
	problem                                                      string
}

type batchState struct {
	opts    BatchOptions
	files   map[string][]byte
	batches []*fakeBatch
	uploads int
	creates int
	nextID  int
}

// SetBatchOptions sets how the fake's batches end.
func (s *Server) SetBatchOptions(o BatchOptions) {
	s.mu.Lock()
	s.batch.opts = o
	s.mu.Unlock()
}

// BatchUploads and BatchCreates count the files uploaded and batches
// created.
func (s *Server) BatchUploads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.batch.uploads
}

// BatchCreates counts the batches created.
func (s *Server) BatchCreates() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.batch.creates
}

// BatchSizes lists the number of lines of each batch created, in order.
func (s *Server) BatchSizes() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []int
	for _, b := range s.batch.batches {
		out = append(out, b.total)
	}
	return out
}

func (s *Server) newID(prefix string) string {
	s.batch.nextID++
	return fmt.Sprintf("%s_%04d", prefix, s.batch.nextID)
}

// serveBatchAPI answers the Files and Batches APIs; it reports whether the
// request was one of theirs.
func (s *Server) serveBatchAPI(w http.ResponseWriter, r *http.Request) bool {
	p := r.URL.Path
	if !strings.HasPrefix(p, "/v1/files") && !strings.HasPrefix(p, "/v1/batches") {
		return false
	}
	s.mu.Lock()
	s.auth[r.Header.Get("Authorization")] = true
	if s.batch.files == nil {
		s.batch.files = map[string][]byte{}
	}
	s.mu.Unlock()
	parts := strings.Split(strings.Trim(p, "/"), "/") // v1, files|batches, id, …
	switch {
	case r.Method == http.MethodPost && p == "/v1/files":
		s.upload(w, r)
	case r.Method == http.MethodGet && len(parts) == 4 && parts[1] == "files" && parts[3] == "content":
		s.mu.Lock()
		data, ok := s.batch.files[parts[2]]
		s.mu.Unlock()
		if !ok {
			jsonError(w, http.StatusNotFound, "no such file")
			return true
		}
		w.Header().Set("Content-Type", "application/jsonl")
		w.Write(data)
	case r.Method == http.MethodPost && p == "/v1/batches":
		s.create(w, r)
	case r.Method == http.MethodGet && p == "/v1/batches":
		s.list(w, r)
	case r.Method == http.MethodGet && len(parts) == 3 && parts[1] == "batches":
		s.status(w, parts[2])
	case r.Method == http.MethodPost && len(parts) == 4 && parts[1] == "batches" && parts[3] == "cancel":
		s.mu.Lock()
		b := s.findBatch(parts[2])
		if b != nil && b.Status != "completed" && b.Status != "expired" {
			b.Status = "cancelled"
		}
		s.mu.Unlock()
		s.status(w, parts[2])
	default:
		jsonError(w, http.StatusNotFound, "no such endpoint")
	}
	return true
}

func jsonError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg}})
}

func (s *Server) upload(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseMultipartForm(64 << 20); err != nil {
		jsonError(w, http.StatusBadRequest, "not a multipart form")
		return
	}
	if r.FormValue("purpose") != "batch" {
		jsonError(w, http.StatusBadRequest, "purpose must be batch")
		return
	}
	f, _, err := r.FormFile("file")
	if err != nil {
		jsonError(w, http.StatusBadRequest, "no file")
		return
	}
	data, _ := io.ReadAll(f)
	s.mu.Lock()
	id := s.newID("file")
	s.batch.files[id] = data
	s.batch.uploads++
	s.mu.Unlock()
	json.NewEncoder(w).Encode(map[string]any{"id": id, "object": "file", "purpose": "batch", "bytes": len(data)})
}

func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	var req struct {
		InputFileID string            `json:"input_file_id"`
		Endpoint    string            `json:"endpoint"`
		Window      string            `json:"completion_window"`
		Metadata    map[string]string `json:"metadata"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Window != "24h" {
		jsonError(w, http.StatusBadRequest, "bad batch request")
		return
	}
	s.mu.Lock()
	data, ok := s.batch.files[req.InputFileID]
	if !ok {
		s.mu.Unlock()
		jsonError(w, http.StatusNotFound, "no such file")
		return
	}
	b := &fakeBatch{ID: s.newID("batch"), Status: "validating", InputFileID: req.InputFileID, Endpoint: req.Endpoint, Metadata: req.Metadata}
	b.total = bytes.Count(data, []byte("\n"))
	limit := s.batch.opts.MaxLines
	if limit == 0 {
		limit = 50_000
	}
	if b.total > limit {
		b.Status, b.problem = "failed", fmt.Sprintf("the file has %d requests, more than %d", b.total, limit)
	}
	s.batch.batches = append(s.batch.batches, b)
	s.batch.creates++
	hook := s.batch.opts.OnCreate
	s.mu.Unlock()
	if hook != nil {
		hook()
		<-r.Context().Done()
		return
	}
	s.status(w, b.ID)
}

func (s *Server) findBatch(id string) *fakeBatch {
	for _, b := range s.batch.batches {
		if b.ID == id {
			return b
		}
	}
	return nil
}

func (b *fakeBatch) json() map[string]any {
	m := map[string]any{"id": b.ID, "object": "batch", "status": b.Status, "input_file_id": b.InputFileID, "endpoint": b.Endpoint,
		"metadata": b.Metadata, "request_counts": map[string]int{"total": b.total, "completed": b.completed, "failed": b.failed}}
	if b.OutputFileID != "" {
		m["output_file_id"] = b.OutputFileID
	}
	if b.ErrorFileID != "" {
		m["error_file_id"] = b.ErrorFileID
	}
	if b.problem != "" {
		m["errors"] = map[string]any{"data": []any{map[string]any{"code": "invalid_file", "message": b.problem}}}
	}
	return m
}

func (s *Server) status(w http.ResponseWriter, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.findBatch(id)
	if b == nil {
		jsonError(w, http.StatusNotFound, "no such batch")
		return
	}
	if b.Status == "validating" || b.Status == "in_progress" {
		b.Status = "in_progress"
		b.polls++
		if b.polls > max(1, s.batch.opts.Polls) {
			s.finish(b)
		}
	}
	json.NewEncoder(w).Encode(b.json())
}

// finish runs a batch's lines (the lock held): answered lines go to the
// output file in reverse order, failed and expired ones to the error file.
func (s *Server) finish(b *fakeBatch) {
	var lines [][]byte
	sc := bufio.NewScanner(bytes.NewReader(s.batch.files[b.InputFileID]))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			lines = append(lines, append([]byte(nil), sc.Bytes()...))
		}
	}
	var out, errs []string
	for i, ln := range lines {
		var req struct {
			CustomID string          `json:"custom_id"`
			URL      string          `json:"url"`
			Body     json.RawMessage `json:"body"`
		}
		json.Unmarshal(ln, &req)
		rid := "req_" + strconv.Itoa(i+1)
		switch {
		case s.batch.opts.Expire && i >= len(lines)/2:
			e, _ := json.Marshal(map[string]any{"id": rid, "custom_id": req.CustomID, "response": nil,
				"error": map[string]any{"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}})
			errs = append(errs, string(e))
			b.failed++
		case s.batch.opts.FailEvery > 0 && (i+1)%s.batch.opts.FailEvery == 0:
			e, _ := json.Marshal(map[string]any{"id": rid, "custom_id": req.CustomID,
				"response": map[string]any{"status_code": 400, "request_id": rid, "body": map[string]any{"error": map[string]any{"message": "prompt refused by the fake", "type": "invalid_request_error"}}},
				"error":    nil})
			errs = append(errs, string(e))
			b.failed++
		default:
			// Counted as asked like a live request.
			s.asked[promptOf(req.URL, req.Body)]++
			status, body := s.reply(req.URL, req.Body)
			o, _ := json.Marshal(map[string]any{"id": rid, "custom_id": req.CustomID,
				"response": map[string]any{"status_code": status, "request_id": rid, "body": json.RawMessage(body)}, "error": nil})
			out = append(out, string(o))
			b.completed++
		}
	}
	// Out of order: the last line first.
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	if len(out) > 0 {
		b.OutputFileID = s.newID("file")
		s.batch.files[b.OutputFileID] = []byte(strings.Join(out, "\n") + "\n")
	}
	if len(errs) > 0 {
		b.ErrorFileID = s.newID("file")
		s.batch.files[b.ErrorFileID] = []byte(strings.Join(errs, "\n") + "\n")
	}
	b.Status = "completed"
	if s.batch.opts.Expire {
		b.Status = "expired"
	}
}

func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	if limit <= 0 {
		limit = 20
	}
	after := r.URL.Query().Get("after")
	s.mu.Lock()
	defer s.mu.Unlock()
	var data []any
	started := after == ""
	more := false
	for i := len(s.batch.batches) - 1; i >= 0; i-- { // newest first
		b := s.batch.batches[i]
		if !started {
			started = b.ID == after
			continue
		}
		if len(data) == limit {
			more = true
			break
		}
		data = append(data, b.json())
	}
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "has_more": more})
}

// BatchStatuses lists the status of each batch created, in order.
func (s *Server) BatchStatuses() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, b := range s.batch.batches {
		out = append(out, b.Status)
	}
	return out
}
