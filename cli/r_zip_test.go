package cli

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pragmalab/domain"
	"pragmalab/store"
	"pragmalab/studies"
)

// The Analysis page's R companion zip of a crowd study holds analysis.R
// and its data; unzipped, the script runs and agrees with pragmalab's
// toplines and the crowd's α to 1e-9 (docs/statistics.md#reproducing-in-r). A study
// with nothing to analyse is refused, saying so.
func TestRCompanionZipOfACrowdStudy(t *testing.T) {
	path, study := crowdScoreDB(t)
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	s, err := db.Study(ctx, study)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := RCompanionZip(studies.New(db, nil))(ctx, s, &buf); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f.Name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f.Name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := strings.Join(names, " ")
	for _, want := range []string{"analysis.R", "ratings.csv", "participants.csv", "settings.csv", "toplines_pragmalab.csv", "reliability_pragmalab.csv", "split_half_pragmalab.csv"} {
		if !strings.Contains(got, "/"+want) {
			t.Errorf("the zip lacks %s: %s", want, got)
		}
	}
	empty := &domain.Study{Kind: domain.KindCrowd, Name: "empty", Lang: "en"}
	if err := db.CreateStudy(ctx, empty); err != nil {
		t.Fatal(err)
	}
	if err := RCompanionZip(studies.New(db, nil))(ctx, empty, io.Discard); domain.ErrorCode(err) != domain.EINVALID || !strings.Contains(domain.ErrorMessage(err), "nothing to analyse yet") {
		t.Errorf("an empty study: %v", err)
	}
	needR(t, false)
	printed := runR(t, filepath.Dir(filepath.Join(dir, zr.File[0].Name)))
	if strings.Count(printed, "0 differ by more than 1e-9") < 2 || strings.Contains(printed, "NOT within") || strings.Contains(printed, "another status here") {
		t.Errorf("the unzipped script disagrees with pragmalab:\n%s", printed)
	}
}
