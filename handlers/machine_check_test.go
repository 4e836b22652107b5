package handlers_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"pragmalab/domain"
	"pragmalab/templates"
)

// instructionRE reads the hidden instruction of a page in any of its
// English wordings: out of sight by an inline style, aria-hidden and
// inert; the point it asks for.
var instructionRE = func() *regexp.Regexp {
	var ws []string
	for i := 1; i <= domain.InstructionWordings; i++ {
		ws = append(ws, strings.Replace(regexp.QuoteMeta(templates.CT("en", fmt.Sprintf("machine_instruction_%d", i))), "%d", `(\d+)`, 1))
	}
	return regexp.MustCompile(`<(p|div|span) style="position:[^"]+" aria-hidden="true" inert>(?:` + strings.Join(ws, "|") + `)</(?:p|div|span)>`)
}()

// instructionWordRE finds any wording of the instruction, hidden or not.
var instructionWordRE = regexp.MustCompile(`AI model|automated assistants|AI agents|Language models|AI assistant`)

// askedPoint is the point the instruction of m asks for.
func askedPoint(m []string) int {
	for _, g := range m[2:] {
		if g != "" {
			n, _ := strconv.Atoi(g)
			return n
		}
	}
	return 0
}

// walkMachine takes a participant through the practice and the batch;
// answer gives the rating of a screen from the point its hidden
// instruction asks for (0: none). It returns the screens that carried the
// instruction, by position, with the point asked.
func walkMachine(t *testing.T, e *crowdEnv, pid string, answer func(asked int) int) map[int]int {
	t.Helper()
	b := e.browser()
	b.get(e.entry(pid, "s"+pid[18:]))
	b.post(e.base()+"/consent", nil)
	b.training()
	asked := map[int]int{}
	for !b.has("done") {
		pos, n := b.position(), 0
		if instructionWordRE.MatchString(b.body) {
			m := instructionRE.FindStringSubmatch(b.body)
			if m == nil {
				t.Fatalf("screen %d: the instruction is not out of sight, aria-hidden and inert:\n%s", pos, b.body)
			}
			n = askedPoint(m)
			asked[pos] = n
			if strings.Contains(b.body, "check belief") {
				t.Errorf("screen %d, an attention check, carries the instruction", pos)
			}
		}
		// A forged point in the form counts for nothing: the server decides.
		b.post(e.base()+"/answer", url.Values{"position": {strconv.Itoa(pos)}, "rating": {strconv.Itoa(answer(n))}, "machine_instruction": {"1"}})
	}
	return asked
}

// machineColumn reads machine_instruction of a participant's ratings by
// position (the store lists them in screen order, every screen answered).
func machineColumn(t *testing.T, e *crowdEnv, pid string) map[int]sql.NullInt64 {
	t.Helper()
	rows, err := e.db.RatingRows(context.Background(), e.study, false)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]sql.NullInt64{}
	for _, r := range rows {
		if r.PID == pid {
			out[len(out)+1] = r.Machine
		}
	}
	return out
}

// TestCrowdMachineCheck: with machine_check on, five ordinary screens of
// the batch carry the hidden instruction; whether it was obeyed is stored
// with the rating (1 or 0), NULL elsewhere, and exported; the consent page
// says the study checks for automated answering (#32 §5).
func TestCrowdMachineCheck(t *testing.T) {
	e := newCrowdEnv(t, 40, 10, func(s *domain.CrowdSettings) { s.MachineCheck = true })
	b := e.browser()
	b.get(e.entry(pidN(1), "s1"))
	b.must("consent-checks")
	if !strings.Contains(b.body, "This study contains checks for automated answering") {
		t.Fatalf("the consent does not state the checks:\n%s", b.body)
	}
	obeyer := walkMachine(t, e, pidN(2), func(asked int) int {
		if asked > 0 {
			return asked
		}
		return 4
	})
	liner := walkMachine(t, e, pidN(3), func(int) int { return 4 })
	checkAsked(t, "obeyer", obeyer)
	checkAsked(t, "straight-liner", liner)
	screens := map[string]int{
		pidN(2): checkStored(t, e, pidN(2), obeyer, 1),
		pidN(3): checkStored(t, e, pidN(3), liner, 0),
	}
	// The ratings export closes with machine_instruction.
	var buf bytes.Buffer
	if err := e.db.ExportRatings(context.Background(), e.study, &buf); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	last := len(recs[0]) - 2 // scale_points closes the row
	if recs[0][last] != "machine_instruction" {
		t.Fatalf("the ratings export's last column but one is %q", recs[0][last])
	}
	count := map[string]int{}
	for _, r := range recs[1:] {
		count[r[0]+":"+r[last]]++
	}
	if want := fmt.Sprint(map[string]int{pidN(2) + ":": screens[pidN(2)] - 5, pidN(2) + ":1": 5, pidN(3) + ":": screens[pidN(3)] - 5, pidN(3) + ":0": 5}); fmt.Sprint(count) != want {
		t.Errorf("exported machine_instruction %v, want %v", count, want)
	}
}

// checkAsked: the instruction on five screens, asking distinct points of
// the 7-point scale other than the midpoint.
func checkAsked(t *testing.T, name string, asked map[int]int) {
	t.Helper()
	if len(asked) != domain.MachineCheckScreens {
		t.Fatalf("%s met the instruction on %v, want %d screens", name, asked, domain.MachineCheckScreens)
	}
	points := map[int]bool{}
	for _, n := range asked {
		if n == 4 || n < 1 || n > 7 {
			t.Errorf("%s: the instruction asks %d on a 7-point scale", name, n)
		}
		points[n] = true
	}
	if len(points) != len(asked) {
		t.Errorf("%s: the instructions ask a point twice %v", name, asked)
	}
}

// checkStored: machine_instruction is obeyed (1 or 0) on the screens that
// carried the instruction, NULL elsewhere, and the flag follows; it
// returns the participant's number of screens.
func checkStored(t *testing.T, e *crowdEnv, pid string, asked map[int]int, obeyed int64) int {
	t.Helper()
	col := machineColumn(t, e, pid)
	if len(col) < 14 {
		t.Fatalf("%s: %d ratings stored, want at least 10 items and 4 checks", pid, len(col))
	}
	instructed, sum := 0, 0
	for pos, v := range col {
		_, on := asked[pos]
		switch {
		case on && (!v.Valid || v.Int64 != obeyed):
			t.Errorf("%s screen %d: machine_instruction %v, want %d", pid, pos, v, obeyed)
		case !on && v.Valid:
			t.Errorf("%s screen %d without the instruction: machine_instruction %d, want NULL", pid, pos, v.Int64)
		}
		if v.Valid {
			instructed++
			sum += int(v.Int64)
		}
	}
	if got := domain.ObeyedMachineInstruction(instructed, sum); got != (obeyed == 1) {
		t.Errorf("%s: flagged %v from %d of %d obeyed", pid, got, sum, instructed)
	}
	return len(col)
}

// TestCrowdMachineCheckOff: by default no screen carries the instruction,
// the consent says nothing of it, and nothing is recorded.
func TestCrowdMachineCheckOff(t *testing.T) {
	e := newCrowdEnv(t, 40, 10, nil)
	b := e.browser()
	b.get(e.entry(pidN(1), "s1"))
	if b.has("consent-checks") {
		t.Error("the consent states machine checks the study does not have")
	}
	if asked := walkMachine(t, e, pidN(2), func(int) int { return 6 }); len(asked) != 0 {
		t.Errorf("the instruction is on screens %v with the setting off", asked)
	}
	for pos, v := range machineColumn(t, e, pidN(2)) {
		if v.Valid {
			t.Errorf("screen %d: machine_instruction %d with the setting off", pos, v.Int64)
		}
	}
}

// TestCrowdAdminMachineCheck: the settings form turns the setting on and
// off, and refuses it on a 2-point scale.
func TestCrowdAdminMachineCheck(t *testing.T) {
	e := newDraftCrowdEnv(t, 40, 10, nil)
	a := e.admin()
	study := fmt.Sprintf("/admin/studies/%d", e.study)
	a.get(study)
	a.must("machine-check-setting")
	form := url.Values{
		"batch_size": {"10"}, "quota": {"5"}, "timeout_minutes": {"60"}, "check_high_min": {"5"},
		"check_low_max": {"3"}, "max_failed_checks": {"3"}, "lang": {"en"}, "completion_code": {"C0MPLETE"},
		"machine_check": {"yes"},
	}
	a.post(study+"/crowd/settings", form)
	if _, set, err := e.db.CrowdStudy(context.Background(), e.study); err != nil || !set.MachineCheck {
		t.Fatalf("machine_check not saved: %v %+v", err, set)
	}
	form.Set("scale_points", "2")
	form.Set("check_high_min", "2")
	form.Set("check_low_max", "1")
	a.post(study+"/crowd/settings", form)
	if !strings.Contains(a.body, "machine check: needs a scale of at least 3 points, got 2") {
		t.Errorf("a 2-point scale with the machine check was not refused by name:\n%.3000s", a.body)
	}
	form.Del("machine_check")
	form.Del("scale_points")
	form.Set("check_high_min", "5")
	form.Set("check_low_max", "3")
	a.post(study+"/crowd/settings", form)
	if _, set, err := e.db.CrowdStudy(context.Background(), e.study); err != nil || set.MachineCheck {
		t.Fatalf("machine_check not turned off: %v %+v", err, set)
	}
}
