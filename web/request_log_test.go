package web

import (
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestRequestLogLine: with -v (Debug) every request is logged by its route
// pattern, with its status and the id the client sent or one of the
// server's own; at serve's usual level no request line is written, and
// the security headers are on every response either way.
func TestRequestLogLine(t *testing.T) {
	for _, verbose := range []bool{true, false} {
		var log syncBuffer
		level := slog.LevelInfo
		if verbose {
			level = slog.LevelDebug
		}
		e := newTestEnvConfig(t, func(c *Config) {
			c.Log = slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: level}))
		})
		for _, id := range []string{"req-42", ""} {
			req, err := http.NewRequest(http.MethodGet, e.srv.URL+"/admin/login", nil)
			if err != nil {
				t.Fatal(err)
			}
			if id != "" {
				req.Header.Set("X-Request-Id", id)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET /admin/login: %d", resp.StatusCode)
			}
			for _, h := range []string{"Content-Security-Policy", "X-Frame-Options", "X-Content-Type-Options", "Referrer-Policy"} {
				if len(resp.Header.Values(h)) != 1 {
					t.Errorf("verbose %v: header %s is %q, want one value", verbose, h, resp.Header.Values(h))
				}
			}
		}
		out := log.String()
		lines := regexp.MustCompile(`(?m)^.*msg=http .*$`).FindAllString(out, -1)
		if !verbose {
			if len(lines) != 0 {
				t.Errorf("request lines logged at Info:\n%s", strings.Join(lines, "\n"))
			}
			continue
		}
		if len(lines) != 2 {
			t.Fatalf("want 2 request lines at Debug, got:\n%s", out)
		}
		if !strings.Contains(lines[0], "route=/admin/login") || !strings.Contains(lines[0], "status=200") || !strings.Contains(lines[0], "id=req-42") {
			t.Errorf("first line lacks the route, status or the client's id: %s", lines[0])
		}
		if !regexp.MustCompile(`id=\d+$`).MatchString(lines[1]) {
			t.Errorf("second line lacks a server-made id: %s", lines[1])
		}
	}
}
