package prolifictest

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"pragmalab/prolific"
)

// The fake's signed study URLs (docs/prolific.md#signed-study-urls): it
// serves a JWKS at prolific.JWKSPath, without a token as Prolific does,
// and mints study tokens with the key it publishes, with a key it does
// not, or with the tricks a forger tries.

// signingKey is one RSA key and its id.
type signingKey struct {
	kid string
	key *rsa.PrivateKey
}

// keyPool keeps the RSA keys made by every fake in the process: making one
// costs tens of milliseconds on a busy machine, and a test needs only
// distinct ones.
var keyPool struct {
	sync.Mutex
	keys map[int]*rsa.PrivateKey
}

// newKey returns the n-th key of the pool, making it if need be.
func newKey(n int) *rsa.PrivateKey {
	keyPool.Lock()
	defer keyPool.Unlock()
	if keyPool.keys == nil {
		keyPool.keys = map[int]*rsa.PrivateKey{}
	}
	if k := keyPool.keys[n]; k != nil {
		return k
	}
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	keyPool.keys[n] = k
	return k
}

// tokenKeys is the fake's state of keys, kept apart from the server's
// mutex so that minting never waits on a request.
type tokenKeys struct {
	mu      sync.Mutex
	current *signingKey // published and used to sign; nil until first needed
	made    int         // keys made so far (the pool's index of the next)
}

// currentKey is the published key, made on first use.
func (s *Server) currentKey() *signingKey {
	s.tokens.mu.Lock()
	defer s.tokens.mu.Unlock()
	if s.tokens.current == nil {
		s.tokens.current = &signingKey{kid: fmt.Sprintf("fake-key-%d", s.tokens.made+1), key: newKey(s.tokens.made)}
		s.tokens.made++
	}
	return s.tokens.current
}

// RotateKeys replaces the published key with a new one under a new key id,
// as Prolific does when it rotates its keys; tokens of the old key no
// longer verify. It returns the new key id.
func (s *Server) RotateKeys() string {
	s.currentKey()
	s.tokens.mu.Lock()
	defer s.tokens.mu.Unlock()
	s.tokens.current = &signingKey{kid: fmt.Sprintf("fake-key-%d", s.tokens.made+1), key: newKey(s.tokens.made)}
	s.tokens.made++
	return s.tokens.current.kid
}

// JWKSURL is the address of the fake's key set.
func (s *Server) JWKSURL() string { return s.URL + prolific.JWKSPath }

// serveJWKS answers GET prolific.JWKSPath with the published key.
func (s *Server) serveJWKS(w http.ResponseWriter, r *http.Request) bool {
	if r.URL.Path != prolific.JWKSPath {
		return false
	}
	s.mu.Lock()
	s.calls[r.Method+" jwks"]++
	f, refused := s.failures[r.Method+" jwks"]
	s.mu.Unlock()
	switch {
	case r.Method != http.MethodGet:
		fail(w, http.StatusMethodNotAllowed, "Method not allowed.")
	case refused:
		fail(w, f.status, f.detail)
	default:
		k := s.currentKey()
		jwk := jose.JSONWebKey{Key: &k.key.PublicKey, KeyID: k.kid, Algorithm: string(jose.RS256), Use: "sig"}
		writeJSON(w, http.StatusOK, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{jwk}})
	}
	return true
}

// TokenKind is how a minted token is signed.
type TokenKind int

const (
	// Signed: RS256 with the published key.
	Signed TokenKind = iota
	// WrongKey: RS256 with a key Prolific never published, under the
	// published key's id (a forgery).
	WrongKey
	// UnknownKid: RS256 with a key the JWKS does not hold, under an id it
	// does not hold either.
	UnknownKid
	// HS256Confusion: HMAC-SHA256 keyed with the published public key's
	// JSON, under the published key's id (the alg-confusion forgery).
	HS256Confusion
	// AlgNone: no signature at all, "alg": "none".
	AlgNone
)

// Token is what a minted token says.
type Token struct {
	PID, StudyID, SessionID string
	// Issued is when it was made (zero: now); it expires 2 minutes later.
	Issued time.Time
	Kind   TokenKind
}

// MintToken makes a study token as Prolific adds it to the study URL: the
// registered claims iat, nbf and exp (2 minutes after issue) and the
// `prolific` claim with the URL's parameters and a workspace id.
func (s *Server) MintToken(t Token) string {
	if t.Issued.IsZero() {
		t.Issued = time.Now()
	}
	claims := map[string]any{
		"iat": t.Issued.Unix(), "nbf": t.Issued.Unix(), "exp": t.Issued.Add(2 * time.Minute).Unix(),
		"aud": "pragmalab",
		"prolific": map[string]any{
			"workspace_id": WorkspaceID, "PROLIFIC_PID": t.PID, "STUDY_ID": t.StudyID, "SESSION_ID": t.SessionID,
		},
	}
	k := s.currentKey()
	switch t.Kind {
	case AlgNone:
		h, _ := json.Marshal(map[string]any{"alg": "none", "typ": "JWT", "kid": k.kid})
		b, _ := json.Marshal(claims)
		return b64(h) + "." + b64(b) + "."
	case HS256Confusion:
		pub, _ := json.Marshal(jose.JSONWebKey{Key: &k.key.PublicKey, KeyID: k.kid, Algorithm: string(jose.RS256), Use: "sig"})
		return sign(jose.SigningKey{Algorithm: jose.HS256, Key: pub}, k.kid, claims)
	case WrongKey:
		return sign(jose.SigningKey{Algorithm: jose.RS256, Key: newKey(100)}, k.kid, claims)
	case UnknownKid:
		return sign(jose.SigningKey{Algorithm: jose.RS256, Key: newKey(101)}, "not-a-published-key", claims)
	}
	return sign(jose.SigningKey{Algorithm: jose.RS256, Key: k.key}, k.kid, claims)
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// sign serialises claims as a JWT signed with key under kid.
func sign(key jose.SigningKey, kid string, claims map[string]any) string {
	sg, err := jose.NewSigner(key, (&jose.SignerOptions{}).WithType("JWT").WithHeader(jose.HeaderKey("kid"), kid))
	if err != nil {
		panic(err)
	}
	tok, err := jwt.Signed(sg).Claims(claims).Serialize()
	if err != nil {
		panic(err)
	}
	return tok
}
