package templates

import "context"

// The participant pages' shared marks (docs/studies.md#pilots): a request
// of a participant area carries a PilotMark, which the page's handler sets
// once it knows the session is a pilot's, and Page shows the pilot banner
// on every page of that request.

type pilotKey struct{}

// PilotMark records whether the page being answered belongs to a pilot.
type PilotMark struct{ pilot bool }

// WithPilotMark returns a context carrying a fresh, unset mark.
func WithPilotMark(ctx context.Context) context.Context {
	return context.WithValue(ctx, pilotKey{}, &PilotMark{})
}

// MarkPilot marks the request of ctx as a pilot's; without a mark (a
// request outside the participant areas) it does nothing.
func MarkPilot(ctx context.Context) {
	if m, ok := ctx.Value(pilotKey{}).(*PilotMark); ok {
		m.pilot = true
	}
}

// isPilot tells whether the request of ctx was marked as a pilot's.
func isPilot(ctx context.Context) bool {
	m, ok := ctx.Value(pilotKey{}).(*PilotMark)
	return ok && m.pilot
}
