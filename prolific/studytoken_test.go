package prolific_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"pragmalab/prolific"
	"pragmalab/prolific/prolifictest"
)

const (
	tokPID     = "5f0a1b2c3d4e5f6a7b8c9d0e"
	tokStudy   = "60aca280709ee40ec37d4885"
	tokSession = "625d4a831bcda2d59ac5a251"
)

// verifier returns a verifier of srv's JWKS whose clock is *now.
func verifier(t *testing.T, srv *prolifictest.Server, now *time.Time) *prolific.TokenVerifier {
	t.Helper()
	v, err := prolific.NewTokenVerifier(func(k string) string {
		if k == prolific.APIEnv {
			return srv.URL
		}
		return ""
	}, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	if v.URL() != srv.JWKSURL() {
		t.Fatalf("JWKS address %q, want the API's %q", v.URL(), srv.JWKSURL())
	}
	v.Now = func() time.Time { return *now }
	return v
}

func TestStudyTokenVerify(t *testing.T) {
	srv := prolifictest.NewServer("tok")
	defer srv.Close()
	now := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	v := verifier(t, srv, &now)
	ctx := context.Background()
	mint := func(issued time.Time, kind prolifictest.TokenKind) string {
		return srv.MintToken(prolifictest.Token{PID: tokPID, StudyID: tokStudy, SessionID: tokSession, Issued: issued, Kind: kind})
	}

	c, err := v.Verify(ctx, mint(now.Add(-10*time.Second), prolifictest.Signed))
	if err != nil {
		t.Fatalf("a fresh token of Prolific's key: %v", err)
	}
	if !c.Match(tokPID, tokStudy, tokSession) {
		t.Fatalf("claims %+v do not match the URL's", c)
	}
	// PROLIFIC_PID's case is ignored, as everywhere; the others are exact.
	if !c.Match("5F0A1B2C3D4E5F6A7B8C9D0E", tokStudy, tokSession) {
		t.Error("the PID in upper case does not match")
	}
	for _, m := range [][3]string{
		{"5f0a1b2c3d4e5f6a7b8c9d0f", tokStudy, tokSession},
		{tokPID, "60aca280709ee40ec37d4886", tokSession},
		{tokPID, tokStudy, "625d4a831bcda2d59ac5a252"},
		{tokPID, tokStudy, ""},
	} {
		if c.Match(m[0], m[1], m[2]) {
			t.Errorf("claims match a URL with %v", m)
		}
	}

	// Within the skew: expired 20 s ago, or issued 20 s ahead of our clock.
	if _, err := v.Verify(ctx, mint(now.Add(-2*time.Minute-20*time.Second), prolifictest.Signed)); err != nil {
		t.Errorf("a token expired within the leeway: %v", err)
	}
	if _, err := v.Verify(ctx, mint(now.Add(20*time.Second), prolifictest.Signed)); err != nil {
		t.Errorf("a token issued within the leeway ahead: %v", err)
	}

	for _, bad := range []struct {
		name  string
		token string
		want  error
	}{
		{"expired", mint(now.Add(-3*time.Minute), prolifictest.Signed), prolific.ErrTokenExpired},
		{"issued in the future", mint(now.Add(2*time.Minute), prolifictest.Signed), prolific.ErrTokenExpired},
		{"wrong key", mint(now, prolifictest.WrongKey), prolific.ErrTokenSignature},
		{"unknown key id", mint(now, prolifictest.UnknownKid), prolific.ErrTokenSignature},
		{"HS256 with the public key", mint(now, prolifictest.HS256Confusion), prolific.ErrTokenMalformed},
		{"alg none", mint(now, prolifictest.AlgNone), prolific.ErrTokenMalformed},
		{"not a JWT", "abc.def", prolific.ErrTokenMalformed},
		{"missing", "", prolific.ErrTokenMissing},
	} {
		if _, err := v.Verify(ctx, bad.token); !errors.Is(err, bad.want) {
			t.Errorf("%s: got %v, want %v", bad.name, err, bad.want)
		}
	}
	// A tampered payload fails the signature.
	tok := mint(now, prolifictest.Signed)
	tampered := tok[:len(tok)-5] + "AAAAA"
	if tampered == tok {
		tampered = tok[:len(tok)-5] + "BBBBB"
	}
	if _, err := v.Verify(ctx, tampered); !errors.Is(err, prolific.ErrTokenSignature) && !errors.Is(err, prolific.ErrTokenMalformed) {
		t.Errorf("tampered signature: got %v", err)
	}
}

func TestStudyTokenJWKSRotation(t *testing.T) {
	srv := prolifictest.NewServer("tok")
	defer srv.Close()
	now := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	v := verifier(t, srv, &now)
	ctx := context.Background()
	mint := func() string {
		return srv.MintToken(prolifictest.Token{PID: tokPID, StudyID: tokStudy, SessionID: tokSession, Issued: now})
	}
	if _, err := v.Verify(ctx, mint()); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(ctx, mint()); err != nil {
		t.Fatal(err)
	}
	if n := srv.Calls("GET jwks"); n != 1 {
		t.Fatalf("the key set was fetched %d times for two tokens of one key, want once (cached)", n)
	}

	srv.RotateKeys()
	// Right after a fetch, an unknown kid does not fetch again (forged
	// kids cannot hammer Prolific) and the token is refused.
	now = now.Add(prolific.JWKSMinRefetch / 2)
	if _, err := v.Verify(ctx, mint()); !errors.Is(err, prolific.ErrTokenSignature) {
		t.Fatalf("new kid within the refetch interval: got %v", err)
	}
	if n := srv.Calls("GET jwks"); n != 1 {
		t.Fatalf("fetched %d times, want 1", n)
	}
	// Later, the unknown kid makes the verifier fetch the set again and the
	// new key verifies.
	now = now.Add(prolific.JWKSMinRefetch)
	if _, err := v.Verify(ctx, mint()); err != nil {
		t.Fatalf("a token of the rotated key: %v", err)
	}
	if n := srv.Calls("GET jwks"); n != 2 {
		t.Fatalf("fetched %d times after a rotation, want 2", n)
	}

	// Past the TTL the set is fetched again; if Prolific fails then, the
	// keys held go on serving.
	srv.Fail("GET jwks", http.StatusServiceUnavailable, "down")
	now = now.Add(prolific.JWKSTTL)
	if _, err := v.Verify(ctx, mint()); err != nil {
		t.Fatalf("stale keys while Prolific is down: %v", err)
	}
	if n := srv.Calls("GET jwks"); n != 3 {
		t.Fatalf("fetched %d times past the TTL, want 3", n)
	}
	// While Prolific is down the stale keys are not fetched at every
	// arrival: once every JWKSMinRefetch.
	now = now.Add(time.Second)
	if _, err := v.Verify(ctx, mint()); err != nil {
		t.Fatal(err)
	}
	if n := srv.Calls("GET jwks"); n != 3 {
		t.Fatalf("fetched %d times during an outage, want 3", n)
	}
	now = now.Add(prolific.JWKSMinRefetch)
	v.Verify(ctx, mint())
	if n := srv.Calls("GET jwks"); n != 4 {
		t.Fatalf("fetched %d times once the interval passed, want 4", n)
	}
}

func TestStudyTokenJWKSUnavailable(t *testing.T) {
	srv := prolifictest.NewServer("tok")
	defer srv.Close()
	now := time.Now()
	v := verifier(t, srv, &now)
	srv.Fail("GET jwks", http.StatusBadGateway, "down")
	tok := srv.MintToken(prolifictest.Token{PID: tokPID, StudyID: tokStudy, SessionID: tokSession})
	if _, err := v.Verify(context.Background(), tok); !errors.Is(err, prolific.ErrJWKSUnavailable) {
		t.Fatalf("no keys and no JWKS: got %v", err)
	}
	// Prolific answers again: the next fetch comes JWKSMinRefetch after
	// the failed one, not at once.
	srv.Fail("GET jwks", 0, "")
	if _, err := v.Verify(context.Background(), tok); !errors.Is(err, prolific.ErrJWKSUnavailable) || srv.Calls("GET jwks") != 1 {
		t.Fatalf("right after a failed fetch: %v, %d fetches", err, srv.Calls("GET jwks"))
	}
	now = now.Add(prolific.JWKSMinRefetch)
	tok = srv.MintToken(prolifictest.Token{PID: tokPID, StudyID: tokStudy, SessionID: tokSession, Issued: now})
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatalf("after the interval: %v", err)
	}
}

func TestTokenVerifierAddress(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	v, err := prolific.NewTokenVerifier(getenv, nil)
	if err != nil || v.URL() != "https://api.prolific.com/.well-known/study/jwks.json" {
		t.Fatalf("default JWKS %q, %v", v.URL(), err)
	}
	env[prolific.JWKSEnv] = "https://keys.example/jwks.json"
	if v, _ := prolific.NewTokenVerifier(getenv, nil); v.URL() != "https://keys.example/jwks.json" {
		t.Fatalf("%s ignored: %q", prolific.JWKSEnv, v.URL())
	}
	env[prolific.JWKSEnv] = "ftp://keys"
	if _, err := prolific.NewTokenVerifier(getenv, nil); err == nil {
		t.Fatal("an ftp JWKS address was accepted")
	}
}
