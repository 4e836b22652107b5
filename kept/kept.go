// Package kept is the services' memory of what they computed: the last
// value computed for each of the ids looked at last (studies for their
// analyses, jobs for their comparison with the humans), each with the key
// of what it was computed from (docs/architecture.md#kept). studies and
// comparisons each keep their own; kept imports nothing of the project.
package kept

import (
	"slices"
	"sync"
)

// Cache keeps the last value computed for each of the max ids looked at
// last, each with the key of what it was computed from.
type Cache[K comparable, V any] struct {
	mu      sync.Mutex
	max     int
	entries map[int64]*entry[K, V]
	order   []int64 // ids, least recently used first
	// computed counts the values computed (tests).
	computed int
}

type entry[K comparable, V any] struct {
	key   K
	ready chan struct{} // closed once v or err is set
	v     *V
	err   error
}

// New returns a cache of at most max ids.
func New[K comparable, V any](max int) *Cache[K, V] {
	return &Cache[K, V]{max: max, entries: map[int64]*entry[K, V]{}}
}

// Computed is how many values the cache has computed: tests count the
// work a page's second view saves with it.
func (c *Cache[K, V]) Computed() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.computed
}

// Kept lists the ids kept, least recently used first.
func (c *Cache[K, V]) Kept() []int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.order)
}

// Get returns id's value of that key, computing it unless it is kept;
// requests of the same key while it is being computed wait for that
// computation (a page's figures arrive together) instead of repeating it.
// A computation that fails is not kept.
func (c *Cache[K, V]) Get(id int64, key K, compute func() (*V, error)) (*V, error) {
	c.mu.Lock()
	e := c.entries[id]
	if e != nil && e.key == key {
		c.touch(id)
		c.mu.Unlock()
		<-e.ready
		if e.v == nil && e.err == nil { // the computation waited for panicked
			return compute()
		}
		return e.v, e.err
	}
	e = &entry[K, V]{key: key, ready: make(chan struct{})}
	c.entries[id] = e
	c.touch(id)
	for len(c.order) > c.max {
		delete(c.entries, c.order[0])
		c.order = c.order[1:]
	}
	c.computed++
	c.mu.Unlock()
	defer close(e.ready)
	defer func() {
		if e.v == nil { // failed: the next request tries again
			c.mu.Lock()
			if c.entries[id] == e {
				delete(c.entries, id)
				c.order = slices.DeleteFunc(c.order, func(x int64) bool { return x == id })
			}
			c.mu.Unlock()
		}
	}()
	e.v, e.err = compute()
	if e.err != nil {
		e.v = nil
	}
	return e.v, e.err
}

// touch makes id the most recently used; c.mu is held.
func (c *Cache[K, V]) touch(id int64) {
	for i, x := range c.order {
		if x == id {
			c.order = append(c.order[:i], c.order[i+1:]...)
			break
		}
	}
	c.order = append(c.order, id)
}
