// Package prolifictest serves a fake of Prolific's API for tests: the
// documented paths, bodies, status codes and pagination, with the state a
// test sets up and counts of every call it received. Nothing touches the
// network.
package prolifictest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
)

// Server is a fake Prolific API.
type Server struct {
	*httptest.Server
	Token string

	mu          sync.Mutex
	studies     map[string]map[string]any
	submissions map[string][]map[string]any // by study id
	setups      map[string]setup
	pays        map[string]int // pay calls by setup id
	groups      map[string][]string
	calls       map[string]int // by "METHOD path-pattern"
	created     []map[string]any
	// PageSize is the number of submissions per page (default 2, so tests
	// exercise the pagination).
	PageSize int
	// life: the study's transitions, places, hooks and messages (life.go).
	screenOutCodes   map[string]string // FIXED_SCREENOUT code by study
	projects         map[string]string // workspace by project
	subscriptions    map[string]map[string]any
	messages         []Message
	failures         map[string]failure           // by route, set by Fail
	returns          map[string]int               // return requests by submission (filters.go)
	inbox            []inbound                    // participants' messages (inbox.go)
	testParticipants []string                     // emails of test participants (inbox.go)
	demographics     map[string]map[string]string // by participant id (demographics.go)
	// afterPay and afterReturn: SetAfterPay, SetAfterReturn.
	afterPay    func(setupID string)
	afterReturn func(submissionID string)
	// tokens: the keys of signed study URLs (tokens.go).
	tokens tokenKeys
	// signals: feedback uploads (signals.go).
	signalURLs        map[string]*signalURL // by signature
	signalUploads     []SignalUpload
	afterSignalUpload func(filename string)
}

// failure is the error answer Fail set for a route.
type failure struct {
	status int
	detail string
}

type setup struct {
	study string
	lines [][2]string
	total float64
}

// NewServer starts a fake API that accepts the given token.
func NewServer(token string) *Server {
	s := &Server{Token: token, studies: map[string]map[string]any{}, submissions: map[string][]map[string]any{},
		setups: map[string]setup{}, pays: map[string]int{}, groups: map[string][]string{}, calls: map[string]int{}, PageSize: 2,
		screenOutCodes: map[string]string{}, projects: map[string]string{}, subscriptions: map[string]map[string]any{},
		failures: map[string]failure{}, returns: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// AddStudy adds a study.
func (s *Server) AddStudy(id, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.studies[id] = map[string]any{"id": id, "name": name, "status": "ACTIVE", "total_available_places": 10, "reward": 150, "project": ProjectID}
}

// AddSubmission adds a submission of a study.
func (s *Server) AddSubmission(studyID, submissionID, pid, status string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.submissions[studyID] = append(s.submissions[studyID], map[string]any{
		"id": submissionID, "participant_id": pid, "status": status, "study_id": studyID,
		"started_at": "2026-12-01T09:00:00Z", "completed_at": nil, "entered_code": nil,
	})
}

// Fail makes the fake refuse every later request of a route (named as
// Calls names it: "GET study", "POST transition", …) with status and an
// error whose detail is detail, in Prolific's shape, as Prolific does when
// it refuses one; the request is counted and changes nothing. A status of
// 0 lifts it.
func (s *Server) Fail(route string, status int, detail string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if status == 0 {
		delete(s.failures, route)
		return
	}
	s.failures[route] = failure{status: status, detail: detail}
}

// Status is a submission's status now.
func (s *Server) Status(submissionID string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sub := s.find(submissionID); sub != nil {
		return sub["status"].(string)
	}
	return ""
}

// Calls is how many requests matched a route ("POST transition", "POST
// bulk-approve", "POST bonus-payments", "POST pay", "GET submissions", …).
func (s *Server) Calls(route string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[route]
}

// Pays is how many times bonuses were paid, over every setup.
func (s *Server) Pays() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, k := range s.pays {
		n += k
	}
	return n
}

// Group lists a participant group's members.
func (s *Server) Group(id string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.groups[id]...)
}

// Created lists the bodies of the studies created.
func (s *Server) Created() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.created...)
}

func (s *Server) find(submissionID string) map[string]any {
	for _, subs := range s.submissions {
		for _, sub := range subs {
			if sub["id"] == submissionID {
				return sub
			}
		}
	}
	return nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, status int, detail string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"status": status, "detail": detail}})
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	// The JWKS is public, as Prolific's is.
	if s.serveJWKS(w, r) {
		return
	}
	// A pre-signed upload address carries its own signature.
	if s.serveSignalUpload(w, r) {
		return
	}
	if r.Header.Get("Authorization") != "Token "+s.Token {
		fail(w, http.StatusUnauthorized, "Invalid token.")
		return
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(parts) < 3 || parts[0] != "api" || parts[1] != "v1" {
		fail(w, http.StatusNotFound, "Not found.")
		return
	}
	p := parts[2:]
	var body map[string]any
	if r.Method == http.MethodPost || r.Method == http.MethodPatch {
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			fail(w, http.StatusBadRequest, "JSON parse error")
			return
		}
	}
	// route counts the request and answers it with the error set by Fail,
	// if any: false when it did, and the request must change nothing.
	route := func(name string) bool {
		s.mu.Lock()
		s.calls[r.Method+" "+name]++
		f, refused := s.failures[r.Method+" "+name]
		s.mu.Unlock()
		if refused {
			fail(w, f.status, f.detail)
		}
		return !refused
	}
	switch {
	case r.Method == "GET" && len(p) == 2 && p[0] == "studies":
		if !route("study") {
			return
		}
		s.mu.Lock()
		st, ok := s.studies[p[1]]
		s.mu.Unlock()
		if !ok {
			fail(w, http.StatusNotFound, "Not found.")
			return
		}
		writeJSON(w, http.StatusOK, st)
	case r.Method == "GET" && len(p) == 3 && p[0] == "studies" && p[2] == "submissions":
		if !route("submissions") {
			return
		}
		s.listSubmissions(w, r, p[1])
	case r.Method == "GET" && len(p) == 2 && p[0] == "submissions":
		if !route("submission") {
			return
		}
		s.mu.Lock()
		sub := s.find(p[1])
		var out map[string]any
		if sub != nil {
			out = map[string]any{"id": sub["id"], "participant": sub["participant_id"], "status": sub["status"], "study_id": sub["study_id"]}
		}
		s.mu.Unlock()
		if out == nil {
			fail(w, http.StatusNotFound, "Not found.")
			return
		}
		writeJSON(w, http.StatusOK, out)
	case r.Method == "POST" && len(p) == 3 && p[0] == "submissions" && p[2] == "transition":
		if !route("transition") {
			return
		}
		s.transition(w, p[1], body)
	case r.Method == "POST" && len(p) == 2 && p[0] == "submissions" && p[1] == "bulk-approve":
		if !route("bulk-approve") {
			return
		}
		s.bulkApprove(w, body)
	case r.Method == "POST" && len(p) == 2 && p[0] == "submissions" && p[1] == "bonus-payments":
		if !route("bonus-payments") {
			return
		}
		s.setUpBonuses(w, body)
	case r.Method == "POST" && len(p) == 3 && p[0] == "bulk-bonus-payments" && p[2] == "pay":
		if !route("pay") {
			return
		}
		s.mu.Lock()
		_, ok := s.setups[p[1]]
		if ok {
			s.pays[p[1]]++
		}
		after := s.afterPay
		s.mu.Unlock()
		if !ok {
			fail(w, http.StatusNotFound, "Not found.")
			return
		}
		if after != nil {
			after(p[1])
		}
		writeJSON(w, http.StatusAccepted, fmt.Sprintf("Bulk bonus payment with ID %s is being processed asynchronously.", p[1]))
	case r.Method == "POST" && len(p) == 1 && p[0] == "studies":
		if !route("studies") {
			return
		}
		s.mu.Lock()
		id := fmt.Sprintf("%024x", 0xab0000+len(s.created)+1)
		s.created = append(s.created, body)
		st := map[string]any{"id": id, "name": body["name"], "status": "UNPUBLISHED", "project": ProjectID,
			"external_study_url": body["external_study_url"], "total_available_places": body["total_available_places"], "reward": body["reward"],
			"completion_codes": body["completion_codes"]}
		if codes, ok := body["completion_codes"].([]any); ok {
			for _, c := range codes {
				if m, ok := c.(map[string]any); ok && m["code_type"] == "FIXED_SCREENOUT" {
					s.screenOutCodes[id], _ = m["code"].(string)
				}
			}
		}
		s.studies[id] = st
		s.mu.Unlock()
		writeJSON(w, http.StatusCreated, st)
	case r.Method == "POST" && len(p) == 1 && p[0] == "participant-groups":
		if !route("participant-groups") {
			return
		}
		s.mu.Lock()
		id := fmt.Sprintf("%024x", 0xcd0000+len(s.groups)+1)
		s.groups[id] = nil
		s.mu.Unlock()
		writeJSON(w, http.StatusCreated, map[string]any{"id": id, "name": body["name"]})
	case r.Method == "POST" && len(p) == 3 && p[0] == "participant-groups" && p[2] == "participants":
		if !route("group-participants") {
			return
		}
		s.mu.Lock()
		members, ok := s.groups[p[1]]
		if ok {
			ids, _ := body["participant_ids"].([]any)
			for _, x := range ids {
				id, _ := x.(string)
				dup := false
				for _, m := range members {
					dup = dup || m == id
				}
				if !dup {
					members = append(members, id)
				}
			}
			s.groups[p[1]] = members
		}
		s.mu.Unlock()
		if !ok {
			fail(w, http.StatusNotFound, "Not found.")
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"results": members})
	default:
		if !s.serveLife(w, r, p, body, route) && !s.serveScreening(w, r, p, body, route) && !s.serveInbox(w, r, p, body, route) &&
			!s.serveDemographics(w, r, p, route) && !s.serveSignalURL(w, r, p, route) {
			fail(w, http.StatusNotFound, "Not found.")
		}
	}
}

func (s *Server) listSubmissions(w http.ResponseWriter, r *http.Request, study string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.studies[study]; !ok {
		fail(w, http.StatusNotFound, "Not found.")
		return
	}
	all := s.submissions[study]
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	if page < 1 {
		page = 1
	}
	size := s.PageSize
	from := min((page-1)*size, len(all))
	to := min(from+size, len(all))
	out := map[string]any{"results": all[from:to], "meta": map[string]any{"count": len(all)}}
	links := map[string]any{"next": map[string]any{"href": nil}}
	if to < len(all) {
		links["next"] = map[string]any{"href": fmt.Sprintf("%s/api/v1/studies/%s/submissions/?page=%d", s.URL, study, page+1)}
	}
	out["_links"] = links
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) transition(w http.ResponseWriter, id string, body map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sub := s.find(id)
	if sub == nil {
		fail(w, http.StatusNotFound, "Not found.")
		return
	}
	action, _ := body["action"].(string)
	switch action {
	case "APPROVE":
		if sub["status"] == "APPROVED" {
			writeJSON(w, http.StatusOK, sub) // idempotent, as documented
			return
		}
		if sub["status"] != "AWAITING REVIEW" {
			fail(w, http.StatusBadRequest, "Submission is not awaiting review.")
			return
		}
		sub["status"] = "APPROVED"
	case "REJECT":
		msg, _ := body["message"].(string)
		cat, _ := body["rejection_category"].(string)
		if len([]rune(msg)) < 100 || cat == "" {
			fail(w, http.StatusBadRequest, "A rejection needs a message of at least 100 characters and a rejection_category.")
			return
		}
		if sub["status"] == "REJECTED" {
			writeJSON(w, http.StatusOK, sub)
			return
		}
		if sub["status"] != "AWAITING REVIEW" {
			fail(w, http.StatusBadRequest, "Submission is not awaiting review.")
			return
		}
		sub["status"] = "REJECTED"
	case "COMPLETE":
		code, _ := body["completion_code"].(string)
		if s.screenOutCodes[sub["study_id"].(string)] != code || code == "" {
			fail(w, http.StatusBadRequest, "The completion code is not one of the study's researcher codes.")
			return
		}
		if sub["status"] == "SCREENED OUT" {
			writeJSON(w, http.StatusOK, sub)
			return
		}
		if sub["status"] != "AWAITING REVIEW" && sub["status"] != "ACTIVE" {
			fail(w, http.StatusBadRequest, "Submission cannot be screened out.")
			return
		}
		sub["status"] = "SCREENED OUT"
	default:
		fail(w, http.StatusBadRequest, "Unknown action.")
		return
	}
	writeJSON(w, http.StatusOK, sub)
}

func (s *Server) bulkApprove(w http.ResponseWriter, body map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids, _ := body["submission_ids"].([]any)
	if len(ids) == 0 {
		fail(w, http.StatusBadRequest, "submission_ids is required.")
		return
	}
	for _, x := range ids {
		id, _ := x.(string)
		if sub := s.find(id); sub != nil && sub["status"] == "AWAITING REVIEW" {
			sub["status"] = "APPROVED"
		}
	}
	writeJSON(w, http.StatusOK, "The request to bulk approve has been made successfully.")
}

func (s *Server) setUpBonuses(w http.ResponseWriter, body map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	study, _ := body["study_id"].(string)
	csv, _ := body["csv_bonuses"].(string)
	if _, ok := s.studies[study]; !ok {
		fail(w, http.StatusNotFound, "Not found.")
		return
	}
	var st setup
	st.study = study
	for _, line := range strings.Split(strings.TrimSpace(csv), "\n") {
		pid, amount, ok := strings.Cut(strings.TrimSpace(line), ",")
		v, err := strconv.ParseFloat(amount, 64)
		if !ok || err != nil || v <= 0 {
			fail(w, http.StatusBadRequest, fmt.Sprintf("Invalid line %q.", line))
			return
		}
		known := false
		for _, sub := range s.submissions[study] {
			known = known || sub["participant_id"] == pid
		}
		if !known {
			fail(w, http.StatusBadRequest, fmt.Sprintf("Participant %s did not take part in the study.", pid))
			return
		}
		st.lines = append(st.lines, [2]string{pid, amount})
		st.total += v
	}
	id := fmt.Sprintf("%024x", 0xef0000+len(s.setups)+1)
	s.setups[id] = st
	fees := st.total / 3
	writeJSON(w, http.StatusCreated, map[string]any{"id": id, "study": study, "amount": st.total, "fees": fees, "vat": 0, "total_amount": st.total + fees})
}

// SetAfterPay sets what runs once a pay request has been carried out and
// before it is answered (nil: nothing): a test may kill its client there,
// or panic with http.ErrAbortHandler to drop the answer. It is read under
// the server's lock, so a test may change it between requests.
func (s *Server) SetAfterPay(f func(setupID string)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.afterPay = f
}

// SetAfterReturn sets what runs once a return request has been carried
// out and before it is answered (filters.go), as SetAfterPay does.
func (s *Server) SetAfterReturn(f func(submissionID string)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.afterReturn = f
}
