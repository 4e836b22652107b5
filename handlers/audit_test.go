package handlers

import (
	"os"
	"pragmalab/studies"
	"regexp"
	"strings"
	"testing"
)

// TestEveryChangeHasAnAuditName: each state-changing admin route of
// routes.go is named for the log (a missing one would still be logged,
// under its pattern, but less readably).
func TestEveryChangeHasAnAuditName(t *testing.T) {
	src, err := os.ReadFile("../web/routes.go")
	if err != nil {
		t.Fatal(err)
	}
	// Only the admin area's posts: /admin/{studies,accounts}... patterns.
	re := regexp.MustCompile(`r\.Post\("(/[^"]*)"`)
	names := map[string]bool{}
	for k := range studies.AuditActions {
		names[k] = true
	}
	for _, m := range re.FindAllStringSubmatch(string(src), -1) {
		p := m[1]
		if strings.HasPrefix(p, "/admin/log") || strings.HasPrefix(p, "/b/") || strings.HasPrefix(p, "/s/") || p == "/{pos}" || p == "/consent" || p == "/decline" || p == "/training" || p == "/answer" || p == "/questionnaire" ||
			strings.HasPrefix(p, "/webhooks/") { // Prolific's deliveries: audited by the use case, by event
			continue
		}
		if !names["/admin"+p] && !names["/admin/studies/{study}"+p] {
			t.Errorf("route %s has no name in studies.AuditActions", p)
		}
	}
}
