package studies

import (
	"context"
	"strings"
	"testing"

	"pragmalab/domain"
)

// A crowd study's settings and language are saved together: a language
// refused leaves the settings as they were.
func TestSaveCrowdSettingsBothOrNeither(t *testing.T) {
	ctx := context.Background()
	v := New(mustOpenDB(t), nil)
	s := &domain.Study{Kind: domain.KindCrowd, Name: "c", Lang: "en"}
	if err := v.db.CreateStudy(ctx, s); err != nil {
		t.Fatal(err)
	}
	_, set, err := v.db.CrowdStudy(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	set.Quota = 9
	if err := v.db.SaveCrowdStudy(ctx, s.ID, "xx", set); domain.ErrorCode(err) != domain.EINVALID {
		t.Fatalf("an unknown language: got %v, want EINVALID", err)
	}
	got, err := v.db.Study(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if cur, _ := CrowdSettings(got); cur.Quota == 9 || got.Lang != "en" {
		t.Fatalf("a refused save changed the study: quota %d, language %q", cur.Quota, got.Lang)
	}
	if err := v.db.SaveCrowdStudy(ctx, s.ID, "it", set); err != nil {
		t.Fatal(err)
	}
	got, _ = v.db.Study(ctx, s.ID)
	if cur, _ := CrowdSettings(got); cur.Quota != 9 || got.Lang != "it" {
		t.Fatalf("after saving: quota %d, language %q; want 9, it", cur.Quota, got.Lang)
	}
}

// The dashboard keeps archived studies apart.
func TestDashboardArchivedApart(t *testing.T) {
	ctx := context.Background()
	v := New(mustOpenDB(t), nil)
	a := &domain.Study{Kind: domain.KindExpert, Name: "kept", Lang: "en"}
	b := &domain.Study{Kind: domain.KindExpert, Name: "old", Lang: "en"}
	for _, s := range []*domain.Study{a, b} {
		if err := v.db.CreateStudy(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := v.db.SetStudyArchived(ctx, b.ID, true); err != nil {
		t.Fatal(err)
	}
	inUse, archived, err := v.Dashboard(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(inUse) != 1 || inUse[0].Study.Name != "kept" || len(archived) != 1 || archived[0].Study.Name != "old" {
		t.Fatalf("in use %v, archived %v", inUse, archived)
	}
}

// The account entries read the same from the pages and the command line.
func TestAuditWording(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{AuditAccountCreated("ada", "owner"), "created ada as owner"},
		{AuditPasswordReset("ada"), "new password for ada; its sessions ended"},
		{AuditRoleChanged("ada", "owner", "viewer"), "ada: owner → viewer"},
		{AuditRoleChanged("ada", "", "viewer"), "ada is now viewer"},
		{AuditStudyArchived(true), "archived"},
		{AuditStudyArchived(false), "restored"},
		{AuditStudyCloned(3, "copy"), `cloned into study #3 "copy"`},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	if AuditActions["/admin/accounts/{admin}/role"] != ActionChangeRole || AuditActions["/admin/accounts"] != ActionCreateAccount {
		t.Error("the pages name the account actions differently from the command line")
	}
}

// A corrected items file is kept for its preview and applied only with the
// digest of the changes shown: a file changed under the preview is
// refused, and applying bumps the changed item's version.
func TestCorrectedItemsPreviewThenApply(t *testing.T) {
	ctx := context.Background()
	v := New(mustOpenDB(t), nil)
	s := &domain.Study{Kind: domain.KindExpert, Name: "e", Lang: "en"}
	if err := v.db.CreateStudy(ctx, s); err != nil {
		t.Fatal(err)
	}
	if n, err := v.ImportItemFile(ctx, s.ID, "items.csv", []byte(goodCSV)); err != nil || n != 3 {
		t.Fatalf("import: %d items, %v", n, err)
	}
	corrected := strings.Replace(goodCSV, "Not all guests left.", "Not every guest left.", 1) +
		"n1,natural,,It is cold.,Close the window.,Or not.,,,,\n"
	id, err := v.UploadCorrectedItems(ctx, s.ID, "items.csv", []byte(corrected))
	if err != nil {
		t.Fatal(err)
	}
	p, err := v.PendingItemUpdate(ctx, s.ID, id, false)
	if err != nil {
		t.Fatal(err)
	}
	if p.Filename != "items.csv" || p.Update.Changed() != 1 || p.Update.Added() != 1 || p.Update.Unchanged != 2 {
		t.Fatalf("preview: %s, %d changed, %d added, %d unchanged", p.Filename, p.Update.Changed(), p.Update.Added(), p.Update.Unchanged)
	}
	if _, err := v.ApplyItemUpdate(ctx, s.ID, p, "not-the-digest", "fix"); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Fatalf("a stale digest: got %v, want ECONFLICT", err)
	}
	done, err := v.ApplyItemUpdate(ctx, s.ID, p, p.Update.Digest, "fix")
	if err != nil || done.Changed() != 1 || done.Added() != 1 {
		t.Fatalf("apply: %+v, %v", done, err)
	}
	items, err := v.db.ListItems(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if it.Key == "s1" && (it.Implicature != "Not every guest left." || it.Version != 2) {
			t.Errorf("s1 after applying: %q, version %d", it.Implicature, it.Version)
		}
	}
	if len(items) != 4 {
		t.Errorf("%d items after applying, want 4", len(items))
	}
	if _, err := v.PendingItemUpdate(ctx, s.ID, id, false); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Errorf("the applied upload is still kept: %v", err)
	}
}
