package replica

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// ErrNoBackup: the replica holds no backup (of that time).
var ErrNoBackup = errors.New("no backup in the replica")

// Restored says what a restore brought back.
type Restored struct {
	// TXID is Litestream's transaction the restored file ends with.
	TXID string
}

// Restore writes the database held by the replica t — its latest state, or
// its state at the timestamp at when at is not zero — to the new file out,
// which must not exist. Litestream checks the result with quick_check.
func Restore(ctx context.Context, t Target, out string, at time.Time, getenv func(string) string) (Restored, error) {
	bin, err := Find(getenv)
	if err != nil {
		return Restored{}, err
	}
	if _, err := os.Lstat(out); err == nil {
		return Restored{}, fmt.Errorf("%s already exists: restore writes a new file and never overwrites one", out)
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return Restored{}, err
	}
	dir, cfg, _, err := writeConfig(t, abs, false, getenv)
	if err != nil {
		return Restored{}, err
	}
	defer os.RemoveAll(dir)
	args := []string{"restore", "-config", cfg, "-o", abs, "-integrity-check", "quick", "-json"}
	if !at.IsZero() {
		args = append(args, "-timestamp", at.UTC().Format(time.RFC3339))
	}
	args = append(args, abs)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = childEnv(getenv)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = strings.TrimSpace(stdout.String())
		}
		if strings.Contains(msg, "no matching backup files available") {
			if at.IsZero() {
				return Restored{}, fmt.Errorf("%w: the replica %s holds no backup of a database", ErrNoBackup, t.Display)
			}
			return Restored{}, fmt.Errorf("%w: the replica %s holds no state of the database at %s (is it before the first backup, or beyond the retention?)", ErrNoBackup, t.Display, at.UTC().Format(time.RFC3339))
		}
		return Restored{}, fmt.Errorf("litestream restore from %s: %v: %s", t.Display, err, lastLines(msg, 5))
	}
	var res struct {
		TXID string `json:"txid"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		return Restored{}, fmt.Errorf("litestream restore: unexpected output: %.200s", stdout.String())
	}
	if _, err := os.Stat(abs); err != nil {
		return Restored{}, errors.New("litestream restore reported success but wrote no file")
	}
	return Restored{TXID: res.TXID}, nil
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// ParseTimestamp reads --timestamp: RFC 3339 (2026-12-02T14:05:00Z, or
// with an offset), or a UTC date and time written 2026-12-02 14:05:00.
func ParseTimestamp(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02 15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("--timestamp %q: give a time as 2026-12-02T14:05:00Z (RFC 3339, UTC or with an offset)", s)
}
