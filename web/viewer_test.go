package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"pragmalab/domain"
)

// postForm finds the forms of a page that post (all of pragmalab's forms
// do) and their actions.
var postForm = regexp.MustCompile(`(?is)<form[^>]*method="post"[^>]*>`)
var formAction = regexp.MustCompile(`(?i)action="([^"]*)"`)

// TestViewerSeesNoTokenAndNoForm logs in as a viewer and fetches every
// admin page (every GET route of the router, for an expert, a context, an
// explanation and a Prolific-linked crowd study, with a pilot link and a
// scoring job): no page may hold an invitation or pilot token, or 8
// characters of one, and none may hold a form a viewer cannot submit (only
// "log out" is left). The owner's pages do show the links, so the check
// is not empty.
func TestViewerSeesNoTokenAndNoForm(t *testing.T) {
	ctx := context.Background()
	e, _, crowd, owner := prolificEnv(t)
	ex, experts := expertStudy(t, e, owner)
	owner.post(studyPath(crowd.ID, "/prolific/link"), url.Values{"prolific_study_id": {webProlificStudy}}).mustStatus(t, http.StatusSeeOther)
	owner.post(studyPath(ex.ID, "/pilot"), url.Values{"action": {"new"}}).mustStatus(t, http.StatusSeeOther)

	cx, cpath := newImpaqtsStudy(t, e, owner, domain.KindContext)
	owner.upload(cpath+"/items", "file", "impaqts.tsv", readPassageSample(t)).mustStatus(t, http.StatusSeeOther)
	owner.post(cpath+"/surveys", url.Values{"surveys": {"2"}, "per_survey": {"10"}, "experts_per_survey": {"1"}, "max_sentences": {"5"}}).mustStatus(t, http.StatusSeeOther)
	surveys, _ := e.db.ContextSurveys(ctx, cx.ID)
	owner.post(cpath+"/context/experts", url.Values{"name": {"Giulia"}, "survey": {fmt.Sprint(surveys[0].ID)}}).mustStatus(t, http.StatusSeeOther)

	xs, xpath := newImpaqtsStudy(t, e, owner, domain.KindExplain)
	owner.upload(xpath+"/items", "file", "impaqts.tsv", readPassageSample(t)).mustStatus(t, http.StatusSeeOther)
	ps, _ := e.db.ListPassages(ctx, xs.ID)
	var b strings.Builder
	b.WriteString("item_id,strategy,model,output\n")
	for _, p := range ps[:5] {
		fmt.Fprintf(&b, "%s,zero-shot,gemma,Spiegazione\n", p.Key)
	}
	owner.upload(xpath+"/outputs", "file", "outputs.csv", []byte(b.String())).mustStatus(t, http.StatusSeeOther)
	owner.post(xpath+"/explain/experts", url.Values{"name": {"Anna"}}).mustStatus(t, http.StatusSeeOther)
	owner.post(studyPath(ex.ID, "/jobs"), url.Values{"scorer": {"copy-target"}, "task": {"tf"}}) // a job page, if the form allows

	var tokens []string
	for _, s := range []int64{ex.ID, cx.ID, xs.ID, crowd.ID} {
		as, _ := e.db.Annotators(ctx, s)
		for _, a := range as {
			tokens = append(tokens, a.Token)
		}
		if pt, _ := e.db.PilotLink(ctx, s); pt != "" {
			tokens = append(tokens, pt)
		}
	}
	if len(tokens) < 5 {
		t.Fatalf("only %d tokens made", len(tokens))
	}
	if !strings.Contains(owner.get(studyPath(ex.ID, "")).Body, experts[0].Token) {
		t.Fatal("the owner's study page does not show the invitation link: nothing to check")
	}

	viewer := e.accountClient("reader", domain.RoleViewer)
	first := map[string]string{}
	if its, _ := e.db.ListItems(ctx, ex.ID); len(its) > 0 {
		first["{item}"] = fmt.Sprint(its[0].ID)
	}
	first["{annotator}"] = fmt.Sprint(experts[0].ID)
	pages := 0
	err := chi.Walk(e.server.router.(chi.Routes), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if method != http.MethodGet || !strings.HasPrefix(route, "/admin") || route == "/admin/login" || strings.Contains(route, "pprof") {
			return nil
		}
		for _, sid := range []int64{ex.ID, cx.ID, xs.ID, crowd.ID} {
			path := strings.ReplaceAll(route, "{study}", fmt.Sprint(sid))
			for k, v := range first {
				path = strings.ReplaceAll(path, k, v)
			}
			for _, p := range []string{"{round}", "{participant}", "{job}", "{admin}", "{upload}"} {
				path = strings.ReplaceAll(path, p, "1")
			}
			path = strings.NewReplacer("{format}", "csv", "{table}", "toplines", "{figure}", "ratings", "{measure}", "accuracy", "/*", "/").Replace(path)
			p := viewer.get(path)
			pages++
			for _, tok := range tokens {
				for i := 0; i+domain.RedactRun <= len(tok); i += domain.RedactRun {
					if strings.Contains(p.Body, tok[i:i+domain.RedactRun]) {
						t.Errorf("viewer GET %s (%d) shows an invitation token", path, p.StatusCode)
						break
					}
				}
			}
			for _, f := range postForm.FindAllString(p.Body, -1) {
				if m := formAction.FindStringSubmatch(f); m == nil || m[1] != "/admin/logout" {
					t.Errorf("viewer GET %s shows a form a viewer cannot submit: %s", path, f)
				}
			}
			if !strings.Contains(route, "{study}") {
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if pages < 60 {
		t.Fatalf("only %d admin pages fetched", pages)
	}
	viewer.get(studyPath(ex.ID, "")).mustStatus(t, http.StatusOK).mustContain(t, "/e/••••••••")
}

// TestViewerBrowserAnswersNothing: a browser logged in as a viewer that
// posts an answer to an expert's invitation link (learnt elsewhere) is
// refused and nothing is stored; the expert's own browser answers, and
// the answer records the link it came through, which a re-issue changes.
// Issuing, revoking and re-issuing a link are in the audit log with the
// owner who did it.
func TestViewerBrowserAnswersNothing(t *testing.T) {
	ctx := context.Background()
	e := newTestEnv(t)
	owner := e.adminClient()
	s, experts := expertStudy(t, e, owner)
	viewer := e.accountClient("reader", domain.RoleViewer)
	ada := experts[0]
	aid := mustAssignment(t, e, ada.ID)
	screens := mustScreens(t, e, aid)
	answer := answerFor(screens[0].Item)
	screen := fmt.Sprintf("/e/%s/b/%d/1", ada.Token, aid)

	viewer.post(screen, answer).mustStatus(t, http.StatusForbidden).mustContain(t, "viewer")
	if got := mustScreens(t, e, aid); got[0].Answer != nil {
		t.Fatal("a viewer's browser stored a judgement")
	}
	e.newClient().post(screen, answer).mustStatus(t, http.StatusSeeOther)
	var link int
	var err error
	if link, err = e.db.JudgementLink(ctx, aid, 1); err != nil || link != 1 {
		t.Fatalf("the answer records link %d, %v; want 1", link, err)
	}

	owner.post(studyPath(s.ID, fmt.Sprintf("/people/%d/reissue", ada.ID)), nil).mustStatus(t, http.StatusSeeOther)
	owner.post(studyPath(s.ID, fmt.Sprintf("/people/%d/revoke", experts[1].ID)), nil).mustStatus(t, http.StatusSeeOther)
	as, _ := e.db.Annotators(ctx, s.ID)
	e.newClient().post(fmt.Sprintf("/e/%s/b/%d/1", as[0].Token, aid), answer).mustStatus(t, http.StatusSeeOther)
	if link, err = e.db.JudgementLink(ctx, aid, 1); err != nil || link != 2 {
		t.Fatalf("after a re-issue the answer records link %d, %v; want 2", link, err)
	}

	entries, _ := e.db.AuditLog(ctx, s.ID, 0)
	want := map[string]bool{"invite expert": false, "revoke expert link": false, "re-issue expert link": false}
	for _, en := range entries {
		if _, ok := want[en.Action]; ok && en.Actor == "researcher" {
			want[en.Action] = true
		}
	}
	for a, seen := range want {
		if !seen {
			t.Errorf("no audit entry %q by the owner", a)
		}
	}
}
