package domain

import (
	"crypto/hmac"
	"crypto/sha256"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
)

// Traps are what a participant's pages hide from people, drawn for that
// participant alone (docs/studies.md#integrity-signals,
// docs/studies.md#machine-instruction): the decoy field's name, label,
// place and way of hiding; the rating field's name; the hidden
// instruction's wording, markup, screens and points. They are a pure
// function of the server's secret key and the participant's session
// (DrawTraps), so the server derives them again to read an answer back and
// nothing about them is stored or sent by the browser. Two participants'
// pages differ; one participant's pages agree from screen to screen.
type Traps struct {
	// Rating is the name of the rating form's radio buttons.
	Rating string
	// Decoy is the field no person meets (the honeypot).
	Decoy Decoy
	// Instruction is how the hidden instruction looks; where it appears
	// and what it asks are InstructionPoint's.
	Instruction Hidden
	// Wording picks the instruction's sentence from the pool
	// (crowd.machine_instruction_1 …, InstructionWordings of them), and
	// InstructionPlace its place on the rating form (mod FormPlaces).
	Wording, InstructionPlace int
	// Justify is the name of the justification's text box
	// (docs/studies.md#typed-justifications).
	Justify string
	seed    [32]byte
}

// Decoy is the participant's hidden text field: Name its form name, Label
// the label's message (crowd.decoy_label_1 …, DecoyLabels of them), Place
// which of a form's places it takes (a form with k places renders it at
// Place mod k), Hide how it is kept out of sight.
type Decoy struct {
	Name  string
	Label int
	Place int
	Hide  Hidden
}

// Hidden is one way of keeping an element out of sight without
// display:none (which programs reading the page skip too): Tag the element,
// Style its inline style. The element is also aria-hidden, so no screen
// reader meets it.
type Hidden struct {
	Tag   string
	Style string
}

// DecoyLabels and InstructionWordings are the sizes of the pools of
// messages the decoy's label and the instruction's sentence are drawn from,
// in every catalog language.
const (
	DecoyLabels         = 5
	InstructionWordings = 5
)

// FormPlaces is how many places of a rating form the decoy and the
// instruction are drawn among (templates.CrowdItem names them).
const FormPlaces = 3

// trapDomain separates the traps' use of the key from any other.
const trapDomain = "pragmalab traps v1\x00"

// DrawTraps draws a participant's traps from the server's key and the
// participant's session (the crowd session's cookie token, an expert's
// invitation token).
func DrawTraps(key []byte, session string) Traps {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(trapDomain))
	m.Write([]byte(session))
	var t Traps
	copy(t.seed[:], m.Sum(nil))
	r := rand.New(rand.NewChaCha8(t.seed))
	t.Rating = fieldName(r, nil)
	t.Decoy = Decoy{Name: fieldName(r, []string{t.Rating}), Label: 1 + r.IntN(DecoyLabels), Place: r.IntN(FormPlaces), Hide: drawHidden(r)}
	t.Instruction = drawHidden(r)
	t.Wording = 1 + r.IntN(InstructionWordings)
	t.InstructionPlace = r.IntN(FormPlaces)
	t.Justify = fieldName(r, []string{t.Rating, t.Decoy.Name})
	return t
}

// reservedFields are the fixed names of the participant forms' other
// fields: a drawn name is never one of them.
var reservedFields = []string{"position", "attempt", "rating", "rt_ms", "answer_changes", "hidden_ms", "first_input_ms",
	"untrusted_events", "pastes", "webdriver", "pointer_or_key", "typed_chars", "inserted_chars", "iki_median_ms",
	"iki_iqr_ms", "step", "action", "shown", "native_languages", "age_range", "gender", "comments"}

// autofillWords are the parts of a field's name that browsers' autofill
// and password managers match to fill it (Chromium's autofill regexes for
// name, e-mail, phone, address, company, login, password, card, URL and
// one-time codes): a drawn name holds none.
var autofillWords = regexp.MustCompile(`(?i)name|mail|phone|tel|addr|street|city|zip|post|country|company|org|user|login|pass|card|cc|url|web|site|home|search|code|otp|pin`)

// fieldName draws an opaque form field name: a letter and five letters or
// digits, like a form framework's generated names. It carries no word a
// password manager or an autofill heuristic matches.
func fieldName(r *rand.Rand, taken []string) string {
	const letters = "abcdefghijkmnpqrstuvwxyz"
	const alnum = letters + "23456789"
	for {
		b := []byte{letters[r.IntN(len(letters))]}
		for range 5 {
			b = append(b, alnum[r.IntN(len(alnum))])
		}
		n := string(b)
		if !slices.Contains(reservedFields, n) && !slices.Contains(taken, n) && !autofillWords.MatchString(n) {
			return n
		}
	}
}

// drawHidden draws a way of hiding: each keeps the element out of sight and
// out of the layout, none uses display:none or visibility:hidden (so the
// text stays in the page's text), and the distances vary.
func drawHidden(r *rand.Rand) Hidden {
	tags := []string{"div", "p", "span"}
	px := strconv.Itoa(2000 + 100*r.IntN(60))
	styles := []string{
		"position:absolute;width:1px;height:1px;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap",
		"position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap",
		"position:absolute;left:-" + px + "px;top:auto;width:1px;height:1px;overflow:hidden",
		"position:absolute;top:-" + px + "px;left:0;width:1px;height:1px;overflow:hidden",
		"position:absolute;height:0;width:0;overflow:hidden",
		"position:absolute;transform:scale(0);transform-origin:0 0;overflow:hidden;width:1px;height:1px",
		"position:fixed;opacity:0;pointer-events:none;z-index:-1;width:1px;height:1px;overflow:hidden;left:0;bottom:0",
	}
	return Hidden{Tag: tags[r.IntN(len(tags))], Style: styles[r.IntN(len(styles))]}
}

// Instruction counts (docs/studies.md#machine-instruction): a batch of at
// least MachineCheckScreens ordinary screens has that many instructed
// screens, a smaller one (MachineCheckMinScreens or more) that many.
const (
	MachineCheckScreens    = 5
	MachineCheckMinScreens = 3
)

// InstructionScreens is how many of n ordinary screens carry the
// instruction: MachineCheckScreens, or MachineCheckMinScreens when the
// batch has fewer, or none when it has fewer still.
func InstructionScreens(n int) int {
	switch {
	case n >= MachineCheckScreens:
		return MachineCheckScreens
	case n >= MachineCheckMinScreens:
		return MachineCheckMinScreens
	}
	return 0
}

// InstructionPoint is the point the hidden instruction asks for on the
// ordinary screen of rank j (0-based, in screen order) of the n ordinary
// screens of the participant's batch (neither attention checks nor
// practice), on a scale of points; 0 when that screen carries none. The
// screens are drawn for the participant among all n; the points asked are
// the scale's points other than the midpoint, in an order drawn for the
// participant, each used once before any is used again, so they are never
// all the same and never the midpoint.
func (t Traps) InstructionPoint(j, n, points int) int {
	k := InstructionScreens(n)
	if j < 0 || j >= n || k == 0 || points < 2 {
		return 0
	}
	m := hmac.New(sha256.New, t.seed[:])
	m.Write([]byte("instruction " + strconv.Itoa(n) + " " + strconv.Itoa(points)))
	var seed [32]byte
	copy(seed[:], m.Sum(nil))
	r := rand.New(rand.NewChaCha8(seed))
	screens := r.Perm(n)[:k]
	var pool []int
	for p := 1; p <= points; p++ {
		if 2*p != points+1 {
			pool = append(pool, p)
		}
	}
	r.Shuffle(len(pool), func(a, b int) { pool[a], pool[b] = pool[b], pool[a] })
	slices.Sort(screens)
	for i, s := range screens {
		if s == j {
			return pool[i%len(pool)]
		}
	}
	return 0
}

// Justifies tells whether the ordinary screen of rank j of the n ordinary
// screens of the participant's batch asks for a typed justification, when
// the study asks count of them (docs/studies.md#typed-justifications). The
// screens are drawn for the participant among those without the hidden
// instruction (with points, the study's scale; 0: no instruction), or
// among all when too few are left.
func (t Traps) Justifies(j, n, count, points int) bool {
	if j < 0 || j >= n || count <= 0 {
		return false
	}
	m := hmac.New(sha256.New, t.seed[:])
	m.Write([]byte("justify " + strconv.Itoa(n)))
	var seed [32]byte
	copy(seed[:], m.Sum(nil))
	r := rand.New(rand.NewChaCha8(seed))
	var free []int
	for _, k := range r.Perm(n) {
		if points == 0 || t.InstructionPoint(k, n, points) == 0 {
			free = append(free, k)
		}
	}
	if len(free) < count {
		free = r.Perm(n)
	}
	return slices.Contains(free[:min(count, len(free))], j)
}
