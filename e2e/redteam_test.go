package e2e

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"pragmalab/analysis/integrity"
	"pragmalab/comparisons"
	"pragmalab/domain"
	"pragmalab/itemfiles"
	"pragmalab/runner"
	"pragmalab/scoring"
	"pragmalab/store"
	"pragmalab/studies"
	"pragmalab/web"
)

// The red-team suite (docs/testing.md#red-team-suite):
// agents that behave like people, human-like controls and forgers over
// HTTP take a crowd study with every defence turned on, and the integrity
// flags the researcher sees (the participants export, LLM-echo run as
// on the study page) are tallied per kind.
//
//	go test -v -run RedTeam ./e2e/

// redTeam is how many of each kind take part. Each takes one batch.
var redTeam = []struct {
	kind string
	n    int
}{
	{kindCopier, 7},
	{kindUnrun, 3},
	{kindNaive, 4},
	{kindForger, 2},
	{kindMouse, 2},
	{kindKeyboard, 2},
	{kindDictation, 2},
	{kindPaste, 1},
	{kindSlow, 1},
}

// rtConcurrent actors take the study at the same time.
const rtConcurrent = 5

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// The kinds and the group each belongs to.
const (
	kindCopier    = "stealth copier (study's model)"
	kindUnrun     = "stealth agent (unrun model)"
	kindNaive     = "naive obeyer"
	kindForger    = "HTTP forger"
	kindMouse     = "control: mouse"
	kindKeyboard  = "control: keyboard only"
	kindDictation = "control: dictation"
	kindPaste     = "control: paste"
	kindSlow      = "control: slow reader"
)

func groupOf(kind string) string {
	switch kind {
	case kindCopier, kindUnrun:
		return "stealth"
	case kindNaive:
		return "naive"
	case kindForger:
		return "forger"
	}
	return "control"
}

// redTeamDefencesLanded gates the detection targets (stealth agents ≥ 90 %
// flagged, forgers flagged): the defences that should reach them are
// still to land (server-held evidence, traps that do not announce
// themselves, LLM-echo against a trusted reference, typed text). Until
// then the suite measures and prints, and asserts only what holds today:
// the controls' false flags and the naive agents.
const redTeamDefencesLanded = false

// rtSettings is the study the red team meets: the demo crowd study with
// the post-study questionnaire and the hidden instruction on.
func rtSettings() domain.CrowdSettings {
	set := domain.DefaultCrowdSettings()
	set.BatchSize, set.CompletionCode = 12, "REDTEAM1"
	set.Quota = 12
	set.PlacesPerAddress = 0 // every participant comes from 127.0.0.1
	set.MachineCheck = true
	set.Questionnaire = domain.QuestionnaireSettings{Languages: true, Age: true, Gender: true, Comments: true}
	return set
}

// rtEnv is the study under attack and what everyone knows of it.
type rtEnv struct {
	ts      *httptest.Server
	db      *store.DB
	studyID int64
	set     domain.CrowdSettings
	items   []rtItem
	// studyModel is the study's likert job's answers, by item and
	// condition: what the copiers copy.
	studyModel map[[2]string]int
	// reference is a trusted reference: honest raters (the generator the
	// controls use) rating every item × condition twice, each rater an
	// item in one condition only. referenceFile holds it as a ratings
	// file (docs/formats.md#ratings-file), for a check that takes one.
	reference     []integrity.EchoRating
	referenceFile string
}

func startRedTeamStudy(t *testing.T) *rtEnv {
	t.Helper()
	ctx := context.Background()
	db := openStore(t)
	s := &domain.Study{Kind: domain.KindCrowd, Name: "Red team", Lang: "en", Seed: 44}
	if err := db.CreateStudy(ctx, s); err != nil {
		t.Fatal(err)
	}
	var items []domain.Item
	for _, f := range []string{"../cli/demo/items.jsonl", "../cli/demo/crowd_checks.jsonl"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		its, err := itemfiles.ParseItemsJSONL(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, its...)
	}
	if err := db.ImportItems(ctx, s.ID, items); err != nil {
		t.Fatal(err)
	}
	set := rtSettings()
	if err := db.SaveCrowdSettings(ctx, s.ID, set); err != nil {
		t.Fatal(err)
	}
	if _, err := studies.BuildCrowdBatches(ctx, db, s.ID, set, s.Seed); err != nil {
		t.Fatal(err)
	}
	if err := studies.OpenStudy(ctx, db, s.ID, ""); err != nil {
		t.Fatal(err)
	}
	env := &rtEnv{db: db, studyID: s.ID, set: set}
	for _, it := range items {
		env.items = append(env.items, rtItem{key: it.Key, typ: it.Type, utterance: it.Utterance, cancellation: it.Cancellation, check: it.Check})
	}
	env.studyModel = runStudyModel(t, db, s.ID, env.items)
	env.reference = honestReference(env.items, 4)
	env.referenceFile = writeRatingsFile(t, "reference.csv", env.items, env.reference)
	env.ts, _ = serve(t, db, web.Config{})
	return env
}

// runStudyModel runs the study's likert job against a fake model that
// answers every item × condition with modelPoint("study-model"), and
// returns the answers the job stored, which LLM-echo compares with.
func runStudyModel(t *testing.T, db *store.DB, studyID int64, items []rtItem) map[[2]string]int {
	t.Helper()
	ctx := context.Background()
	s, err := db.Study(ctx, studyID)
	if err != nil {
		t.Fatal(err)
	}
	scale, err := runner.CrowdScale(s)
	if err != nil {
		t.Fatal(err)
	}
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
			Prompt string `json:"prompt"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		prompt := req.Prompt
		if len(req.Messages) > 0 {
			prompt = req.Messages[len(req.Messages)-1].Content
		}
		it, cond, ok := recognise(items, prompt)
		if !ok {
			http.Error(w, `{"error":{"message":"no item in the prompt"}}`, http.StatusBadRequest)
			return
		}
		k := scale.Points
		n := modelPoint("study-model", it, cond)
		if lo, hi := scale.Labels[0], scale.Labels[k-1]; lo != hi && strings.Contains(prompt, "1 = "+hi) {
			n = k + 1 - n // the reversed order lists the top point first
		}
		var top []any
		for i := 1; i <= k; i++ {
			p := 0.15 / float64(k-1)
			if i == n {
				p = 0.85
			}
			top = append(top, map[string]any{"token": " " + strconv.Itoa(i), "logprob": math.Log(p)})
		}
		first := " " + strconv.Itoa(n)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"object": "chat.completion", "model": req.Model, "choices": []any{map[string]any{
			"index": 0, "message": map[string]any{"role": "assistant", "content": first},
			"logprobs": map[string]any{"content": []any{map[string]any{"token": first, "logprob": math.Log(0.85), "top_logprobs": top}}},
		}}})
	}))
	t.Cleanup(model.Close)
	spec := runner.Spec{StudyID: studyID, Task: scoring.Likert, Scorer: runner.ModelScorer}
	spec.Config.BaseURLs, spec.Config.Model = []string{model.URL + "/v1"}, "study-model"
	noKey := func(string) string { return "" }
	job, err := runner.Create(ctx, db, spec, noKey)
	if err != nil {
		t.Fatal(err)
	}
	if err := runner.New(db, nil, noKey, nil).RunJob(ctx, job.ID, nil); err != nil {
		t.Fatal(err)
	}
	res, err := runner.LoadResults(ctx, db, job.ID)
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]rtItem{}
	for _, it := range items {
		byKey[it.key] = it
	}
	out := map[[2]string]int{}
	for _, h := range res.Human {
		if want := modelPoint("study-model", byKey[h.Item], h.Condition); h.Number != want {
			t.Fatalf("the study's model job answered %s/%s with %d, the fake model with %d", h.Item, h.Condition, h.Number, want)
		}
		out[[2]string{h.Item, h.Condition}] = h.Number
	}
	if len(out) < 20 {
		t.Fatalf("the study's model job answered %d item × condition pairs", len(out))
	}
	return out
}

// rtActor is one participant of the red team.
type rtActor struct {
	kind string
	pid  string
	seed uint64
	rate func(it rtItem, cond string) int
}

func (e *rtEnv) actors() []*rtActor {
	var out []*rtActor
	for k, row := range redTeam {
		for i := range row.n {
			a := &rtActor{kind: row.kind, pid: fmt.Sprintf("%02x%022x", 0xa0+k, i+1), seed: uint64(1000*k + i + 1)}
			rng := newHonestRater(a.seed).rng
			switch row.kind {
			case kindCopier, kindNaive, kindForger:
				a.rate = (&copier{rng: rng, model: func(it rtItem, cond string) int {
					if p, ok := e.studyModel[[2]string{it.key, cond}]; ok {
						return p
					}
					return modelPoint("study-model", it, cond) // an attention check: the model's obvious answer
				}}).rate
			case kindUnrun:
				a.rate = (&copier{rng: rng, model: func(it rtItem, cond string) int { return modelPoint("unrun-model", it, cond) }}).rate
			default:
				a.rate = newHonestRater(a.seed).rate
			}
			out = append(out, a)
		}
	}
	return out
}

// TestRedTeam runs every actor through a full batch and prints the
// confusion table: kind × flagged, with the flags.
func TestRedTeam(t *testing.T) {
	env := startRedTeamStudy(t)
	bctx := newBrowserWith(t, chromedp.Flag("enable-automation", false), chromedp.Flag("disable-blink-features", "AutomationControlled"))
	actors := env.actors()
	// The actors take the study side by side, rtConcurrent at a time
	// (their pauses, not the machine, take most of their time).
	t.Run("actors", func(t *testing.T) {
		var wg sync.WaitGroup
		slots := make(chan struct{}, rtConcurrent)
		// The slow reader first: it takes longest.
		order := slices.Clone(actors)
		slices.SortStableFunc(order, func(a, b *rtActor) int { return cmpBool(b.kind == kindSlow, a.kind == kindSlow) })
		for _, a := range order {
			wg.Go(func() {
				slots <- struct{}{}
				defer func() { <-slots }()
				t.Run(strings.ReplaceAll(a.kind, " ", "_")+"/"+a.pid, func(t *testing.T) {
					if a.kind == kindForger {
						env.forge(t, a)
						return
					}
					env.walk(t, bctx, a)
				})
			})
		}
		wg.Wait()
	})
	if t.Failed() {
		t.FailNow()
	}

	env.checkHarness(t, actors)
	flags := env.researcherFlags(t)
	vsRef := env.echoAgainstReference(t)
	type tally struct {
		n, flagged, vsRef int
		flags             map[string]int
	}
	byKind := map[string]*tally{}
	byGroup := map[string]*tally{}
	for _, a := range actors {
		got, ok := flags[a.pid]
		if !ok {
			t.Fatalf("%s %s did not complete the study", a.kind, a.pid)
		}
		for key, m := range map[string]map[string]*tally{a.kind: byKind, groupOf(a.kind): byGroup} {
			if m[key] == nil {
				m[key] = &tally{flags: map[string]int{}}
			}
			m[key].n++
			if vsRef[a.pid] {
				m[key].vsRef++
			}
			if len(got) > 0 {
				m[key].flagged++
			}
			for _, f := range got {
				m[key].flags[f]++
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "red team against %s:\n", "the defences present (see docs/testing.md#red-team-suite)")
	fmt.Fprintf(&b, "  %-32s %3s %8s %8s  %s\n", "kind", "n", "flagged", "vs ref*", "flags (participants)")
	line := func(name string, tl *tally) {
		var fs []string
		for f, c := range tl.flags {
			fs = append(fs, fmt.Sprintf("%s %d", f, c))
		}
		sort.Strings(fs)
		fmt.Fprintf(&b, "  %-32s %3d %8d %8d  %s\n", name, tl.n, tl.flagged, tl.vsRef, strings.Join(fs, ", "))
	}
	for _, row := range redTeam {
		line(row.kind, byKind[row.kind])
	}
	for _, g := range []string{"stealth", "naive", "forger", "control"} {
		line("all "+g, byGroup[g])
	}
	b.WriteString("  * vs ref: today's LLM-echo rule with the study's model, the trusted reference as the only other humans\n")
	b.WriteString("    (a preview the test computes of a check against a trusted reference; the researcher does not see it)\n")
	t.Log(b.String())

	// What holds today and must go on holding: no more than one of the
	// eight human-like controls flagged, every naive agent flagged.
	if c := byGroup["control"]; c.flagged > 1 {
		t.Errorf("%d of %d human-like controls flagged (%v); at most 1 may be", c.flagged, c.n, c.flags)
	}
	if nv := byGroup["naive"]; nv.flagged != nv.n {
		t.Errorf("%d of %d naive agents flagged; every one must be", nv.flagged, nv.n)
	}
	t.Run("detection targets", func(t *testing.T) {
		if !redTeamDefencesLanded {
			t.Skip("detection targets not asserted yet: the defences they need (server-held evidence, traps drawn per participant, LLM-echo against a trusted reference, typed text) have not landed; set redTeamDefencesLanded when they have (docs/testing.md#red-team-suite)")
		}
		if s := byGroup["stealth"]; float64(s.flagged) < 0.9*float64(s.n) {
			t.Errorf("%d of %d stealth agents flagged; the target is at least 90 %%", s.flagged, s.n)
		}
		if f := byGroup["forger"]; f.flagged != f.n {
			t.Errorf("%d of %d HTTP forgers flagged; a reported time the server's clock contradicts must be", f.flagged, f.n)
		}
	})
}

// researcherFlags are the integrity flags of the completed participants
// as the researcher downloads them: the participants export with the
// LLM-echo check run against the study's likert jobs, as the study page
// and the export do.
func (e *rtEnv) researcherFlags(t *testing.T) map[string][]string {
	t.Helper()
	ctx := context.Background()
	var buf bytes.Buffer
	echo := func(ctx context.Context, studyID int64, set domain.CrowdSettings, reps []store.CrowdParticipantReport) (string, error) {
		return comparisons.AssessLLMEcho(ctx, e.db, studyID, set, reps)
	}
	if err := studies.ExportCrowdParticipants(ctx, e.db, e.studyID, &buf, echo); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("participants export: %d rows, %v", len(rows), err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	out := map[string][]string{}
	for _, r := range rows[1:] {
		if r[col["status"]] != "completed" {
			continue
		}
		var fs []string
		if v := r[col["integrity_flags"]]; v != "" {
			fs = strings.Split(v, ";")
		}
		out[r[col["prolific_pid"]]] = fs
	}
	return out
}

// honestReference is n honest raters' ratings of every item × condition
// of the study (attention checks left out): rater i rates the items in
// alternating conditions, shifted by i, so that each item × condition is
// rated n/2 times and no rater sees an item twice.
func honestReference(items []rtItem, n int) []integrity.EchoRating {
	var out []integrity.EchoRating
	conds := []string{domain.ConditionTrigger, domain.ConditionCancel}
	for i := range n {
		h := newHonestRater(uint64(9000 + i))
		for k, it := range items {
			if it.check != "" {
				continue
			}
			cond := conds[(k+i)%2]
			out = append(out, integrity.EchoRating{Participant: fmt.Sprintf("reference-%d", i+1), Item: it.key, Condition: cond, Rating: h.rate(it, cond)})
		}
	}
	return out
}

// writeRatingsFile writes ratings as a ratings file in the test's
// temporary folder and returns its path.
func writeRatingsFile(t *testing.T, name string, items []rtItem, ratings []integrity.EchoRating) string {
	t.Helper()
	typ := map[string]string{}
	for _, it := range items {
		typ[it.key] = it.typ
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write([]string{"participant_id", "batch_id", "item_id", "item_type", "condition", "rating", "check"})
	for _, r := range ratings {
		w.Write([]string{r.Participant, "reference", r.Item, typ[r.Item], r.Condition, strconv.Itoa(r.Rating), ""})
	}
	w.Flush()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// echoAgainstReference is which completed participants today's LLM-echo
// rule flags against the study's model when the humans each is compared
// with are the trusted reference only (not the pool).
func (e *rtEnv) echoAgainstReference(t *testing.T) map[string]bool {
	t.Helper()
	rows, err := e.db.RatingRows(context.Background(), e.studyID, false)
	if err != nil {
		t.Fatal(err)
	}
	own := map[string][]integrity.EchoRating{}
	for _, r := range rows {
		if r.Check == "" {
			own[r.PID] = append(own[r.PID], integrity.EchoRating{Participant: r.PID, Item: r.Item, Condition: r.Condition, Rating: r.Rating})
		}
	}
	var answers []integrity.ModelAnswer
	for k, p := range e.studyModel {
		answers = append(answers, integrity.ModelAnswer{Model: "study-model", Item: k[0], Condition: k[1], Rating: p})
	}
	opt := integrity.DefaultEchoOptions()
	opt.Points = e.set.ScalePoints
	out := map[string]bool{}
	for pid, rs := range own {
		for _, res := range integrity.LLMEcho(append(rs, e.reference...), answers, opt) {
			if res.Participant == pid {
				out[pid] = res.Flagged
			}
		}
	}
	return out
}

// checkHarness checks that the actors did what the suite says they do,
// from what the server stored: every browser actor's answers came with
// trusted input, a real pointer or key, webdriver false; the stealth
// agents and the controls never filled the hidden field, the naive
// agents filled it and obeyed every hidden instruction; the paste was a paste; the
// forgers' reported times are contradicted by the server's clock.
func (e *rtEnv) checkHarness(t *testing.T, actors []*rtActor) {
	t.Helper()
	ctx := context.Background()
	for _, a := range actors {
		p := crowdParticipant(t, e.db, e.studyID, a.pid)
		var screens, trusted, honeypot, obeyed, asked int
		if err := e.db.Reader().QueryRowContext(ctx, `SELECT COUNT(*),
			COALESCE(SUM(untrusted_events = 0 AND webdriver = 0 AND pointer_or_key = 1), 0),
			COALESCE(SUM(honeypot <> ''), 0), COALESCE(SUM(machine_instruction = 1), 0), COUNT(machine_instruction)
			FROM crowd_ratings WHERE participant_id = ?`, p.ID).Scan(&screens, &trusted, &honeypot, &obeyed, &asked); err != nil {
			t.Fatal(err)
		}
		if screens != p.Screens || asked == 0 {
			t.Errorf("%s %s: %d answers of %d screens, %d hidden instructions", a.kind, a.pid, screens, p.Screens, asked)
		}
		if a.kind != kindForger && trusted != screens {
			t.Errorf("%s %s: %d of %d answers measured as trusted input with webdriver false", a.kind, a.pid, trusted, screens)
		}
		switch groupOf(a.kind) {
		case "naive":
			if honeypot == 0 || obeyed != asked {
				t.Errorf("naive %s: hidden field filled on %d answers, %d of %d instructions obeyed", a.pid, honeypot, obeyed, asked)
			}
		default:
			// Obeying by chance is what the flag's false alarms are made
			// of: counted in the table, not a fault of the actor.
			if honeypot != 0 {
				t.Errorf("%s %s: hidden field filled on %d answers", a.kind, a.pid, honeypot)
			}
		}
		var pastes, typed, inserted sql.NullInt64
		if err := e.db.Reader().QueryRowContext(ctx, `SELECT pastes, typed_chars, inserted_chars FROM crowd_questionnaires WHERE participant_id = ?`, p.ID).Scan(&pastes, &typed, &inserted); err != nil {
			t.Fatalf("%s %s: questionnaire: %v", a.kind, a.pid, err)
		}
		switch a.kind {
		case kindPaste:
			if pastes.Int64 != 1 || inserted.Int64 == 0 {
				t.Errorf("paste control: %d pastes, %d characters inserted; the paste did not reach the page as one", pastes.Int64, inserted.Int64)
			}
		case kindForger:
			if pastes.Valid && pastes.Int64 != 0 {
				t.Errorf("forger: %d pastes", pastes.Int64)
			}
			rs, err := e.db.CrowdRatings(ctx, p.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rs {
				if server := r.AnsweredAt.Sub(r.ShownAt).Milliseconds(); r.RTms < 4000 || int(server) >= r.RTms {
					t.Errorf("forger %s screen %d: reported %d ms, the server's clock %d ms", a.pid, r.Position, r.RTms, server)
				}
			}
		default:
			if typed.Int64+inserted.Int64 == 0 {
				t.Errorf("%s %s: the questionnaire recorded no text entered", a.kind, a.pid)
			}
		}
	}
}
