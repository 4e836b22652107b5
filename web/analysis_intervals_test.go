package web

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestAnalysisPageIntervalsAndDownloads checks docs/statistics.md#paper-ready-output on the
// expert study's Analysis page: the interval table, the methods paragraph
// and its downloads, LaTeX per table and for all, figures as PDF, loaded
// eagerly.
func TestAnalysisPageIntervalsAndDownloads(t *testing.T) {
	e := newTestEnv(t)
	admin := e.adminClient()
	s, experts := expertStudy(t, e, admin)
	answerExperts(t, e, experts)
	base := fmt.Sprintf("/admin/studies/%d/analysis", s.ID)
	p := admin.get(base).mustStatus(t, http.StatusOK).mustContain(t,
		`data-testid="table-agreement_intervals"`, `data-testid="methods"`, `data-testid="tex-agreement"`, `data-testid="tables-tex"`,
		`data-testid="figure-agreement_plausibility_by_type"`, `data-testid="figure-confusion_plausibility_Ada_Ben"`, "2 experts (Ada, Ben) gave")
	if strings.Contains(p.Body, `loading="lazy"`) {
		t.Error("figures load lazily: a printed page would lack them")
	}
	// The "all" row of the interval table has the raw agreement with its interval.
	if got := rowText(t, p.Body, "agreement_intervals-row-"+fmt.Sprint(strings.Count(p.Body, `data-testid="agreement_intervals-row-`)-2)); !strings.HasPrefix(got, "all Plausibility") || !strings.Contains(got, "[") {
		t.Errorf("interval row: %s", got)
	}
	tex := admin.get(base+"/agreement_intervals.tex").mustStatus(t, http.StatusOK)
	if !strings.Contains(tex.Body, `\toprule`) || !strings.Contains(tex.Header.Get("Content-Disposition"), "attachment") {
		t.Errorf("agreement_intervals.tex: %s", tex.Body)
	}
	all := admin.get(base+"/tables.tex").mustStatus(t, http.StatusOK)
	// The two agreement tables, then the annotator models' two (which
	// may run over more than one float).
	if n := strings.Count(all.Body, `\begin{table}`); n < 4 || !strings.Contains(all.Body, "Annotator models") || !strings.Contains(all.Body, "Items to review") {
		t.Errorf("tables.tex holds %d tables, want the 2 of agreement and the 2 of the annotator models", n)
	}
	md := admin.get(base+"/methods.md").mustStatus(t, http.StatusOK)
	if !strings.HasPrefix(md.Body, "### Methods: expert agreement") || !strings.HasPrefix(md.Header.Get("Content-Type"), "text/markdown") {
		t.Errorf("methods.md (%s): %s", md.Header.Get("Content-Type"), md.Body)
	}
	admin.get(base+"/methods.txt").mustStatus(t, http.StatusOK).mustContain(t, "Methods: expert agreement", "Krippendorff's α")
	pdf := admin.get(base+"/plots/agreement_plausibility_by_type.pdf").mustStatus(t, http.StatusOK)
	if pdf.Header.Get("Content-Type") != "application/pdf" || !strings.HasPrefix(pdf.Body, "%PDF") {
		t.Errorf("PDF figure: %s %.20q", pdf.Header.Get("Content-Type"), pdf.Body)
	}
	admin.get(base+"/methods.pdf").mustStatus(t, http.StatusNotFound)
	if got := e.newClient().get(base + "/tables.tex"); got.StatusCode == http.StatusOK {
		t.Error("anonymous LaTeX download")
	}
}
