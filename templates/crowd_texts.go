package templates

import (
	"fmt"
)

// CrowdRatingRange says a rating was off the study's scale of points
// points (0: 7), in lang.
func CrowdRatingRange(lang string, points int) string {
	return fmt.Sprintf(CT(lang, "rating_body"), 1, CrowdScale{Points: points}.points())
}

// CT returns the crowd study's text for key in lang (the catalog's "crowd"
// section; docs/studies.md, "Languages"), English as fallback; the
// researcher may replace the title, introduction and consent text in the
// study settings.
func CT(lang, key string) string {
	s, _ := catalogs.Text(lang, "crowd."+key)
	return s
}

// CN is counted crowd message key ("minutes": minutes_one, minutes_other)
// for n in lang: "1 minute", "2 minutes" (i18n.Set.Count).
func CN(lang, key string, n int) string { return catalogs.Count(lang, "crowd."+key, n) }
