package web

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"pragmalab/domain"
	"pragmalab/replica"
	"pragmalab/replica/replicatest"
)

// A replica whose credentials the storage refuses: the server keeps
// serving, the owner's metrics page shows the storage's refusal in red,
// and /healthz says degraded.
func TestReplicationBadCredentials(t *testing.T) {
	bin := replicatest.Litestream(t)
	fake := replicatest.NewFakeS3(t, "AKIDGOOD")
	var rep *replica.Replicator
	e := newTestEnvConfig(t, func(c *Config) {
		c.Replication = func() domain.Replication { return rep.Status() }
	})
	env := map[string]string{"PRAGMALAB_LITESTREAM": bin, "AWS_ACCESS_KEY_ID": "AKIDBAD", "AWS_SECRET_ACCESS_KEY": "S3CRETz9", "AWS_REGION": "us-east-1"}
	getenv := func(k string) string { return env[k] }
	target, err := replica.Parse("s3://lab/pragmalab?endpoint="+fake.URL+"&region=us-east-1", getenv)
	if err != nil {
		t.Fatal(err)
	}
	rep, err = replica.Start(context.Background(), replica.Options{Target: target, DB: e.db.Path(), Getenv: getenv, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rep.Stop(5 * time.Second) })
	owner := e.adminClient() // a write for Litestream to ship
	for deadline := time.Now().Add(time.Minute); rep.Status().Error == ""; {
		if time.Now().After(deadline) {
			t.Fatalf("no replication error after a minute of refused uploads (%d refused): %+v", fake.Refused, rep.Status())
		}
		time.Sleep(20 * time.Millisecond)
	}
	p := owner.get("/admin/metrics")
	if p.StatusCode != 200 || !strings.Contains(p.Body, `class="error wrap" role="alert" data-testid="replication-error">Replication is failing: `) || !strings.Contains(p.Body, "InvalidAccessKeyId") {
		t.Fatalf("metrics page: %d, no error in red naming the refusal:\n%s", p.StatusCode, p.Body)
	}
	if strings.Contains(p.Body, "S3CRETz9") {
		t.Fatal("the metrics page shows the secret key")
	}
	h := e.newClient().get("/healthz")
	if h.StatusCode != 200 || !strings.HasPrefix(h.Body, "degraded, still serving") {
		t.Fatalf("/healthz: %d %q", h.StatusCode, h.Body)
	}
}
