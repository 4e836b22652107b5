package cli

import (
	"strings"
	"testing"
)

// TestLinksBaseFollowsThePort: the links of `links` and `study pilot`
// default to the address serve listens on, the PORT variable's port,
// never localhost:8080 whatever the port (#45 §5); --base still wins.
func TestLinksBaseFollowsThePort(t *testing.T) {
	path, _ := seededDB(t)
	env := map[string]string{"PORT": "9191"}
	for _, args := range [][]string{
		{"links", "--study", "2", "--db", path},
		{"study", "pilot", "--study", "2", "--db", path},
	} {
		code, out, errOut := runCLI(t, "", env, args...)
		if code != 0 || !strings.Contains(out, "http://localhost:9191/") || strings.Contains(out, "8080") {
			t.Errorf("%v with PORT=9191: exit %d, %q %s", args, code, out, errOut)
		}
	}
	code, out, _ := runCLI(t, "", env, "links", "--study", "2", "--base", "https://study.example.org", "--db", path)
	if code != 0 || !strings.Contains(out, "https://study.example.org/s/2?") {
		t.Errorf("--base: exit %d, %q", code, out)
	}
	if code, out, _ := runCLI(t, "", nil, "links", "--study", "2", "--db", path); code != 0 || !strings.Contains(out, "http://localhost:8080/s/2?") {
		t.Errorf("without PORT: exit %d, %q", code, out)
	}
}
