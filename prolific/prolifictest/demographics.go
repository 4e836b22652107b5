package prolifictest

import (
	"net/http"
	"pragmalab/csvsafe"
)

// The fake's demographic export (POST /api/v1/studies/{id}/demographic-export/),
// answered as the CSV Prolific's export is, with the columns of its base
// demographic data.

// DemographicColumns are the columns of the fake's export.
var DemographicColumns = []string{
	"Submission id", "Participant id", "Status", "Started at", "Completed at", "Time taken",
	"Age", "Sex", "Ethnicity simplified", "Language", "Country of residence", "Nationality",
	"Country of birth", "Student status", "Employment status", "Total approvals",
}

// SetDemographics sets a participant's answers to Prolific's demographic
// questions, keyed by DemographicColumns' names ("Age", "Language", …);
// the export gives "DATA_EXPIRED" for a question not set, as Prolific does
// for data it no longer holds.
func (s *Server) SetDemographics(pid string, fields map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.demographics == nil {
		s.demographics = map[string]map[string]string{}
	}
	s.demographics[pid] = fields
}

// serveDemographics answers the demographic export; false when the
// request is not it.
func (s *Server) serveDemographics(w http.ResponseWriter, r *http.Request, p []string, route func(string) bool) bool {
	if r.Method != "POST" || len(p) != 3 || p[0] != "studies" || p[2] != "demographic-export" {
		return false
	}
	if !route("demographic-export") {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.studies[p[1]]; !ok {
		fail(w, http.StatusNotFound, "Not found.")
		return true
	}
	w.Header().Set("Content-Type", "text/csv")
	w.WriteHeader(http.StatusOK)
	cw := csvsafe.NewWriter(w)
	cw.Write(DemographicColumns)
	for _, sub := range s.submissions[p[1]] {
		pid, _ := sub["participant_id"].(string)
		row := make([]string, len(DemographicColumns))
		for i, c := range DemographicColumns {
			row[i] = s.demographicField(sub, pid, c)
		}
		cw.Write(row)
	}
	cw.Flush()
	return true
}

func (s *Server) demographicField(sub map[string]any, pid, col string) string {
	str := func(k string) string { v, _ := sub[k].(string); return v }
	switch col {
	case "Submission id":
		return str("id")
	case "Participant id":
		return pid
	case "Status":
		return str("status")
	case "Started at":
		return str("started_at")
	case "Completed at":
		return str("completed_at")
	case "Time taken":
		return ""
	}
	if v, ok := s.demographics[pid][col]; ok {
		return v
	}
	return "DATA_EXPIRED"
}
