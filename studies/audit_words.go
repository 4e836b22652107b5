package studies

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// The words of an audit entry whose handler said nothing of its own: the
// request's URL parameters and form fields, read as a person would say
// them — the experts' names for their ids, an item's key, a participant's
// PROLIFIC_PID, an account's user name — never raw field names with
// internal ids (expert="5,6,7").

// auditLabels are how the log names a field; a field not listed reads as
// its name with spaces for underscores.
var auditLabels = map[string]string{
	"expert":      "experts",
	"annotator":   "expert",
	"participant": "participant",
	"item":        "item",
	"batch":       "batch",
	"round":       "round",
	"job":         "job",
	"upload":      "upload",
	"admin":       "account",
}

// auditSecret says whether a field is never written to the log.
func auditSecret(name string) bool {
	lk := strings.ToLower(name)
	return strings.Contains(lk, "password") || strings.Contains(lk, "secret") || lk == "token" ||
		strings.HasSuffix(lk, "_token") || lk == "api_key" || lk == "next"
}

// urlCredentials matches the user:password part of a URL (an endpoint's
// base URL may carry one), which the log leaves out.
var urlCredentials = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/\s@]+@`)

// AuditDetail words a request's URL parameters and form fields for the
// audit log of study (0: none): "experts: Ada, Ben; batch 1", sorted by
// field, each value cut to 200 characters; passwords, tokens and
// credentials in URLs left out.
func (v *Service) AuditDetail(ctx context.Context, studyID int64, params map[string]string, form url.Values) string {
	fields := map[string][]string{}
	for k, val := range params {
		fields[k] = []string{val}
	}
	for k, vs := range form {
		if !auditSecret(k) {
			fields[k] = append(fields[k], vs...)
		}
	}
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	sort.Strings(names)
	var parts []string
	for _, k := range names {
		val := strings.Join(v.auditNames(ctx, studyID, k, fields[k]), ", ")
		val = urlCredentials.ReplaceAllString(val, "$1…@")
		if len(val) > 200 {
			val = val[:200] + "…"
		}
		label, ok := auditLabels[k]
		if !ok {
			label = strings.ReplaceAll(k, "_", " ")
		}
		switch {
		case val == "":
			parts = append(parts, label+": (empty)")
		case k == "batch" || k == "round" || k == "job" || k == "upload":
			parts = append(parts, label+" "+val)
		default:
			parts = append(parts, label+": "+val)
		}
	}
	return strings.Join(parts, "; ")
}

// auditNames turns the values of field k into what a person calls them;
// an id that names nothing (any more) stays "#id".
func (v *Service) auditNames(ctx context.Context, studyID int64, k string, vals []string) []string {
	ids := auditIDs(vals)
	name := v.auditNamer(ctx, studyID, k)
	if name == nil || len(ids) == 0 {
		return vals
	}
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		n := name(id)
		if n == "" {
			n = fmt.Sprintf("#%d", id)
		}
		out = append(out, n)
	}
	return out
}

// auditIDs are the ids in the values, each a comma-separated list.
func auditIDs(vals []string) []int64 {
	var ids []int64
	for _, s := range vals {
		for _, f := range strings.Split(s, ",") {
			if id, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64); err == nil {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// auditNamer returns what names an id of field k ("" for none), nil when
// the field holds no ids.
func (v *Service) auditNamer(ctx context.Context, studyID int64, k string) func(id int64) string {
	switch k {
	case "expert", "annotator":
		people, _ := v.db.Annotators(ctx, studyID)
		return func(id int64) string {
			for _, a := range people {
				if a.ID == id {
					return a.Name
				}
			}
			return ""
		}
	case "item":
		return func(id int64) string {
			if it, err := v.db.ItemByID(ctx, studyID, id); err == nil {
				return it.Key
			}
			return ""
		}
	case "batch":
		bs, _ := v.db.Batches(ctx, studyID)
		return func(id int64) string {
			for _, b := range bs {
				if b.ID == id {
					return strconv.Itoa(b.Number)
				}
			}
			return ""
		}
	case "participant":
		return func(id int64) string {
			if p, err := v.db.CrowdParticipant(ctx, studyID, id); err == nil {
				return p.PID
			}
			return ""
		}
	case "admin":
		return func(id int64) string {
			if a, err := v.db.AdminByID(ctx, id); err == nil {
				return a.Username
			}
			return ""
		}
	case "job", "upload":
		return func(id int64) string { return "#" + strconv.FormatInt(id, 10) }
	}
	return nil
}

// ExpertName is what the audit log calls one of a study's experts: the
// name, or "expert #id" for one who is not there.
func (v *Service) ExpertName(ctx context.Context, studyID, id int64) string {
	if n := v.auditNames(ctx, studyID, "annotator", []string{strconv.FormatInt(id, 10)}); len(n) == 1 && !strings.HasPrefix(n[0], "#") {
		return n[0]
	}
	return fmt.Sprintf("expert #%d", id)
}
