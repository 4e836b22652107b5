package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const integrityHeader = "participant_id,batch_id,item_id,item_type,condition,rating,check,item_version,shown_at,answered_at,rt_ms,answer_changes,hidden_ms,first_input_ms,untrusted_events,pastes,webdriver,pointer_or_key,honeypot\n"

// integrityFiles writes a ratings export of 5 participants × 12 items
// (each item in condition trigger) plus one attention check, and a likert
// job's results CSV for one model. "copy" gives the model's answers;
// "bot" fills the honeypot and dispatches its events under WebDriver;
// "still" never moves a pointer or touches a key; "nojs" has no signals;
// "honest" has real ones.
func integrityFiles(t *testing.T) (ratings, models string) {
	var r, m strings.Builder
	r.WriteString(integrityHeader)
	m.WriteString("model,item_id,item_type,condition,label,number,mean,not_asked,p_1,p_2,p_3,p_4,p_5,p_6,p_7,number_fwd,number_rev\n")
	model := func(i int) int { return 2 + (i*3)%5 }
	signals := map[string]string{"copy": "0,0,0,1,", "bot": "7,0,1,1,hello", "still": "0,0,0,0,", "nojs": ",,,,", "honest": "0,0,0,1,"}
	for k, p := range []string{"copy", "bot", "still", "nojs", "honest"} {
		for i := range 12 {
			v := model(i)
			if p != "copy" {
				v = 1 + (i*5+k*2)%7
			}
			fmt.Fprintf(&r, "%s,1,it%d,scalar,trigger,%d,,1,2026-12-01T09:00:00Z,2026-12-01T09:00:05Z,4000,0,0,300,%s\n", p, i, v, signals[p])
		}
		fmt.Fprintf(&r, "%s,1,chk,scalar,trigger,7,high,1,,,,,,,%s\n", p, signals[p])
	}
	for i := range 12 {
		v := model(i)
		fmt.Fprintf(&m, "gpt-x,it%d,scalar,trigger,%d,%d,%d.0,false,0,0,0,0,0,0,0,%d,%d\n", i, v, v, v, v, v)
	}
	return writeAnalyzeInput(t, "ratings.csv", r.String()), writeAnalyzeInput(t, "models.csv", m.String())
}

func TestAnalyzeIntegrityJSON(t *testing.T) {
	rp, mp := integrityFiles(t)
	out, errs, code := analyzeCLI(t, "", "analyze", "integrity", "--ratings", rp, "--models", mp, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		Participants []struct {
			Participant string            `json:"participant_id"`
			Answers     int               `json:"answers"`
			Flags       []string          `json:"flags"`
			Evidence    map[string]string `json:"evidence"`
			LLMEcho     *struct {
				Flagged bool   `json:"flagged"`
				Echoes  string `json:"echoes"`
				Models  []struct {
					Items      int     `json:"items"`
					AgreeModel float64 `json:"agree_model"`
				} `json:"models"`
			} `json:"llm_echo"`
		} `json:"participants"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := map[string]string{
		"copy":   "llm_echo",
		"bot":    "honeypot,synthetic_input,webdriver",
		"still":  "no_pointer_or_key",
		"nojs":   "",
		"honest": "",
	}
	if len(got.Participants) != len(want) {
		t.Fatalf("%d participants, want %d:\n%s", len(got.Participants), len(want), out)
	}
	for _, p := range got.Participants {
		if f := strings.Join(p.Flags, ","); f != want[p.Participant] {
			t.Errorf("%s: flags %q, want %q (evidence %v)", p.Participant, f, want[p.Participant], p.Evidence)
		}
		if p.Answers != 13 || p.LLMEcho == nil || p.LLMEcho.Models[0].Items != 12 {
			t.Errorf("%s: answers %d, echo %+v", p.Participant, p.Answers, p.LLMEcho)
		}
	}
	if c := got.Participants[0]; !c.LLMEcho.Flagged || c.LLMEcho.Echoes != "gpt-x" || c.LLMEcho.Models[0].AgreeModel != 1 {
		t.Errorf("copy: %+v", c.LLMEcho)
	}
	if !strings.Contains(got.Participants[1].Evidence["honeypot"], `"hello"`) {
		t.Errorf("bot's honeypot evidence: %q", got.Participants[1].Evidence["honeypot"])
	}
}

func TestAnalyzeIntegrityText(t *testing.T) {
	rp, mp := integrityFiles(t)
	out, errs, code := analyzeCLI(t, "", "analyze", "integrity", "--ratings", rp, "--models", mp, "--identical-run", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, s := range []string{"Integrity flags per participant", "copy    ", "llm_echo", "gpt-x", "bot honeypot: the hidden field filled on 13 of 13 answers",
		"copy llm_echo: agrees with gpt-x on 100% of 12 items"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	// Without models: no llm_echo, the other flags still.
	out, errs, code = analyzeCLI(t, "", "analyze", "integrity", "--ratings", rp, "--json")
	if code != 0 || !strings.Contains(out, `"llm_echo": null`) || !strings.Contains(out, `"synthetic_input"`) {
		t.Errorf("without models: exit %d, %s\n%s", code, errs, out)
	}
}

// TestAnalyzeIntegrityStraightLine: a run rule turned on flags the
// participant whose ratings repeat, with the rule's own reason.
func TestAnalyzeIntegrityStraightLine(t *testing.T) {
	var r strings.Builder
	r.WriteString("participant_id,batch_id,item_id,item_type,condition,rating,check,rt_ms\n")
	for i := range 6 {
		fmt.Fprintf(&r, "same,1,it%d,scalar,trigger,4,,900\n", i)
		fmt.Fprintf(&r, "varied,1,it%d,scalar,trigger,%d,,5000\n", i, 1+i)
	}
	rp := writeAnalyzeInput(t, "r.csv", r.String())
	out, errs, code := analyzeCLI(t, "", "analyze", "integrity", "--ratings", rp, "--identical-run", "5", "--fast-percent", "50", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, s := range []string{`"straight_line": "6 identical ratings in a row (rule: 5)"`, `"speed": "100% of answers faster than 2000 ms (rule: 50%)"`, `"flags": []`} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %s:\n%s", s, out)
		}
	}
}

func TestAnalyzeIntegrityBadInput(t *testing.T) {
	rp, mp := integrityFiles(t)
	good := integrityHeader + "p,1,it0,scalar,trigger,4,,,,,,,,,,,,,\n"
	for _, c := range []struct {
		name, ratings, models, want string
	}{
		{"non-numeric rating", integrityHeader + "p,1,it0,scalar,trigger,4,,,,,,,,,,,,,\np,1,it1,scalar,trigger,four,,,,,,,,,,,,,\n", "", `line 3, column "rating": rating "four" is not an integer`},
		{"bad signal", integrityHeader + "p,1,it0,scalar,trigger,4,,,,,,,,,-1,,,,\n", "", `line 2, column "untrusted_events"`},
		{"webdriver 2", integrityHeader + "p,1,it0,scalar,trigger,4,,,,,,,,,,,2,,\n", "", `line 2, column "webdriver"`},
		{"rating above the scale", integrityHeader + "p,1,it0,scalar,trigger,9,,,,,,,,,,,,,\n", "", `line 2, column "rating": rating 9 is above the scale's 7 points`},
		{"empty models file", good, "", "models.csv: line 1: empty file"},
		{"models header only", good, "model,item_id,label\n", "models.csv: line 1: no model answers"},
		{"model matching nothing", good, "model,item_id,label\nm1,it0,4\nm2,zz,4\n", `models.csv: line 3: model "m2" answers no item`},
		{"models bad rating", good, "model,item_id,label\nm1,it0,likely\n", `models.csv: line 2, column "label": rating "likely"`},
		{"models unknown column", good, "model,item_id,label, Colour\nm1,it0,4\n", `models.csv: line 1, column "colour": unknown column`},
		{"models twice", good, "model,item_id,label\nm1,it0,4\nm1,it0,5\n", `models.csv: line 3: model "m1" answers item "it0" in condition "" twice (lines 2 and 3)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := writeAnalyzeInput(t, "ratings.csv", c.ratings)
			args := []string{"analyze", "integrity", "--ratings", r}
			if c.models != "" || strings.HasPrefix(c.name, "empty models") {
				args = append(args, "--models", writeAnalyzeInput(t, "models.csv", c.models))
			}
			out, errs, code := analyzeCLI(t, "", args...)
			if code != 2 || out != "" || !strings.Contains(errs, c.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2, nothing written, %q", code, out, errs, c.want)
			}
		})
	}
	// Usage errors.
	for _, args := range [][]string{{"--models", mp}, {"--ratings", "-", "--models", "-"}, {"--ratings", rp, "--min-gap", "2"}, {"--ratings", rp, "--fast-percent", "101"}} {
		if _, _, code := analyzeCLI(t, "", append([]string{"analyze", "integrity"}, args...)...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// TestAnalyzeIntegrityLikertJob: a crowd study's ratings export and a
// likert job's results CSV, as `score --csv` writes it, read as they are.
func TestAnalyzeIntegrityLikertJob(t *testing.T) {
	path, study := answeredLoadStudy(t)
	crowd := strconv.FormatInt(study.ID, 10)
	dir := t.TempDir()
	ratings, models := filepath.Join(dir, "ratings.csv"), filepath.Join(dir, "likert.csv")
	if code, _, errOut := runCLI(t, "", nil, "export", "--db", path, "--study", crowd, "--what", "ratings", "--out", ratings); code != 0 {
		t.Fatalf("export ratings: exit %d: %s", code, errOut)
	}
	if code, out, errOut := runCLI(t, "", nil, "score", "--db", path, "--study", crowd, "--task", "likert", "--scorer", "random", "--quiet", "--csv", models); code != 0 {
		t.Fatalf("score likert: exit %d\n%s\n%s", code, out, errOut)
	}
	out, errs, code := analyzeCLI(t, "", "analyze", "integrity", "--ratings", ratings, "--models", models, "--json")
	if code != 0 {
		t.Fatalf("analyze integrity: exit %d: %s", code, errs)
	}
	var got struct {
		Participants []struct {
			LLMEcho *struct {
				Models []struct {
					Model string `json:"model"`
					Items int    `json:"items"`
				} `json:"models"`
			} `json:"llm_echo"`
		} `json:"participants"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Participants) == 0 {
		t.Fatalf("no participants:\n%s", out)
	}
	// Every participant is measured against the scorer; those who share a
	// batch with another (two of the three) on every one of their items.
	assessed := 0
	for i, p := range got.Participants {
		if p.LLMEcho == nil || len(p.LLMEcho.Models) != 1 || !strings.HasPrefix(p.LLMEcho.Models[0].Model, "random") {
			t.Fatalf("participant %d: %+v", i, p.LLMEcho)
		}
		if p.LLMEcho.Models[0].Items > 0 {
			assessed++
		}
	}
	if assessed < 2 {
		t.Errorf("%d participants measured on some item, want at least 2:\n%s", assessed, out)
	}
}
