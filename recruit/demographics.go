package recruit

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"strings"

	"pragmalab/csvsafe"
	"pragmalab/domain"
	"pragmalab/prolific"
	"pragmalab/studies"
)

// Prolific's demographic export joined to the participants export
// (docs/prolific.md#demographics). Each fetch is a call of the journal;
// its rows are stored only while the study keeps demographics.

// CallDemographics is the journal's kind of a demographic export.
const CallDemographics = "demographic_export"

// DemographicPrefix starts the name of every column the join adds.
const DemographicPrefix = "prolific_"

// Demographics fetches the linked study's demographic export through the
// call journal, and stores its rows when the study keeps demographics
// (kept). A failed fetch is recorded as failed — a read changes nothing
// on Prolific — and returned as an error that says nothing was exported.
func (p *Service) Demographics(ctx context.Context, studyID int64, actor string) (d *prolific.Demographics, kept bool, err error) {
	api, link, err := p.linked(ctx, studyID)
	if err != nil {
		return nil, false, err
	}
	c, err := p.record(ctx, studyID, CallDemographics, "demographics:"+link.ProlificStudyID+":"+newPlanID(), link.ProlificStudyID, actor,
		map[string]any{"study_id": link.ProlificStudyID, "filters": []any{}})
	if err != nil {
		return nil, false, err
	}
	d, sendErr := api.DemographicExport(ctx, link.ProlificStudyID)
	if sendErr != nil {
		if err := p.db.FinishProlificCall(ctx, c.ID, domain.CallFailed, sendErr.Error()); err != nil {
			return nil, false, err
		}
		return nil, false, domain.Errorf(domain.EINVALID, "Prolific's demographic export failed, so nothing was exported (the participants CSV without Prolific's columns is on the study's page): %v", sendErr)
	}
	kept, err = p.db.SaveDemographics(ctx, studyID, d.Columns, d.Rows, d.PID)
	if err != nil {
		return nil, false, err
	}
	if err := p.db.FinishProlificCall(ctx, c.ID, domain.CallDone, jsonText(map[string]any{"rows": len(d.Rows), "columns": len(d.Columns), "kept": kept})); err != nil {
		return nil, false, err
	}
	return d, kept, nil
}

// ExportParticipantsWithDemographics writes the participants export with
// Prolific's demographic columns joined on the PROLIFIC_PID. The export
// is fetched first: when it fails nothing is written.
func (p *Service) ExportParticipantsWithDemographics(ctx context.Context, studyID int64, actor string, w io.Writer) error {
	d, _, err := p.Demographics(ctx, studyID, actor)
	if err != nil {
		return err
	}
	var base bytes.Buffer
	if err := studies.ExportCrowdParticipants(ctx, p.db, studyID, &base, p.echo); err != nil {
		return err
	}
	var out bytes.Buffer
	if err := JoinDemographics(&base, d, &out); err != nil {
		return err
	}
	_, err = w.Write(out.Bytes())
	return err
}

// DemographicColumns are the names the join gives Prolific's columns: the
// prefix and the column as snake_case ("Ethnicity simplified" →
// prolific_ethnicity_simplified), the participant id's left out (the
// export's prolific_pid is it), a name already taken suffixed with _2, _3…
func DemographicColumns(d *prolific.Demographics, taken []string) []string {
	used := map[string]bool{}
	for _, t := range taken {
		used[t] = true
	}
	var out []string
	for i, c := range d.Columns {
		if i == d.PID {
			continue
		}
		name := DemographicPrefix + prolific.ColumnKey(c)
		for k := 2; used[name]; k++ {
			name = fmt.Sprintf("%s%s_%d", DemographicPrefix, prolific.ColumnKey(c), k)
		}
		used[name] = true
		out = append(out, name)
	}
	return out
}

// JoinDemographics appends Prolific's demographic columns to a
// participants CSV, matching its prolific_pid column to the export's
// participant id without regard to case. A participant the export does not
// list (a pilot session, a Prolific record expired) gets empty cells.
func JoinDemographics(participants io.Reader, d *prolific.Demographics, w io.Writer) error {
	recs, err := csv.NewReader(participants).ReadAll()
	if err != nil || len(recs) == 0 {
		return fmt.Errorf("join demographics: the participants export is not readable: %v", err)
	}
	pidCol := -1
	for i, h := range recs[0] {
		if h == "prolific_pid" {
			pidCol = i
		}
	}
	if pidCol < 0 {
		return fmt.Errorf("join demographics: the participants export has no prolific_pid column")
	}
	byPID := map[string][]string{}
	for _, row := range d.Rows {
		byPID[strings.ToLower(strings.TrimSpace(row[d.PID]))] = row
	}
	cw := csvsafe.NewWriter(w)
	if err := cw.Write(append(unquoted(recs[0]), DemographicColumns(d, recs[0])...)); err != nil {
		return err
	}
	for _, rec := range recs[1:] {
		extra := make([]string, 0, len(d.Columns))
		row := byPID[strings.ToLower(csvsafe.Unquote(rec[pidCol]))]
		for i := range d.Columns {
			if i == d.PID {
				continue
			}
			v := ""
			if row != nil {
				v = row[i]
			}
			extra = append(extra, v)
		}
		if err := cw.Write(append(unquoted(rec), extra...)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// unquoted undoes csvsafe's quoting of cells read back, so writing them
// again quotes them once.
func unquoted(rec []string) []string {
	out := make([]string, len(rec))
	for i, c := range rec {
		out[i] = csvsafe.Unquote(c)
	}
	return out
}

// KeepDemographics reports whether the study keeps the demographic export.
func (p *Service) KeepDemographics(ctx context.Context, studyID int64) (bool, error) {
	return p.db.KeepDemographics(ctx, studyID)
}

// SetKeepDemographics turns keeping the demographic export on or off;
// off deletes the rows kept so far.
func (p *Service) SetKeepDemographics(ctx context.Context, studyID int64, keep bool, actor string) error {
	return p.db.SetKeepDemographics(ctx, studyID, keep, actor)
}

// KeptDemographics counts the participants whose demographics the study
// keeps.
func (p *Service) KeptDemographics(ctx context.Context, studyID int64) (int, error) {
	return p.db.KeptDemographics(ctx, studyID)
}
