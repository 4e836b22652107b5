package studies

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"pragmalab/domain"
)

// TestAuditDetailInWords: the log names experts, items, participants and
// accounts as a person does, keeps an id that names nothing as #id, and
// leaves passwords, tokens and the credentials of a URL out.
func TestAuditDetailInWords(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	svc := New(db, nil)
	s := &domain.Study{Kind: domain.KindExpert, Name: "S", Lang: "en"}
	if err := db.CreateStudy(ctx, s); err != nil {
		t.Fatal(err)
	}
	if err := db.ImportItems(ctx, s.ID, []domain.Item{{Key: "sc1", Type: "scalar", Utterance: "Some students passed.",
		Implicature: "Not all students passed.", Cancellation: "In fact, all of them did."}}); err != nil {
		t.Fatal(err)
	}
	items, _ := db.ListItems(ctx, s.ID)
	ada, _ := db.CreateAnnotator(ctx, s.ID, "Ada Lovelace")
	ben, _ := db.CreateAnnotator(ctx, s.ID, "Ben")
	admin, _ := db.CreateAdmin(ctx, "maria", "correct horse battery")
	for _, c := range []struct {
		params map[string]string
		form   url.Values
		want   string
	}{
		{nil, url.Values{"expert": {fmt.Sprint(ada.ID), fmt.Sprint(ben.ID)}, "round": {"2"}}, "experts: Ada Lovelace, Ben; round 2"},
		{map[string]string{"annotator": fmt.Sprint(ada.ID)}, nil, "expert: Ada Lovelace"},
		{map[string]string{"item": fmt.Sprint(items[0].ID)}, url.Values{"check": {"high"}}, "check: high; item: sc1"},
		{map[string]string{"admin": fmt.Sprint(admin.ID)}, url.Values{"role": {"viewer"}}, "account: maria; role: viewer"},
		{map[string]string{"participant": "999"}, url.Values{"decision": {"exclude"}}, "decision: exclude; participant: #999"},
		{map[string]string{"job": "3"}, url.Values{
			"password":  {"hunter2hunter2"},
			"token":     {"abc"},
			"base_urls": {"https://bob:s3cret@llm.example/v1"},
			"model":     {"m"},
			"next":      {"/admin"},
			"note":      {""},
		}, "base urls: https://…@llm.example/v1; job #3; model: m; note: (empty)"},
	} {
		got := svc.AuditDetail(ctx, s.ID, c.params, c.form)
		if got != c.want {
			t.Errorf("AuditDetail(%v, %v) = %q, want %q", c.params, c.form, got, c.want)
		}
		for _, secret := range []string{"hunter2", "s3cret", "abc", "/admin"} {
			if strings.Contains(got, secret) {
				t.Errorf("%q reached the log: %q", secret, got)
			}
		}
	}
	if got := svc.ExpertName(ctx, s.ID, ben.ID); got != "Ben" {
		t.Errorf("ExpertName = %q", got)
	}
	if got := svc.ExpertName(ctx, s.ID, 12345); got != "expert #12345" {
		t.Errorf("ExpertName of nobody = %q", got)
	}
}
