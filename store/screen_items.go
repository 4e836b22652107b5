package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"pragmalab/domain"
	"sync"
	"sync/atomic"
	"time"
)

// screenItemTTL is how long an item read for a participant's screen is
// reused. Every screen a participant loads shows one item, and reading
// its row again (texts, status, version) was a large share of the screen
// GET. Any admin write empties the cache when it commits (DB.tx), so a
// researcher's edit reaches the next screen at once, and so does a write
// by another process once the writer sees it (within a second:
// DB.checkDataVersion); the time is a bound should that look ever fail, as
// for the cached crowd studies.
const screenItemTTL = 30 * time.Second

// screenItemMax bounds the cache: past it, it is emptied and refilled by
// the screens shown next.
const screenItemMax = 8192

// screenItems caches items by id for the participants' screens.
type screenItems struct {
	mu    sync.RWMutex
	items map[int64]cachedItem
	// gen counts the admin commits (DB.tx): an item read while one
	// committed is not kept, since it may predate the commit.
	gen atomic.Uint64
}

type cachedItem struct {
	item *domain.Item
	at   time.Time
}

// forget empties the cache; DB.tx calls it after every commit.
func (c *screenItems) forget() {
	c.gen.Add(1)
	c.mu.Lock()
	c.items = nil
	c.mu.Unlock()
}

func (c *screenItems) get(id int64, now time.Time) (*domain.Item, bool) {
	c.mu.RLock()
	e, ok := c.items[id]
	c.mu.RUnlock()
	if !ok || now.Sub(e.at) >= screenItemTTL {
		return nil, false
	}
	return e.item, true
}

func (c *screenItems) put(id int64, it *domain.Item, gen uint64, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen.Load() != gen {
		return
	}
	if c.items == nil || len(c.items) >= screenItemMax {
		c.items = make(map[int64]cachedItem)
	}
	c.items[id] = cachedItem{it, at}
}

// qScreenItem reads one item for a screen.
const qScreenItem = `SELECT ` + itemColumns + ` FROM items WHERE id = ?`

// screenItem returns item id as a participant's screen shows it, from the
// cache when it is fresh. The caller must not change it.
func (db *DB) screenItem(ctx context.Context, id int64) (*domain.Item, error) {
	c := &db.hot.items
	now := time.Now()
	if it, ok := c.get(id, now); ok {
		return it, nil
	}
	gen := c.gen.Load()
	it, err := scanItem(db.q(nil).QueryRowContext(ctx, qScreenItem, id))
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, domain.Errorf(domain.ENOTFOUND, "item %d not found", id)
		}
		return nil, fmt.Errorf("screen item: %w", err)
	}
	c.put(id, &it, gen, now)
	return &it, nil
}
