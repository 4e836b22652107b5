package studies

import (
	"bytes"
	"context"
	"pragmalab/domain"
	"pragmalab/itemfiles"
	"strings"
	"testing"
)

func TestSynthesizePassagesTSV(t *testing.T) {
	data, err := itemfiles.SynthesizePassagesTSV(readSample(t), 300)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := itemfiles.ParsePassagesTSV(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 300 || ps[299].Key != "300" {
		t.Fatalf("%d passages, last %q", len(ps), ps[len(ps)-1].Key)
	}
	if !bytes.Contains(data, []byte("\r\nB. ")) || !bytes.Contains(data, []byte("\uFEFFRingrazio")) || !bytes.Contains(data, []byte("per l\x92")) {
		t.Error("the published file's quirks are missing")
	}
	for _, p := range ps {
		if strings.Contains(p.Text, "\uFEFF") || strings.Contains(p.Options[1], "\r") {
			t.Fatalf("passage %s kept a BOM or CR", p.Key)
		}
	}
}

// BenchmarkParsePassagesTSV parses (and splits into sentences) a file of
// the published size, 31,822 rows. Target: well under 10 s for the whole
// import; run: go test ./store -run '^$' -bench itemfiles.ParsePassagesTSV -benchmem
func BenchmarkParsePassagesTSV(b *testing.B) {
	data, err := itemfiles.SynthesizePassagesTSV(readSample(b), itemfiles.PublishedPassageRows)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		ps, err := itemfiles.ParsePassagesTSV(bytes.NewReader(data))
		if err != nil || len(ps) != itemfiles.PublishedPassageRows {
			b.Fatalf("%d passages, %v", len(ps), err)
		}
	}
}

// BenchmarkImportPassages is the whole import of a published-size file:
// parse, sentence splitting and the insert into a fresh database.
// Run: go test ./store -run '^$' -bench ImportPassages -benchtime 3x
func BenchmarkImportPassages(b *testing.B) {
	data, err := itemfiles.SynthesizePassagesTSV(readSample(b), itemfiles.PublishedPassageRows)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		b.StopTimer()
		db := mustOpenDB(b)
		s := &domain.Study{Kind: domain.KindContext, Name: "bench", Lang: "it"}
		if err := db.CreateStudy(context.Background(), s); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		ps, err := itemfiles.ParsePassagesTSV(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		if err := db.ImportPassages(context.Background(), s.ID, ps); err != nil {
			b.Fatal(err)
		}
	}
}
