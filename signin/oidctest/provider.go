// Package oidctest serves a fake OpenID Connect identity provider for
// tests: discovery, a JWKS with an RSA key, an authorization endpoint that
// signs in the person the test chose and redirects back with a code, and a
// token endpoint that checks the client, the redirect address and the PKCE
// verifier and returns an RS256-signed ID token. A test may tamper with
// the token's claims or its signing key to see the client refuse it.
// Nothing touches the network.
package oidctest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Person is who signs in at the provider.
type Person struct {
	Subject       string
	Email         string
	EmailVerified bool
	Name          string
}

// Claims are an ID token's claims, which Tamper may change before signing.
type Claims map[string]any

// Provider is a fake identity provider.
type Provider struct {
	*httptest.Server
	ClientID, ClientSecret string

	key, otherKey *rsa.PrivateKey
	kid           string

	mu sync.Mutex
	// person signs in at the next authorization.
	person Person
	codes  map[string]grant
	// Tamper, if set, changes the claims of the next ID tokens.
	tamper func(Claims)
	// wrongKey signs the next ID tokens with a key the JWKS does not hold.
	wrongKey bool
	// Now is the provider's clock (default time.Now).
	Now func() time.Time
	// Authorizations and Tokens count the requests that reached each
	// endpoint.
	Authorizations, Tokens int
}

type grant struct {
	redirectURI, nonce, challenge string
	person                        Person
}

// New starts a provider for one client.
func New(clientID, clientSecret string) *Provider {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	p := &Provider{ClientID: clientID, ClientSecret: clientSecret, key: key, otherKey: other, kid: rand.Text()[:8], codes: map[string]grant{}, Now: time.Now}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", p.discovery)
	mux.HandleFunc("GET /jwks", p.jwks)
	mux.HandleFunc("GET /authorize", p.authorize)
	mux.HandleFunc("POST /token", p.token)
	p.Server = httptest.NewServer(mux)
	return p
}

// SignIn sets the person who signs in at the next authorizations.
func (p *Provider) SignIn(who Person) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.person = who
}

// Tamper changes the claims of the ID tokens issued from now on (nil: no
// change).
func (p *Provider) Tamper(f func(Claims)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tamper = f
}

// SignWithWrongKey makes the next ID tokens carry a signature the
// provider's published keys do not verify.
func (p *Provider) SignWithWrongKey(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.wrongKey = on
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (p *Provider) discovery(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                p.URL,
		"authorization_endpoint":                p.URL + "/authorize",
		"token_endpoint":                        p.URL + "/token",
		"jwks_uri":                              p.URL + "/jwks",
		"response_types_supported":              []string{"code"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"code_challenge_methods_supported":      []string{"S256"},
		"scopes_supported":                      []string{"openid", "email", "profile"},
	})
}

func (p *Provider) jwks(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &p.key.PublicKey, KeyID: p.kid, Algorithm: "RS256", Use: "sig"}}})
}

// authorize signs the chosen person in and sends the browser back with a
// code, as a provider does once its user has logged in and consented.
func (p *Provider) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.Authorizations++
	switch {
	case q.Get("client_id") != p.ClientID:
		http.Error(w, "unknown client_id", http.StatusBadRequest)
		return
	case q.Get("response_type") != "code":
		http.Error(w, "response_type must be code", http.StatusBadRequest)
		return
	case !strings.Contains(" "+q.Get("scope")+" ", " openid "):
		http.Error(w, "scope must include openid", http.StatusBadRequest)
		return
	case q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		http.Error(w, "PKCE with S256 is required", http.StatusBadRequest)
		return
	case q.Get("state") == "" || q.Get("nonce") == "":
		http.Error(w, "state and nonce are required", http.StatusBadRequest)
		return
	}
	back, err := url.Parse(q.Get("redirect_uri"))
	if err != nil || back.Host == "" {
		http.Error(w, "bad redirect_uri", http.StatusBadRequest)
		return
	}
	code := rand.Text()
	p.codes[code] = grant{redirectURI: q.Get("redirect_uri"), nonce: q.Get("nonce"), challenge: q.Get("code_challenge"), person: p.person}
	v := back.Query()
	v.Set("code", code)
	v.Set("state", q.Get("state"))
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func tokenError(w http.ResponseWriter, code, desc string) {
	writeJSON(w, http.StatusBadRequest, map[string]string{"error": code, "error_description": desc})
}

// token exchanges a code, once, for an ID token.
func (p *Provider) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		tokenError(w, "invalid_request", "unreadable form")
		return
	}
	id, secret, ok := r.BasicAuth()
	if ok {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = r.PostFormValue("client_id"), r.PostFormValue("client_secret")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.Tokens++
	if id != p.ClientID || secret != p.ClientSecret {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
		return
	}
	if r.PostFormValue("grant_type") != "authorization_code" {
		tokenError(w, "unsupported_grant_type", "")
		return
	}
	g, ok := p.codes[r.PostFormValue("code")]
	delete(p.codes, r.PostFormValue("code"))
	if !ok {
		tokenError(w, "invalid_grant", "unknown or used code")
		return
	}
	if r.PostFormValue("redirect_uri") != g.redirectURI {
		tokenError(w, "invalid_grant", "redirect_uri differs")
		return
	}
	sum := sha256.Sum256([]byte(r.PostFormValue("code_verifier")))
	if base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
		tokenError(w, "invalid_grant", "PKCE verifier does not match")
		return
	}
	now := p.Now()
	c := Claims{
		"iss": p.URL, "sub": g.person.Subject, "aud": p.ClientID,
		"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(), "nonce": g.nonce,
	}
	if g.person.Email != "" {
		c["email"], c["email_verified"] = g.person.Email, g.person.EmailVerified
	}
	if g.person.Name != "" {
		c["name"] = g.person.Name
	}
	if p.tamper != nil {
		p.tamper(c)
	}
	key := p.key
	if p.wrongKey {
		key = p.otherKey
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key}, (&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", p.kid))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	payload, _ := json.Marshal(c)
	jws, err := signer.Sign(payload)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	idToken, _ := jws.CompactSerialize()
	writeJSON(w, http.StatusOK, map[string]any{"access_token": rand.Text(), "token_type": "Bearer", "expires_in": 300, "id_token": idToken})
}
