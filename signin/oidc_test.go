package signin

import (
	"strings"
	"testing"
)

func TestOIDCConfigFromEnv(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	if c, err := OIDCConfigFromEnv(env()); c != nil || err != nil {
		t.Fatalf("nothing set: %+v, %v; want sign-in off", c, err)
	}
	c, err := OIDCConfigFromEnv(env(EnvOIDCIssuer, "https://login.uni.edu/realms/staff", EnvOIDCClientID, "pragmalab", EnvOIDCClientSecret, "s"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "login.uni.edu" || strings.Join(c.Scopes, " ") != "openid email profile" {
		t.Errorf("defaults: name %q, scopes %v", c.Name, c.Scopes)
	}
	if got := (&OIDC{cfg: *c}).RedirectURL("https://lab.uni.edu"); got != "https://lab.uni.edu/admin/oidc/callback" {
		t.Errorf("redirect %q", got)
	}
	c, err = OIDCConfigFromEnv(env(EnvOIDCIssuer, "https://orcid.org", EnvOIDCClientID, "APP-1", EnvOIDCClientSecret, "s", EnvOIDCScopes, "/authenticate", EnvOIDCName, "ORCID"))
	if err != nil || strings.Join(c.Scopes, " ") != "openid /authenticate" || c.Name != "ORCID" {
		t.Errorf("ORCID: %+v, %v", c, err)
	}
	for _, bad := range []struct {
		env  func(string) string
		want string
	}{
		{env(EnvOIDCIssuer, "https://login.uni.edu"), EnvOIDCClientID + " and " + EnvOIDCClientSecret + " not set"},
		{env(EnvOIDCClientSecret, "s"), EnvOIDCIssuer + " and " + EnvOIDCClientID + " not set"},
		{env(EnvOIDCIssuer, "http://login.uni.edu", EnvOIDCClientID, "x", EnvOIDCClientSecret, "s"), "must be an https:// URL"},
		{env(EnvOIDCIssuer, "https://login.uni.edu", EnvOIDCClientID, "x", EnvOIDCClientSecret, "s", EnvOIDCRedirectURL, "https://lab.uni.edu/callback"), "followed by /admin/oidc/callback"},
	} {
		_, err := OIDCConfigFromEnv(bad.env)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("error %v, want one saying %q", err, bad.want)
		}
		if err != nil && strings.Contains(err.Error(), "=\"s\"") {
			t.Errorf("the error shows the secret: %v", err)
		}
	}
}
