package prolifictest

import (
	"fmt"
	"net/http"
	"time"
)

// The fake's screening: a list of filters, a pool of participants the
// eligibility count counts, and return requests.

// FilterList is the fake's GET /api/v1/filters/: first language (a select
// filter: English "0", Italian "1", German "2") and age (a range, 18–100).
var FilterList = []map[string]any{
	{"filter_id": "first-language", "title": "First language", "type": "select", "data_type": "ChoiceID",
		"choices": map[string]any{"0": "English", "1": "Italian", "2": "German"}},
	{"filter_id": "age", "title": "Age", "type": "range", "data_type": "integer", "min": 18, "max": 100},
}

// poolMember is one participant of the fake's pool.
type poolMember struct {
	language string // a first-language choice id
	age      int
}

// defaultPool is 1000 people: 800 English, 100 Italian, 100 German, aged
// 18 to 77 evenly, so a narrow screening of Italians counts fewer than 25.
func defaultPool() []poolMember {
	out := make([]poolMember, 1000)
	for i := range out {
		lang := "0"
		switch i % 10 {
		case 8:
			lang = "1"
		case 9:
			lang = "2"
		}
		out[i] = poolMember{language: lang, age: 18 + i%60}
	}
	return out
}

// ReturnRequests is how many return requests a submission received.
func (s *Server) ReturnRequests(submissionID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.returns[submissionID]
}

// serveScreening answers the screening routes; false when none matched.
func (s *Server) serveScreening(w http.ResponseWriter, r *http.Request, p []string, body map[string]any, route func(string) bool) bool {
	switch {
	case r.Method == "GET" && len(p) == 1 && p[0] == "filters":
		if !route("filters") {
			return true
		}
		writeJSON(w, http.StatusOK, map[string]any{"results": FilterList, "_links": map[string]any{"next": map[string]any{"href": nil}}})
	case r.Method == "POST" && len(p) == 1 && p[0] == "eligibility-count":
		if !route("eligibility-count") {
			return true
		}
		n, err := s.eligible(body)
		if err != "" {
			fail(w, http.StatusBadRequest, err)
			return true
		}
		if n < 25 {
			n = 0 // Prolific hides counts under 25
		}
		writeJSON(w, http.StatusOK, map[string]any{"count": n})
	case r.Method == "POST" && len(p) == 3 && p[0] == "submissions" && p[2] == "request-return":
		if !route("request-return") {
			return true
		}
		s.requestReturn(w, p[1], body)
	default:
		return false
	}
	return true
}

// eligible counts the pool members passing every filter, or says why the
// filters are refused.
func (s *Server) eligible(body map[string]any) (int, string) {
	filters, ok := body["filters"].([]any)
	if !ok {
		return 0, "filters is required."
	}
	type check func(poolMember) bool
	var checks []check
	for _, x := range filters {
		f, _ := x.(map[string]any)
		id, _ := f["filter_id"].(string)
		switch id {
		case "first-language":
			vals := asList(f["selected_values"])
			if len(vals) == 0 {
				return 0, "selected_values is required for first-language."
			}
			want := map[string]bool{}
			for _, v := range vals {
				c, _ := v.(string)
				if _, ok := FilterList[0]["choices"].(map[string]any)[c]; !ok {
					return 0, fmt.Sprintf("%q is not a choice of first-language.", c)
				}
				want[c] = true
			}
			checks = append(checks, func(m poolMember) bool { return want[m.language] })
		case "age":
			rg, _ := f["selected_range"].(map[string]any)
			lo, lok := rg["lower"].(float64)
			hi, hok := rg["upper"].(float64)
			if !lok || !hok || lo > hi {
				return 0, "selected_range needs a lower bound not above the upper."
			}
			checks = append(checks, func(m poolMember) bool { return float64(m.age) >= lo && float64(m.age) <= hi })
		default:
			return 0, fmt.Sprintf("Unknown filter %q.", id)
		}
	}
	n := 0
	for _, m := range defaultPool() {
		pass := true
		for _, c := range checks {
			pass = pass && c(m)
		}
		if pass {
			n++
		}
	}
	return n, ""
}

func (s *Server) requestReturn(w http.ResponseWriter, id string, body map[string]any) {
	s.mu.Lock()
	sub := s.find(id)
	status, detail := http.StatusOK, ""
	switch {
	case sub == nil:
		status, detail = http.StatusNotFound, "Not found."
	case len(asList(body["request_return_reasons"])) == 0:
		status, detail = http.StatusBadRequest, "request_return_reasons is required."
	case sub["status"] != "ACTIVE" && sub["status"] != "AWAITING REVIEW":
		status, detail = http.StatusBadRequest, "A return can only be requested for an active or awaiting review submission."
	}
	if status != http.StatusOK {
		s.mu.Unlock()
		fail(w, status, detail)
		return
	}
	s.returns[id]++
	now := time.Now().UTC().Format(time.RFC3339)
	sub["return_requested"] = now
	answer := map[string]any{"id": id, "status": sub["status"], "participant": sub["participant_id"], "return_requested": now}
	after := s.afterReturn
	s.mu.Unlock()
	if after != nil {
		after(id)
	}
	writeJSON(w, http.StatusOK, answer)
}
