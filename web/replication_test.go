package web

import (
	"strings"
	"testing"
	"time"

	"pragmalab/domain"
)

// The owner's metrics page shows the replica, how far it has got and its
// lag; a failure is shown as an error; /healthz says degraded, still 200,
// once the lag passes the threshold or replication fails.
func TestReplicationOnMetricsAndHealth(t *testing.T) {
	rep := domain.Replication{On: true, Replica: "s3://bucket/pragmalab", Running: true,
		LocalTXID: 42, ReplicatedTXID: 41, ReplicatedAt: time.Now().Add(-2 * time.Second),
		SyncedThrough: time.Now().Add(-2 * time.Second), Lag: 2 * time.Second, MaxLag: 10 * time.Second}
	e := newTestEnvConfig(t, func(c *Config) { c.Replication = func() domain.Replication { return rep } })
	owner := e.adminClient()

	p := owner.get("/admin/metrics")
	for _, want := range []string{`data-testid="replication-replica">s3://bucket/pragmalab<`, `data-testid="replication-txid">41 (0000000000000029) of 42 (`, `data-testid="replication-lag"`, "2.0 s: answers younger"} {
		if !strings.Contains(p.Body, want) {
			t.Errorf("metrics page lacks %q", want)
		}
	}
	if strings.Contains(p.Body, `data-testid="replication-error"`) {
		t.Error("healthy replication shown with an error")
	}
	h := e.newClient().get("/healthz")
	if h.StatusCode != 200 || h.Body != "ok\n" || h.Header.Get("X-Pragmalab-Health") != "ok" {
		t.Errorf("/healthz healthy: %d %q %q", h.StatusCode, h.Body, h.Header.Get("X-Pragmalab-Health"))
	}

	rep.Lag = 25 * time.Second
	h = e.newClient().get("/healthz")
	if h.StatusCode != 200 || !strings.HasPrefix(h.Body, "degraded, still serving: replication lag 25s (threshold 10s)") || h.Header.Get("X-Pragmalab-Health") != "degraded" {
		t.Errorf("/healthz lagging: %d %q", h.StatusCode, h.Body)
	}
	p = owner.get("/admin/metrics")
	if !strings.Contains(p.Body, `data-testid="replication-lag" class="error"`) {
		t.Error("a lag past the threshold is not marked on the metrics page")
	}

	rep.Lag, rep.Error, rep.ErrorAt = 3*time.Second, "monitor error: operation error S3: PutObject, https response error StatusCode: 403, InvalidAccessKeyId", time.Now()
	p = owner.get("/admin/metrics")
	if !strings.Contains(p.Body, `class="error wrap" role="alert" data-testid="replication-error">Replication is failing: monitor error: operation error S3: PutObject`) {
		t.Errorf("the failure is not shown as an error on the metrics page")
	}
	h = e.newClient().get("/healthz")
	if !strings.HasPrefix(h.Body, "degraded, still serving: replication failing") || strings.Contains(h.Body, "S3") {
		t.Errorf("/healthz failing: %q (must say degraded and not show the error to the public)", h.Body)
	}
}

// Without a replica the page says replication is off and /healthz is ok.
func TestReplicationOff(t *testing.T) {
	e := newTestEnv(t)
	if p := e.adminClient().get("/admin/metrics"); !strings.Contains(p.Body, `data-testid="replication-off"`) {
		t.Error("metrics page does not say replication is off")
	}
	if h := e.newClient().get("/healthz"); h.Body != "ok\n" {
		t.Errorf("/healthz = %q", h.Body)
	}
}
