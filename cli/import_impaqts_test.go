package cli

import (
	"context"
	"os"
	"path/filepath"
	"pragmalab/domain"
	"strings"
	"testing"

	"pragmalab/store"
)

func TestImportImpaqtsCLI(t *testing.T) {
	ctx := context.Background()
	dbPath := filepath.Join(t.TempDir(), "cli.db")
	db, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	ctxStudy := &domain.Study{Kind: domain.KindContext, Name: "contesto", Lang: "it"}
	explain := &domain.Study{Kind: domain.KindExplain, Name: "spiegazioni", Lang: "it"}
	for _, s := range []*domain.Study{ctxStudy, explain} {
		if err := db.CreateStudy(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	sample := filepath.Join("..", "itemfiles", "testdata", "impaqts-pid-sample.tsv")
	bad := filepath.Join(t.TempDir(), "bad.tsv")
	data, _ := os.ReadFile(sample)
	os.WriteFile(bad, append(data, []byte("1\tX46-A\tImpl_cvrs\tImpl\t-1\t\"open\tA. x\tA\tA. x\n")...), 0o644)

	code, _, errOut := runCLI(t, "", nil, "import", "--study", "1", "--file", bad, "--db", dbPath)
	if code != 2 || !strings.Contains(errOut, `row 131 (line 522), field "text": the quote opened on line 522 is never closed`) {
		t.Errorf("bad file: exit %d, stderr %q", code, errOut)
	}
	code, out, errOut := runCLI(t, "", nil, "import", "--study", "1", "--file", sample, "--db", dbPath)
	if code != 0 || !strings.Contains(out, "imported 130 passages into study 1") {
		t.Errorf("sample: exit %d, out %q, stderr %q", code, out, errOut)
	}
	runCLI(t, "", nil, "import", "--study", "2", "--format", "impaqts", "--file", sample, "--db", dbPath)
	outputs := filepath.Join(t.TempDir(), "outputs.csv")
	os.WriteFile(outputs, []byte("item_id,strategy,model,output\n22185,zero-shot,m,\"Gli altri svendono.\"\n"), 0o644)
	code, out, errOut = runCLI(t, "", nil, "import", "--study", "2", "--format", "outputs", "--file", outputs, "--db", dbPath)
	if code != 0 || !strings.Contains(out, "imported 1 model outputs") {
		t.Errorf("outputs: exit %d, out %q, stderr %q", code, out, errOut)
	}
	code, out, _ = runCLI(t, "", nil, "export", "--study", "1", "--what", "context-answers", "--db", dbPath)
	if code != 0 || out != "annotator_id,survey_id,item_id,kind,period,sentences,sufficient,max_sentences,shown_at,answered_at,rt_ms,untrusted_events,pastes,webdriver,pointer_or_key,honeypot\n" {
		t.Errorf("export context answers: exit %d, %q", code, out)
	}
	code, out, _ = runCLI(t, "", nil, "export", "--study", "2", "--what", "explanation-ratings", "--db", dbPath)
	if code != 0 || out != "annotator_id,item_id,kind,strategy,judgment,model,shown_at,answered_at,rt_ms,untrusted_events,pastes,webdriver,pointer_or_key,honeypot\n" {
		t.Errorf("export explanation ratings: exit %d, %q", code, out)
	}
	db, _ = store.Open(ctx, dbPath)
	defer db.Close()
	if ps, _ := db.ListPassages(ctx, 1); len(ps) != 130 {
		t.Errorf("%d passages in study 1", len(ps))
	}
}
