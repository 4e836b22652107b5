package handlers_test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

func (b *browser) uploadDesign(data []byte, name string) *browser {
	b.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("design", "design.json")
	fw.Write(data)
	mw.WriteField("name", name)
	mw.Close()
	req, _ := http.NewRequest("POST", b.env.srv.URL+"/admin/studies/design", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return b.do(req)
}

// TestDesignDownloadAndNewStudy: the study page links its design; the
// downloaded file makes a new study from the dashboard whose design is
// the file's apart from the name; a bad file is refused beside the form,
// naming the field, and creates nothing.
func TestDesignDownloadAndNewStudy(t *testing.T) {
	e := newCrowdEnv(t, 12, 6, nil)
	a := e.admin()
	a.get(fmt.Sprintf("/admin/studies/%d", e.study))
	a.must("download-design")
	a.get(fmt.Sprintf("/admin/studies/%d/design.json", e.study))
	if a.resp.StatusCode != 200 || !strings.Contains(a.resp.Header.Get("Content-Disposition"), "design-study") {
		t.Fatalf("design download: %d %v", a.resp.StatusCode, a.resp.Header)
	}
	design := a.body
	a.get("/admin/")
	a.must("new-study-design")

	bad := strings.Replace(design, `"scale_points": 7`, `"scale_points": 12`, 1)
	if bad == design {
		t.Fatalf("the design has no scale_points:\n%.1000s", design)
	}
	a.uploadDesign([]byte(bad), "")
	if a.resp.StatusCode != http.StatusBadRequest || !strings.Contains(a.body, "scale points must be 2–11, got 12") {
		t.Fatalf("bad design: %d\n%.3000s", a.resp.StatusCode, a.body)
	}
	a.must("design-error")
	// A second object, or a key given twice, is refused naming its line
	// (docs/formats.md#design-file).
	dup := strings.Replace(design, `"scale_points": 7`, `"scale_points": 7, "scale_points": 5`, 1)
	for file, want := range map[string]string{design + "\n" + design: "a second object after the design&#39;s object", dup: "duplicate key &#34;settings.scale_points&#34;"} {
		a.uploadDesign([]byte(file), "")
		if a.resp.StatusCode != http.StatusBadRequest || !strings.Contains(a.body, want) {
			t.Fatalf("design refused for %q: %d\n%.3000s", want, a.resp.StatusCode, a.body)
		}
	}
	if all, _ := e.db.Dashboard(t.Context()); len(all) != 1 {
		t.Fatalf("a refused design created a study: %d studies", len(all))
	}

	a.uploadDesign([]byte(design), "Second run")
	m := regexp.MustCompile(`/admin/studies/(\d+)`).FindStringSubmatch(a.resp.Request.URL.Path)
	if a.resp.StatusCode != 200 || m == nil || m[1] == "1" {
		t.Fatalf("new study from design: %d %s", a.resp.StatusCode, a.resp.Request.URL)
	}
	a.get("/admin/studies/" + m[1] + "/design.json")
	again := strings.Replace(a.body, `"name": "Second run"`, `"name": "Crowd test"`, 1)
	if again != design {
		t.Errorf("the new study's design differs:\nfile: %.1500s\nnew:  %.1500s", design, a.body)
	}
}

// TestItemsTemplateDownload: a crowd study's page links the items
// template, which imports into the study as it stands; a template of
// another kind's material is not found.
func TestItemsTemplateDownload(t *testing.T) {
	e := newCrowdEnv(t, 12, 6, nil)
	a := e.admin()
	study := fmt.Sprintf("/admin/studies/%d", e.study)
	a.get(study)
	a.must("items-template")
	a.get(study + "/template/items.csv")
	if a.resp.StatusCode != 200 || !strings.HasPrefix(a.body, "id,type,context,utterance,implicature,cancellation,negation,strengthening,neutral,check,training\n") {
		t.Fatalf("items template: %d\n%s", a.resp.StatusCode, a.body)
	}
	tmpl := []byte(a.body)
	a.upload(study+"/items", "items-template.csv", tmpl)
	a.must("flash")
	if !strings.Contains(a.body, "Imported 6 items") {
		t.Fatalf("the template did not import as it stands:\n%.2000s", a.body)
	}
	a.get(study + "/template/passages.tsv")
	if a.resp.StatusCode != http.StatusNotFound {
		t.Fatalf("a crowd study's passages template: %d", a.resp.StatusCode)
	}
}
