package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"pragmalab/domain"
	"pragmalab/prolific"
	"pragmalab/prolific/prolifictest"
)

// signedEnv is a crowd study that requires Prolific's signed study URL,
// verified against the fake Prolific's JWKS.
func signedEnv(t *testing.T) (*crowdEnv, *prolifictest.Server) {
	t.Helper()
	e := newCrowdEnv(t, 20, 10, func(s *domain.CrowdSettings) { s.SignedURL = true })
	fake := prolifictest.NewServer("tok")
	t.Cleanup(fake.Close)
	v, err := prolific.NewTokenVerifier(func(k string) string {
		if k == prolific.JWKSEnv {
			return fake.JWKSURL()
		}
		return ""
	}, fake.Client())
	if err != nil {
		t.Fatal(err)
	}
	e.web.Handler.StudyTokens = v
	return e, fake
}

// later moves the verifier's clock on by d (the tokens' times stay real).
func later(e *crowdEnv, d time.Duration) {
	v := e.web.Handler.StudyTokens
	prev := v.Now
	v.Now = func() time.Time { return prev().Add(d) }
}

const signedStudy = "60aca280709ee40ec37d4885"

// signedEntry is the entry URL Prolific sends a participant to, with tok.
func (e *crowdEnv) signedEntry(pid, session, tok string) string {
	u := fmt.Sprintf("/s/%d?PROLIFIC_PID=%s&STUDY_ID=%s&SESSION_ID=%s", e.study, pid, signedStudy, session)
	if tok != "" {
		u += "&prolific_token=" + url.QueryEscape(tok)
	}
	return u
}

// hasCrowdCookie tells whether the browser was given a session cookie.
func (b *browser) hasCrowdCookie() bool {
	u, _ := url.Parse(b.env.srv.URL + b.env.base() + "/")
	for _, c := range b.c.Jar.Cookies(u) {
		if strings.HasPrefix(c.Name, "crowd_") {
			return true
		}
	}
	return false
}

func TestCrowdSignedURL(t *testing.T) {
	e, fake := signedEnv(t)
	pid := pidN(1)
	mint := func(p, study, session string, issued time.Time, kind prolifictest.TokenKind) string {
		return fake.MintToken(prolifictest.Token{PID: p, StudyID: study, SessionID: session, Issued: issued, Kind: kind})
	}

	// A link Prolific signed for this participant is accepted.
	b := e.browser().get(e.signedEntry(pid, "sess1", mint(pid, signedStudy, "sess1", time.Now(), prolifictest.Signed)))
	b.must("landing")
	b.post(e.base()+"/consent", nil)
	b.must("training")
	// Coming back later through the same link, its token long expired:
	// the browser holds the session, so it resumes.
	b.get(e.signedEntry(pid, "sess1", mint(pid, signedStudy, "sess1", time.Now().Add(-time.Hour), prolifictest.Signed)))
	b.must("training")

	now := time.Now()
	other := pidN(2)
	for _, c := range []struct {
		name, url, text string
	}{
		{"missing", e.signedEntry(other, "s2", ""), "has none"},
		{"expired", e.signedEntry(other, "s2", mint(other, signedStudy, "s2", now.Add(-3*time.Minute), prolifictest.Signed)), "has expired"},
		{"wrong key", e.signedEntry(other, "s2", mint(other, signedStudy, "s2", now, prolifictest.WrongKey)), "valid signature"},
		{"unknown key", e.signedEntry(other, "s2", mint(other, signedStudy, "s2", now, prolifictest.UnknownKid)), "valid signature"},
		{"HS256 confusion", e.signedEntry(other, "s2", mint(other, signedStudy, "s2", now, prolifictest.HS256Confusion)), "valid signature"},
		{"alg none", e.signedEntry(other, "s2", mint(other, signedStudy, "s2", now, prolifictest.AlgNone)), "valid signature"},
		{"garbage", e.signedEntry(other, "s2", "not-a-token"), "valid signature"},
		{"another participant's token", e.signedEntry(other, "s2", mint(pidN(3), signedStudy, "s2", now, prolifictest.Signed)), "another participant"},
		{"another session's token", e.signedEntry(other, "s2", mint(other, signedStudy, "s3", now, prolifictest.Signed)), "another participant"},
		{"another study's token", e.signedEntry(other, "s2", mint(other, "60aca280709ee40ec37d4886", "s2", now, prolifictest.Signed)), "another participant"},
		// The first participant's valid token, replayed from a browser
		// without their session, under someone else's PID.
		{"replayed under another PID", e.signedEntry(other, "sess1", mint(pid, signedStudy, "sess1", now, prolifictest.Signed)), "another participant"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := e.browser().get(c.url)
			if b.resp.StatusCode != http.StatusForbidden {
				t.Fatalf("status %d, want 403:\n%s", b.resp.StatusCode, b.body)
			}
			b.must("message-signed")
			if !strings.Contains(b.body, "This link could not be verified") || !strings.Contains(b.body, c.text) {
				t.Fatalf("the page does not say why (%q):\n%s", c.text, b.body)
			}
			if !strings.Contains(b.body, "Nothing has been stored") || b.hasCrowdCookie() {
				t.Fatal("a refused arrival got a session cookie")
			}
			// Nothing was stored: the browser has no session to go to.
			b.get(e.base() + "/screen")
			if b.has("landing") || b.has("training") {
				t.Fatal("a refused arrival has a session")
			}
		})
	}
	// The same person with a good token gets in after all.
	b2 := e.browser().get(e.signedEntry(other, "s2", mint(other, signedStudy, "s2", now, prolifictest.Signed)))
	b2.must("landing")
}

// The refusal is in the study's language.
func TestCrowdSignedURLItalian(t *testing.T) {
	e, fake := signedEnv(t)
	st, _ := e.db.Study(context.Background(), e.study)
	st.Lang = "it"
	if err := e.db.UpdateStudy(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	tok := fake.MintToken(prolifictest.Token{PID: pidN(1), StudyID: signedStudy, SessionID: "s", Issued: time.Now().Add(-5 * time.Minute)})
	b := e.browser().get(e.signedEntry(pidN(1), "s", tok))
	b.must("message-signed")
	if !strings.Contains(b.body, `lang="it"`) || !strings.Contains(b.body, "Non è stato possibile verificare questo link") || !strings.Contains(b.body, "è scaduto") {
		t.Fatalf("Italian refusal expected:\n%s", b.body)
	}
}

// When Prolific's keys cannot be had, nobody is let in unverified: the
// page asks to come back in a minute.
func TestCrowdSignedURLKeysUnavailable(t *testing.T) {
	e, fake := signedEnv(t)
	fake.Fail("GET jwks", http.StatusBadGateway, "down")
	tok := fake.MintToken(prolifictest.Token{PID: pidN(1), StudyID: signedStudy, SessionID: "s"})
	b := e.browser().get(e.signedEntry(pidN(1), "s", tok))
	if b.resp.StatusCode != http.StatusServiceUnavailable || b.resp.Header.Get("Retry-After") == "" {
		t.Fatalf("status %d, Retry-After %q", b.resp.StatusCode, b.resp.Header.Get("Retry-After"))
	}
	b.must("message-signed_unavailable")
	fake.Fail("GET jwks", 0, "")
	// The keys are asked for again a little later, not at every arrival.
	later(e, prolific.JWKSMinRefetch)
	tok = fake.MintToken(prolifictest.Token{PID: pidN(1), StudyID: signedStudy, SessionID: "s", Issued: time.Now().Add(prolific.JWKSMinRefetch)})
	b.get(e.signedEntry(pidN(1), "s", tok)).must("landing")
}

// Without the setting, no token is asked for (the default).
func TestCrowdUnsignedURLByDefault(t *testing.T) {
	e := newCrowdEnv(t, 20, 10, nil)
	if e.set.SignedURL {
		t.Fatal("signed_url is on by default")
	}
	e.browser().get(e.entry(pidN(1), "s")).must("landing")
}

// The setting is on the crowd settings form: shown unticked, saved when
// ticked, and off again when the box is left unticked.
func TestCrowdSignedURLSetting(t *testing.T) {
	e := newCrowdEnv(t, 20, 10, nil)
	a := e.admin()
	study := fmt.Sprintf("/admin/studies/%d", e.study)
	a.get(study)
	if !a.has("signed-url-setting") || strings.Contains(a.body, `name="signed_url" value="yes" checked`) {
		t.Fatalf("the settings form lacks the unticked signed URL box:\n%s", a.body)
	}
	form := func(signed bool) url.Values {
		v := url.Values{"batch_size": {"10"}, "quota": {"5"}, "timeout_minutes": {"60"}, "check_high_min": {"5"},
			"check_low_max": {"3"}, "max_failed_checks": {"3"}, "lang": {"en"}, "completion_code": {"C0MPLETE"}}
		if signed {
			v.Set("signed_url", "yes")
		}
		return v
	}
	for _, on := range []bool{true, false} {
		a.post(study+"/crowd/settings", form(on))
		a.must("flash")
		_, set, err := e.db.CrowdStudy(context.Background(), e.study)
		if err != nil || set.SignedURL != on {
			t.Fatalf("saved signed_url %v (%v), want %v", set.SignedURL, err, on)
		}
		a.get(study)
		if got := strings.Contains(a.body, `name="signed_url" value="yes" checked`); got != on {
			t.Fatalf("the form shows the box ticked %v after saving %v", got, on)
		}
	}
}

// Prolific rotates its keys: a token of the new key, whose id the cached
// set lacks, makes the server fetch the set again and lets the
// participant in.
func TestCrowdSignedURLKeyRotation(t *testing.T) {
	e, fake := signedEnv(t)
	tok := func(pid string) string {
		return fake.MintToken(prolifictest.Token{PID: pid, StudyID: signedStudy, SessionID: "s", Issued: time.Now()})
	}
	e.browser().get(e.signedEntry(pidN(1), "s", tok(pidN(1)))).must("landing")
	fake.RotateKeys()
	later(e, prolific.JWKSMinRefetch)
	e.browser().get(e.signedEntry(pidN(2), "s", tok(pidN(2)))).must("landing")
	if n := fake.Calls("GET jwks"); n != 2 {
		t.Fatalf("the key set was fetched %d times, want 2 (once more for the new key)", n)
	}
}
