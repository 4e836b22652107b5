package templates

import "context"

// The login page offers institutional sign-in only when it is configured
// (docs/deploy.md#institutional-sign-in-openid-connect): the handlers put
// the provider's name in the request's context, so every rendering of the
// login page (a failed password included) shows the same offer.

type signInKey struct{}

// WithSignInProvider names the identity provider the login page offers.
func WithSignInProvider(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, signInKey{}, name)
}

// SignInProvider is the provider's name, "" when none is configured.
func SignInProvider(ctx context.Context) string {
	s, _ := ctx.Value(signInKey{}).(string)
	return s
}

// OIDCLoginURL starts a sign-in at the provider, coming back to next.
func OIDCLoginURL(next string) string {
	if next == "" || next == "/admin" {
		return "/admin/oidc/login"
	}
	return "/admin/oidc/login?next=" + urlQueryEscape(next)
}
