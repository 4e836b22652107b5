package store

import (
	"database/sql"
	"pragmalab/domain"
)

// KeyColumns are the keystroke summary's columns (domain.KeyColumns).
var KeyColumns = domain.KeyColumns

// IntegrityRecord is an answer's integrity record as one export row carries
// it: the signals and the honeypot, and on forms with free text the
// keystroke summary.
type IntegrityRecord struct {
	domain.Integrity
}

// integritySQL lists SignalColumns, and KeyColumns when keys, for a query
// on the table aliased a.
func integritySQL(a string, keys bool) string {
	s := a + ".untrusted_events, " + a + ".pastes, " + a + ".webdriver, " + a + ".pointer_or_key, " + a + ".honeypot"
	if keys {
		s += ", " + a + ".typed_chars, " + a + ".inserted_chars, " + a + ".iki_median_ms, " + a + ".iki_iqr_ms"
	}
	return s
}

// integrityValues are the stored values of SignalColumns, and KeyColumns
// when keys, in their order.
func integrityValues(in domain.Integrity, keys bool) []any {
	s := in.Signals
	out := []any{signalValue(s.UntrustedEvents), signalValue(s.Pastes), signalValue(s.Webdriver), signalValue(s.PointerOrKey), in.Honeypot}
	if keys {
		k := in.Keys
		out = append(out, signalValue(k.Typed), signalValue(k.Inserted), signalValue(k.IKIMedian), signalValue(k.IKIIQR))
	}
	return out
}

// dest returns the scan destinations of integritySQL(keys) and the
// function that fills r after the scan.
func (r *IntegrityRecord) dest(keys bool) ([]any, func()) {
	var u, p, w, k, t, i, m, q sql.NullInt64
	var hp sql.NullString
	dst := []any{&u, &p, &w, &k, &hp}
	if keys {
		dst = append(dst, &t, &i, &m, &q)
	}
	return dst, func() {
		sig := func(n sql.NullInt64) domain.Signal { return domain.Signal{Valid: n.Valid, N: int(n.Int64)} }
		r.Integrity = domain.Integrity{
			Signals:  domain.AnswerSignals{UntrustedEvents: sig(u), Pastes: sig(p), Webdriver: sig(w), PointerOrKey: sig(k)},
			Honeypot: hp.String,
			Keys:     domain.KeySummary{Typed: sig(t), Inserted: sig(i), IKIMedian: sig(m), IKIIQR: sig(q)},
		}
	}
}

// fields are the export values of SignalColumns, and KeyColumns when
// keys: empty for a signal not sent.
func (r IntegrityRecord) fields(keys bool) []string {
	s := r.Signals
	out := []string{signalField(s.UntrustedEvents), signalField(s.Pastes), signalField(s.Webdriver), signalField(s.PointerOrKey), r.Honeypot}
	if keys {
		k := r.Keys
		out = append(out, signalField(k.Typed), signalField(k.Inserted), signalField(k.IKIMedian), signalField(k.IKIIQR))
	}
	return out
}

// integrityCols lists SignalColumns, and KeyColumns when keys, for an
// INSERT.
func integrityCols(keys bool) string {
	s := "untrusted_events, pastes, webdriver, pointer_or_key, honeypot"
	if keys {
		s += ", typed_chars, inserted_chars, iki_median_ms, iki_iqr_ms"
	}
	return s
}

// integrityUpdate is the SET list of an upsert that replaces the integrity
// record with the new answer's.
func integrityUpdate(keys bool) string {
	s := `
				untrusted_events = excluded.untrusted_events, pastes = excluded.pastes, webdriver = excluded.webdriver,
				pointer_or_key = excluded.pointer_or_key, honeypot = excluded.honeypot`
	if keys {
		s += `,
				typed_chars = excluded.typed_chars, inserted_chars = excluded.inserted_chars,
				iki_median_ms = excluded.iki_median_ms, iki_iqr_ms = excluded.iki_iqr_ms`
	}
	return s
}

// qIntegrityAdd is the SET list of an upsert that adds a page's integrity
// record to the row's: counts summed (clamped like the page's), webdriver
// and pointer_or_key the largest, the first filled honeypot kept; a signal
// not sent leaves the row's as it was.
const qIntegrityAdd = `
				untrusted_events = CASE WHEN excluded.untrusted_events IS NULL THEN untrusted_events
					ELSE MIN(COALESCE(untrusted_events, 0) + excluded.untrusted_events, 100000) END,
				pastes = CASE WHEN excluded.pastes IS NULL THEN pastes
					ELSE MIN(COALESCE(pastes, 0) + excluded.pastes, 100000) END,
				webdriver = CASE WHEN excluded.webdriver IS NULL THEN webdriver
					ELSE MAX(COALESCE(webdriver, 0), excluded.webdriver) END,
				pointer_or_key = CASE WHEN excluded.pointer_or_key IS NULL THEN pointer_or_key
					ELSE MAX(COALESCE(pointer_or_key, 0), excluded.pointer_or_key) END,
				honeypot = CASE WHEN honeypot = '' THEN excluded.honeypot ELSE honeypot END`

// integrityEvidence sums a participant's integrity signals: those of their
// rating screens, with what the server measured of each (times, in the
// same order; docs/studies.md#server-evidence), and, once sent, of their
// questionnaire. Its pastes count for paste_in_text only when one of its
// fields forbids pasting (questionnaireForbidsPaste).
func integrityEvidence(trs []domain.AnswerTrace, times []AnswerTimes, q domain.Questionnaire) domain.IntegrityEvidence {
	var e domain.IntegrityEvidence
	for i, t := range trs {
		e.Add(t.Signals, t.Honeypot, false)
		sc := domain.ScreenEvidence{Sent: !times[i].ShownAt.IsZero(), Server: -1}
		if sc.Sent && !times[i].AnsweredAt.IsZero() {
			sc.Server = times[i].AnsweredAt.Sub(times[i].ShownAt)
		}
		e.AddScreen(sc, times[i].RTms, t)
	}
	if in := q.Integrity; in.Signals != (domain.AnswerSignals{}) || in.Honeypot != "" {
		e.Add(in.Signals, in.Honeypot, questionnaireForbidsPaste)
	}
	return e
}

// questionnaireForbidsPaste: whether a field of the crowd questionnaire
// forbids pasting (data-paste="forbidden", templates.CrowdQuestionnaire).
// None does — native languages and comments may be pasted — so a paste
// there is no evidence and never raises paste_in_text
// (docs/studies.md#integrity-flags).
const questionnaireForbidsPaste = false
