package templates

import (
	"fmt"
	"net/http"
	"pragmalab/domain"
	"strconv"
	"strings"
)

func itoa(n int) string { return strconv.Itoa(n) }

func i64(n int64) string { return strconv.FormatInt(n, 10) }

func studyURL(id int64) string { return fmt.Sprintf("/admin/studies/%d", id) }

// StudyURL is the admin page of a study, plus an optional sub-path.
func StudyURL(id int64, sub string) string { return studyURL(id) + sub }

func statusTitle(status int) string {
	if t := http.StatusText(status); t != "" {
		return t
	}
	return "Error"
}

// lines splits a multi-turn text ("S1: …\nS2: …") into its turns.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

func pct(done, total int) string {
	if total == 0 {
		return "0 %"
	}
	return fmt.Sprintf("%.0f %%", 100*float64(done)/float64(total))
}

// plural writes a count with the noun's singular or plural form.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return itoa(n) + " " + many
}

// orEmpty is n, or "" for 0 (an unset number field).
func orEmpty(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// duration is a number of seconds as minutes and seconds, "–" for 0.
func duration(s int) string {
	if s == 0 {
		return "–"
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// msLabel is a time in ms, "–" for 0 (not measured).
func msLabel(ms int) string {
	if ms == 0 {
		return "–"
	}
	return fmt.Sprintf("%d ms", ms)
}

// percent is the share of fast answers, "–" when no answer has a time.
func percent(q domain.CrowdQuality) string {
	if q.Timed == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", q.FastShare*100)
}
