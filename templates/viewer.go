package templates

import (
	"context"
	"strings"
)

// What a viewer sees (docs/deploy.md#security): no invitation token and
// no form a viewer could not submit. The admin pages read the role from
// the request's context, which RequireAdmin fills, so no page has to pass
// it down and no form can forget it.

type roleKey struct{}

// WithViewer marks ctx as a viewer's request (viewer true) or an owner's.
func WithViewer(ctx context.Context, viewer bool) context.Context {
	return context.WithValue(ctx, roleKey{}, viewer)
}

// CanChange reports whether the request's admin may change things: the
// forms of the admin pages show only then. Outside the admin area (no
// role in ctx) it is true.
func CanChange(ctx context.Context) bool {
	viewer, _ := ctx.Value(roleKey{}).(bool)
	return !viewer
}

// MaskedToken replaces a link's credential for a viewer.
const MaskedToken = "••••••••"

// LinkFor is link as the request's admin may see it: whole for an owner;
// for a viewer with its last path segment (the invitation or pilot token)
// replaced by MaskedToken, with no way to reveal it — the page holds no
// token.
func LinkFor(ctx context.Context, link string) string {
	if CanChange(ctx) || link == "" {
		return link
	}
	if i := strings.LastIndexByte(link, '/'); i >= 0 {
		return link[:i+1] + MaskedToken
	}
	return MaskedToken
}
