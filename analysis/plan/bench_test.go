package plan

import (
	"bytes"
	"os"
	"path/filepath"
	"pragmalab/analysis/agreement"
	"pragmalab/analysis/toplines"
	"testing"
)

// BenchmarkToplines1M reads and analyses a 1,000,000-row ratings file from
// 10,000 participants (the target of docs/cli.md#bench: under 2 s and
// 500 MB), reading the file from disk included.
func BenchmarkToplines1M(b *testing.B) {
	path := filepath.Join(b.TempDir(), "ratings.csv")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := WriteSyntheticRatings(f, 1_000_000, 10_000, 1); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		rs, err := toplines.ReadRatings(f)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		if t := toplines.ComputeToplines(rs, toplines.DefaultOptions()); t.Participants.Total != 10_000 {
			b.Fatalf("participants = %d", t.Participants.Total)
		}
	}
}

// BenchmarkReadRatings100k isolates the CSV reader on an in-memory file.
func BenchmarkReadRatings100k(b *testing.B) {
	var buf bytes.Buffer
	if err := WriteSyntheticRatings(&buf, 100_000, 1_000, 1); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := toplines.ReadRatings(bytes.NewReader(buf.Bytes())); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAnnotatorModels100k fits Dawid–Skene and MACE to 100,000
// judgements by 50 annotators (the target of `bench quality`: under 2 s).
func BenchmarkAnnotatorModels100k(b *testing.B) {
	js := SyntheticJudgements(100_000, 50, 10, 1)
	b.ReportAllocs()
	for b.Loop() {
		if m := agreement.AnnotatorModelsOf(js)["plausibility"]; m == nil || m.Judgements != 100_000 {
			b.Fatal("no model over the 100,000 judgements")
		}
	}
}
