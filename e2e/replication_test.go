package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"pragmalab/domain"
	"pragmalab/web"
)

// The metrics page's replication panel on a phone and a desktop: a failing
// replica's long error and URL wrap rather than push the page sideways,
// and the error is visible.
func TestReplicationPanel(t *testing.T) {
	db := openStore(t)
	if _, err := db.CreateAdmin(context.Background(), "owner", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	rep := domain.Replication{On: true, Replica: "s3://pragmalab-replica-of-the-spring-term-study/pragmalab?endpoint=https%3A%2F%2Ffly.storage.tigris.dev&region=auto",
		Running: true, LocalTXID: 1234, ReplicatedTXID: 1190, ReplicatedAt: now.Add(-40 * time.Second), SyncedThrough: now.Add(-41 * time.Second),
		Lag: 41 * time.Second, MaxLag: 10 * time.Second, ErrorAt: now.Add(-39 * time.Second),
		Error: "monitor error: write ltx file: operation error S3: PutObject, https response error StatusCode: 403, RequestID: 17F3C0A, HostID: dd9025bab4ad464b049177c95eb6ebf374d3b3fd1af9251148b658df7ac2e3e8, api error InvalidAccessKeyId: The AWS Access Key Id you provided does not exist in our records."}
	ts, _ := serve(t, db, web.Config{Replication: func() domain.Replication { return rep }})
	ctx := newBrowser(t)
	for _, width := range []int64{390, 1280} {
		var opts []chromedp.EmulateViewportOption
		if width == 390 {
			opts = append(opts, chromedp.EmulateMobile)
		}
		step(t, ctx, "log in", chromedp.EmulateViewport(width, 900, opts...), chromedp.Navigate(ts.URL+"/admin/login"))
		if width == 390 {
			step(t, ctx, "type the password", chromedp.SendKeys(`input[name="username"]`, "owner"), chromedp.SendKeys(`input[name="password"]`, "correct horse battery"),
				chromedp.Submit(`input[name="password"]`), chromedp.WaitNotPresent(`input[name="password"]`))
		}
		step(t, ctx, "open the metrics", chromedp.Navigate(ts.URL+"/admin/metrics"), chromedp.WaitVisible(testID("replication-error")), chromedp.WaitVisible(testID("replication-lag")))
		noSideways(t, ctx, "metrics page", width)
		screenshot(t, ctx, map[int64]string{390: "metrics-replication-phone", 1280: "metrics-replication-desktop"}[width])
	}
}
