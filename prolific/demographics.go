package prolific

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"unicode"
)

// Prolific's demographic export of a study (docs/prolific.md#demographics):
// POST /api/v1/studies/{id}/demographic-export/ with {"filters": []}, the
// base demographic data of every participant who took the study. The
// OpenAPI (Studies: export-demographic-data) lists the fields but gives
// the answer no schema; the export Prolific's site downloads, and the
// deprecated GET /api/v1/studies/{id}/export/ it replaces, are CSV with a
// header row. The client reads CSV, a JSON list of objects, or a JSON
// object holding that list under "results" or "data".

// Demographics is a demographic export: its columns as Prolific names
// them and one row per participant, in Prolific's order.
type Demographics struct {
	Columns []string
	Rows    [][]string
	// PID is the index of the participant id's column.
	PID int
}

// DemographicExport fetches the demographic export of a Prolific study.
func (c *Client) DemographicExport(ctx context.Context, studyID string) (*Demographics, error) {
	path := "/api/v1/studies/" + url.PathEscape(studyID) + "/demographic-export/"
	h, data, err := c.doRaw(ctx, http.MethodPost, path, map[string]any{"filters": []any{}})
	if err != nil {
		return nil, err
	}
	d, err := ParseDemographics(data, h.Get("Content-Type"))
	if err != nil {
		return nil, fmt.Errorf("prolific API POST %s: %w", path, err)
	}
	return d, nil
}

// ParseDemographics reads a demographic export, CSV or JSON.
func ParseDemographics(data []byte, contentType string) (*Demographics, error) {
	t := bytes.TrimSpace(data)
	var d *Demographics
	var err error
	if len(t) > 0 && (t[0] == '[' || t[0] == '{') && !strings.Contains(contentType, "csv") {
		d, err = demographicsJSON(t)
	} else {
		d, err = demographicsCSV(t)
	}
	if err != nil {
		return nil, err
	}
	d.PID = -1
	for i, c := range d.Columns {
		if k := ColumnKey(c); k == "participant_id" || k == "participant" {
			d.PID = i
			break
		}
	}
	if d.PID < 0 {
		return nil, fmt.Errorf("the demographic export has no participant id column (columns: %s)", strings.Join(d.Columns, ", "))
	}
	return d, nil
}

func demographicsCSV(data []byte) (*Demographics, error) {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\ufeff"))))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("the demographic export is not readable CSV: %w", err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("the demographic export is empty: not even a header row")
	}
	d := &Demographics{Columns: recs[0]}
	for i, rec := range recs[1:] {
		if len(rec) != len(d.Columns) {
			return nil, fmt.Errorf("the demographic export's line %d has %d fields, its header %d", i+2, len(rec), len(d.Columns))
		}
		d.Rows = append(d.Rows, rec)
	}
	return d, nil
}

func demographicsJSON(data []byte) (*Demographics, error) {
	var list []map[string]any
	if data[0] == '{' {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(data, &obj); err != nil {
			return nil, fmt.Errorf("the demographic export is not readable JSON: %w", err)
		}
		raw, ok := obj["results"]
		if !ok {
			raw, ok = obj["data"]
		}
		if !ok {
			return nil, fmt.Errorf("the demographic export holds no list of participants (no \"results\" or \"data\")")
		}
		data = raw
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(&list); err != nil {
		return nil, fmt.Errorf("the demographic export is not a list of participants: %w", err)
	}
	seen := map[string]bool{}
	out := &Demographics{}
	for _, m := range list {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out.Columns = append(out.Columns, k)
			}
		}
	}
	sort.Strings(out.Columns)
	for _, m := range list {
		row := make([]string, len(out.Columns))
		for i, k := range out.Columns {
			row[i] = jsonField(m[k])
		}
		out.Rows = append(out.Rows, row)
	}
	return out, nil
}

// jsonField is a JSON value as a CSV field: text as is, null as "".
func jsonField(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		if x {
			return "true"
		}
		return "false"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// ColumnKey is a column name of the export as a snake_case key:
// "Participant id" → participant_id, "Ethnicity simplified" →
// ethnicity_simplified.
func ColumnKey(name string) string {
	var b strings.Builder
	under := false
	for _, r := range strings.TrimSpace(name) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if under && b.Len() > 0 {
				b.WriteByte('_')
			}
			under = false
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		under = true
	}
	return b.String()
}
