package replica

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Version is the Litestream release pragmalab is built and tested with;
// .ci/run, the Dockerfile and the tests install it from the Go module
// proxy: go install github.com/benbjohnson/litestream/cmd/litestream@VERSION.
const Version = "v0.5.18"

// Intervals of the replication (docs/deploy.md#recovery-point): Litestream
// copies new log frames into its local transaction files every
// MonitorInterval and uploads them every SyncInterval; pragmalab asks for
// the replica's position every Poll.
const (
	MonitorInterval = time.Second
	SyncInterval    = time.Second
	Poll            = time.Second
)

// Find returns the litestream program: PRAGMALAB_LITESTREAM if set, else
// litestream on PATH, with a message saying how to install it when
// neither is there.
func Find(getenv func(string) string) (string, error) {
	if p := getenv("PRAGMALAB_LITESTREAM"); p != "" {
		if fi, err := os.Stat(p); err != nil || fi.IsDir() {
			return "", fmt.Errorf("PRAGMALAB_LITESTREAM=%s: no such program", p)
		}
		return p, nil
	}
	if path := getenv("PATH"); path != "" {
		for _, dir := range filepath.SplitList(path) {
			p := filepath.Join(dir, "litestream")
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
				return p, nil
			}
		}
	}
	return "", errors.New("replication needs Litestream, and no litestream program is on PATH: install it with `go install github.com/benbjohnson/litestream/cmd/litestream@" + Version + "` (it lands in $(go env GOPATH)/bin) or name it with PRAGMALAB_LITESTREAM")
}

// passedEnv are the environment variables Litestream is given (and no
// other: the model API keys stay with pragmalab): what finds programs,
// certificates and temporary files, and the replicas' credentials.
var passedEnv = []string{"PATH", "HOME", "TMPDIR", "TZ", "SSL_CERT_FILE", "SSL_CERT_DIR",
	"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION", "AWS_DEFAULT_REGION",
	"AWS_PROFILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE", "AWS_CA_BUNDLE",
	"LITESTREAM_ACCESS_KEY_ID", "LITESTREAM_SECRET_ACCESS_KEY",
	"PRAGMALAB_REPLICA_SFTP_PASSWORD", "PRAGMALAB_REPLICA_SFTP_KEY", "PRAGMALAB_REPLICA_SFTP_HOST_KEY"}

// childEnv is Litestream's environment, read through getenv.
func childEnv(getenv func(string) string) []string {
	var env []string
	for _, k := range passedEnv {
		if v := getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// quote writes s as a YAML scalar (a JSON string is one).
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// config is Litestream's configuration for the database at dbPath
// replicated to t, with its control socket at socket (empty: none).
// Secrets are never written: the SFTP password is a ${VARIABLE} Litestream
// expands from its environment, in a literal block so that no character
// of it can break the YAML.
func config(t Target, dbPath, socket string, getenv func(string) string) string {
	var b strings.Builder
	b.WriteString("# Written by pragmalab for its Litestream child; rewritten at every start.\n")
	b.WriteString("logging:\n  level: info\n  type: json\n  stderr: true\n")
	if socket != "" {
		fmt.Fprintf(&b, "socket:\n  enabled: true\n  path: %s\n  permissions: 384\n", quote(socket))
	}
	b.WriteString("dbs:\n")
	fmt.Fprintf(&b, "  - path: %s\n", quote(dbPath))
	fmt.Fprintf(&b, "    monitor-interval: %s\n", MonitorInterval)
	b.WriteString("    replica:\n")
	fmt.Fprintf(&b, "      url: %s\n", quote(t.URL))
	fmt.Fprintf(&b, "      sync-interval: %s\n", SyncInterval)
	if t.Scheme == "sftp" {
		if getenv("PRAGMALAB_REPLICA_SFTP_PASSWORD") != "" {
			b.WriteString("      password: |-\n        ${PRAGMALAB_REPLICA_SFTP_PASSWORD}\n")
		}
		if getenv("PRAGMALAB_REPLICA_SFTP_KEY") != "" {
			b.WriteString("      key-path: |-\n        ${PRAGMALAB_REPLICA_SFTP_KEY}\n")
		}
		if getenv("PRAGMALAB_REPLICA_SFTP_HOST_KEY") != "" {
			b.WriteString("      host-key: |-\n        ${PRAGMALAB_REPLICA_SFTP_HOST_KEY}\n")
		}
	}
	return b.String()
}

// writeConfig writes the configuration into a new private directory and
// returns the directory (the caller removes it) and the file.
func writeConfig(t Target, dbPath string, withSocket bool, getenv func(string) string) (dir, file, socket string, err error) {
	if strings.Contains(dbPath, "$") {
		return "", "", "", fmt.Errorf("replication: the database path %q holds a $, which Litestream would read as a variable", dbPath)
	}
	abs, err := filepath.Abs(dbPath)
	if err != nil {
		return "", "", "", err
	}
	// A short directory: a Unix socket's path is limited to ~100 bytes.
	dir, err = os.MkdirTemp("", "pragmalab-ls-")
	if err != nil {
		return "", "", "", err
	}
	if withSocket {
		socket = filepath.Join(dir, "ctl.sock")
	}
	file = filepath.Join(dir, "litestream.yml")
	if err := os.WriteFile(file, []byte(config(t, abs, socket, getenv)), 0o600); err != nil {
		os.RemoveAll(dir)
		return "", "", "", err
	}
	return dir, file, socket, nil
}
