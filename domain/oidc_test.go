package domain

import "testing"

func TestMatchOIDCRule(t *testing.T) {
	rules := []OIDCRule{
		{ID: 1, Kind: OIDCDomain, Value: "uni.edu", Role: RoleViewer},
		{ID: 2, Kind: OIDCEmail, Value: "boss@uni.edu", Role: RoleOwner},
		{ID: 3, Kind: OIDCSubject, Value: "0000-0002-1825-0097", Role: RoleOwner},
	}
	cases := []struct {
		name string
		p    OIDCPerson
		want int64 // 0: no rule
	}{
		{"domain", OIDCPerson{Subject: "s1", Email: "ada@uni.edu", EmailVerified: true}, 1},
		{"the address beats its domain", OIDCPerson{Subject: "s2", Email: "boss@uni.edu", EmailVerified: true}, 2},
		{"unverified address", OIDCPerson{Subject: "s3", Email: "boss@uni.edu"}, 0},
		{"subdomain is another domain", OIDCPerson{Subject: "s4", Email: "ada@lab.uni.edu", EmailVerified: true}, 0},
		{"look-alike domain", OIDCPerson{Subject: "s5", Email: "ada@evil-uni.edu", EmailVerified: true}, 0},
		{"subject without e-mail", OIDCPerson{Subject: "0000-0002-1825-0097"}, 3},
		{"no e-mail, unknown subject", OIDCPerson{Subject: "s6"}, 0},
	}
	for _, c := range cases {
		got := MatchOIDCRule(rules, c.p)
		if (got == nil && c.want != 0) || (got != nil && got.ID != c.want) {
			t.Errorf("%s: got %+v, want rule %d", c.name, got, c.want)
		}
	}
}

func TestOIDCRuleValidate(t *testing.T) {
	for _, c := range []struct {
		r  OIDCRule
		ok bool
	}{
		{OIDCRule{Kind: OIDCDomain, Value: " @Uni.EDU ", Role: RoleViewer}, true},
		{OIDCRule{Kind: OIDCEmail, Value: "Ada@Uni.edu", Role: RoleOwner}, true},
		{OIDCRule{Kind: OIDCSubject, Value: "0000-0002-1825-0097", Role: RoleOwner}, true},
		{OIDCRule{Kind: OIDCEmail, Value: "ada", Role: RoleOwner}, false},
		{OIDCRule{Kind: OIDCDomain, Value: "edu", Role: RoleOwner}, false},
		{OIDCRule{Kind: OIDCDomain, Value: "a@uni.edu", Role: RoleOwner}, false},
		{OIDCRule{Kind: OIDCSubject, Value: "a b", Role: RoleOwner}, false},
		{OIDCRule{Kind: OIDCSubject, Value: "x\x1b[2J", Role: RoleOwner}, false},
		{OIDCRule{Kind: OIDCEmail, Value: "a@uni.edu", Role: "admin"}, false},
		{OIDCRule{Kind: "group", Value: "staff", Role: RoleOwner}, false},
	} {
		r := c.r
		r.Normalize()
		if err := r.Validate(); (err == nil) != c.ok {
			t.Errorf("%+v: error %v, want ok=%v", c.r, err, c.ok)
		}
	}
	r := OIDCRule{Kind: OIDCDomain, Value: " @Uni.EDU "}
	r.Normalize()
	if r.Value != "uni.edu" {
		t.Errorf("normalized domain %q", r.Value)
	}
}
