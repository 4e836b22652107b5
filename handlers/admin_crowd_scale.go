package handlers

import (
	"net/http"
	"strconv"
	"strings"

	"pragmalab/domain"
)

// crowdScaleForm reads the rating scale's fields of the crowd settings
// form (docs/studies.md#rating-scale) into set; a field the post does not
// carry keeps its value. Labels are one "point = label" a line; the
// settings' Validate checks the points against the scale.
func crowdScaleForm(r *http.Request, set *domain.CrowdSettings) error {
	if r.PostForm.Has("scale_points") {
		v := strings.TrimSpace(r.PostFormValue("scale_points"))
		if v == "" {
			set.ScalePoints = domain.RatingMax
		} else {
			n, err := strconv.Atoi(v)
			if err != nil {
				return domain.Errorf(domain.EINVALID, "scale points must be a whole number, got %q", v)
			}
			set.ScalePoints = n
		}
	}
	if r.PostForm.Has("scale_labels") {
		labels := map[string]string{}
		for i, line := range strings.Split(r.PostFormValue("scale_labels"), "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			k, l, ok := strings.Cut(line, "=")
			if !ok {
				return domain.Errorf(domain.EINVALID, "scale labels line %d: write point = label, e.g. 1 = absolutely impossible", i+1)
			}
			k, l = strings.TrimSpace(k), strings.TrimSpace(l)
			if _, dup := labels[k]; dup {
				return domain.Errorf(domain.EINVALID, "scale labels line %d: point %s is labelled twice", i+1, k)
			}
			labels[k] = l
		}
		set.ScaleLabels = labels
	}
	if r.PostForm.Has("question") {
		set.Question = strings.TrimSpace(r.PostFormValue("question"))
	}
	return nil
}
