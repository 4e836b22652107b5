package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pragmalab/domain"
	"pragmalab/scoring"
	"pragmalab/scoring/scoringtest"
	"pragmalab/store"
)

// humanCase is one of the four tasks that ask the participants' own
// questions, on a study of the matching kind.
type humanCase struct {
	task    scoring.Task
	kind    string
	lang    string
	prompts int
	// want are texts the first prompt must hold: the participants'
	// question in the study's language and the answer instruction.
	want []string
}

var humanCases = []humanCase{
	{scoring.Likert, domain.KindCrowd, "it", 3 * 2 * 2, []string{"Dato ciò che è stato detto, quanto è probabile che quanto segue sia vero?",
		"1 = assolutamente impossibile", "7 = assolutamente certo", "Rispondi solo con un numero da 1 a 7.", "Che cosa è stato detto:"}},
	{scoring.Expert, domain.KindExpert, "en", 3 * 2 * 2, []string{"Is the implicature plausible?", "A) Yes", "B) No",
		"Candidate cancellation:", "An implicature is a belief b", "Answer with the letter A or B only."}},
	{scoring.ContextTask, domain.KindContext, "it", 2 * 3 * 2, []string{"Il contesto mostrato basta per ricavare il contenuto implicito?",
		"A) Il contesto è sufficiente per ricavare il contenuto implicito", "B) Serve più contesto", "Contenuto implicito:", "Rispondi solo con la lettera A o B."}},
	{scoring.ExplanationRating, domain.KindExplain, "it", 3 * 2, []string{"Quanto è corretto l'Output?", "1 = Totalmente corretta", "Annotazione umana:",
		"5 = Risposta non data", "Rispondi solo con un numero da 1 a 5."}},
}

// humanStudyFixture makes a study of c's kind with its data: 3 implicature
// items (crowd, expert), 2 passages of 3 sentences (context), or 2
// passages with 3 outputs to rate (explain).
func humanStudyFixture(t *testing.T, db *store.DB, c humanCase) int64 {
	t.Helper()
	ctx := context.Background()
	s := &domain.Study{Kind: c.kind, Name: string(c.task), Lang: c.lang}
	if err := db.CreateStudy(ctx, s); err != nil {
		t.Fatal(err)
	}
	switch c.kind {
	case domain.KindCrowd, domain.KindExpert:
		if err := db.ImportItems(ctx, s.ID, SyntheticItems(3)); err != nil {
			t.Fatal(err)
		}
		return s.ID
	}
	var ps []domain.Passage
	for i := range 2 {
		sents := []string{fmt.Sprintf("Prima frase %d.", i), fmt.Sprintf("Seconda frase %d.", i), fmt.Sprintf("Frase bersaglio %d.", i)}
		ps = append(ps, domain.Passage{Key: fmt.Sprintf("P%d", i), Kind: domain.PassageImpl, Tag: "Impl_x", Text: strings.Join(sents, " "),
			Sentences: sents, Explanation: fmt.Sprintf("Il contenuto implicito %d.", i), Topic: -1})
	}
	if err := db.ImportPassages(ctx, s.ID, ps); err != nil {
		t.Fatal(err)
	}
	if c.kind == domain.KindExplain {
		outs := []domain.Output{{ItemKey: "P0", Strategy: "zero-shot", Model: "m1", Output: "Una spiegazione."},
			{ItemKey: "P0", Strategy: "zero-shot", Model: "m2", Output: ""},
			{ItemKey: "P1", Strategy: "few-shot", Model: "m1", Output: "Un'altra spiegazione."}}
		if err := db.ImportOutputs(ctx, s.ID, outs); err != nil {
			t.Fatal(err)
		}
	}
	return s.ID
}

func humanSpec(study int64, c humanCase, url string, mode scoring.Mode) Spec {
	return Spec{StudyID: study, Task: c.task, Scorer: ModelScorer,
		Config: scoring.Config{BaseURLs: []string{url}, Model: "fake-7b", Concurrency: 2, Mode: mode, Samples: 4}}
}

// fakeDist is the distribution over the canonical options the fake server
// gives a prompt, as the client must read it: for a numbered prompt the
// fake's weights, listed in the prompt's order; for a lettered one P(A) =
// scoringtest.PTrue, A standing for the first option forward and for the
// second reversed.
func fakeDist(c humanCase, text string, o scoring.Order, k int) []float64 {
	d := make([]float64, k)
	if c.task == scoring.Likert || c.task == scoring.ExplanationRating {
		shown := scoringtest.PointDist(text, k)
		for p, v := range shown {
			i := p
			if o == scoring.Reversed {
				i = k - 1 - p
			}
			d[i] = v
		}
		return d
	}
	pa := scoringtest.PTrue(text)
	if o == scoring.Reversed {
		return []float64{1 - pa, pa}
	}
	return []float64{pa, 1 - pa}
}

// fakeSampleShares are the shares of the canonical options among the n
// replies the fake gives a prompt: the i-th reply is the shown option
// where the cumulative distribution passes (i+0.5)/n (for a lettered
// prompt, A while i+0.5 < P(A)·n, else B).
func fakeSampleShares(c humanCase, text string, o scoring.Order, k, n int) []float64 {
	shown := []float64{scoringtest.PTrue(text), 1 - scoringtest.PTrue(text)}
	if c.task == scoring.Likert || c.task == scoring.ExplanationRating {
		shown = scoringtest.PointDist(text, k)
	}
	out := make([]float64, k)
	for i := range n {
		u, acc, pick := (float64(i)+0.5)/float64(n), 0.0, k
		for j, p := range shown {
			acc += p
			if u < acc {
				pick = j + 1
				break
			}
		}
		if o == scoring.Reversed {
			pick = k + 1 - pick
		}
		out[pick-1] += 1 / float64(n)
	}
	return out
}

func close6(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

// Each human task: the prompts are the participants' screen in the
// study's language; a live run in log-probability mode stores per prompt
// the distribution the fake gave, renormalised over the options, in the
// answer and in the distribution column; the results combine both orders
// and measure the order bias from them.
func TestHumanTasksPromptsParseStoreAndOrderBias(t *testing.T) {
	for _, c := range humanCases {
		t.Run(string(c.task), func(t *testing.T) {
			ctx := context.Background()
			db := openDB(t)
			study := humanStudyFixture(t, db, c)
			srv := scoringtest.NewServer(0)
			defer srv.Close()
			job, err := Create(ctx, db, humanSpec(study, c, srv.URL, scoring.Logprobs), noEnv)
			if err != nil {
				t.Fatal(err)
			}
			rows, err := db.JobPrompts(ctx, job.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != c.prompts {
				t.Fatalf("%d prompts, want %d", len(rows), c.prompts)
			}
			for _, w := range c.want {
				if !strings.Contains(rows[0].Text, w) {
					t.Errorf("the first prompt lacks %q:\n%s", w, rows[0].Text)
				}
			}
			if err := New(db, nil, noEnv, nil).RunJob(ctx, job.ID, nil); err != nil {
				t.Fatal(err)
			}
			if j, _ := db.Job(ctx, job.ID); j.Status != domain.JobDone {
				t.Fatalf("status %s: %s", j.Status, j.Error)
			}
			res, err := LoadResults(ctx, db, job.ID)
			if err != nil {
				t.Fatal(err)
			}
			k := len(res.Options())
			dists, err := db.JobDistributions(ctx, job.ID)
			if err != nil {
				t.Fatal(err)
			}
			rows, _ = db.JobPrompts(ctx, job.ID)
			want := map[string][]float64{}
			for _, r := range rows {
				want[r.Key] = fakeDist(c, r.Text, scoring.Order(r.Order), k)
				var a scoring.Answer
				json.Unmarshal(r.Answer, &a)
				var col []float64
				if err := json.Unmarshal([]byte(dists[r.Key]), &col); err != nil {
					t.Fatalf("prompt %s: distribution column %q: %v", r.Key, dists[r.Key], err)
				}
				for i := range k {
					if !close6(a.Dist[i], want[r.Key][i]) || !close6(col[i], want[r.Key][i]) {
						t.Fatalf("prompt %s: stored %v (column %v), the fake gave %v", r.Key, a.Dist, col, want[r.Key])
					}
				}
			}
			if len(res.Human) != c.prompts/2 {
				t.Fatalf("%d questions with both orders, want %d", len(res.Human), c.prompts/2)
			}
			sum, n := 0.0, 0
			for _, h := range res.Human {
				f := want[scoring.HumanPromptKey(h.Item, h.Condition, scoring.Forward)]
				b := want[scoring.HumanPromptKey(h.Item, h.Condition, scoring.Reversed)]
				ef, eb := 0.0, 0.0
				for i := range k {
					if !close6(h.Dist[i], (f[i]+b[i])/2) {
						t.Fatalf("%s %s: combined %v, want the mean of %v and %v", h.Item, h.Condition, h.Dist, f, b)
					}
					ef += float64(i+1) * f[i]
					eb += float64(i+1) * b[i]
				}
				sum += math.Abs(ef-eb) / float64(k-1)
				n++
			}
			ob := res.HumanMetrics.OrderBias
			if ob.N != n || ob.Mean == nil || !close6(*ob.Mean, sum/float64(n)) {
				t.Errorf("order bias %+v, want mean %.6f over %d", ob, sum/float64(n), n)
			}
			if *ob.Mean == 0 {
				t.Errorf("the fake's answers depend on the order; a bias of 0 measures nothing")
			}
			var csv bytes.Buffer
			if err := res.WriteCSV(&csv); err != nil {
				t.Fatal(err)
			}
			head := strings.SplitN(csv.String(), "\n", 2)[0]
			if !strings.HasPrefix(head, "model,item_id,item_type,condition,label,number,mean,not_asked,p_1,") {
				t.Errorf("CSV header %q", head)
			}
			if got := strings.Count(csv.String(), "\nfake-7b,"); got < len(res.Human) {
				t.Errorf("CSV has %d rows for %d questions", got, len(res.Human))
			}
			if c.task == scoring.ContextTask {
				// The survey's rule over the steps: one "needed" row per passage.
				needed := res.ContextNeeded()
				if len(needed) != 2 || strings.Count(csv.String(), ",needed,") != 2 {
					t.Errorf("context: needed %v, CSV\n%s", needed, csv.String())
				}
				for _, h := range res.Human {
					n := needed[h.Item]
					step, _ := strconv.Atoi(strings.TrimPrefix(h.Condition, "step-"))
					if (n >= 0 && step < n || n < 0) && h.Label == "sufficient" || step == n && h.Label != "sufficient" {
						t.Errorf("passage %s needs %d sentences, but step %d reads %s", h.Item, n, step, h.Label)
					}
				}
			}
		})
	}
}

// Sampling mode: the distribution is the shares of the k sampled answers
// (--samples), read from the number or letter of each reply.
func TestHumanTasksFromSamples(t *testing.T) {
	for _, c := range humanCases {
		t.Run(string(c.task), func(t *testing.T) {
			ctx := context.Background()
			db := openDB(t)
			study := humanStudyFixture(t, db, c)
			srv := scoringtest.NewServer(0)
			defer srv.Close()
			job, err := Create(ctx, db, humanSpec(study, c, srv.URL, scoring.Sampling), noEnv)
			if err != nil {
				t.Fatal(err)
			}
			if err := New(db, nil, noEnv, nil).RunJob(ctx, job.ID, nil); err != nil {
				t.Fatal(err)
			}
			rows, _ := db.JobPrompts(ctx, job.ID)
			for _, r := range rows {
				var a scoring.Answer
				if err := json.Unmarshal(r.Answer, &a); err != nil || len(a.Samples) != 4 {
					t.Fatalf("prompt %s: %s (%v)", r.Key, r.Answer, err)
				}
				want := fakeSampleShares(c, r.Text, scoring.Order(r.Order), len(a.Dist), 4)
				for i := range want {
					if !close6(a.Dist[i], want[i]) {
						t.Fatalf("prompt %s: shares %v, the fake's 4 replies give %v", r.Key, a.Dist, want)
					}
				}
			}
		})
	}
}

// A stopped human-task job resumes where it stopped and asks no prompt
// twice.
func TestHumanTaskResumes(t *testing.T) {
	for _, c := range humanCases {
		t.Run(string(c.task), func(t *testing.T) {
			ctx := context.Background()
			db := openDB(t)
			study := humanStudyFixture(t, db, c)
			srv := scoringtest.NewServer(5 * time.Millisecond) // slow enough that the stop comes before the end
			defer srv.Close()
			spec := humanSpec(study, c, srv.URL, scoring.Logprobs)
			spec.Config.Concurrency = 1
			job, err := Create(ctx, db, spec, noEnv)
			if err != nil {
				t.Fatal(err)
			}
			r1 := New(db, nil, noEnv, nil)
			r1.FlushEvery = 1
			runCtx, stop := context.WithCancel(ctx)
			var once sync.Once
			r1.RunJob(runCtx, job.ID, func(p domain.JobProgress) {
				if p.Answered >= 2 {
					once.Do(stop)
				}
			})
			before := answered(t, db, job.ID)
			mid, _ := db.JobProgress(ctx, job.ID)
			if mid.Answered == 0 || mid.Answered == mid.Total {
				t.Fatalf("the first run should stop part-way: %d of %d answered", mid.Answered, mid.Total)
			}
			if err := New(db, nil, noEnv, nil).RunJob(ctx, job.ID, nil); err != nil {
				t.Fatal(err)
			}
			p, _ := db.JobProgress(ctx, job.ID)
			if p.Answered != c.prompts {
				t.Fatalf("%d of %d answered after the resume", p.Answered, c.prompts)
			}
			// A prompt answered before the stop is never asked again (one in
			// flight at the stop is, as docs/scoring.md#running-and-resuming says).
			asked, after := srv.Asked(), answered(t, db, job.ID)
			for text, a := range before {
				if asked[text] != 1 || after[text] != a {
					t.Fatalf("a prompt answered before the stop was asked %d times, answer %s then %s", asked[text], a, after[text])
				}
			}
		})
	}
}

// Offline export and import of a human-task job, and its Batch API run:
// the imported and the batch answers are those a live run stores; a file with bad lines is refused naming each
// line, and stores nothing.
func TestHumanTaskExportImportRoundTrip(t *testing.T) {
	for _, c := range humanCases {
		t.Run(string(c.task), func(t *testing.T) {
			f := batchFixtureOf(t, func(db *store.DB) int64 { return humanStudyFixture(t, db, c) })
			ctx, db, srv, study := f.ctx, f.db, f.srv, f.study
			spec := humanSpec(study, c, "", scoring.Logprobs)
			spec.Config.BaseURLs, spec.Config.Engine = nil, scoring.EngineOffline
			job := f.job(t, spec)
			var file bytes.Buffer
			n, err := ExportBatch(ctx, db, job.ID, &file)
			if err != nil || n != c.prompts {
				t.Fatalf("export: %d lines, %v", n, err)
			}
			out := fakeRunner(t, srv, file.Bytes())
			lines := strings.SplitAfter(strings.TrimSuffix(string(out), "\n"), "\n")
			bad := strings.Join(lines[:2], "") + "{oops\n" + strings.Join(lines[2:], "") + "\n" +
				`{"custom_id":"nope|trigger|fwd","response":{"status_code":200,"body":{}}}` + "\n"
			_, err = ImportBatch(ctx, db, job.ID, []byte(bad), noEnv)
			if err == nil || domain.ErrorCode(err) != domain.EINVALID || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), fmt.Sprintf("line %d", len(lines)+2)) {
				t.Fatalf("a file with a broken line 3 and a foreign custom_id on line %d: %v", len(lines)+2, err)
			}
			if p, _ := db.JobProgress(ctx, job.ID); p.Answered != 0 {
				t.Fatalf("a refused file stored %d answers", p.Answered)
			}
			rep, err := ImportBatch(ctx, db, job.ID, out, noEnv)
			if err != nil || rep.Answered != c.prompts {
				t.Fatalf("import %+v, %v", rep, err)
			}
			live := f.job(t, humanSpec(study, c, srv.URL, scoring.Logprobs))
			if err := New(db, nil, noEnv, nil).RunJob(ctx, live.ID, nil); err != nil {
				t.Fatal(err)
			}
			// The Batch API engine stores the same answers too.
			bspec := humanSpec(study, c, srv.URL, scoring.Logprobs)
			bspec.Config.Engine = scoring.EngineBatch
			bjob := f.job(t, bspec)
			f.run(t, bjob.ID)
			a, b, bb := answersByKey(t, db, job.ID), answersByKey(t, db, live.ID), answersByKey(t, db, bjob.ID)
			if len(a) != c.prompts || len(b) != c.prompts || len(bb) != c.prompts {
				t.Fatalf("imported %d, live %d, batch %d answers of %d", len(a), len(b), len(bb), c.prompts)
			}
			for k, v := range b {
				if a[k] != v || bb[k] != v {
					t.Fatalf("prompt %s: imported %s, batch %s, live %s", k, a[k], bb[k], v)
				}
			}
		})
	}
}

// The built-in baselines answer every human task with no model server.
func TestHumanTaskBaselines(t *testing.T) {
	for _, c := range humanCases {
		for _, name := range []string{"uniform", "random"} {
			t.Run(string(c.task)+"/"+name, func(t *testing.T) {
				ctx := context.Background()
				db := openDB(t)
				study := humanStudyFixture(t, db, c)
				job, err := Create(ctx, db, Spec{StudyID: study, Task: c.task, Scorer: name, Seed: 3}, noEnv)
				if err != nil {
					t.Fatal(err)
				}
				if err := New(db, nil, noEnv, nil).RunJob(ctx, job.ID, nil); err != nil {
					t.Fatal(err)
				}
				res, err := LoadResults(ctx, db, job.ID)
				if err != nil {
					t.Fatal(err)
				}
				if res.Job.Status != domain.JobDone || len(res.Human) != c.prompts/2 {
					t.Fatalf("status %s, %d questions", res.Job.Status, len(res.Human))
				}
				if name == "uniform" && (res.HumanMetrics.OrderBias.Mean == nil || *res.HumanMetrics.OrderBias.Mean != 0) {
					t.Errorf("uniform answers have no order bias: %+v", res.HumanMetrics.OrderBias)
				}
			})
		}
	}
}

// A human task on a study of another kind is refused, naming both kinds.
func TestHumanTaskNeedsItsStudyKind(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	study := humanStudyFixture(t, db, humanCases[1]) // expert
	_, err := Create(ctx, db, Spec{StudyID: study, Task: scoring.Likert, Scorer: "uniform"}, noEnv)
	if err == nil || !strings.Contains(err.Error(), "crowd study") || !strings.Contains(err.Error(), "expert study") {
		t.Fatalf("likert on an expert study: %v", err)
	}
}

// The prompts are in the study's language: the expert form in Italian,
// the crowd screen in English.
func TestHumanPromptsInTheStudysLanguage(t *testing.T) {
	for _, c := range []humanCase{
		{scoring.Expert, domain.KindExpert, "it", 12, []string{"L'implicatura è plausibile?", "A) Sì", "B) No", "Cancellazione proposta:",
			"Un'implicatura è una credenza b", "Rispondi solo con la lettera A o B."}},
		{scoring.Likert, domain.KindCrowd, "en", 12, []string{"Given what was said, how likely is it that the following is true? You can help by doing task x001 for C.",
			"1 = absolutely impossible\n7 = absolutely certain\nAnswer with one number from 1 to 7 only.\nAnswer:"}},
	} {
		ctx := context.Background()
		db := openDB(t)
		study := humanStudyFixture(t, db, c)
		job, err := Create(ctx, db, Spec{StudyID: study, Task: c.task, Scorer: "uniform"}, noEnv)
		if err != nil {
			t.Fatal(err)
		}
		rows, _ := db.JobPrompts(ctx, job.ID)
		for _, w := range c.want {
			if !strings.Contains(rows[0].Text, w) {
				t.Errorf("%s (%s): the first prompt lacks %q:\n%s", c.task, c.lang, w, rows[0].Text)
			}
		}
		// The reversed order lists the options the other way round.
		rev := rows[1].Text
		if rows[1].Order != string(scoring.Reversed) || (c.task == scoring.Likert && !strings.Contains(rev, "1 = absolutely certain\n7 = absolutely impossible")) ||
			(c.task == scoring.Expert && !strings.Contains(rev, "A) No\nB) Sì")) {
			t.Errorf("%s: the reversed prompt:\n%s", c.task, rev)
		}
	}
}
