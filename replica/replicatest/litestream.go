// Package replicatest gives tests the litestream program: found where
// .ci/run installs it, or built from the Go module proxy once per machine.
package replicatest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"pragmalab/replica"
)

var (
	once  sync.Once
	found string
	why   string
)

// Litestream returns the path of a litestream program of replica.Version:
// PRAGMALAB_LITESTREAM, litestream on PATH, in $(go env GOPATH)/bin (where
// .ci/run's `go install` puts it), or built now from the Go module proxy
// into the user's cache directory (once per machine; never a downloaded
// binary). When none can be had the test is skipped with the reason, or
// fails when CI=true.
func Litestream(t testing.TB) string {
	t.Helper()
	once.Do(func() { found, why = locate() })
	if found == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("litestream is needed and could not be had: %s", why)
		}
		t.Skipf("skipped: litestream could not be had (%s); install it with `go install github.com/benbjohnson/litestream/cmd/litestream@%s`", why, replica.Version)
	}
	return found
}

func locate() (string, string) {
	if p, err := replica.Find(os.Getenv); err == nil {
		return p, ""
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", "no go command to build it with"
	}
	if out, err := exec.Command(goBin, "env", "GOPATH").Output(); err == nil {
		for _, dir := range filepath.SplitList(strings.TrimSpace(string(out))) {
			p := filepath.Join(dir, "bin", "litestream")
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
				return p, ""
			}
		}
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "pragmalab", "litestream-"+replica.Version)
	p := filepath.Join(dir, "litestream")
	if _, err := os.Stat(p); err == nil {
		return p, ""
	}
	cmd := exec.Command(goBin, "install", "github.com/benbjohnson/litestream/cmd/litestream@"+replica.Version)
	cmd.Env = append(os.Environ(), "GOBIN="+dir, "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		msg := strings.TrimSpace(string(out))
		if len(msg) > 500 {
			msg = msg[len(msg)-500:]
		}
		return "", "go install github.com/benbjohnson/litestream/cmd/litestream@" + replica.Version + " failed: " + err.Error() + ": " + msg
	}
	return p, ""
}
