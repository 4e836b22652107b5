package studies

import (
	"bytes"
	"os"
	"testing"

	"pragmalab/domain"
	"pragmalab/itemfiles"
)

// The IMPAQTS-PID sample the item-file readers are tested on lives with
// them (itemfiles/testdata); the import tests here read the same file.
const samplePath = "../itemfiles/testdata/impaqts-pid-sample.tsv"

func mustReadFile(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func readSample(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(samplePath)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustParseSample(t testing.TB) []domain.Passage {
	t.Helper()
	ps, err := itemfiles.ParsePassagesTSV(bytes.NewReader(readSample(t)))
	if err != nil {
		t.Fatalf("ParsePassagesTSV(sample): %v", err)
	}
	return ps
}
