package replica

import (
	"os"
	"strings"
	"testing"
	"time"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestParse(t *testing.T) {
	none := envOf(nil)
	good := map[string]string{
		"file:///var/backups/pragmalab":                                 "file:///var/backups/pragmalab",
		"s3://bucket/pragmalab":                                         "s3://bucket/pragmalab",
		"s3://bucket/p?endpoint=http://127.0.0.1:9000&region=us-east-1": "s3://bucket/p?endpoint=http://127.0.0.1:9000&region=us-east-1",
		"sftp://backup@host.example:2222/srv/pragmalab":                 "sftp://backup@host.example:2222/srv/pragmalab",
	}
	for raw, display := range good {
		tg, err := Parse(raw, none)
		if err != nil || tg.Display != display || tg.URL != raw {
			t.Errorf("Parse(%q) = %+v, %v", raw, tg, err)
		}
	}
	bad := map[string]string{
		"":                          "empty",
		"/var/backups":              "no scheme",
		"file://backups/x":          "absolute path",
		"file:///x?y=1":             "only a path",
		"s3:///pragmalab":           "name the bucket",
		"s3://bucket":               "path inside the bucket",
		"s3://AKIA:secret@bucket/p": "no credentials in the URL",
		"sftp://host/p":             "user and a host",
		"sftp://u:hunter2@host/p":   "no password in the URL",
		"gs://bucket/p":             "not supported",
		"s3://bucket/$HOME":         "a $ is not allowed",
	}
	for raw, want := range bad {
		_, err := Parse(raw, none)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) error %v, want one saying %q", raw, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("Parse(%q): the error shows the password: %v", raw, err)
		}
	}
}

// The tigris keyword reads Fly's secrets; without a bucket replication is
// off, said plainly.
func TestParseTigris(t *testing.T) {
	tg, err := Parse("tigris", envOf(map[string]string{"BUCKET_NAME": "lab-bucket", "AWS_ENDPOINT_URL_S3": "https://fly.storage.tigris.dev", "AWS_REGION": "auto"}))
	if err != nil || tg.URL != "s3://lab-bucket/pragmalab?endpoint=https%3A%2F%2Ffly.storage.tigris.dev&region=auto" {
		t.Fatalf("tigris: %+v %v", tg, err)
	}
	if _, err := Parse("tigris", envOf(nil)); err != ErrNoTigrisBucket {
		t.Fatalf("tigris without a bucket: %v", err)
	}
}

// Litestream's configuration holds no secret: the SFTP password is a
// variable Litestream expands, in a block no character can break.
func TestConfigHoldsNoSecret(t *testing.T) {
	env := envOf(map[string]string{"PRAGMALAB_REPLICA_SFTP_PASSWORD": `Zq"9x: 'Wv7`, "AWS_SECRET_ACCESS_KEY": "s3cret"})
	tg, err := Parse("sftp://backup@host/srv/p", env)
	if err != nil {
		t.Fatal(err)
	}
	c := config(tg, "/data/pragmalab.db", "/tmp/x/ctl.sock", env)
	if strings.Contains(c, "Wv7") || strings.Contains(c, "Zq") || strings.Contains(c, "s3cret") {
		t.Fatalf("config holds a secret:\n%s", c)
	}
	for _, want := range []string{"password: |-\n        ${PRAGMALAB_REPLICA_SFTP_PASSWORD}\n", `url: "sftp://backup@host/srv/p"`, `path: "/data/pragmalab.db"`, "sync-interval: 1s", `path: "/tmp/x/ctl.sock"`} {
		if !strings.Contains(c, want) {
			t.Errorf("config lacks %q:\n%s", want, c)
		}
	}
	// Litestream gets the credentials it needs and nothing else.
	ce := strings.Join(childEnv(envOf(map[string]string{"AWS_SECRET_ACCESS_KEY": "s3cret", "OPENAI_API_KEY": "sk-x", "PATH": "/bin"})), "\n")
	if !strings.Contains(ce, "AWS_SECRET_ACCESS_KEY=s3cret") || !strings.Contains(ce, "PATH=/bin") || strings.Contains(ce, "OPENAI") {
		t.Errorf("child env: %s", ce)
	}
}

// The lag: every commit before a poll was sent is in the replica once the
// replica holds the transaction that poll reported.
func TestLag(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 14, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	var s state
	s.advance(sample{sent: at(0), local: 5}, 5, at(0.1))
	if !s.syncedThrough.Equal(at(0)) || len(s.pending) != 0 {
		t.Fatalf("caught up: %+v", s)
	}
	s.advance(sample{sent: at(1), local: 7}, 5, at(1.1)) // 6 and 7 not uploaded yet
	s.advance(sample{sent: at(2), local: 9}, 6, at(2.1))
	if !s.syncedThrough.Equal(at(0)) || len(s.pending) != 2 {
		t.Fatalf("behind: synced through %v, pending %v", s.syncedThrough, s.pending)
	}
	s.err, s.errAt = "monitor error: 403", at(2.5)
	s.advance(sample{sent: at(3), local: 9}, 7, at(3.1)) // the poll at 1 s is replicated
	if !s.syncedThrough.Equal(at(1)) || s.err == "" {
		t.Fatalf("partly: synced through %v (want 1 s), err %q", s.syncedThrough, s.err)
	}
	s.advance(sample{sent: at(4), local: 9}, 9, at(4.1))
	if !s.syncedThrough.Equal(at(4)) || len(s.pending) != 0 || s.err != "" {
		t.Fatalf("caught up again: synced through %v, pending %v, err %q (cleared once the replica has what came after it)", s.syncedThrough, s.pending, s.err)
	}
	if s.replicated != 9 || !s.replicatedAt.Equal(at(4.1)) {
		t.Fatalf("replicated %d at %v", s.replicated, s.replicatedAt)
	}
}

func TestParseTimestamp(t *testing.T) {
	for in, want := range map[string]string{
		"2026-12-02T14:05:00Z":      "2026-12-02T14:05:00Z",
		"2026-12-02T15:05:00+01:00": "2026-12-02T14:05:00Z",
		"2026-12-02 14:05:00":       "2026-12-02T14:05:00Z",
	} {
		got, err := ParseTimestamp(in)
		if err != nil || got.Format(time.RFC3339) != want {
			t.Errorf("ParseTimestamp(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseTimestamp("yesterday"); err == nil || !strings.Contains(err.Error(), "RFC 3339") {
		t.Errorf("ParseTimestamp(yesterday): %v", err)
	}
}

// Without litestream anywhere, the message says how to install it.
func TestFindMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Find(envOf(map[string]string{"PATH": t.TempDir()}))
	if err == nil || !strings.Contains(err.Error(), "go install github.com/benbjohnson/litestream/cmd/litestream@"+Version) {
		t.Fatalf("Find: %v", err)
	}
}

// The Docker image builds the Litestream this package is tested with, and
// .ci/run reads the version from the line it expects.
func TestLitestreamVersionPinned(t *testing.T) {
	docker, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(docker), "github.com/benbjohnson/litestream/cmd/litestream@"+Version) {
		t.Errorf("the Dockerfile does not build litestream@%s", Version)
	}
	src, err := os.ReadFile("litestream.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "\nconst Version = \""+Version+"\"\n") {
		t.Error(".ci/run reads the version from a line `const Version = \"vX.Y.Z\"` in litestream.go, which is gone")
	}
}
