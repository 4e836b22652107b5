package store

import (
	"context"
	"fmt"
	"sync"
	"time"

	"pragmalab/domain"
)

// crowdScreens keeps, by session token, what CrowdSessionScreen read: the
// participant's row and the screen it is at. Every screen a participant
// loads needed that read, one query over five tables, and it was the
// largest share of the screen GET (docs/performance.md#the-third-pass).
//
// The database stays the authority: an answer is checked against the row
// in its own write, never against this cache. What the cache must not do
// is show a screen the database has moved past, so every change to a
// crowd participant reaches it before the change is acknowledged:
//   - a participant write (the write queue) names the participants it
//     changed (sessionTx, changedSessions), and the writer drops or, for an
//     answer, moves on their snapshots right after the group commits; a
//     queued write that names nothing (groupTx) empties the cache;
//   - an admin write (DB.tx) empties it when it commits;
//   - a write by another process is seen by the writer's connection
//     (PRAGMA data_version), checked at every group and every second
//     when idle, and empties it.
//
// A read keeps its result only if nothing changed its participant, and
// nothing emptied the cache, while it ran: a result older than a change
// already applied is never kept.
type crowdScreens struct {
	mu      sync.Mutex
	seq     uint64                  // changes applied so far
	epoch   uint64                  // times the cache was emptied
	byToken map[string]*sessionSnap // token → snapshot
	tokenOf map[int64]string        // participant id → token of its snapshot
	changed map[int64]uint64        // participant id → seq of its last change
	slots   map[int64][]batchSlot   // batch id → its screens, by position
}

// crowdScreensMax bounds the snapshots kept; past it the cache is emptied
// and refilled by the screens loaded next.
const crowdScreensMax = 1 << 16

// sessionSnap is one session as CrowdSessionScreen returns it. A snapshot
// is never changed once kept: a change replaces it.
type sessionSnap struct {
	p      CrowdParticipant
	screen domain.CrowdScreen // Item left empty: itemID, from the item cache
	itemID int64
	// slot: the screen is the batch's screen at screen.Position, to be
	// read from the batch's screens (an answer moved the session on).
	slot bool
}

// batchSlot is one screen of a crowd batch.
type batchSlot struct {
	itemID    int64
	condition string
}

// readMark is the state of the cache when a read began.
type readMark struct{ seq, epoch uint64 }

func (c *crowdScreens) lookup(token string) (sessionSnap, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.byToken[token]
	if !ok {
		return sessionSnap{}, false
	}
	return *s, true
}

func (c *crowdScreens) begin() readMark {
	c.mu.Lock()
	defer c.mu.Unlock()
	return readMark{c.seq, c.epoch}
}

// keep stores what a read that began at m found, unless its participant
// changed, or the cache was emptied, since.
func (c *crowdScreens) keep(token string, s sessionSnap, m readMark) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.epoch != m.epoch || c.changed[s.p.ID] > m.seq {
		return
	}
	if c.byToken == nil || len(c.byToken) >= crowdScreensMax || len(c.changed) >= 4*crowdScreensMax {
		c.reset()
	}
	if old, ok := c.tokenOf[s.p.ID]; ok && old != token {
		delete(c.byToken, old)
	}
	c.byToken[token] = &s
	c.tokenOf[s.p.ID] = token
}

// forget empties the cache, batches' screens included.
func (c *crowdScreens) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reset()
	c.slots = nil
}

// reset drops every snapshot; the caller holds mu.
func (c *crowdScreens) reset() {
	c.epoch++
	c.byToken = make(map[string]*sessionSnap)
	c.tokenOf = make(map[int64]string)
	c.changed = make(map[int64]uint64)
}

// sessionEffect is what one participant write did to crowd sessions, as
// the write reports it (changedSessions, advancedSession, shownScreen).
type sessionEffect struct {
	// named: the write reports every crowd session it changes (sessionTx);
	// otherwise its commit empties the cache.
	named   bool
	changed []int64
	advance *advanceEffect
	shown   *shownEffect
}

// advanceEffect is an answer stored on the common path: the session
// answered screen position and moved on.
type advanceEffect struct {
	id       int64
	position int
	status   string
	seen     time.Time // last_seen_at after the answer
	at       time.Time // the answer's time: completed_at when it completed
}

// shownEffect is a screen's first showing recorded.
type shownEffect struct {
	id       int64
	flow     string
	position int
}

type effectKey struct{}

// effectOf returns the effect a write running with ctx reports to, or nil.
func effectOf(ctx context.Context) *sessionEffect {
	fx, _ := ctx.Value(effectKey{}).(*sessionEffect)
	return fx
}

// changedSessions reports, from inside a participant write, crowd
// participants whose row it changed.
func changedSessions(ctx context.Context, ids ...int64) {
	if fx := effectOf(ctx); fx != nil {
		fx.changed = append(fx.changed, ids...)
	}
}

// apply brings the cache up to date with a committed write.
func (c *crowdScreens) apply(fx *sessionEffect) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !fx.named {
		c.reset()
		return
	}
	if c.byToken == nil {
		c.reset()
	}
	for _, id := range fx.changed {
		c.stamp(id)
		if t, ok := c.tokenOf[id]; ok {
			delete(c.byToken, t)
			delete(c.tokenOf, id)
		}
	}
	if a := fx.advance; a != nil {
		c.update(a.id, func(s *sessionSnap) bool {
			s.p.Answered, s.p.Status, s.p.LastSeenAt = a.position, a.status, a.seen
			if a.status == CrowdCompleted {
				s.p.CompletedAt = a.at
			}
			s.screen = domain.CrowdScreen{Position: a.position + 1}
			s.itemID, s.slot = 0, a.position < s.p.Screens
			return true
		})
	}
	if sh := fx.shown; sh != nil {
		c.update(sh.id, func(s *sessionSnap) bool {
			flow := FlowCrowd
			if s.p.TrainingDone < s.p.Training {
				flow = FlowTraining
			}
			s.screen.Shown = true
			return flow == sh.flow && s.screen.Position == sh.position
		})
	}
}

// update marks participant id changed and, when a snapshot of its session
// is kept, replaces it with a copy that change changed (a snapshot is
// never changed in place); change reports whether the copy is kept. The
// caller holds mu.
func (c *crowdScreens) update(id int64, change func(*sessionSnap) bool) {
	c.stamp(id)
	t, ok := c.tokenOf[id]
	if !ok {
		return
	}
	s := *c.byToken[t]
	if change(&s) {
		c.byToken[t] = &s
	}
}

// stamp marks a participant changed now; the caller holds mu.
func (c *crowdScreens) stamp(id int64) {
	c.seq++
	c.changed[id] = c.seq
}

// batchScreens returns a crowd batch's screens, read once and kept until
// the cache is emptied (a batch's screens never change once drawn).
func (db *DB) batchScreens(ctx context.Context, batchID int64) ([]batchSlot, error) {
	c := &db.hot.screens
	c.mu.Lock()
	s, ok := c.slots[batchID]
	epoch := c.epoch
	c.mu.Unlock()
	if ok {
		return s, nil
	}
	rows, err := db.read.QueryContext(ctx, `SELECT position, item_id, condition FROM batch_items WHERE batch_id = ? ORDER BY position`, batchID)
	if err != nil {
		return nil, fmt.Errorf("batch screens: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var pos int
		var sl batchSlot
		if err := rows.Scan(&pos, &sl.itemID, &sl.condition); err != nil {
			return nil, fmt.Errorf("batch screens: %w", err)
		}
		if pos != len(s)+1 {
			return nil, fmt.Errorf("batch screens: batch %d has no screen %d", batchID, len(s)+1)
		}
		s = append(s, sl)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("batch screens: %w", err)
	}
	c.mu.Lock()
	if c.epoch == epoch {
		if c.slots == nil || len(c.slots) >= crowdScreensMax {
			c.slots = make(map[int64][]batchSlot)
		}
		c.slots[batchID] = s
	}
	c.mu.Unlock()
	return s, nil
}

// fromSnap builds CrowdSessionScreen's answer from a snapshot.
func (db *DB) fromSnap(ctx context.Context, s sessionSnap) (*CrowdParticipant, domain.CrowdScreen, error) {
	p, sc := s.p, s.screen
	itemID := s.itemID
	if s.slot {
		slots, err := db.batchScreens(ctx, p.BatchID)
		if err != nil {
			return nil, sc, fmt.Errorf("crowd session: %w", err)
		}
		if i := sc.Position - 1; i >= 0 && i < len(slots) {
			itemID, sc.Condition = slots[i].itemID, slots[i].condition
		}
	}
	if itemID != 0 {
		it, err := db.screenItem(ctx, itemID)
		if err != nil {
			return nil, sc, fmt.Errorf("crowd session: %w", err)
		}
		sc.Item = *it
	}
	return &p, sc, nil
}
