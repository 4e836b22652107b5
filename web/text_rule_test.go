package web

import (
	"net/http"
	"net/url"
	"testing"
	"unicode/utf16"
)

// TestTypedAndUploadedTextFollowOneRule: a study name with ESC, a rename
// with a line break and an item file saved as UTF-16 are refused with
// messages naming the field or the encoding; nothing is stored.
func TestTypedAndUploadedTextFollowOneRule(t *testing.T) {
	e := newTestEnv(t)
	c := e.adminClient()
	c.post("/admin/studies", url.Values{"name": {"Evil\x1b[2J"}, "kind": {"expert"}, "lang": {"en"}}).
		mustStatus(t, http.StatusBadRequest).mustContain(t, "name: character 5 is the control character U+001B (ESC)")
	path := c.post("/admin/studies", url.Values{"name": {"Good"}, "kind": {"expert"}, "lang": {"en"}}).mustStatus(t, http.StatusSeeOther).location()
	c.post(path+"/rename", url.Values{"name": {"two\nlines"}}).mustStatus(t, http.StatusBadRequest).mustContain(t, "U+000A (line feed)")

	csv := "id,type,utterance,implicature,cancellation\nx1,scalar,Some cats purr.,Not all cats purr.,In fact all do.\n"
	b := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune(csv)) {
		b = append(b, byte(u), byte(u>>8))
	}
	c.upload(path+"/items", "file", "items.csv", b).mustStatus(t, http.StatusBadRequest).
		mustContain(t, "UTF-16 (little-endian), not UTF-8: save it as UTF-8")
	studies, _ := e.db.Studies(t.Context())
	if len(studies) != 1 || studies[0].Name != "Good" {
		t.Fatalf("studies after the refusals: %+v", studies)
	}
}
