package cli

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"pragmalab/analysis"
	"pragmalab/analysis/toplines"
	"pragmalab/csvsafe"
	"pragmalab/domain"
	"pragmalab/itemfiles"
	"pragmalab/studies"
	"pragmalab/templates"
)

// A study's data package (docs/formats.md#data-package): the ratings,
// participants, items and design of a crowd study, described by a
// Frictionless Data Package descriptor (datapackage.json, Data Package v1
// with a Table Schema per CSV), a codebook written from the same field
// descriptions, the methods text and the R companion.

// pkgField is one column of a package's CSV: its Table Schema type,
// description and constraints. The schema and the codebook are both
// written from it, so they cannot disagree.
type pkgField struct {
	Name        string         `json:"name"`
	Type        string         `json:"type"`
	Format      string         `json:"format,omitempty"`
	Description string         `json:"description"`
	TrueValues  []string       `json:"trueValues,omitempty"`
	FalseValues []string       `json:"falseValues,omitempty"`
	Constraints map[string]any `json:"constraints,omitempty"`
}

// f builds a field; cons are key, value pairs of constraints.
func f(name, typ, desc string, cons ...any) pkgField {
	fd := pkgField{Name: name, Type: typ, Description: desc}
	if typ == "datetime" {
		// RFC 3339 in UTC with milliseconds: "any" takes the fraction,
		// which the default format (…T…Z, whole seconds) does not.
		fd.Format = "any"
	}
	for i := 0; i+1 < len(cons); i += 2 {
		if fd.Constraints == nil {
			fd.Constraints = map[string]any{}
		}
		fd.Constraints[cons[i].(string)] = cons[i+1]
	}
	return fd
}

// yesNo is a boolean column written yes or no.
func yesNo(name, desc string) pkgField {
	fd := f(name, "boolean", desc)
	fd.TrueValues, fd.FalseValues = []string{"yes"}, []string{"no"}
	return fd
}

const (
	pseudonymNote = "a pseudonym (p001, p002, … in order of arrival), the same in every file of the package; the Prolific id itself only with --with-prolific-ids"
	shownDesc     = "when the answer's screen was first shown, by the server's clock (RFC 3339, UTC)"
	answeredDesc  = "when the answer arrived (its last change), by the server's clock (RFC 3339, UTC)"
)

// ratingFields describes the ratings export's columns
// (docs/formats.md#ratings-export); scale is the study's number of points,
// conds the conditions a rating can carry.
func ratingFields(scale int, conds []string) []pkgField {
	return []pkgField{
		f("participant_id", "string", "the participant: "+pseudonymNote, "required", true),
		f("batch_id", "integer", "the batch (list) the participant rated", "required", true, "minimum", 1),
		f("item_id", "string", "the item's id, as in items.csv (attention checks are not in items.csv)", "required", true),
		f("item_type", "string", "the item's type (Impl, Ppp, or the type the items file gave)"),
		f("condition", "string", "the condition shown; trigger for attention checks", "required", true, "enum", conds),
		f("rating", "integer", fmt.Sprintf("the rating, 1 to %d on the study's scale (see Scale in the codebook)", scale), "required", true, "minimum", 1, "maximum", scale),
		f("check", "string", "high or low for an attention check (the rating expected at the top or the bottom of the scale), empty for an item", "enum", []string{"high", "low"}),
		f("item_version", "integer", "the version of the item the rating was given on", "minimum", 1),
		f("shown_at", "datetime", shownDesc),
		f("answered_at", "datetime", answeredDesc),
		f("rt_ms", "integer", "the response time the participant's browser reported, in ms; empty when JavaScript did not run", "minimum", 0),
		f("answer_changes", "integer", "how often the answer was changed before it was sent; empty without the page's script", "minimum", 0),
		f("hidden_ms", "integer", "ms the page was hidden (another tab or window) while on the screen; empty without the page's script", "minimum", 0),
		f("first_input_ms", "integer", "ms from the screen being shown to the first input; empty without the page's script", "minimum", 0),
		f("untrusted_events", "integer", "input events a script dispatched (integrity signal); empty without the page's script", "minimum", 0),
		f("pastes", "integer", "paste and drop events (integrity signal; none on a rating screen); empty without the page's script", "minimum", 0),
		f("webdriver", "integer", "1 when the browser said it was automated (navigator.webdriver), 0 when not; empty without the page's script", "minimum", 0, "maximum", 1),
		f("pointer_or_key", "integer", "1 when a real pointer or key event came before the answer, 0 when not; empty without the page's script", "minimum", 0, "maximum", 1),
		f("honeypot", "string", "what was typed in the form's hidden field (a person leaves it empty)"),
		f("machine_instruction", "integer", "1 when the screen carried the hidden instruction and the rating is the point it asked, 0 when it carried it and the rating is another, empty otherwise", "minimum", 0, "maximum", 1),
		f("scale_points", "integer", "the number of points of the scale the rating was given on", "minimum", domain.MinScalePoints, "maximum", domain.MaxScalePoints),
		f("design_version", "integer", "the version of the study's design the rating was given under", "minimum", 1),
	}
}

// participantFields describes the participants export's columns
// (docs/formats.md#crowd-participants-export).
func participantFields(withIDs bool) []pkgField {
	session := "Prolific's id of the participant's session; empty in this package (it would identify the participant on Prolific) unless exported with --with-prolific-ids"
	if withIDs {
		session = "Prolific's id of the participant's session"
	}
	pid := "the participant: " + pseudonymNote
	if withIDs {
		pid = "the participant's Prolific id (PROLIFIC_PID): exported with --with-prolific-ids"
	}
	return []pkgField{
		f("prolific_pid", "string", pid, "required", true, "unique", true),
		f("prolific_study_id", "string", "Prolific's id of the study the participant came from"),
		f("prolific_session_id", "string", session),
		f("batch_id", "integer", "the batch (list) the participant was given", "minimum", 1),
		f("status", "string", "active (not finished), completed, moved_on (timed out, the batch given to another) or screened_out", "required", true, "enum", []string{"active", "completed", "moved_on", "screened_out"}),
		f("started_at", "datetime", "when the participant started (RFC 3339, UTC)"),
		f("last_seen_at", "datetime", "when the participant was last seen (renewed by an answer when over 15 s old)"),
		f("completed_at", "datetime", "when the participant completed the batch; empty until then"),
		f("answered", "integer", "batch screens answered", "minimum", 0),
		f("screens", "integer", "batch screens in the participant's batch", "minimum", 0),
		f("training_wrong", "integer", "wrong answers on the practice items", "minimum", 0),
		f("checks_answered", "integer", "attention checks answered", "minimum", 0),
		f("checks_failed", "integer", "attention checks failed (by the study's thresholds, see Exclusions)", "minimum", 0),
		yesNo("auto_excluded", "yes when the study's exclusion rules (checks and data quality) exclude the participant"),
		f("override", "string", "the researcher's decision: include, exclude, or empty (none)", "enum", []string{"include", "exclude"}),
		yesNo("excluded", "the final decision: the rules' unless the researcher overrode them"),
		f("total_seconds", "number", "seconds from start to completion", "minimum", 0),
		f("median_rt_ms", "number", "median server-bounded response time of the participant's answers, in ms", "minimum", 0),
		f("fast_share", "number", "share (0–1) of answers faster than the study's speed threshold", "minimum", 0, "maximum", 1),
		f("longest_identical_run", "integer", "the longest run of identical ratings in a row", "minimum", 0),
		f("exclusion_reasons", "string", "the exclusion rules the participant met (checks and data quality), joined by \"; \""),
		f("traced_answers", "integer", "answers with a behavioural trace (0 without JavaScript)", "minimum", 0),
		f("answer_changes", "integer", "answer changes summed over the traced answers", "minimum", 0),
		f("hidden_ms", "integer", "ms the page was hidden, summed over the traced answers", "minimum", 0),
		f("median_first_input_ms", "number", "median ms to the first input over the traced answers", "minimum", 0),
		f("native_languages", "string", "the native languages the participant typed in the post-study questionnaire (free text)"),
		f("age_range", "string", "the age range given in the questionnaire", "enum", []string{"18-24", "25-34", "35-44", "45-54", "55-64", "65+", "no_answer"}),
		f("gender", "string", "the gender given in the questionnaire", "enum", []string{"woman", "man", "non_binary", "other", "no_answer"}),
		f("comments", "string", "the participant's comments in the questionnaire (free text)"),
		f("typed_chars", "integer", "characters typed in the questionnaire's text fields", "minimum", 0),
		f("inserted_chars", "integer", "characters inserted otherwise than by typing (paste, drop, dictation)", "minimum", 0),
		f("iki_median_ms", "number", "median inter-key interval while typing, in ms", "minimum", 0),
		f("iki_iqr_ms", "number", "interquartile range of the inter-key intervals, in ms", "minimum", 0),
		f("integrity_flags", "string", "the participant's integrity flags joined by \";\" (honeypot, synthetic_input, webdriver, …: docs/studies.md#integrity-flags); they inform, never exclude by themselves"),
		f("design_version", "integer", "the version of the study's design of the participant's batch (only in a study of several design versions)", "minimum", 1),
	}
}

// itemFields describes the cleaned items export's columns
// (docs/formats.md#cleaned-items-export).
func itemFields() []pkgField {
	return []pkgField{
		f("id", "string", "the item's id", "required", true, "unique", true),
		f("type", "string", "the item's type (Impl: an implicature, Ppp: a presupposition, or the researcher's own)"),
		f("context", "string", "the context sentence (c) shown before the utterance"),
		f("utterance", "string", "the utterance (u) whose inference is rated", "required", true),
		f("implicature", "string", "the inference (b) the participant rates"),
		f("cancellation", "string", "the follow-up cancelling the inference (u×, condition cancel)"),
		f("negation", "string", "the negating follow-up (u⊥), a control condition"),
		f("strengthening", "string", "the strengthening follow-up (u+), a control condition"),
		f("neutral", "string", "the neutral follow-up (u≈), a control condition"),
		f("check", "string", "empty: attention checks are left out of this file", "enum", []string{"high", "low"}),
		f("training", "string", "empty: practice items are not data"),
	}
}

// pkgResource is one file of the package.
type pkgResource struct {
	Name      string     `json:"name"`
	Path      string     `json:"path"`
	Profile   string     `json:"profile,omitempty"`
	Title     string     `json:"title,omitempty"`
	Desc      string     `json:"description,omitempty"`
	Format    string     `json:"format"`
	Mediatype string     `json:"mediatype"`
	Encoding  string     `json:"encoding"`
	Schema    *pkgSchema `json:"schema,omitempty"`

	data []byte
}

type pkgSchema struct {
	Fields      []pkgField      `json:"fields"`
	PrimaryKey  []string        `json:"primaryKey,omitempty"`
	ForeignKeys []pkgForeignKey `json:"foreignKeys,omitempty"`
	// MissingValues: an empty cell is a missing value.
	MissingValues []string `json:"missingValues"`
}

type pkgForeignKey struct {
	Fields    []string `json:"fields"`
	Reference struct {
		Resource string   `json:"resource"`
		Fields   []string `json:"fields"`
	} `json:"reference"`
}

// pkgDescriptor is datapackage.json.
type pkgDescriptor struct {
	Profile     string        `json:"profile"`
	Name        string        `json:"name"`
	Title       string        `json:"title"`
	Description string        `json:"description"`
	Created     string        `json:"created"`
	Keywords    []string      `json:"keywords,omitempty"`
	Resources   []pkgResource `json:"resources"`
}

// tableResource describes CSV data by the columns of its header, each
// taken from fields; a column fields does not know is an error, so a new
// export column cannot reach a package undescribed.
func tableResource(name, title string, data []byte, fields []pkgField) (pkgResource, error) {
	header, err := csv.NewReader(bytes.NewReader(data)).Read()
	if err != nil {
		return pkgResource{}, fmt.Errorf("package: %s.csv: %w", name, err)
	}
	byName := map[string]pkgField{}
	for _, fd := range fields {
		byName[fd.Name] = fd
	}
	sch := &pkgSchema{MissingValues: []string{""}}
	for _, col := range header {
		fd, ok := byName[col]
		if !ok {
			return pkgResource{}, fmt.Errorf("package: %s.csv: column %q has no description in the package's schema (cli/export_package.go)", name, col)
		}
		sch.Fields = append(sch.Fields, fd)
	}
	return pkgResource{Name: name, Path: name + ".csv", Profile: "tabular-data-resource", Title: title,
		Format: "csv", Mediatype: "text/csv", Encoding: "utf-8", Schema: sch, data: data}, nil
}

// fileResource is a file of the package that is not a table.
func fileResource(path, title, format, mediatype string, data []byte) pkgResource {
	name := strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(path))
	return pkgResource{Name: name, Path: path, Profile: "data-resource", Title: title, Format: format,
		Mediatype: mediatype, Encoding: "utf-8", data: data}
}

// crowdPackage builds the data package of crowd study st: the resources,
// then datapackage.json and codebook.md among them. Without withIDs the
// participants' Prolific ids are replaced by pseudonyms in every file and
// the session ids left out.
func crowdPackage(ctx context.Context, svc *studies.Service, db domain.Stores, st *domain.Study, withIDs bool, now time.Time) ([]pkgResource, error) {
	set, rows, opt, err := svc.CrowdAnalysisRows(ctx, st.ID)
	if err != nil {
		return nil, err
	}
	scale := set.ScalePoints
	if scale == 0 {
		scale = domain.RatingMax
	}
	var parts, rates bytes.Buffer
	if err := svc.ExportCrowdParticipants(ctx, st.ID, &parts); err != nil {
		return nil, err
	}
	if err := db.ExportCrowdRatings(ctx, st.ID, &rates, false); err != nil {
		return nil, err
	}
	// The pseudonyms follow the participants file's order (arrival).
	pseudo := func(id string) string { return id }
	if !withIDs {
		ids, err := csvColumn(parts.Bytes(), "prolific_pid")
		if err != nil {
			return nil, err
		}
		width := max(3, len(strconv.Itoa(len(ids))))
		m := make(map[string]string, len(ids))
		for i, id := range ids {
			m[id] = fmt.Sprintf("p%0*d", width, i+1)
		}
		// An id the participants file lacks (none should) gets the next
		// pseudonym: two participants never share one.
		pseudo = func(id string) string {
			p, ok := m[id]
			if !ok {
				p = fmt.Sprintf("p%0*d", width, len(m)+1)
				m[id] = p
			}
			return p
		}
		pb, err := rewriteCSV(parts.Bytes(), map[string]func(string) string{
			"prolific_pid": pseudo, "prolific_session_id": func(string) string { return "" }})
		if err != nil {
			return nil, err
		}
		rb, err := rewriteCSV(rates.Bytes(), map[string]func(string) string{"participant_id": pseudo})
		if err != nil {
			return nil, err
		}
		parts.Reset()
		parts.Write(pb)
		rates.Reset()
		rates.Write(rb)
	}
	items, err := db.CleanedItems(ctx, st.ID)
	if err != nil {
		return nil, err
	}
	judgement := st.Kind == domain.KindJudgement
	var itemsCSV bytes.Buffer
	itemFieldsOf := itemFields()
	if judgement {
		// A judgement study's items in its own file's columns, one row per
		// item and condition (docs/formats.md#judgement-items-csv).
		if err := itemfiles.WriteJudgementItemsCSV(&itemsCSV, items, set.Conditions); err != nil {
			return nil, err
		}
		itemFieldsOf = judgementItemFields(set.Conditions)
	} else if err := itemfiles.WriteItemsCSV(&itemsCSV, items); err != nil {
		return nil, err
	}

	// The conditions a rating can carry: the study's (trigger and cancel
	// where it names none), and any other the ratings hold (a setting
	// changed after ratings came in), so the enum never lies.
	conds := slices.Clone(set.Conditions)
	if len(conds) == 0 {
		conds = []string{domain.ConditionTrigger, domain.ConditionCancel}
	}
	if !judgement && !slices.Contains(conds, domain.ConditionTrigger) {
		conds = append([]string{domain.ConditionTrigger}, conds...)
	}
	held, err := csvColumn(rates.Bytes(), "condition")
	if err != nil {
		return nil, err
	}
	for _, c := range held {
		if c != "" && !slices.Contains(conds, c) {
			conds = append(conds, c)
		}
	}
	// A study of several design versions holds each version's ratings on
	// its own scale (docs/studies.md#design-versions): the schema's
	// bound is the largest.
	top := scale
	points, err := csvColumn(rates.Bytes(), "scale_points")
	if err != nil {
		return nil, err
	}
	for _, p := range points {
		if n, err := strconv.Atoi(p); err == nil {
			top = max(top, n)
		}
	}
	rfields := ratingFields(top, conds)
	if judgement {
		rfields = judgementRatingFields(rfields)
	}
	ratings, err := tableResource("ratings", "Ratings", rates.Bytes(), rfields)
	if err != nil {
		return nil, err
	}
	ratings.Desc = "One row per rating of every participant who completed their batch (attention checks included, practice left out), in arrival order then screen order. Nobody is excluded here: the analysis applies the exclusions (see the codebook)."
	fk := pkgForeignKey{Fields: []string{"participant_id"}}
	fk.Reference.Resource, fk.Reference.Fields = "participants", []string{"prolific_pid"}
	ratings.Schema.ForeignKeys = []pkgForeignKey{fk}
	participants, err := tableResource("participants", "Participants", parts.Bytes(), participantFields(withIDs))
	if err != nil {
		return nil, err
	}
	participants.Desc = "One row per participant who started, in order of arrival, with the exclusion decisions and data-quality measures."
	participants.Schema.PrimaryKey = []string{"prolific_pid"}
	itemsRes, err := tableResource("items", "Items", itemsCSV.Bytes(), itemFieldsOf)
	if err != nil {
		return nil, err
	}
	itemsRes.Desc = "The cleaned data set: the study's active items in the items-file format (attention checks and practice items left out)."
	itemsRes.Schema.PrimaryKey = []string{"id"}
	if judgement {
		itemsRes.Desc = "The cleaned data set: the study's active items in the judgement items file's format, one row per item and condition (attention checks and practice items left out)."
		itemsRes.Schema.PrimaryKey = []string{"item", "condition"}
	}

	// The design: the one the study opened with where it was kept.
	var design bytes.Buffer
	designNote := ""
	if b, at, err := db.OpeningDesign(ctx, st.ID); err == nil {
		design.Write(b)
		designNote = fmt.Sprintf("design.json is the design file the study opened with (%s), byte for byte, as kept when it opened (docs/studies.md#frozen-design).", at)
	} else if domain.ErrorCode(err) == domain.ENOTFOUND {
		d, err := svc.StudyDesign(ctx, st.ID)
		if err != nil {
			return nil, err
		}
		if err := studies.WriteDesign(&design, d); err != nil {
			return nil, err
		}
		designNote = "design.json is the study's design as it is now: the study has kept no design from its opening (it has not opened since pragmalab kept them), so a change made after it opened would not show here."
	} else {
		return nil, err
	}

	if codes := designCodes(design.Bytes()); len(codes) > 0 {
		designNote += " It holds the study's Prolific codes (" + strings.Join(codes, ", ") + "): anyone who reads them can claim a completion on Prolific, so deposit design.json only once the study is closed there, or blank them in a copy."
	}

	res := []pkgResource{ratings, participants, itemsRes,
		fileResource("design.json", "Study design", "json", "application/json", design.Bytes())}

	// The analysis, on the pseudonymised rows: the exclusions, the methods
	// text and the R companion.
	var an pkgAnalysis
	if judgement {
		an, err = judgementPackageAnalysis(ctx, rates.Bytes(), set, scale, opt, pseudo, st.Lang)
	} else {
		an, err = packageAnalysis(rows, opt, set.ScalePoints, pseudo)
	}
	if err != nil {
		return nil, err
	}
	if an.methods != "" {
		res = append(res, fileResource("methods.md", "Methods", "md", "text/markdown", []byte(an.methods)))
	}
	for _, name := range slices.Sorted(maps.Keys(an.r)) {
		format, mt := "csv", "text/csv"
		if strings.HasSuffix(name, ".R") {
			format, mt = "r", "text/x-r"
		}
		res = append(res, fileResource("r/"+name, "R companion: "+name, format, mt, an.r[name]))
	}
	cb := codebook(st, set, scale, res, an, designNote, withIDs)
	res = append(res, fileResource("codebook.md", "Codebook", "md", "text/markdown", []byte(cb)))

	desc := pkgDescriptor{
		Profile: "data-package",
		Name:    packageName(st),
		Title:   st.Name,
		Description: fmt.Sprintf("The data of the pragmalab %s study %q (study %d): ratings, participants, items and design, with a codebook (codebook.md), the methods text and an R companion. No licence is set: the researcher adds one before depositing (see the codebook).",
			st.Kind, st.Name, st.ID),
		Created:  now.UTC().Format(time.RFC3339),
		Keywords: []string{"pragmalab", "ratings", "crowdsourcing"},
	}
	for _, r := range res {
		d := r
		d.data = nil
		desc.Resources = append(desc.Resources, d)
	}
	var dp bytes.Buffer
	enc := json.NewEncoder(&dp)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(desc); err != nil {
		return nil, err
	}
	return append(res, pkgResource{Path: "datapackage.json", data: dp.Bytes()}), nil
}

// designCodes names the Prolific codes a crowd design file sets
// (completion, screen-out, no-consent), which a participant types to be
// paid.
func designCodes(design []byte) []string {
	var d struct {
		Settings map[string]any `json:"settings"`
	}
	if json.Unmarshal(design, &d) != nil {
		return nil
	}
	var out []string
	for _, k := range []string{"completion_code", "screen_out_code", "no_consent_code"} {
		if v, ok := d.Settings[k].(string); ok && v != "" {
			out = append(out, "`"+k+"`")
		}
	}
	return out
}

// packageName is the package's name: lower case, digits, "-", "_", ".".
func packageName(st *domain.Study) string {
	var b strings.Builder
	for _, r := range strings.ToLower(st.Name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			if s := b.String(); s != "" && !strings.HasSuffix(s, "-") {
				b.WriteByte('-')
			}
		}
	}
	name := strings.Trim(b.String(), "-")
	if name == "" {
		return fmt.Sprintf("pragmalab-study-%d", st.ID)
	}
	return fmt.Sprintf("pragmalab-study-%d-%s", st.ID, name)
}

// pkgAnalysis is what the package takes from the study's analysis.
type pkgAnalysis struct {
	none     string // why there is no analysis, when there is none
	command  string
	summary  []string
	excluded []studies.Excluded
	flagged  int
	methods  string
	r        map[string][]byte
}

// packageAnalysis runs the study's Analysis page analysis on its rows with
// the participants renamed by pseudo: the same exclusions, methods text and
// R companion as the page's, with no Prolific id in them.
func packageAnalysis(rows []toplines.RatingRow, opt toplines.Options, points int, pseudo func(string) string) (pkgAnalysis, error) {
	if rows == nil {
		return pkgAnalysis{none: "Nobody has completed a batch with a rated item yet, so there is no analysis: no methods text and no R companion."}, nil
	}
	for i := range rows {
		rows[i].Participant = pseudo(rows[i].Participant)
	}
	rs, err := toplines.NewRatings(rows)
	if err != nil {
		return pkgAnalysis{}, err
	}
	rs.ScalePoints = points
	for i := range opt.Include {
		opt.Include[i] = pseudo(opt.Include[i])
	}
	for i := range opt.Exclude {
		opt.Exclude[i] = pseudo(opt.Exclude[i])
	}
	if opt.Flagged != nil {
		fl := make(map[string][]string, len(opt.Flagged))
		for id, why := range opt.Flagged {
			fl[pseudo(id)] = why
		}
		opt.Flagged = fl
	}
	a := studies.RatingsAnalysis(rs, opt)
	out := pkgAnalysis{command: a.Command, summary: a.Summary, excluded: a.Excluded, flagged: len(opt.Flagged)}
	if a.Methods != nil {
		out.methods = a.Methods.Markdown()
	}
	ropt := opt
	ropt.Bootstrap = analysis.Bootstrap{} // the companion recomputes the point estimates
	t := toplines.ComputeToplines(rs, ropt)
	args := strings.Fields(strings.TrimPrefix(studies.ToplinesCommand(ropt, points), "pragmalab analyze toplines "))
	if out.r, err = toplinesCompanion(args, rs, t, ropt, false).files("analysis.R", "R companion"); err != nil {
		return pkgAnalysis{}, err
	}
	return out, nil
}

// codebook writes codebook.md: every column of every table (from the same
// fields as the schema), the scale, the exclusions, the design and what
// else the package holds.
func codebook(st *domain.Study, set domain.CrowdSettings, scale int, res []pkgResource, an pkgAnalysis, designNote string, withIDs bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Codebook: %s\n\n", st.Name)
	fmt.Fprintf(&b, "The data package of pragmalab %s study %d (%q, language %s). `datapackage.json` describes every file (a Frictionless Data Package, v1; each CSV has a Table Schema); this codebook says the same in words, from the same descriptions.\n\n", st.Kind, st.ID, st.Name, st.Lang)
	b.WriteString("## Licence\n\nNo licence is set. Before depositing, add one to `datapackage.json` (`\"licenses\": [{\"name\": …, \"path\": …}]`) and here — pragmalab does not choose it for you.\n\n")
	b.WriteString("## Participants' ids\n\n")
	if withIDs {
		b.WriteString("This package holds the participants' **Prolific ids** (exported with `--with-prolific-ids`) and their session ids. They identify the participants on Prolific: do not deposit it publicly as it is.\n\n")
	} else {
		b.WriteString("Each participant is named by a pseudonym (`p001`, `p002`, … in order of arrival), the same in every file, the methods text and the R companion. The Prolific ids and session ids are not in the package. Free text the participants typed (`comments`, `native_languages`, `honeypot`) is as typed: read it before depositing.\n\n")
	}
	b.WriteString("## Reading the CSV files\n\nUTF-8, comma-separated, a header row, quoted as RFC 4180 says; an empty cell is a missing value. Times are RFC 3339 in UTC with milliseconds. A text cell that a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, a tab or a carriage return, after any single quotes) carries one more single quote in front: drop it to read the text as typed (docs/formats.md#formula-cells).\n\n")
	b.WriteString("## Scale\n\n")
	sc := templates.ScaleOf(set)
	fmt.Fprintf(&b, "Ratings are on a %d-point scale, 1 to %d, the points shown as radio buttons under the question (as the participants read it, language %s): %s\n\n", scale, scale, st.Lang, sc.QuestionIn(st.Lang))
	b.WriteString("| point | label shown |\n| --- | --- |\n")
	for p := 1; p <= scale; p++ {
		l := sc.PointLabel(st.Lang, p)
		if l == "" {
			l = "(none: the number alone)"
		} else if set.ScaleLabels[strconv.Itoa(p)] == "" {
			l += " (the language's default end label)"
		}
		fmt.Fprintf(&b, "| %d | %s |\n", p, mdCell(l))
	}
	b.WriteString("\n")
	if set.Judgement() {
		fmt.Fprintf(&b, "Conditions: %s, the study's own (a judgement study, docs/studies.md#judgement-study): a data item is rated in one of them by each participant, the conditions crossed with the items in a Latin square; an attention check or practice item is in its one condition. See `condition` in ratings.csv for every value the ratings hold.\n\n", strings.Join(set.Conditions, ", "))
	} else {
		fmt.Fprintf(&b, "Conditions: %s (`trigger` also marks the attention checks; see `condition` in ratings.csv for every value the ratings hold).\n\n", strings.Join(set.Conditions, ", "))
	}
	b.WriteString("## Exclusions\n\n")
	fmt.Fprintf(&b, "The files hold every participant and every rating; the analysis leaves out participants by the study's rules: a high attention check passes at a rating ≥ %d, a low one at ≤ %d, and a participant who fails %d or more is excluded. %s The researcher's decisions (`override` in participants.csv) come last. `excluded` in participants.csv is the final decision.\n\n",
		set.CheckHighMin, set.CheckLowMax, set.MaxFailedChecks, qualityRulesText(set))
	if an.none != "" {
		b.WriteString(an.none + "\n\n")
	} else {
		for _, s := range an.summary {
			b.WriteString("- " + s + "\n")
		}
		fmt.Fprintf(&b, "- %d participants met a data-quality rule (their reasons are in `exclusion_reasons`).\n\n", an.flagged)
		b.WriteString(leftOutTable(an.excluded))
		fmt.Fprintf(&b, "The same analysis from the ratings file: `%s`.\n\n", an.command)
	}
	b.WriteString("## Design\n\n" + designNote + "\n\n")
	b.WriteString("## Methods and R companion\n\n")
	if an.none != "" {
		b.WriteString(an.none + "\n\n")
	} else {
		if set.Judgement() {
			b.WriteString("`methods.md` is the methods paragraph of the analysis by condition (docs/statistics.md#judgement-by-condition), its numbers filled in. `r/` is the R companion: `Rscript analysis.R` in that folder recomputes the means by condition and their differences from its data files (the ratings with the pseudonyms, the settings), compares them with pragmalab's, and fits the ordinal mixed model (docs/statistics.md#reproducing-in-r).\n\n")
		} else {
			b.WriteString("`methods.md` is the methods paragraph of the study's Analysis page, its numbers filled in. `r/` is the R companion: `Rscript analysis.R` in that folder recomputes the toplines from its data files (the ratings with the pseudonyms, the participants, the settings) and compares them with pragmalab's (docs/statistics.md#reproducing-in-r).\n\n")
		}
	}
	b.WriteString("## Files\n\n")
	for _, r := range res {
		if r.Schema != nil {
			continue
		}
		fmt.Fprintf(&b, "- `%s`: %s\n", r.Path, r.Title)
	}
	b.WriteString("\n")
	for _, r := range res {
		if r.Schema == nil {
			continue
		}
		fmt.Fprintf(&b, "### %s\n\n%s\n\n", r.Path, r.Desc)
		if len(r.Schema.PrimaryKey) > 0 {
			fmt.Fprintf(&b, "Each row is one %s (`%s` is unique).\n\n", strings.TrimSuffix(r.Name, "s"), strings.Join(r.Schema.PrimaryKey, "`, `"))
		}
		b.WriteString("| column | type | values | meaning |\n| --- | --- | --- | --- |\n")
		for _, fd := range r.Schema.Fields {
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", fd.Name, fd.Type, mdCell(valuesText(fd)), mdCell(fd.Description))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// qualityRulesText names the data-quality rules the study set
// (docs/studies.md#data-quality-flags), each off at 0.
func qualityRulesText(set domain.CrowdSettings) string {
	var rules []string
	if set.ExcludeFastPercent > 0 {
		rules = append(rules, fmt.Sprintf("%d%% or more of the answers faster than %d ms", set.ExcludeFastPercent, set.FastMS))
	}
	if set.ExcludeMedianRT > 0 {
		rules = append(rules, fmt.Sprintf("a median response time under %d ms", set.ExcludeMedianRT))
	}
	if set.ExcludeRun > 0 {
		rules = append(rules, fmt.Sprintf("%d or more identical ratings in a row", set.ExcludeRun))
	}
	if set.ExcludeTotalSeconds > 0 {
		rules = append(rules, fmt.Sprintf("a total time under %d s", set.ExcludeTotalSeconds))
	}
	if set.ExcludeHiddenSeconds > 0 {
		rules = append(rules, fmt.Sprintf("the page hidden %d s or more in all", set.ExcludeHiddenSeconds))
	}
	if len(rules) == 0 {
		return "The study set no data-quality rule (docs/studies.md#data-quality-flags)."
	}
	return "The study's data-quality rules (docs/studies.md#data-quality-flags) exclude a participant with " + strings.Join(rules, "; or ") + "."
}

// valuesText says in words what values a field's constraints allow.
func valuesText(fd pkgField) string {
	var parts []string
	c := fd.Constraints
	if e, ok := c["enum"].([]string); ok {
		parts = append(parts, "one of "+strings.Join(e, ", "))
	}
	lo, hasLo := c["minimum"]
	hi, hasHi := c["maximum"]
	switch {
	case hasLo && hasHi:
		parts = append(parts, fmt.Sprintf("%v–%v", lo, hi))
	case hasLo:
		parts = append(parts, fmt.Sprintf("≥ %v", lo))
	}
	if len(fd.TrueValues) > 0 {
		parts = append(parts, strings.Join(fd.TrueValues, "/")+" or "+strings.Join(fd.FalseValues, "/"))
	}
	if c["required"] == true {
		parts = append(parts, "never empty")
	} else {
		parts = append(parts, "may be empty")
	}
	return strings.Join(parts, "; ")
}

// mdCell makes s safe in a Markdown table cell.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
}

// csvColumn returns the values of column name of CSV data, in order.
func csvColumn(data []byte, name string) ([]string, error) {
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("package: an export without a header")
	}
	col := slices.Index(recs[0], name)
	if col < 0 {
		return nil, fmt.Errorf("package: the export has no column %s", name)
	}
	var out []string
	for _, r := range recs[1:] {
		out = append(out, r[col])
	}
	return out, nil
}

// rewriteCSV rewrites the named columns of CSV data through their
// functions, keeping every other cell as it was.
func rewriteCSV(data []byte, cols map[string]func(string) string) ([]byte, error) {
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return data, nil
	}
	// The cells as stored (csvsafe's formula quote undone), so that the
	// writer's quoting gives back the export's cells exactly.
	for _, r := range recs {
		for i := range r {
			r[i] = csvsafe.Unquote(r[i])
		}
	}
	for name, fn := range cols {
		col := slices.Index(recs[0], name)
		if col < 0 {
			return nil, fmt.Errorf("package: the export has no column %s", name)
		}
		for _, r := range recs[1:] {
			r[col] = fn(r[col])
		}
	}
	var out bytes.Buffer
	w := csvsafe.NewWriter(&out)
	if err := w.WriteAll(recs); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// writePackageDir writes the package's files into dir, which must not
// exist (or be empty): they are written to a new directory beside it,
// readable by the owner only, and it is moved into place whole, so a
// failure leaves no half package.
func writePackageDir(dir string, res []pkgResource) error {
	if fi, err := os.Lstat(dir); err == nil {
		empty := false
		if fi.IsDir() {
			ents, err := os.ReadDir(dir)
			empty = err == nil && len(ents) == 0
		}
		if !empty {
			return usagef("export: %s already exists and is not an empty directory; give a new directory for the package", dir)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("export: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(filepath.Clean(dir)), ".pragmalab-package-*")
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer os.RemoveAll(tmp)
	for _, r := range res {
		p := filepath.Join(tmp, filepath.FromSlash(r.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		if err := os.WriteFile(p, r.data, 0o600); err != nil {
			return fmt.Errorf("export: %w", err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

// writePackageZip writes the package's files as a zip, each under folder.
func writePackageZip(w io.Writer, folder string, res []pkgResource) error {
	zw := zip.NewWriter(w)
	for _, r := range res {
		f, err := zw.Create(folder + "/" + r.Path)
		if err != nil {
			return err
		}
		if _, err := f.Write(r.data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// PackageZip writes a crowd or judgement study's data package as a zip, for the study
// page's download (docs/formats.md#data-package), without the Prolific
// ids. Another kind of study is EINVALID, saying so.
func PackageZip(svc *studies.Service, db domain.Stores) func(ctx context.Context, s *domain.Study, w io.Writer) error {
	return func(ctx context.Context, s *domain.Study, w io.Writer) error {
		if !domain.IsCrowdKind(s.Kind) {
			return domain.Errorf(domain.EINVALID, "%s", packageKindRefusal(s))
		}
		res, err := crowdPackage(ctx, svc, db, s, false, time.Now())
		if err != nil {
			return err
		}
		return writePackageZip(w, fmt.Sprintf("study-%d-package", s.ID), res)
	}
}

// packageKindRefusal says why a study of another kind has no package.
func packageKindRefusal(s *domain.Study) string {
	return fmt.Sprintf("package export is built for crowd and judgement studies; study %d is of kind %s: export its files one by one with --what (docs/cli.md#export)", s.ID, s.Kind)
}

// leftOutTable is the codebook's table of the participants the analysis
// leaves out, each with why, or "" when it leaves out nobody. A judgement
// study's participant who gave every item the same rating is left out of
// the z-scores only, the ratings counted on the scale: the heading says
// both, or it would contradict its own row.
func leftOutTable(excluded []studies.Excluded) string {
	if len(excluded) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Left out of the analysis, or of its z-scores only:\n\n| participant | why |\n| --- | --- |\n")
	for _, e := range excluded {
		fmt.Fprintf(&b, "| %s | %s |\n", mdCell(e.ID), mdCell(e.Reason))
	}
	return b.String() + "\n"
}
