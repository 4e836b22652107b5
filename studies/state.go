package studies

import (
	"bytes"
	"context"
	"pragmalab/domain"
	"strings"

	"pragmalab/store"
)

// Checklist lists what a study still lacks before it may open
// (docs/studies.md#study-states); empty when nothing is missing.
func Checklist(ctx context.Context, db *store.DB, st *domain.Study) ([]string, error) {
	c, err := db.StudyCounts(ctx, st.ID)
	if err != nil {
		return nil, err
	}
	var missing []string
	need := func(ok bool, what string) {
		if !ok {
			missing = append(missing, what)
		}
	}
	switch st.Kind {
	case domain.KindExpert:
		need(c.Items > 0, "items imported")
		need(c.Batches > 0, "expert batches built")
	case domain.KindCrowd:
		s, err := CrowdSettings(st)
		if err != nil {
			return nil, err
		}
		need(c.Items > 0, "items imported")
		need(c.Checks > 0, "attention checks imported (items with check high or low)")
		need(c.Batches > 0, "batches built")
		need(c.Batches == 0 || c.BatchChecks > 0, "attention checks in the batches (rebuild the batches after importing the checks)")
		need(c.Batches == 0 || c.Training > 0, "training items (rebuild the batches)")
		need(s.CompletionCode != "", "a completion code set in the settings")
	case domain.KindJudgement:
		more, err := judgementChecklist(ctx, db, st, c)
		if err != nil {
			return nil, err
		}
		missing = append(missing, more...)
	case domain.KindContext:
		need(c.Passages > 0, "passages imported")
		need(c.Surveys > 0, "surveys built")
	case domain.KindExplain:
		need(c.Passages > 0, "passages imported")
		need(c.Outputs > 0, "model explanations imported")
	}
	return missing, nil
}

// OpenStudy opens a study once its checklist is complete; otherwise it
// refuses with the list of what is missing and changes nothing.
func OpenStudy(ctx context.Context, db *store.DB, id int64, by string) error {
	st, err := db.Study(ctx, id)
	if err != nil {
		return err
	}
	return openStudy(ctx, db, st, by)
}

// openStudy is OpenStudy of a study already loaded.
func openStudy(ctx context.Context, db *store.DB, st *domain.Study, by string) error {
	missing, err := Checklist(ctx, db, st)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		return domain.Errorf(domain.ECONFLICT, "The study cannot open yet. Missing: %s.", strings.Join(missing, "; "))
	}
	// The design file it opens with is kept as it is at its first opening
	// (docs/studies.md#frozen-design).
	var design []byte
	if kept, err := db.HasOpeningDesign(ctx, st.ID); err != nil {
		return err
	} else if !kept {
		d, err := (&Service{db: db}).StudyDesign(ctx, st.ID)
		if err != nil {
			return err
		}
		var b bytes.Buffer
		if err := WriteDesign(&b, d); err != nil {
			return err
		}
		design = b.Bytes()
	}
	return db.OpenStudyWithDesign(ctx, st.ID, by, design)
}
