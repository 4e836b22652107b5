package cli

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"pragmalab/studies"
	"pragmalab/web"
)

// A German acceptability study the project never saw, run from outside
// (docs/studies.md#judgement-study): its design and items files as a
// psycholinguist writes them, the command line to create, import, batch
// and open it, four participants over HTTP, and the exports and the
// analysis by condition read back.

const outsideDesign = `{
  "format": "pragmalab-study-design/1",
  "kind": "judgement",
  "name": "Wortstellung im Nebensatz",
  "lang": "de",
  "settings": {
    "conditions": ["kontrolle", "zielsatz"],
    "scale_points": 5,
    "scale_labels": {"1": "völlig unnatürlich", "5": "völlig natürlich"},
    "question": "Wie natürlich klingt dieser Satz?",
    "check_high_min": 4,
    "check_low_max": 2,
    "batch_size": 8,
    "quota": 2,
    "completion_code": "C0MPLETE",
    "places_per_address": 0
  }
}
`

// outsideItems is the items file: 8 minimal pairs (the verb at the end,
// or moved before its object), a check of each side and a practice item.
func outsideItems() string {
	var b strings.Builder
	b.WriteString("item,condition,sentence,context,check,training\n")
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&b, "%d,kontrolle,Ich glaube, dass Gast %d die Suppe gegessen hat.,Im Restaurant:,,\n", i, i)
		fmt.Fprintf(&b, "%d,zielsatz,Ich glaube, dass Gast %d hat gegessen die Suppe.,Im Restaurant:,,\n", i, i)
	}
	b.WriteString("hoch,kontrolle,Die Sonne scheint am Tag.,,high,\n")
	b.WriteString("tief,zielsatz,Tag am scheint Sonne die der.,,low,\n")
	b.WriteString("uebung,kontrolle,Das Kind spielt im Garten.,,,4-5\n")
	// The CSV needs its commas quoted: the sentences hold one.
	return regexp.MustCompile(`(?m)^([^,]+),([^,]+),(Ich glaube, [^,]+),`).ReplaceAllString(b.String(), `$1,$2,"$3",`)
}

var (
	outsideRadioRE    = regexp.MustCompile(`<input type="radio" name="[a-z0-9]+" value="(\d+)"`)
	outsideNameRE     = regexp.MustCompile(`<input type="radio" name="([a-z0-9]+)"`)
	outsidePositionRE = regexp.MustCompile(`name="position" value="(\d+)"`)
	outsideAttemptRE  = regexp.MustCompile(`name="attempt" value="(\d+)"`)
	outsidePairRE     = regexp.MustCompile(`dass Gast (\d) (die Suppe gegessen hat|hat gegessen die Suppe)\.`)
)

// participant is one HTTP participant's browser: it sends the forms as
// the pages name their fields (the rating's name is drawn per page).
type participant struct {
	t    *testing.T
	base string
	c    *http.Client
	body string
}

func (p *participant) do(method, path string, form url.Values) {
	p.t.Helper()
	var resp *http.Response
	var err error
	if method == "GET" {
		resp, err = p.c.Get(p.base + path)
	} else {
		resp, err = p.c.PostForm(p.base+path, form)
	}
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	p.body = string(b)
	if resp.StatusCode != 200 {
		p.t.Fatalf("%s %s: %d\n%s", method, path, resp.StatusCode, p.body)
	}
}

func (p *participant) has(testid string) bool {
	return strings.Contains(p.body, `data-testid="`+testid+`"`)
}

func (p *participant) field(re *regexp.Regexp) string {
	p.t.Helper()
	m := re.FindStringSubmatch(p.body)
	if m == nil {
		p.t.Fatalf("no %s on the page:\n%s", re, p.body)
	}
	return m[1]
}

// TestJudgementFromOutside is the judgement study checked from outside
// (docs/studies.md#judgement-study, docs/cli.md#study): the study is
// created, imported, batched and opened from the command line; four
// participants see radios 1–5 with both labels, each pair at most once
// and both conditions; the ratings export carries scale_points; analyze
// conditions --json gives each condition's mean the export's; a 6 in the
// file is refused with exit 2 naming its line.
func TestJudgementFromOutside(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "lab.db")
	env := map[string]string{"PRAGMALAB_DB": db}
	run := func(args ...string) string {
		t.Helper()
		code, out, errOut := runCLI(t, "", env, args...)
		if code != 0 {
			t.Fatalf("pragmalab %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
		return out
	}
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}

	out := run("study", "create", "--design", write("design.json", outsideDesign))
	m := regexp.MustCompile(`^Study (\d+) `).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("study create: %s", out)
	}
	id := m[1]
	if out := run("import", "--study", id, "--file", write("items.csv", outsideItems())); !strings.Contains(out, "imported 11 items") {
		t.Fatalf("import: %s", out)
	}
	if out := run("study", "batches", "--study", id); !strings.Contains(out, "Study "+id) {
		t.Fatalf("study batches: %s", out)
	}
	run("study", "open", "--study", id)
	// The design kept at opening is the design: the items by condition,
	// the scale and labels as the participants will see them.
	if opened, now := run("study", "design", "--study", id, "--at-opening"), run("study", "design", "--study", id); opened != now || !strings.Contains(opened, `"zielsatz": {`) {
		t.Errorf("design at opening:\n%s\nnow:\n%s", opened, now)
	}
	if out := run("links", "--study", id, "--base", "http://lab.example"); !strings.Contains(out, "http://lab.example/s/"+id+"?PROLIFIC_PID=") {
		t.Errorf("links: %s", out)
	}

	// Four participants over HTTP, on the server `pragmalab serve` builds.
	ctx := context.Background()
	a, newServer, err := openService(ctx, db, studies.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := newServer(ctx, web.Config{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), EntryLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	given := map[string][]int{} // condition → the data ratings given
	for n := range 4 {
		jar, _ := cookiejar.New(nil)
		p := &participant{t: t, base: hs.URL, c: &http.Client{Jar: jar}}
		p.do("GET", fmt.Sprintf("/s/%s?PROLIFIC_PID=%024x&STUDY_ID=outside&SESSION_ID=s%d", id, 0x5e1100+n, n), nil)
		p.do("POST", "/s/"+id+"/consent", nil)
		for p.has("training") {
			p.do("POST", "/s/"+id+"/training", url.Values{"position": {p.field(outsidePositionRE)}, "attempt": {p.field(outsideAttemptRE)}, p.field(outsideNameRE): {"5"}})
		}
		if p.has("practice-end") {
			p.do("GET", "/s/"+id+"/screen?begin=1", nil)
		}
		seen := map[string]bool{}
		conds := map[string]int{}
		for screens := 0; !p.has("done"); screens++ {
			if screens > 20 {
				t.Fatalf("participant %d: more screens than the batch has:\n%s", n, p.body)
			}
			var pts []string
			for _, m := range outsideRadioRE.FindAllStringSubmatch(p.body, -1) {
				pts = append(pts, m[1])
			}
			txt := html.UnescapeString(p.body)
			if got := strings.Join(pts, ","); got != "1,2,3,4,5" || !strings.Contains(txt, "völlig unnatürlich") || !strings.Contains(txt, "völlig natürlich") {
				t.Fatalf("participant %d: a screen with radios %s and without both labels:\n%s", n, got, p.body)
			}
			rating := 0
			switch m := outsidePairRE.FindStringSubmatch(txt); {
			case m != nil:
				if seen[m[1]] {
					t.Errorf("participant %d saw pair %s twice", n, m[1])
				}
				seen[m[1]] = true
				pair, _ := strconv.Atoi(m[1])
				if strings.HasPrefix(m[2], "die") {
					conds["kontrolle"]++
					rating = 3 + (pair+n)%3 // 3–5
					given["kontrolle"] = append(given["kontrolle"], rating)
				} else {
					conds["zielsatz"]++
					rating = 1 + (pair*n)%3 // 1–3
					given["zielsatz"] = append(given["zielsatz"], rating)
				}
			case strings.Contains(txt, "Die Sonne scheint am Tag."):
				rating = 5
			case strings.Contains(txt, "Tag am scheint Sonne die der."):
				rating = 1
			default:
				t.Fatalf("participant %d: a screen with no sentence of the study:\n%s", n, p.body)
			}
			p.do("POST", "/s/"+id+"/answer", url.Values{"position": {p.field(outsidePositionRE)}, p.field(outsideNameRE): {strconv.Itoa(rating)}})
		}
		if conds["kontrolle"] == 0 || conds["zielsatz"] == 0 || len(seen) != 8 {
			t.Errorf("participant %d saw the conditions %v and %d pairs; want both conditions and all 8 pairs once", n, conds, len(seen))
		}
	}
	hs.Close()
	a.Close()

	// The ratings export has scale_points, 5 on every row.
	ratings := filepath.Join(dir, "ratings.csv")
	run("export", "--study", id, "--what", "ratings", "--out", ratings)
	f, err := os.Open(ratings)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	if _, ok := col["scale_points"]; !ok {
		t.Fatalf("the ratings export has no scale_points: %v", recs[0])
	}
	sum, count := map[string]float64{}, map[string]int{}
	firstData := 0
	for i, r := range recs[1:] {
		if r[col["scale_points"]] != "5" {
			t.Errorf("line %d: scale_points %q", i+2, r[col["scale_points"]])
		}
		if r[col["check"]] != "" {
			continue
		}
		if r[col["item_type"]] != "judgement" {
			t.Errorf("line %d: item_type %q", i+2, r[col["item_type"]])
		}
		if firstData == 0 {
			firstData = i + 2
		}
		v, _ := strconv.Atoi(r[col["rating"]])
		sum[r[col["condition"]]] += float64(v)
		count[r[col["condition"]]]++
	}
	if count["kontrolle"] != len(given["kontrolle"]) || count["zielsatz"] != len(given["zielsatz"]) || len(count) != 2 {
		t.Fatalf("the export holds %v data ratings by condition; the participants gave %d and %d", count, len(given["kontrolle"]), len(given["zielsatz"]))
	}

	// analyze conditions --json: each condition's mean is the export's.
	var res struct {
		ScalePoints int `json:"scale_points"`
		Conditions  []struct {
			Condition  string   `json:"condition"`
			MeanRating *float64 `json:"mean_rating"`
		} `json:"conditions"`
	}
	if err := json.Unmarshal([]byte(run("analyze", "conditions", "--ratings", ratings, "--json")), &res); err != nil {
		t.Fatal(err)
	}
	if res.ScalePoints != 5 || len(res.Conditions) != 2 {
		t.Fatalf("analyze conditions: %+v", res)
	}
	for _, c := range res.Conditions {
		want := sum[c.Condition] / float64(count[c.Condition])
		if c.MeanRating == nil || math.Abs(*c.MeanRating-want) > 1e-9 {
			t.Errorf("condition %s: mean rating %v, the export's %v", c.Condition, c.MeanRating, want)
		}
	}

	// A 6 in that file is refused, exit 2, naming its line.
	recs[firstData-1][col["rating"]] = "6"
	var b strings.Builder
	w := csv.NewWriter(&b)
	w.WriteAll(recs)
	bad := write("ratings-6.csv", b.String())
	code, _, errOut := runCLI(t, "", env, "analyze", "conditions", "--ratings", bad, "--json")
	if code != 2 || !strings.Contains(errOut, fmt.Sprintf("line %d", firstData)) || !strings.Contains(errOut, "rating 6 is outside the scale 1–5") {
		t.Errorf("a 6 on a 5-point scale: exit %d, %s", code, errOut)
	}

	// With the texts: each rating's context and sentence, its condition's.
	withTexts := filepath.Join(dir, "ratings-texts.csv")
	run("export", "--study", id, "--what", "ratings", "--with-texts", "--out", withTexts)
	tb, _ := os.ReadFile(withTexts)
	trecs, err := csv.NewReader(strings.NewReader(string(tb))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if h := strings.Join(trecs[0][len(trecs[0])-3:], ","); h != "scale_points,context,sentence" {
		t.Fatalf("the with-texts export ends with %s", h)
	}
	for i, r := range trecs[1:] {
		sentence, cond := r[len(r)-1], r[col["condition"]]
		if r[col["check"]] == "" && (r[len(r)-2] != "Im Restaurant:" || strings.Contains(sentence, "hat gegessen die") != (cond == "zielsatz")) {
			t.Errorf("line %d: condition %s with context %q and sentence %q", i+2, cond, r[len(r)-2], sentence)
		}
	}

	// The data package: the judgement items, a codebook naming the
	// conditions, the scale and its labels.
	pkg := filepath.Join(dir, "package")
	run("export", "--study", id, "--what", "package", "--out", pkg)
	if bad := validateDataPackage(t, pkg); len(bad) > 0 {
		t.Errorf("the judgement study's data package breaks the spec:\n%s", strings.Join(bad, "\n"))
	}
	items, _ := os.ReadFile(filepath.Join(pkg, "items.csv"))
	if !strings.HasPrefix(string(items), "item,condition,sentence,context,check,training\n1,kontrolle,") || strings.Count(string(items), "\n") != 17 {
		t.Errorf("package items.csv:\n%s", items)
	}
	// The cleaned items export is the same file.
	if out := run("export", "--study", id, "--what", "items"); out != string(items) {
		t.Errorf("export --what items:\n%s\nthe package's items.csv:\n%s", out, items)
	}
	cb, _ := os.ReadFile(filepath.Join(pkg, "codebook.md"))
	for _, want := range []string{"Conditions: kontrolle, zielsatz, the study's own", "5-point scale, 1 to 5", "| 1 | völlig unnatürlich |", "| 5 | völlig natürlich |", "pragmalab analyze conditions --ratings ratings.csv --scale-points 5 --high-pass 4 --low-pass 2 --max-failed 3 --conditions kontrolle,zielsatz"} {
		if !strings.Contains(string(cb), want) {
			t.Errorf("the codebook lacks %q:\n%s", want, cb)
		}
	}
	// The codebook's exclusions say who was analysed; the Analysis page's
	// notes on the reliability command and the planner's pilot are no
	// part of them (docs/formats.md#data-package).
	for _, note := range []string{"Reliability as pragmalab", "The planner of the differences", "Planner:"} {
		if strings.Contains(string(cb), note) {
			t.Errorf("the codebook's exclusions carry the page's note %q:\n%s", note, cb)
		}
	}
	var dp struct {
		Resources []struct {
			Path   string
			Schema *struct {
				Fields []struct {
					Name        string
					Constraints map[string]any
				}
				PrimaryKey []string `json:"primaryKey"`
			}
		}
	}
	db2, _ := os.ReadFile(filepath.Join(pkg, "datapackage.json"))
	if err := json.Unmarshal(db2, &dp); err != nil {
		t.Fatal(err)
	}
	for _, r := range dp.Resources {
		if r.Schema == nil {
			continue
		}
		for _, fd := range r.Schema.Fields {
			if fd.Name == "condition" && fmt.Sprint(fd.Constraints["enum"]) != "[kontrolle zielsatz]" {
				t.Errorf("%s: condition enum %v", r.Path, fd.Constraints["enum"])
			}
		}
		if r.Path == "items.csv" && strings.Join(r.Schema.PrimaryKey, ",") != "item,condition" {
			t.Errorf("items.csv's primary key %v", r.Schema.PrimaryKey)
		}
	}
	for _, f := range []string{"methods.md", "r/analysis.R", "r/ratings.csv"} {
		if _, err := os.Stat(filepath.Join(pkg, f)); err != nil {
			t.Errorf("the package lacks %s", f)
		}
	}

	// The package's R companion reproduces pragmalab's numbers.
	t.Run("R companion of the package", func(t *testing.T) {
		needR(t, true)
		if out := runR(t, filepath.Join(pkg, "r")); !strings.Contains(out, " 0 differ by more than 1e-9 or in being undefined") {
			t.Errorf("R does not reproduce the package's numbers:\n%s", out)
		}
	})

	// A clone has the same design, items by condition and all.
	out = run("study", "clone", "--study", id, "--name", "Wortstellung, zweiter Lauf")
	cm := regexp.MustCompile(`study (\d+)`).FindStringSubmatch(strings.ToLower(out))
	if cm == nil {
		t.Fatalf("study clone: %s", out)
	}
	orig := run("study", "design", "--study", id)
	clone := run("study", "design", "--study", cm[1])
	if strings.Replace(clone, "Wortstellung, zweiter Lauf", "Wortstellung im Nebensatz", 1) != orig {
		t.Errorf("the clone's design differs:\n%s\nfrom\n%s", clone, orig)
	}
}
