package store

import (
	"strings"
	"testing"

	"pragmalab/domain"
)

// TestOIDCUsername pins how a first sign-in names its account: the
// verified address, else the subject; a name that cannot be an account
// is refused.
func TestOIDCUsername(t *testing.T) {
	for _, tc := range []struct {
		p    domain.OIDCPerson
		want string // "" for refused
	}{
		{domain.OIDCPerson{Subject: "s1", Email: "a@uni.edu", EmailVerified: true}, "a@uni.edu"},
		{domain.OIDCPerson{Subject: "s1", Email: "a@uni.edu"}, "s1"},
		{domain.OIDCPerson{Subject: "s 1"}, ""},
		{domain.OIDCPerson{Subject: strings.Repeat("x", 65)}, ""},
		{domain.OIDCPerson{Subject: "\xff"}, ""},
	} {
		got, err := oidcUsername(tc.p)
		if tc.want == "" {
			if domain.ErrorCode(err) != domain.EFORBIDDEN {
				t.Errorf("oidcUsername(%+v) = %q, %v; want refused", tc.p, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("oidcUsername(%+v) = %q, %v; want %q", tc.p, got, err, tc.want)
		}
	}
}
