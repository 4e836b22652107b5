package handlers_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"pragmalab/cli"
	"pragmalab/studies"
	"pragmalab/web"
)

// The crowd study page links the data package; its zip holds the
// descriptor, the tables, the codebook, the methods and the R companion
// under one folder, with the participant as a pseudonym and no Prolific
// id (docs/formats.md#data-package). A server without the package offers
// no link.
func TestCrowdDataPackageDownload(t *testing.T) {
	e := newCrowdEnv(t, 40, 10, nil)
	p := e.browser()
	p.get(e.entry(pidN(7), "s7"))
	p.post(e.base()+"/consent", nil)
	p.training()
	me, _ := e.db.CrowdParticipants(context.Background(), e.study, e.set)
	for !p.has("done") {
		sc, err := e.db.CrowdScreen(context.Background(), me[0].BatchID, p.position())
		if err != nil {
			t.Fatal(err)
		}
		rating := map[string]string{"": strconv.Itoa(1 + p.position()%7), "high": "7", "low": "1"}[sc.Item.Check]
		p.post(e.base()+"/answer", url.Values{"position": {strconv.Itoa(p.position())}, "rating": {rating}})
	}
	a := e.admin()
	a.get(fmt.Sprintf("/admin/studies/%d", e.study))
	if strings.Contains(a.body, `data-testid="export-package"`) {
		t.Errorf("a server without the package links it")
	}

	s, err := web.New(context.Background(), web.Config{DB: e.db, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), EntryLimit: -1,
		DataPackage: cli.PackageZip(studies.New(e.db, nil), e.db)})
	if err != nil {
		t.Fatal(err)
	}
	e.srv = httptest.NewServer(s)
	t.Cleanup(e.srv.Close)
	a = e.browser()
	a.post("/admin/login", url.Values{"username": {"root"}, "password": {"correct horse battery"}})
	a.get(fmt.Sprintf("/admin/studies/%d", e.study))
	a.must("export-package")
	a.get(fmt.Sprintf("/admin/studies/%d/export/package.zip", e.study))
	if a.resp.StatusCode != 200 || a.resp.Header.Get("Content-Type") != "application/zip" {
		t.Fatalf("package.zip: %d %s\n%s", a.resp.StatusCode, a.resp.Header.Get("Content-Type"), a.body)
	}
	zr, err := zip.NewReader(strings.NewReader(a.body), int64(len(a.body)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		if bytes.Contains(b, []byte(pidN(7))) {
			t.Errorf("%s holds the participant's Prolific id", f.Name)
		}
		if f.Name == fmt.Sprintf("study-%d-package/ratings.csv", e.study) && !bytes.Contains(b, []byte("\np001,")) {
			t.Errorf("ratings.csv without the pseudonym p001:\n%.300s", b)
		}
	}
	got := strings.Join(names, " ")
	for _, want := range []string{"datapackage.json", "ratings.csv", "participants.csv", "items.csv", "design.json", "codebook.md", "methods.md", "r/analysis.R"} {
		if !strings.Contains(got, fmt.Sprintf("study-%d-package/%s", e.study, want)) {
			t.Errorf("the zip lacks %s: %s", want, got)
		}
	}
}
