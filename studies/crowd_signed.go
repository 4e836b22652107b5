package studies

import (
	"context"
	"strings"

	"pragmalab/store"
)

// Holds tells whether the browser's cookie is already a session or an
// entry of the study for this PROLIFIC_PID (its case ignored) and
// SESSION_ID: one that came in with a verified signed URL, so coming back
// through the same link later needs no fresh token
// (docs/prolific.md#signed-study-urls).
func (c *CrowdSession) Holds(ctx context.Context, pid, sessionID string) bool {
	if c.token == "" {
		return false
	}
	same := func(p *store.CrowdParticipant, err error) bool {
		return err == nil && p != nil && strings.EqualFold(p.PID, strings.TrimSpace(pid)) && p.SessionID == strings.TrimSpace(sessionID)
	}
	return same(c.db.CrowdParticipantByToken(ctx, c.Study.ID, c.token)) || same(c.db.CrowdEntry(ctx, c.Study.ID, c.token))
}
