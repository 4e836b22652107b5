package prolific

import (
	"context"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Signed study URLs (docs/prolific.md#signed-study-urls): Prolific can add
// to the study URL a `prolific_token`, a JWT it signs with RS256 and that
// expires 2 minutes after it was made. Its public keys are a JSON Web Key
// Set at a well-known address of the API.

// JWKSEnv overrides the address of Prolific's JWKS.
const JWKSEnv = "PRAGMALAB_PROLIFIC_JWKS"

// JWKSPath is where Prolific's API publishes the keys of study tokens
// (API reference, Well-Known Endpoints: "Retrieve JSON Web Key Set").
const JWKSPath = "/.well-known/study/jwks.json"

// TokenParam is the query parameter that carries the token.
const TokenParam = "prolific_token"

// The verifier's documented constants.
const (
	// TokenLeeway is the clock skew allowed on exp, nbf and iat.
	TokenLeeway = 30 * time.Second
	// JWKSTTL is how long fetched keys are used before they are fetched
	// again (Prolific asks to refresh them at least daily).
	JWKSTTL = time.Hour
	// JWKSMinRefetch is the least time between two fetches that a token
	// with an unknown key id causes, so that forged key ids cannot make
	// pragmalab hammer Prolific.
	JWKSMinRefetch = 30 * time.Second
	// maxJWKS bounds the JWKS document read.
	maxJWKS = 1 << 20
	// maxToken bounds the token read from the URL.
	maxToken = 8 << 10
)

// Why a token is refused. Each is what the participant's page and the log
// name; none says more than that.
var (
	ErrTokenMissing    = errors.New("the study URL has no prolific_token")
	ErrTokenMalformed  = errors.New("the prolific_token is not a JWT signed with RS256")
	ErrTokenSignature  = errors.New("the prolific_token is not signed by a key of Prolific's")
	ErrTokenExpired    = errors.New("the prolific_token has expired")
	ErrTokenMismatch   = errors.New("the prolific_token was made for another participant, study or session")
	ErrJWKSUnavailable = errors.New("Prolific's keys could not be fetched")
)

// StudyClaims are the URL parameters a study token vouches for.
type StudyClaims struct {
	PID, StudyID, SessionID string
}

// TokenVerifier checks study tokens against Prolific's JWKS, which it
// caches for JWKSTTL and fetches again when a token names a key it does
// not hold (a key rotation), at most every JWKSMinRefetch.
type TokenVerifier struct {
	url string
	hc  *http.Client
	// Now is the clock (default time.Now).
	Now func() time.Time

	mu      sync.Mutex
	keys    *jose.JSONWebKeySet
	fetched time.Time // of keys; zero: never
	tried   time.Time // the last fetch, failed or not
	lastErr error     // of the last fetch, if it failed
}

// NewTokenVerifier returns a verifier reading the JWKS from
// PRAGMALAB_PROLIFIC_JWKS, else from the API's address
// (PRAGMALAB_PROLIFIC_API, else Prolific's) and JWKSPath.
func NewTokenVerifier(getenv func(string) string, hc *http.Client) (*TokenVerifier, error) {
	u := strings.TrimSpace(getenv(JWKSEnv))
	name := JWKSEnv
	if u == "" {
		base := strings.TrimRight(strings.TrimSpace(getenv(APIEnv)), "/")
		if base == "" {
			base = DefaultBaseURL
		}
		u, name = base+JWKSPath, APIEnv
	}
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" {
		return nil, fmt.Errorf("%s gives the JWKS address %q, which is not an http(s) URL", name, u)
	}
	if hc == nil {
		hc = NewHTTPClient(getenv)
	}
	return &TokenVerifier{url: u, hc: hc, Now: time.Now}, nil
}

// URL is the JWKS's address.
func (v *TokenVerifier) URL() string { return v.url }

// studyTokenClaims is the payload: the registered claims and Prolific's
// `prolific` object, which holds the URL parameters the token was made
// for.
type studyTokenClaims struct {
	Prolific map[string]any `json:"prolific"`
}

// Verify checks token and returns the parameters it vouches for: RS256
// only (a token of any other alg, `none` and HS256 among them, is
// malformed), signed by a key of the JWKS with the header's kid, not
// expired (exp required), not before nbf or iat, allowing TokenLeeway.
// The caller compares the claims with the URL's (Match).
func (v *TokenVerifier) Verify(ctx context.Context, token string) (StudyClaims, error) {
	token = strings.TrimSpace(token)
	if token == "" {
		return StudyClaims{}, ErrTokenMissing
	}
	if len(token) > maxToken {
		return StudyClaims{}, ErrTokenMalformed
	}
	tok, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil || len(tok.Headers) != 1 {
		return StudyClaims{}, ErrTokenMalformed
	}
	h := tok.Headers[0]
	if h.Algorithm != string(jose.RS256) || h.KeyID == "" {
		return StudyClaims{}, ErrTokenMalformed
	}
	key, err := v.key(ctx, h.KeyID)
	if err != nil {
		return StudyClaims{}, err
	}
	var reg jwt.Claims
	var pc studyTokenClaims
	if err := tok.Claims(key, &reg, &pc); err != nil {
		return StudyClaims{}, ErrTokenSignature
	}
	if reg.Expiry == nil {
		return StudyClaims{}, ErrTokenExpired
	}
	// The audience is not checked: what Prolific puts there for a tool is
	// not documented (docs/prolific.md#signed-study-urls).
	if err := reg.ValidateWithLeeway(jwt.Expected{Time: v.Now()}, TokenLeeway); err != nil {
		return StudyClaims{}, ErrTokenExpired
	}
	return StudyClaims{PID: claim(pc.Prolific, "PROLIFIC_PID"), StudyID: claim(pc.Prolific, "STUDY_ID"), SessionID: claim(pc.Prolific, "SESSION_ID")}, nil
}

// claim is the string under name in m: under name itself, else under a
// key that differs only in case, the first in sorted order ("" if none).
func claim(m map[string]any, name string) string {
	if s, ok := m[name].(string); ok {
		return strings.TrimSpace(s)
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		if strings.EqualFold(k, name) {
			if s, ok := v.(string); ok {
				return strings.TrimSpace(s)
			}
		}
	}
	return ""
}

// Match tells whether a token's claims are the URL's: the same
// PROLIFIC_PID (its case ignored, as pragmalab stores it), STUDY_ID and
// SESSION_ID, each present in the token.
func (c StudyClaims) Match(pid, studyID, sessionID string) bool {
	return c.PID != "" && c.StudyID != "" && c.SessionID != "" &&
		strings.EqualFold(c.PID, strings.TrimSpace(pid)) && c.StudyID == strings.TrimSpace(studyID) && c.SessionID == strings.TrimSpace(sessionID)
}

// key returns the RSA key with id kid. The JWKS is fetched when none is
// held, when it is older than JWKSTTL, or when it lacks kid — but at most
// once every JWKSMinRefetch, failed or not, so neither forged key ids nor
// an outage of Prolific make every arrival wait on a fetch. A failed fetch
// keeps the keys held (stale ones serve until Prolific answers again);
// with none held the token cannot be checked (ErrJWKSUnavailable).
func (v *TokenVerifier) key(ctx context.Context, kid string) (*rsa.PublicKey, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	now := v.Now()
	k, found := v.lookup(kid)
	stale := v.keys == nil || now.Sub(v.fetched) >= JWKSTTL
	if (stale || !found) && (v.tried.IsZero() || now.Sub(v.tried) >= JWKSMinRefetch) {
		v.tried = now
		if err := v.fetch(ctx); err != nil {
			v.lastErr = err
		} else {
			v.fetched, v.lastErr = now, nil
			k, found = v.lookup(kid)
		}
	}
	switch {
	case v.keys == nil:
		return nil, fmt.Errorf("%w: %v", ErrJWKSUnavailable, v.lastErr)
	case !found:
		return nil, ErrTokenSignature
	}
	return k, nil
}

// lookup finds an RSA signing key for RS256 with id kid in the held set.
func (v *TokenVerifier) lookup(kid string) (*rsa.PublicKey, bool) {
	if v.keys == nil {
		return nil, false
	}
	for _, k := range v.keys.Key(kid) {
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		if k.Algorithm != "" && k.Algorithm != string(jose.RS256) {
			continue
		}
		if pub, ok := k.Key.(*rsa.PublicKey); ok {
			return pub, true
		}
	}
	return nil, false
}

// fetch reads the JWKS.
func (v *TokenVerifier) fetch(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, v.url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := v.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s answered %d", v.url, resp.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKS+1))
	if err != nil {
		return err
	}
	if len(b) > maxJWKS {
		return fmt.Errorf("GET %s: the key set is over %d bytes", v.url, maxJWKS)
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(b, &set); err != nil {
		return fmt.Errorf("GET %s: not a JSON Web Key Set: %v", v.url, err)
	}
	v.keys = &set
	return nil
}
