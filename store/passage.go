package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"pragmalab/domain"
	"strings"
	"unicode/utf8"
)

// Passage kinds (the tag_simpl_IMPAQTS-PID column of IMPAQTS-PID).
const (
	PassageImpl = "Impl" // implicature
	PassagePpp  = "Ppp"  // presupposition
)

// Periods of the IMPAQTS corpus, named as in docs/items.md#periods.
const (
	Period1946 = "1946–1972"
	Period1973 = "1973–1993"
	Period1994 = "1994–2023"
)

// Length limits for passage fields: generous for real speeches, small
// enough that a malformed file cannot make one field swallow the database.
const (
	maxPassageKey  = 64
	maxPassageTag  = 64
	maxPassageSrc  = 128
	maxPassageText = 32 << 10
	maxPassageExpl = 8 << 10
)

// Passage is an IMPAQTS-style passage item (docs/items.md#passage-items): a
// passage of a political speech whose last sentence (the target) carries an
// implicit content, with the annotators' explanation and the multiple-choice
// options.
type Passage struct {
	ID          int64    // row id in the database; 0 before it is stored
	StudyID     int64    // the study it belongs to; 0 before it is stored
	Key         string   // the passage's own id in the file (IMPAQTS_id)
	Tag         string   // fine tag, e.g. Impl_cvrs, Ppp_rel
	Kind        string   // PassageImpl or PassagePpp
	Source      string   // speech file id, e.g. ADGA46-A1.xmi
	Period      string   // one of the Period constants, or "" when unknown
	Text        string   // the passage as published
	Sentences   []string // Text split into sentences; the target is the last
	Explanation string   // the implicit content as the annotators wrote it
	Topic       int      // topic cluster of the distractors; -1 = residual cluster
	Options     [4]string
	Answer      string // "A".."D", or "" when the passage has no options
}

// Target returns the passage's target sentence (its last).
func (p Passage) Target() string {
	if len(p.Sentences) == 0 {
		return ""
	}
	return p.Sentences[len(p.Sentences)-1]
}

// HasOptions reports whether the passage carries a multiple-choice task.
func (p Passage) HasOptions() bool {
	for _, o := range p.Options {
		if o != "" {
			return true
		}
	}
	return false
}

// Validate checks a passage's domain rules; the error names the field.
func (p Passage) Validate() error {
	texts := []domain.NamedValue{{Name: "text", V: p.Text}, {Name: "right_answer", V: p.Explanation}}
	for _, o := range p.Options {
		texts = append(texts, domain.NamedValue{Name: "MCs", V: o})
	}
	if err := domain.CheckControls([]domain.NamedValue{{Name: "IMPAQTS_id", V: p.Key}, {Name: "IMPAQTS_Implicit_content_tag", V: p.Tag}, {Name: "IMPAQTS_file", V: p.Source}, {Name: "right_answer_id", V: p.Answer}}, texts); err != nil {
		return err
	}
	switch {
	case strings.TrimSpace(p.Key) == "":
		return domain.FieldErrorf("IMPAQTS_id", "is empty")
	case utf8.RuneCountInString(p.Key) > maxPassageKey:
		return domain.FieldErrorf("IMPAQTS_id", "is longer than %d characters", maxPassageKey)
	case p.Kind != PassageImpl && p.Kind != PassagePpp:
		return domain.FieldErrorf("tag_simpl_IMPAQTS-PID", "kind %q is neither %q nor %q", p.Kind, PassageImpl, PassagePpp)
	case utf8.RuneCountInString(p.Tag) > maxPassageTag:
		return domain.FieldErrorf("IMPAQTS_Implicit_content_tag", "is longer than %d characters", maxPassageTag)
	case utf8.RuneCountInString(p.Source) > maxPassageSrc:
		return domain.FieldErrorf("IMPAQTS_file", "is longer than %d characters", maxPassageSrc)
	case p.Period != "" && p.Period != Period1946 && p.Period != Period1973 && p.Period != Period1994:
		return domain.FieldErrorf("period", "%q is not one of %s, %s, %s", p.Period, Period1946, Period1973, Period1994)
	case strings.TrimSpace(p.Text) == "":
		return domain.FieldErrorf("text", "is empty")
	case len(p.Text) > maxPassageText:
		return domain.FieldErrorf("text", "is longer than %d bytes", maxPassageText)
	case len(p.Sentences) == 0:
		return domain.FieldErrorf("text", "has no sentence")
	case strings.TrimSpace(p.Explanation) == "":
		return domain.FieldErrorf("right_answer", "(the explanation of the implicit content) is empty")
	case len(p.Explanation) > maxPassageExpl:
		return domain.FieldErrorf("right_answer", "is longer than %d bytes", maxPassageExpl)
	}
	return p.validateOptions()
}

func (p Passage) validateOptions() error {
	if !p.HasOptions() {
		if p.Answer != "" {
			return domain.FieldErrorf("right_answer_id", "answer %q given but the passage has no options", p.Answer)
		}
		return nil
	}
	for i, o := range p.Options {
		if strings.TrimSpace(o) == "" {
			return domain.FieldErrorf("MCs", "option %c is empty", 'A'+i)
		}
		if len(o) > maxPassageExpl {
			return domain.FieldErrorf("MCs", "option %c is longer than %d bytes", 'A'+i, maxPassageExpl)
		}
	}
	if len(p.Answer) != 1 || p.Answer[0] < 'A' || p.Answer[0] > 'D' {
		return domain.FieldErrorf("right_answer_id", "%q is not a letter A–D", p.Answer)
	}
	return nil
}

// PeriodOfSource derives the period from a speech file id such as
// "ADGA46-A1.xmi" or "MaMAR18-C2.xmi": the two digits just before the first
// "-" are the year (46–99 → 19xx, 00–45 → 20xx). It returns "" when the id
// carries no such year or the year lies outside 1946–2023.
func PeriodOfSource(source string) string {
	dash := strings.IndexByte(source, '-')
	if dash < 2 {
		return ""
	}
	d1, d2 := source[dash-2], source[dash-1]
	if d1 < '0' || d1 > '9' || d2 < '0' || d2 > '9' {
		return ""
	}
	yy := int(d1-'0')*10 + int(d2-'0')
	year := 2000 + yy
	if yy >= 46 {
		year = 1900 + yy
	}
	return PeriodOfYear(year)
}

// PeriodOfYear maps a year to its period, or "" outside 1946–2023.
func PeriodOfYear(year int) string {
	switch {
	case year >= 1946 && year <= 1972:
		return Period1946
	case year >= 1973 && year <= 1993:
		return Period1973
	case year >= 1994 && year <= 2023:
		return Period1994
	}
	return ""
}

// NormalizePeriod reads an explicit period value: one of the three periods
// written with an en dash or a hyphen, or a four-digit year.
func NormalizePeriod(s string) (string, bool) {
	s = strings.TrimSpace(s)
	for _, p := range []string{Period1946, Period1973, Period1994} {
		if s == p || s == strings.Replace(p, "–", "-", 1) {
			return p, true
		}
	}
	if len(s) == 4 {
		year := 0
		for _, c := range s {
			if c < '0' || c > '9' {
				return "", false
			}
			year = year*10 + int(c-'0')
		}
		if p := PeriodOfYear(year); p != "" {
			return p, true
		}
	}
	return "", false
}

// PassageKeyColumn is the import file's column holding a passage's own id;
// import errors name it.
const PassageKeyColumn = "IMPAQTS_id"

// ImportPassages stores a study's passages, all or nothing: every passage is
// validated first, and a key already in the study rejects the whole import
// (the error names the passage's position, 1-based, as the row of its file).
// Only context and explain studies hold passages.
func (db *DB) ImportPassages(ctx context.Context, studyID int64, ps []Passage) error {
	if len(ps) == 0 {
		return domain.Errorf(domain.EINVALID, "no passages to import")
	}
	seen := make(map[string]int, len(ps))
	for i := range ps {
		if err := ps[i].Validate(); err != nil {
			return domain.Errorf(domain.EINVALID, "row %d: %s", i+1, err)
		}
		if first, dup := seen[ps[i].Key]; dup {
			return domain.Errorf(domain.EINVALID, "row %d, field %q: duplicate id %q (first on row %d)", i+1, PassageKeyColumn, ps[i].Key, first)
		}
		seen[ps[i].Key] = i + 1
	}
	return db.tx(ctx, func(tx *sql.Tx) error {
		if err := passageStudy(ctx, tx, studyID); err != nil {
			return err
		}
		existing, err := passageIDs(ctx, tx, studyID)
		if err != nil {
			return fmt.Errorf("import passages: %w", err)
		}
		for i := range ps {
			if _, ok := existing[ps[i].Key]; ok {
				return domain.Errorf(domain.ECONFLICT, "row %d, field %q: the study already has passage %q", i+1, PassageKeyColumn, ps[i].Key)
			}
		}
		stmt, err := tx.PrepareContext(ctx, `
			INSERT INTO passages (study_id, key, tag, kind, source, period, text, sentences,
				explanation, topic, option_a, option_b, option_c, option_d, answer)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return fmt.Errorf("import passages: %w", err)
		}
		defer stmt.Close()
		for i := range ps {
			p := &ps[i]
			sents, _ := json.Marshal(p.Sentences)
			res, err := stmt.ExecContext(ctx, studyID, p.Key, p.Tag, p.Kind, p.Source, p.Period, p.Text, string(sents),
				p.Explanation, p.Topic, p.Options[0], p.Options[1], p.Options[2], p.Options[3], p.Answer)
			if err != nil {
				return fmt.Errorf("import passages: row %d: %w", i+1, err)
			}
			p.ID, _ = res.LastInsertId()
			p.StudyID = studyID
		}
		return nil
	})
}

// passageStudy checks that a study exists and is of a kind that holds passages.
func passageStudy(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, studyID int64) error {
	var kind string
	err := q.QueryRowContext(ctx, `SELECT kind FROM studies WHERE id = ?`, studyID).Scan(&kind)
	if errors.Is(err, sql.ErrNoRows) {
		return domain.Errorf(domain.ENOTFOUND, "study %d not found", studyID)
	}
	if err != nil {
		return fmt.Errorf("study %d: %w", studyID, err)
	}
	if kind != domain.KindContext && kind != domain.KindExplain {
		return domain.Errorf(domain.EINVALID, "study %d is a %s study; passages belong to context or explain studies", studyID, kind)
	}
	return nil
}

const passageColumnsSQL = `p.id, p.study_id, p.key, p.tag, p.kind, p.source, p.period, p.text, p.sentences,
	p.explanation, p.topic, p.option_a, p.option_b, p.option_c, p.option_d, p.answer`

func scanPassage(sc interface{ Scan(...any) error }) (Passage, error) {
	var p Passage
	var sents string
	err := sc.Scan(&p.ID, &p.StudyID, &p.Key, &p.Tag, &p.Kind, &p.Source, &p.Period, &p.Text, &sents,
		&p.Explanation, &p.Topic, &p.Options[0], &p.Options[1], &p.Options[2], &p.Options[3], &p.Answer)
	if err != nil {
		return p, err
	}
	if err := json.Unmarshal([]byte(sents), &p.Sentences); err != nil {
		return p, fmt.Errorf("passage %d sentences: %w", p.ID, err)
	}
	return p, nil
}

// ListPassages returns a study's passages in import order.
func (db *DB) ListPassages(ctx context.Context, studyID int64) ([]Passage, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT `+passageColumnsSQL+` FROM passages p WHERE p.study_id = ? ORDER BY p.id`, studyID)
	if err != nil {
		return nil, fmt.Errorf("list passages: %w", err)
	}
	defer rows.Close()
	var out []Passage
	for rows.Next() {
		p, err := scanPassage(rows)
		if err != nil {
			return nil, fmt.Errorf("list passages: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// PassageByKey returns the passage of a study with the given own id.
func (db *DB) PassageByKey(ctx context.Context, studyID int64, key string) (Passage, error) {
	p, err := scanPassage(db.read.QueryRowContext(ctx, `SELECT `+passageColumnsSQL+` FROM passages p WHERE p.study_id = ? AND p.key = ?`, studyID, key))
	if errors.Is(err, sql.ErrNoRows) {
		return p, domain.Errorf(domain.ENOTFOUND, "passage %q not found", key)
	}
	if err != nil {
		return p, fmt.Errorf("passage: %w", err)
	}
	return p, nil
}

// PassageCounts counts a study's passages per kind and period
// (keys "Impl 1946–1972" …) for the researcher's overview.
func (db *DB) PassageCounts(ctx context.Context, studyID int64) (map[string]int, int, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT kind, period, COUNT(*) FROM passages WHERE study_id = ? GROUP BY kind, period`, studyID)
	if err != nil {
		return nil, 0, fmt.Errorf("passage counts: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	total := 0
	for rows.Next() {
		var kind, period string
		var n int
		if err := rows.Scan(&kind, &period, &n); err != nil {
			return nil, 0, fmt.Errorf("passage counts: %w", err)
		}
		if period == "" {
			period = "unknown period"
		}
		out[kind+" "+period] = n
		total += n
	}
	return out, total, rows.Err()
}

func jsonUnmarshalString(s string, v any) error { return json.Unmarshal([]byte(s), v) }
