package prolifictest

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"pragmalab/prolific"
)

// The fake's study life: transitions, places, the cost calculator, hook
// subscriptions, messages, and deliveries of signed webhooks.

// ProjectID and WorkspaceID are the fake's one project and workspace.
const (
	ProjectID   = "70aaaaaaaaaaaaaaaaaaaaaa"
	WorkspaceID = "71bbbbbbbbbbbbbbbbbbbbbb"
)

// Message is one message the fake received.
type Message struct {
	StudyID    string
	Recipients []string
	Body       string
}

// SetScreenOutCode gives a study a FIXED_SCREENOUT completion code (the
// study then uses Prolific's screen-out with payment).
func (s *Server) SetScreenOutCode(studyID, code string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.screenOutCodes[studyID] = code
	if st, ok := s.studies[studyID]; ok {
		st["completion_codes"] = []map[string]any{{"code": code, "code_type": "FIXED_SCREENOUT", "actions": []map[string]any{{"action": "FIXED_SCREENOUT_PAYMENT"}}}}
	}
}

// SetStudy changes a study's status and places.
func (s *Server) SetStudy(studyID, status string, places int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.studies[studyID]; ok {
		st["status"], st["total_available_places"] = status, places
	}
}

// StudyState is a study's status and places now.
func (s *Server) StudyState(studyID string) (status string, places int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.studies[studyID]
	if st == nil {
		return "", 0
	}
	status, _ = st["status"].(string)
	switch v := st["total_available_places"].(type) {
	case int:
		places = v
	case float64:
		places = int(v)
	}
	return status, places
}

// SetSubmissionStatus changes a submission's status, as a participant
// returning it would.
func (s *Server) SetSubmissionStatus(submissionID, status string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sub := s.find(submissionID); sub != nil {
		sub["status"] = status
	}
}

// Messages lists the messages received.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.messages...)
}

// Subscriptions lists the hook subscriptions, by id.
func (s *Server) Subscriptions() map[string]map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]map[string]any{}
	for k, v := range s.subscriptions {
		out[k] = v
	}
	return out
}

// Deliver sends a delivery to target as Prolific does: the JSON body with
// X-Event-ID, the timestamp and the signature made with secret. It
// returns the status the receiver answered with.
func Deliver(target, secret, eventID string, at time.Time, body []byte) (int, error) {
	ts := strconv.FormatInt(at.Unix(), 10)
	return DeliverSigned(target, eventID, ts, prolific.SignWebhook(secret, ts, body), body)
}

// DeliverSigned sends a delivery with the headers given as they are (to
// send tampered ones).
func DeliverSigned(target, eventID, timestamp, signature string, body []byte) (int, error) {
	req, err := http.NewRequest(http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Event-ID", eventID)
	req.Header.Set("X-Prolific-Request-Timestamp", timestamp)
	req.Header.Set("X-Prolific-Request-Signature", signature)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// serveLife answers the routes of the study's life; false when none
// matched.
func (s *Server) serveLife(w http.ResponseWriter, r *http.Request, p []string, body map[string]any, route func(string) bool) bool {
	switch {
	case r.Method == "POST" && len(p) == 3 && p[0] == "studies" && p[2] == "transition":
		if !route("study-transition") {
			return true
		}
		s.studyTransition(w, p[1], body)
	case r.Method == "PATCH" && len(p) == 2 && p[0] == "studies":
		if !route("study-update") {
			return true
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		st, ok := s.studies[p[1]]
		if !ok {
			fail(w, http.StatusNotFound, "Not found.")
			return true
		}
		n, ok := body["total_available_places"].(float64)
		old := 0
		switch v := st["total_available_places"].(type) {
		case int:
			old = v
		case float64:
			old = int(v)
		}
		if !ok || (st["status"] != "UNPUBLISHED" && int(n) < old) {
			fail(w, http.StatusBadRequest, "The number of places can only be increased.")
			return true
		}
		st["total_available_places"] = int(n)
		writeJSON(w, http.StatusOK, st)
	case r.Method == "POST" && len(p) == 1 && p[0] == "study-cost-calculator":
		if !route("cost") {
			return true
		}
		reward, _ := body["reward"].(float64)
		places, _ := body["total_available_places"].(float64)
		base := reward * places
		writeJSON(w, http.StatusOK, map[string]any{"total_cost": base + base/3})
	case r.Method == "GET" && len(p) == 2 && p[0] == "projects":
		if !route("project") {
			return true
		}
		if p[1] != ProjectID {
			fail(w, http.StatusNotFound, "Not found.")
			return true
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": ProjectID, "workspace": WorkspaceID})
	case r.Method == "GET" && len(p) == 2 && p[0] == "hooks" && p[1] == "subscriptions":
		if !route("subscriptions") {
			return true
		}
		s.mu.Lock()
		var out []map[string]any
		for _, sub := range s.subscriptions {
			if sub["workspace_id"] == r.URL.Query().Get("workspace_id") {
				out = append(out, sub)
			}
		}
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"results": out})
	case r.Method == "POST" && len(p) == 2 && p[0] == "hooks" && p[1] == "subscriptions":
		if !route("subscribe") {
			return true
		}
		s.mu.Lock()
		id := fmt.Sprintf("%024x", 0x5b0000+len(s.subscriptions)+1)
		sub := map[string]any{"id": id, "event_type": body["event_type"], "target_url": body["target_url"],
			"workspace_id": body["workspace_id"], "is_enabled": false}
		s.subscriptions[id] = sub
		s.mu.Unlock()
		w.Header().Set("X-Hook-Secret", "confirm-"+id)
		writeJSON(w, http.StatusCreated, sub)
	case r.Method == "POST" && len(p) == 3 && p[0] == "hooks" && p[1] == "subscriptions":
		if !route("confirm") {
			return true
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		sub, ok := s.subscriptions[p[2]]
		if !ok || body["secret"] != "confirm-"+p[2] {
			fail(w, http.StatusBadRequest, "Invalid secret.")
			return true
		}
		sub["is_enabled"] = true
		writeJSON(w, http.StatusOK, sub)
	case r.Method == "DELETE" && len(p) == 3 && p[0] == "hooks" && p[1] == "subscriptions":
		if !route("unsubscribe") {
			return true
		}
		s.mu.Lock()
		_, ok := s.subscriptions[p[2]]
		delete(s.subscriptions, p[2])
		s.mu.Unlock()
		if !ok {
			fail(w, http.StatusNotFound, "Not found.")
			return true
		}
		w.WriteHeader(http.StatusNoContent)
	case r.Method == "POST" && len(p) == 1 && p[0] == "messages":
		if !route("message") {
			return true
		}
		id, _ := body["recipient_id"].(string)
		s.message(w, body, []string{id})
	case r.Method == "POST" && len(p) == 2 && p[0] == "messages" && p[1] == "bulk":
		if !route("bulk-message") {
			return true
		}
		var ids []string
		for _, x := range asList(body["ids"]) {
			id, _ := x.(string)
			ids = append(ids, id)
		}
		s.message(w, body, ids)
	default:
		return false
	}
	return true
}

func asList(v any) []any { l, _ := v.([]any); return l }

func (s *Server) message(w http.ResponseWriter, body map[string]any, ids []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	study, _ := body["study_id"].(string)
	text, _ := body["body"].(string)
	if _, ok := s.studies[study]; !ok || text == "" || len(ids) == 0 {
		fail(w, http.StatusBadRequest, "study_id, body and recipients are required.")
		return
	}
	for _, id := range ids {
		known := false
		for _, sub := range s.submissions[study] {
			known = known || sub["participant_id"] == id
		}
		if !known {
			fail(w, http.StatusBadRequest, fmt.Sprintf("Participant %s has no submission in the study.", id))
			return
		}
	}
	s.messages = append(s.messages, Message{StudyID: study, Recipients: ids, Body: text})
	writeJSON(w, http.StatusCreated, map[string]any{"sent": len(ids)})
}

func (s *Server) studyTransition(w http.ResponseWriter, id string, body map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.studies[id]
	if !ok {
		fail(w, http.StatusNotFound, "Not found.")
		return
	}
	action, _ := body["action"].(string)
	from, _ := st["status"].(string)
	to := ""
	switch {
	case action == "PUBLISH" && from == "UNPUBLISHED":
		to = "ACTIVE"
	case action == "PAUSE" && from == "ACTIVE":
		to = "PAUSED"
	case action == "START" && from == "PAUSED":
		to = "ACTIVE"
	default:
		fail(w, http.StatusBadRequest, fmt.Sprintf("Cannot %s a study that is %s.", action, from))
		return
	}
	st["status"] = to
	writeJSON(w, http.StatusOK, st)
}
