package studies

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"pragmalab/domain"
	"pragmalab/itemfiles"
)

// A study's design as one file (docs/studies.md#design-file): its kind,
// name, language, every setting of its kind with the texts, its items (or
// passages and outputs) in the import format, and the seed its batches are
// built from. `pragmalab study design` writes it, `pragmalab study create`
// and the admin page's "New study from a design file" read it back; the
// round trip is exact.

// DesignFormat names the file's format and version.
const DesignFormat = "pragmalab-study-design/1"

// Design is a study's design file.
type Design struct {
	Format   string          `json:"format"`
	Kind     string          `json:"kind"`
	Name     string          `json:"name"`
	Lang     string          `json:"lang"`
	Settings json.RawMessage `json:"settings"`
	Batches  DesignBatches   `json:"batches"`
	// Items are the implicature items of an expert or crowd study, each
	// an object of the JSON Lines import format (docs/formats.md), or a
	// judgement study's items, each a DesignJudgementItem.
	Items []json.RawMessage `json:"items,omitempty"`
	// Passages and Outputs are a context or explain study's material.
	Passages []DesignPassage `json:"passages,omitempty"`
	Outputs  []DesignOutput  `json:"outputs,omitempty"`
}

// DesignBatches says how the study's batches (or surveys, or screens) are
// built: by the kind's rule, from the settings, shuffled with Seed.
type DesignBatches struct {
	Seed int64  `json:"seed"`
	Rule string `json:"rule"`
}

// DesignJudgementItem is one item of a judgement study's design
// (docs/studies.md#design-file): its id, its texts keyed by condition and
// its role — an attention check's expected side, or a practice item's
// expected answer. A data item has a text in each of the study's
// conditions, a check or practice item in one.
type DesignJudgementItem struct {
	ID       string                    `json:"id"`
	Variants map[string]domain.Variant `json:"variants"`
	Check    string                    `json:"check,omitempty"`
	Training string                    `json:"training,omitempty"`
}

// DesignPassage is one passage, with the fields of the passage import
// (docs/items.md#passage-fields); the sentences are split again from text.
type DesignPassage struct {
	ID          string   `json:"id"`
	Source      string   `json:"source"`
	Tag         string   `json:"tag"`
	Kind        string   `json:"kind"`
	Period      string   `json:"period"`
	Topic       *int     `json:"topic"`
	Text        string   `json:"text"`
	Explanation string   `json:"explanation"`
	Options     []string `json:"options,omitempty"`
	Answer      string   `json:"answer,omitempty"`
}

// DesignOutput is one model output of an explain study
// (docs/formats.md#model-outputs-csv).
type DesignOutput struct {
	ItemID   string `json:"item_id"`
	Strategy string `json:"strategy"`
	Model    string `json:"model"`
	Output   string `json:"output"`
}

// batchRules are the rules DesignBatches.Rule states, per kind.
var batchRules = map[string]string{
	domain.KindExpert:    "batches of batch_size screens with checks attention checks drawn in proportion to the item types; round 1 shared, round 2 split (docs/studies.md#expert-batches)",
	domain.KindCrowd:     "batches of batch_size data items, the conditions balanced in each batch, every item in every condition across batches, the checks shared by all batches, order shuffled with the seed (docs/studies.md#crowd-batches)",
	domain.KindJudgement: "batches of batch_size data items in a Latin square over items × conditions: each batch shows every condition equally often and no item twice, every item in every condition across batches, the checks shared by all batches, order shuffled with the seed (docs/studies.md#judgement-batches)",
	domain.KindContext:   "surveys of per_survey passages balanced by kind and period, each answered by experts_per_survey experts (docs/studies.md#context-design)",
	domain.KindExplain:   "per_expert screens per expert, each output rated by overlap experts, assigned as experts are invited (docs/studies.md#explanation-design)",
}

// kindSettings returns a pointer to the defaults of kind's settings and
// the function that validates them.
func kindSettings(kind string) (any, func() error, error) {
	switch kind {
	case domain.KindExpert:
		s := domain.DefaultExpertSettings()
		return &s, s.Validate, nil
	case domain.KindCrowd:
		s := domain.DefaultCrowdSettings()
		return &s, s.Validate, nil
	case domain.KindJudgement:
		s := domain.DefaultJudgementSettings()
		return &s, s.Validate, nil
	case domain.KindContext:
		s := domain.DefaultContextSettings()
		return &s, s.Validate, nil
	case domain.KindExplain:
		s := domain.DefaultExplainSettings()
		return &s, s.Validate, nil
	}
	return nil, nil, domain.Errorf(domain.EINVALID, "kind: %q is not a study kind (expert, crowd, judgement, context, explain)", kind)
}

// validSettings decodes raw over the kind's defaults and validates it.
// Validate methods of value receivers see a copy, so each kind's is
// called on the decoded value.
func validSettings(kind string, raw json.RawMessage) (json.RawMessage, any, error) {
	v, _, err := kindSettings(kind)
	if err != nil {
		return nil, nil, err
	}
	if len(raw) > 0 {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v); err != nil {
			return nil, nil, domain.Errorf(domain.EINVALID, "settings: %s", jsonMessage(err))
		}
	}
	var verr error
	switch s := v.(type) {
	case *domain.ExpertSettings:
		verr = s.Validate()
	case *domain.CrowdSettings:
		verr = s.Validate()
	case *domain.ContextSettings:
		verr = s.Validate()
	case *domain.ExplainSettings:
		verr = s.Validate()
	}
	if verr != nil {
		return nil, nil, domain.Errorf(domain.EINVALID, "settings: %s", domain.ErrorMessage(verr))
	}
	b, err := json.Marshal(v)
	return b, v, err
}

// jsonMessage words a JSON decoding error for the researcher, naming the
// field where the decoder knows it.
func jsonMessage(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("field %q must be a %s, got %s", te.Field, te.Type, te.Value)
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return "unknown field " + f
	}
	return strings.TrimPrefix(msg, "json: ")
}

// StudyDesign returns the design of study id.
func (s *Service) StudyDesign(ctx context.Context, id int64) (*Design, error) {
	st, err := s.db.Study(ctx, id)
	if err != nil {
		return nil, err
	}
	set, _, err := validSettings(st.Kind, st.Settings)
	if err != nil {
		// A stored study whose settings no longer validate still has a
		// design: its settings as stored over the defaults.
		v, _, kerr := kindSettings(st.Kind)
		if kerr != nil {
			return nil, kerr
		}
		if err := st.DecodeSettings(v); err != nil {
			return nil, err
		}
		if set, err = json.Marshal(v); err != nil {
			return nil, err
		}
	}
	d := &Design{Format: DesignFormat, Kind: st.Kind, Name: st.Name, Lang: st.Lang, Settings: set,
		Batches: DesignBatches{Seed: st.Seed, Rule: batchRules[st.Kind]}}
	switch st.Kind {
	case domain.KindExpert, domain.KindCrowd, domain.KindJudgement:
		items, err := s.db.ListItems(ctx, id)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			if it.Status == domain.ItemDropped {
				continue
			}
			var v any = it
			if st.Kind == domain.KindJudgement {
				v = DesignJudgementItem{ID: it.Key, Variants: it.Variants, Check: it.Check, Training: it.Training}
			}
			b, err := json.Marshal(v)
			if err != nil {
				return nil, err
			}
			d.Items = append(d.Items, b)
		}
	default:
		ps, err := s.db.ListPassages(ctx, id)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			topic := p.Topic
			dp := DesignPassage{ID: p.Key, Source: p.Source, Tag: p.Tag, Kind: p.Kind, Period: p.Period, Topic: &topic,
				Text: p.Text, Explanation: p.Explanation, Answer: p.Answer}
			if p.HasOptions() {
				dp.Options = p.Options[:]
			}
			d.Passages = append(d.Passages, dp)
		}
		if st.Kind == domain.KindExplain {
			outs, err := s.db.StudyOutputs(ctx, id)
			if err != nil {
				return nil, err
			}
			for _, o := range outs {
				d.Outputs = append(d.Outputs, DesignOutput{ItemID: o.ItemKey, Strategy: o.Strategy, Model: o.Model, Output: o.Output})
			}
		}
	}
	return d, nil
}

// WriteDesign writes d as indented JSON, the form kept in version control.
func WriteDesign(w io.Writer, d *Design) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(d)
}

// maxDesignBytes bounds a design file.
const maxDesignBytes = 64 << 20

// CreateStudyFromDesign creates a draft study from a design file, named
// name ("" keeps the file's name). It refuses, naming the field, any value
// the admin forms would refuse, and stores nothing then. The caller
// writes the audit entry (AuditStudyFromDesign): the pages' is written by
// their middleware.
func (s *Service) CreateStudyFromDesign(ctx context.Context, data []byte, name string) (*domain.Study, DesignCounts, error) {
	st, items, ps, outs, err := ParseDesign(data)
	if err != nil {
		return nil, DesignCounts{}, err
	}
	if name = strings.TrimSpace(name); name != "" {
		st.Name = name
	}
	n := DesignCounts{Items: len(items), Passages: len(ps), Outputs: len(outs)}
	if err := s.db.CreateStudyWithContent(ctx, st, items, ps, outs); err != nil {
		return nil, n, err
	}
	return st, n, nil
}

// DesignCounts is what a design file held.
type DesignCounts struct{ Items, Passages, Outputs int }

// String words the counts for a message: "16 items", "40 passages and
// 40 outputs".
func (n DesignCounts) String() string {
	var parts []string
	for _, c := range []struct {
		n    int
		what string
	}{{n.Items, "items"}, {n.Passages, "passages"}, {n.Outputs, "outputs"}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	if len(parts) == 0 {
		return "no items"
	}
	return strings.Join(parts, " and ")
}

// AuditStudyFromDesign is the audit log's wording of a study created from
// a design file.
func AuditStudyFromDesign(st *domain.Study, file string, n DesignCounts) string {
	return fmt.Sprintf("%q, %s, language %s, from the design file %s: %s", st.Name, st.Kind, st.Lang, file, n)
}

// ParseDesign reads and checks a design file whole: the study, its items,
// passages and outputs, or an EINVALID error naming the field.
func ParseDesign(data []byte) (*domain.Study, []domain.Item, []domain.Passage, []domain.Output, error) {
	if len(data) > maxDesignBytes {
		return nil, nil, nil, nil, domain.Errorf(domain.EINVALID, "the design file is larger than %d MiB", maxDesignBytes>>20)
	}
	data, err := designJSON(data)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	var d Design
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return nil, nil, nil, nil, domain.Errorf(domain.EINVALID, "design file: %s", jsonMessage(err))
	}
	if d.Format != DesignFormat {
		return nil, nil, nil, nil, domain.Errorf(domain.EINVALID, "format: must be %q, got %q", DesignFormat, d.Format)
	}
	set, v, err := validSettings(d.Kind, d.Settings)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	st := &domain.Study{Kind: d.Kind, Name: d.Name, Lang: d.Lang, Settings: set, Seed: d.Batches.Seed}
	if err := st.Validate(); err != nil {
		return nil, nil, nil, nil, domain.Errorf(domain.EINVALID, "%s", domain.ErrorMessage(err))
	}
	if d.Batches.Seed < 0 {
		return nil, nil, nil, nil, domain.Errorf(domain.EINVALID, "batches.seed: must be 0 (a new one) or more, got %d", d.Batches.Seed)
	}
	if d.Batches.Rule != "" && d.Batches.Rule != batchRules[d.Kind] {
		return nil, nil, nil, nil, domain.Errorf(domain.EINVALID, "batches.rule: a %s study's batches follow %q; the rule is not a setting", d.Kind, batchRules[d.Kind])
	}
	var items []domain.Item
	var ps []domain.Passage
	var outs []domain.Output
	switch d.Kind {
	case domain.KindExpert, domain.KindCrowd:
		if len(d.Passages) > 0 || len(d.Outputs) > 0 {
			return nil, nil, nil, nil, domain.Errorf(domain.EINVALID, "passages: a %s study holds items, not passages or outputs", d.Kind)
		}
		if items, err = designStudyItems(d.Items, v); err != nil {
			return nil, nil, nil, nil, err
		}
	case domain.KindJudgement:
		if len(d.Passages) > 0 || len(d.Outputs) > 0 {
			return nil, nil, nil, nil, domain.Errorf(domain.EINVALID, "passages: a judgement study holds items, not passages or outputs")
		}
		if items, err = designJudgementItems(d.Items, *v.(*domain.CrowdSettings)); err != nil {
			return nil, nil, nil, nil, err
		}
	default:
		if len(d.Items) > 0 {
			return nil, nil, nil, nil, domain.Errorf(domain.EINVALID, "items: a %s study holds passages, not implicature items", d.Kind)
		}
		if d.Kind == domain.KindContext && len(d.Outputs) > 0 {
			return nil, nil, nil, nil, domain.Errorf(domain.EINVALID, "outputs: model outputs belong to explain studies")
		}
		if ps, err = designPassages(d.Passages); err != nil {
			return nil, nil, nil, nil, err
		}
		for i, o := range d.Outputs {
			outs = append(outs, domain.Output{ItemKey: o.ItemID, Strategy: o.Strategy, Model: o.Model, Output: o.Output})
			if err := outs[i].Validate(); err != nil {
				return nil, nil, nil, nil, domain.Errorf(domain.EINVALID, "outputs[%d]: %s", i, designFieldMessage(err, nil))
			}
		}
	}
	return st, items, ps, outs, nil
}

// designStudyItems reads an expert or crowd design's items, held to the
// crowd settings' rules: the declared conditions
// (docs/studies.md#conditions) and the training items.
func designStudyItems(raw []json.RawMessage, settings any) ([]domain.Item, error) {
	cs, crowd := settings.(*domain.CrowdSettings)
	var check itemfiles.ItemCheck
	if crowd {
		check = ConditionsCheck(cs.Conditions)
	}
	items, err := designItems(raw, check)
	if err != nil || !crowd {
		return items, err
	}
	return items, checkDesignTraining(cs, items)
}

// designItems reads the items through the JSON Lines importer, one object
// a line, so the file is held to the same rules as an import; the
// importer's "line N" is the item's place in the list.
func designItems(raw []json.RawMessage, check itemfiles.ItemCheck) ([]domain.Item, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var b bytes.Buffer
	for i, r := range raw {
		var c bytes.Buffer
		if err := json.Compact(&c, r); err != nil {
			return nil, domain.Errorf(domain.EINVALID, "items[%d]: %s", i, jsonMessage(err))
		}
		b.Write(c.Bytes())
		b.WriteByte('\n')
	}
	items, err := itemfiles.ParseItemsJSONLChecked(&b, check)
	if err != nil {
		return nil, domain.Errorf(domain.EINVALID, "items: %s", strings.Replace(domain.ErrorMessage(err), "line ", "item ", 1))
	}
	return items, nil
}

// designJudgementItems reads a judgement design's items, each a
// DesignJudgementItem, held to the rules of the judgement items file
// (itemfiles.CheckJudgementItem): the study's conditions, a check or
// practice item in one, practice ranges on the scale; an id once.
func designJudgementItems(raw []json.RawMessage, cs domain.CrowdSettings) ([]domain.Item, error) {
	var items []domain.Item
	seen := map[string]int{}
	for i, r := range raw {
		var d DesignJudgementItem
		dec := json.NewDecoder(bytes.NewReader(r))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&d); err != nil {
			msg := jsonMessage(err)
			if strings.HasPrefix(msg, "unknown field") {
				msg += `: a judgement item has "id", "variants" (its texts by condition: {"<condition>": {"sentence": …, "context": …}}), "check" and "training"`
			}
			return nil, domain.Errorf(domain.EINVALID, "items[%d]: %s", i, msg)
		}
		it := domain.Item{Key: d.ID, Type: domain.TypeJudgement, Variants: d.Variants, Check: d.Check, Training: d.Training}
		if err := itemfiles.CheckJudgementItem(&it, cs); err != nil {
			return nil, domain.Errorf(domain.EINVALID, "items[%d] (%s): %s", i, d.ID, designFieldMessage(err, nil))
		}
		if j, dup := seen[it.Key]; dup {
			return nil, domain.Errorf(domain.EINVALID, "items[%d]: field \"id\": %q repeats items[%d]; an item's texts in its conditions go in its one \"variants\"", i, it.Key, j)
		}
		seen[it.Key] = i
		items = append(items, it)
	}
	return items, nil
}

// checkDesignTraining checks that each training item a crowd study names
// is among its items, in a condition the study declares.
func checkDesignTraining(cs *domain.CrowdSettings, items []domain.Item) error {
	keys := map[string]bool{}
	for _, it := range items {
		keys[it.Key] = true
	}
	for i, t := range cs.Training {
		if !slices.Contains(cs.Conditions, t.Condition) {
			return domain.Errorf(domain.EINVALID, "settings.training line %d (%s): condition %q is not among the study's conditions (%s)", i+1, t.Key, t.Condition, strings.Join(cs.Conditions, ", "))
		}
		if len(items) > 0 && !keys[t.Key] {
			return domain.Errorf(domain.EINVALID, "settings.training line %d: no item %q among the items", i+1, t.Key)
		}
	}
	return nil
}

// designPassages makes the passages of a design, splitting each text into
// sentences as the passage import does.
// passageFields are the design's names of the fields a passage's
// Validate names as the passage import's columns (docs/items.md#passage-fields).
var passageFields = map[string]string{
	"IMPAQTS_id": "id", "tag_simpl_IMPAQTS-PID": "kind", "IMPAQTS_Implicit_content_tag": "tag",
	"IMPAQTS_file": "source", "right_answer": "explanation", "MCs": "options", "right_answer_id": "answer",
}

// designFieldMessage words a passage's or an output's validation error with
// the design's name of its field: a *domain.FieldError is no *domain.Error,
// and domain.ErrorMessage would say "Internal error." of it.
func designFieldMessage(err error, names map[string]string) string {
	var fe *domain.FieldError
	if !errors.As(err, &fe) {
		return domain.ErrorMessage(err)
	}
	f := fe.Field
	if n, ok := names[f]; ok {
		f = n
	}
	return fmt.Sprintf("field %q: %s", f, fe.Msg)
}

func designPassages(dps []DesignPassage) ([]domain.Passage, error) {
	var ps []domain.Passage
	for i, dp := range dps {
		p := domain.Passage{Key: dp.ID, Source: dp.Source, Tag: dp.Tag, Kind: dp.Kind, Period: dp.Period, Topic: -1,
			Text: dp.Text, Sentences: itemfiles.SplitSentences(dp.Text), Explanation: dp.Explanation, Answer: dp.Answer}
		if dp.Topic != nil {
			p.Topic = *dp.Topic
		}
		if len(dp.Options) != 0 && len(dp.Options) != 4 {
			return nil, domain.Errorf(domain.EINVALID, "passages[%d] (%s), field \"options\": four options A–D or none, got %d", i, dp.ID, len(dp.Options))
		}
		copy(p.Options[:], dp.Options)
		if p.Period != "" && p.Period != domain.Period1946 && p.Period != domain.Period1973 && p.Period != domain.Period1994 {
			return nil, domain.Errorf(domain.EINVALID, "passages[%d] (%s), field \"period\": %q is not a period", i, dp.ID, p.Period)
		}
		if err := p.Validate(); err != nil {
			return nil, domain.Errorf(domain.EINVALID, "passages[%d] (%s): %s", i, dp.ID, designFieldMessage(err, passageFields))
		}
		ps = append(ps, p)
	}
	return ps, nil
}
