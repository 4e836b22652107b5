package domain

import (
	"net/url"
	"strings"
	"testing"
)

func TestRedactBlanksEveryRunOfASecret(t *testing.T) {
	key := "sk-abcdefghijklmnopqrstuvwxyz"
	tok := "PROLIFICTOKEN0123456789"
	cases := []struct{ in, leak string }{
		{"auth failed for " + key, key},
		{"key '" + key[3:20] + "' unknown", key[3:11]},
		{"echo " + tok[4:12] + " and " + key[10:18], tok[4:12]},
	}
	for _, c := range cases {
		got := Redact(c.in, key, tok)
		if strings.Contains(got, c.leak) || !strings.Contains(got, Redacted) {
			t.Errorf("Redact(%q) = %q: the secret shows", c.in, got)
		}
	}
	if got := Redact("abcdefg is 7 long", "abcdefg"); got != Redacted+" is 7 long" {
		t.Errorf("a short secret: %q", got)
	}
	if got := Redact("nothing secret here", key, ""); got != "nothing secret here" {
		t.Errorf("a text without the secret changed: %q", got)
	}
}

func TestProxyFuncReadsTheEnvironmentGiven(t *testing.T) {
	env := map[string]string{"HTTPS_PROXY": "http://proxy.lab:3128", "no_proxy": "internal.lab"}
	f := ProxyFunc(func(k string) string { return env[k] })
	for _, c := range []struct{ target, want string }{
		{"https://api.openai.com/v1", "proxy.lab:3128"},
		{"https://gpu.internal.lab/v1", ""},
		{"http://api.openai.com/v1", ""}, // no HTTP_PROXY
	} {
		u, _ := url.Parse(c.target)
		p, err := f(u)
		got := ""
		if p != nil {
			got = p.Host
		}
		if err != nil || got != c.want {
			t.Errorf("proxy for %s = %q, %v; want %q", c.target, got, err, c.want)
		}
	}
}
