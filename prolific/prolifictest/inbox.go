package prolifictest

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"
)

// The fake's inbox (participants' messages to the researcher) and test
// participants.

// inbound is one message a participant sent the researcher.
type inbound struct {
	msg    map[string]any
	sentAt time.Time
	unread bool
}

// AddInbound adds a message from a participant about a study, read or
// not, sent at.
func (s *Server) AddInbound(sender, studyID, body string, at time.Time, unread bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := fmt.Sprintf("%024x", 0x3a0000+len(s.inbox)+1)
	s.inbox = append(s.inbox, inbound{unread: unread, sentAt: at, msg: map[string]any{"id": id, "sender_id": sender, "body": body,
		"sent_at": at.UTC().Format(time.RFC3339), "type": "message", "data": map[string]any{"study_id": studyID, "category": "other"}}})
}

// TestParticipants lists the emails test participants were created for.
func (s *Server) TestParticipants() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.testParticipants...)
}

// serveInbox answers the inbox and test participant routes; false when
// none matched.
func (s *Server) serveInbox(w http.ResponseWriter, r *http.Request, p []string, body map[string]any, route func(string) bool) bool {
	switch {
	case r.Method == "GET" && len(p) == 1 && p[0] == "messages":
		if !route("messages") {
			return true
		}
		after, err := time.Parse(time.RFC3339, r.URL.Query().Get("created_after"))
		if err != nil && r.URL.Query().Get("user_id") == "" {
			fail(w, http.StatusBadRequest, "user_id or created_after is required.")
			return true
		}
		writeJSON(w, http.StatusOK, map[string]any{"results": s.inboxWhere(func(m inbound) bool { return !m.sentAt.Before(after) })})
	case r.Method == "GET" && len(p) == 2 && p[0] == "messages" && p[1] == "unread":
		if !route("unread") {
			return true
		}
		writeJSON(w, http.StatusOK, map[string]any{"results": s.inboxWhere(func(m inbound) bool { return m.unread })})
	case r.Method == "POST" && len(p) == 2 && p[0] == "researchers" && p[1] == "participants":
		if !route("test-participant") {
			return true
		}
		email, _ := body["email"].(string)
		s.mu.Lock()
		defer s.mu.Unlock()
		if !strings.Contains(email, "@") {
			fail(w, http.StatusBadRequest, "Enter a valid email address.")
			return true
		}
		for _, e := range s.testParticipants {
			if e == email {
				fail(w, http.StatusBadRequest, "This email is already registered.")
				return true
			}
		}
		s.testParticipants = append(s.testParticipants, email)
		writeJSON(w, http.StatusCreated, map[string]any{"participant_id": fmt.Sprintf("%024x", 0x7e0000+len(s.testParticipants))})
	default:
		return false
	}
	return true
}

func (s *Server) inboxWhere(keep func(inbound) bool) []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, m := range s.inbox {
		if keep(m) {
			out = append(out, m.msg)
		}
	}
	sort.SliceStable(out, func(i, k int) bool { return out[i]["sent_at"].(string) < out[k]["sent_at"].(string) })
	if out == nil {
		out = []map[string]any{}
	}
	return out
}
