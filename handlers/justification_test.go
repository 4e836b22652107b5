package handlers_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"pragmalab/domain"
)

var justifyRE = regexp.MustCompile(`<textarea id="justification" name="([a-z0-9]+)"`)

// TestCrowdJustifications, over plain HTTP: with two justifications a
// batch, two screens of each participant's batch ask "Why did you choose
// this rating?"; the text and its typing summary are stored with the
// screen's rating, and a participant whose justifications were typed
// evenly with no revision or pause is flagged transcribed_text, while one
// who revised, one who dictated and one without JavaScript are not
// (docs/studies.md#typed-justifications). With the setting off no screen asks.
func TestCrowdJustifications(t *testing.T) {
	e := newCrowdEnv(t, 40, 10, func(s *domain.CrowdSettings) { s.Justifications = 2 })
	typing := map[string]url.Values{
		pidN(1): {"keys": {"80"}, "revisions": {"0"}, "typed_chars": {"80"}, "inserted_chars": {"0"}, "text_pastes": {"0"},
			"within_word_ms": {"120"}, "word_pause_ms": {"125"}, "long_pauses": {"0"}, "bursts": {"1"}},
		pidN(2): {"keys": {"95"}, "revisions": {"4"}, "typed_chars": {"80"}, "inserted_chars": {"0"}, "text_pastes": {"0"},
			"within_word_ms": {"150"}, "word_pause_ms": {"170"}, "long_pauses": {"0"}, "bursts": {"1"}},
		pidN(3): {"keys": {"2"}, "revisions": {"2"}, "typed_chars": {"0"}, "inserted_chars": {"90"}, "text_pastes": {"1"}},
		pidN(4): {},
	}
	asked := map[string][]int{}
	for pid, sum := range typing {
		b := e.browser()
		b.get(e.entry(pid, "s"+pid[20:]))
		b.post(e.base()+"/consent", nil)
		b.training()
		for !b.has("done") {
			pos := b.position()
			form := url.Values{"position": {strconv.Itoa(pos)}, "rating": {"5"}}
			if m := justifyRE.FindStringSubmatch(b.body); m != nil {
				asked[pid] = append(asked[pid], pos)
				if !strings.Contains(b.body, "Why did you choose this rating?") || !strings.Contains(b.body, `data-lpignore="true"`) {
					t.Fatalf("the justification's text box without its question:\n%s", b.body)
				}
				form.Set(m[1], "Because the speaker says "+pid[20:]+".")
				for k, v := range sum {
					form[k] = v
				}
			}
			b.post(e.base()+"/answer", form)
		}
		if len(asked[pid]) != 2 {
			t.Fatalf("%s: justifications asked on screens %v, want 2", pid, asked[pid])
		}
	}
	if fmtInts(asked[pidN(1)]) == fmtInts(asked[pidN(2)]) && fmtInts(asked[pidN(2)]) == fmtInts(asked[pidN(3)]) {
		t.Errorf("three participants were asked on the same screens %v: not drawn per participant", asked[pidN(1)])
	}
	js, err := e.db.CrowdJustifications(context.Background(), e.study)
	if err != nil || len(js) != 8 {
		t.Fatalf("%d justifications stored (%v), want 8", len(js), err)
	}
	for _, j := range js {
		if j.Text != "Because the speaker says "+j.PID[20:]+"." {
			t.Errorf("%s screen %d: text %q", j.PID, j.Position, j.Text)
		}
		if j.PID == pidN(4) && j.Typing.Keys.Valid {
			t.Errorf("without JavaScript a summary was stored: %+v", j.Typing)
		}
		if j.PID == pidN(2) && j.Typing.Revisions != (domain.Signal{Valid: true, N: 4}) {
			t.Errorf("the summary was not stored: %+v", j.Typing)
		}
	}
	a := e.admin()
	a.get(fmt.Sprintf("/admin/studies/%d", e.study))
	a.must("export-justifications")
	a.get(fmt.Sprintf("/admin/studies/%d/export/justifications.csv", e.study))
	recs, err := csv.NewReader(strings.NewReader(a.body)).ReadAll()
	if err != nil || len(recs) != 9 || strings.Join(recs[0][:5], ",") != "participant_id,position,justification,keys,revisions" {
		t.Fatalf("justifications export (%v):\n%s", err, a.body)
	}
	flags := participantFlags(t, e)
	// A paste into the justification, which asks to be typed, counts for
	// paste_in_text; the pasted text is not judged by its typing.
	if _, ok := hasFlag(flags[pidN(3)], domain.FlagPasteInText); !ok {
		t.Errorf("a paste into the justification is not paste_in_text: %+v", flags[pidN(3)])
	}
	for pid, want := range map[string]bool{pidN(1): true, pidN(2): false, pidN(3): false, pidN(4): false} {
		ev, got := hasFlag(flags[pid], domain.FlagTranscribedText)
		if got != want {
			t.Errorf("%s: transcribed_text %v (%q), want %v", pid, got, ev, want)
		}
		if got && ev != "all 2 justifications judged were typed without a revision, a long pause or pauses before words" {
			t.Errorf("%s: evidence %q", pid, ev)
		}
	}

	off := newCrowdEnv(t, 40, 10, nil)
	b := off.browser()
	b.get(off.entry(pidN(5), "s5"))
	b.post(off.base()+"/consent", nil)
	b.training()
	for !b.has("done") {
		if b.has("justification") {
			t.Fatal("a justification is asked with the setting off")
		}
		b.post(off.base()+"/answer", url.Values{"position": {strconv.Itoa(b.position())}, "rating": {"5"}})
	}
}

func fmtInts(xs []int) string {
	var s []string
	for _, x := range xs {
		s = append(s, strconv.Itoa(x))
	}
	return strings.Join(s, ",")
}
