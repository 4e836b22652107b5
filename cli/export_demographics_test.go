package cli

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"pragmalab/prolific/prolifictest"
	"pragmalab/store"
)

// `export --what participants --prolific-demographics` shows the call
// without --yes, joins Prolific's columns with it, and writes nothing
// when Prolific fails.
func TestExportParticipantsWithDemographics(t *testing.T) {
	file, cs, fake, vars := prolificFixture(t)
	db, err := store.Open(context.Background(), file)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.LinkProlific(context.Background(), cs.ID, cliProlificStudy); err != nil {
		t.Fatal(err)
	}
	db.Close()
	fake.SetDemographics(prolifictest.PID(2), map[string]string{"Age": "41", "Sex": "Male"})
	id := strconv.FormatInt(cs.ID, 10)
	code, out, errOut := runCLI(t, "", vars, "export", "--db", file, "--study", id, "--what", "participants", "--prolific-demographics")
	if code != 0 || out != "" || !strings.Contains(errOut, "demographic-export") || fake.Calls("POST demographic-export") != 0 {
		t.Fatalf("without --yes: %d %q %q", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "", vars, "export", "--db", file, "--study", id, "--what", "participants", "--prolific-demographics", "--yes")
	if code != 0 || !strings.Contains(strings.SplitN(out, "\n", 2)[0], "prolific_age,prolific_sex") || !strings.Contains(out, "41,Male") {
		t.Fatalf("with --yes: %d %q %q", code, out, errOut)
	}
	fake.Fail("POST demographic-export", http.StatusInternalServerError, "boom")
	dest := filepath.Join(t.TempDir(), "p.csv")
	code, _, errOut = runCLI(t, "", vars, "export", "--db", file, "--study", id, "--what", "participants", "--prolific-demographics", "--yes", "--out", dest)
	if code == 0 || !strings.Contains(errOut, "nothing was exported") {
		t.Errorf("a 5xx: %d %q", code, errOut)
	}
	if _, err := os.Stat(dest); !os.IsNotExist(err) {
		t.Errorf("a file was written: %v", err)
	}
	if code, _, _ := runCLI(t, "", vars, "export", "--db", file, "--study", id, "--what", "ratings", "--prolific-demographics"); code == 0 {
		t.Error("--prolific-demographics with ratings was accepted")
	}
}
