package studies

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"pragmalab/domain"
	"pragmalab/store"
)

// Design versions (docs/studies.md#design-versions): a crowd or judgement
// study that has opened starts version k+1 of its design with changed
// frozen settings. Its items stay the study's; the new version's batches
// are built from them with the new settings and the study's seed, by the
// planner that built the first (planCrowd).

// StartDesignVersion starts the next design version of crowd or judgement
// study id with lang ("" keeps the study's) and settings set; the caller
// writes the audit entry (AuditDesignVersion). It returns the new version's number and
// its batches. Refused, changing nothing: settings that do not validate,
// items that do not fit them (a judgement study's new conditions), a
// study that has not opened, no frozen setting changed, participants
// rating now (store.StartDesignVersion).
func (s *Service) StartDesignVersion(ctx context.Context, id int64, lang string, set domain.CrowdSettings) (int, CrowdBuild, error) {
	st, err := s.db.Study(ctx, id)
	if err != nil {
		return 0, CrowdBuild{}, err
	}
	if !domain.IsCrowdKind(st.Kind) {
		return 0, CrowdBuild{}, domain.Errorf(domain.EINVALID, "study %d is a %s study: design versions are built for crowd and judgement studies; close it and clone it to change its design", id, st.Kind)
	}
	if lang == "" {
		lang = st.Lang
	}
	set.Kind = st.Kind
	if err := set.Validate(); err != nil {
		return 0, CrowdBuild{}, domain.Errorf(domain.EINVALID, "settings: %s; nothing was changed", domain.ErrorMessage(err))
	}
	p, err := planCrowd(ctx, s.db, id, set, st.Seed)
	if c := domain.ErrorCode(err); c == domain.EINVALID || c == domain.ECONFLICT {
		return 0, CrowdBuild{}, domain.Errorf(c, "the study's items do not fit these settings: %s; nothing was changed", domain.ErrorMessage(err))
	}
	if err != nil {
		return 0, CrowdBuild{}, err
	}
	prev, err := s.StudyDesign(ctx, id)
	if err != nil {
		return 0, CrowdBuild{}, err
	}
	var prevFile bytes.Buffer
	if err := WriteDesign(&prevFile, prev); err != nil {
		return 0, CrowdBuild{}, err
	}
	next := *prev
	next.Lang = lang
	if next.Settings, err = json.Marshal(set); err != nil {
		return 0, CrowdBuild{}, err
	}
	var file bytes.Buffer
	if err := WriteDesign(&file, &next); err != nil {
		return 0, CrowdBuild{}, err
	}
	previous := prevFile.Bytes()
	if kept, _, err := s.db.OpeningDesign(ctx, id); err == nil {
		previous = kept
	}
	k, err := s.db.StartDesignVersion(ctx, id, store.NewDesignVersion{
		Lang: lang, Settings: set, Design: file.Bytes(), Previous: previous, Training: p.training, Batches: p.batches,
	})
	if err != nil {
		return 0, CrowdBuild{}, err
	}
	return k, p.build, nil
}

// AuditDesignVersion is the audit entry's detail of design version k
// started with batches b.
func AuditDesignVersion(k int, b CrowdBuild) string {
	return fmt.Sprintf("design version %d started: %s; the batches of version %d are retired", k, b.Design(), k-1)
}

// StartDesignVersionFromFile is StartDesignVersion with the language and
// settings of a design file (docs/studies.md#design-file) of the study's
// kind; the file's items, name and seed are not read — a version keeps
// the study's items and seed.
func (s *Service) StartDesignVersionFromFile(ctx context.Context, id int64, data []byte) (int, CrowdBuild, error) {
	if len(data) > maxDesignBytes {
		return 0, CrowdBuild{}, domain.Errorf(domain.EINVALID, "the design file is larger than %d MiB", maxDesignBytes>>20)
	}
	data, err := designJSON(data)
	if err != nil {
		return 0, CrowdBuild{}, err
	}
	var d Design
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return 0, CrowdBuild{}, domain.Errorf(domain.EINVALID, "design file: %s", jsonMessage(err))
	}
	if d.Format != DesignFormat {
		return 0, CrowdBuild{}, domain.Errorf(domain.EINVALID, "format: must be %q, got %q", DesignFormat, d.Format)
	}
	st, err := s.db.Study(ctx, id)
	if err != nil {
		return 0, CrowdBuild{}, err
	}
	if d.Kind != st.Kind {
		return 0, CrowdBuild{}, domain.Errorf(domain.EINVALID, "kind: the file is a %s study's design, study %d is a %s study", d.Kind, id, st.Kind)
	}
	_, v, err := validSettings(d.Kind, d.Settings)
	if err != nil {
		return 0, CrowdBuild{}, err
	}
	set, ok := v.(*domain.CrowdSettings)
	if !ok {
		return 0, CrowdBuild{}, domain.Errorf(domain.EINVALID, "study %d is a %s study: design versions are built for crowd and judgement studies", id, st.Kind)
	}
	return s.StartDesignVersion(ctx, id, d.Lang, *set)
}

// DesignVersions lists the kept versions of study id's design, oldest
// first (store.DesignVersions).
func (s *Service) DesignVersions(ctx context.Context, id int64) ([]store.DesignVersion, error) {
	return s.db.DesignVersions(ctx, id)
}

// CurrentDesignVersion is the version of study id's design newcomers are
// given (store.CurrentDesignVersion).
func (s *Service) CurrentDesignVersion(ctx context.Context, id int64) (int, error) {
	return s.db.CurrentDesignVersion(ctx, id)
}
