package store

import (
	"context"
	"reflect"
	"testing"
	"time"
)

// The item a participant's screen shows comes from a cache; an edit of
// the item reaches the very next screen read, not one after the cache's
// time.
func TestScreenItemEditSeenAtOnce(t *testing.T) {
	f := newCrowdFixture(t, 1, 3)
	ctx := context.Background()
	p := f.enter(t, CrowdArrival{PID: pid(1)})
	f.ready(t, p)
	_, sc, err := f.db.CrowdSessionScreen(ctx, f.study, p.Token)
	if err != nil || sc.Position != 1 || sc.Item.ID == 0 {
		t.Fatalf("first screen: %+v %v", sc, err)
	}
	// Read twice: the second read is the cache's.
	_, again, err := f.db.CrowdSessionScreen(ctx, f.study, p.Token)
	if err != nil || !reflect.DeepEqual(again.Item, sc.Item) || again.Condition != sc.Condition {
		t.Fatalf("second read %+v, first %+v (%v)", again, sc, err)
	}
	next := sc.Item
	next.Utterance = "an edited utterance"
	if changed, err := f.db.EditItem(ctx, f.study, sc.Item.ID, next, "typo"); err != nil || !changed {
		t.Fatalf("edit: %v %v", changed, err)
	}
	_, edited, err := f.db.CrowdSessionScreen(ctx, f.study, p.Token)
	if err != nil || edited.Item.Utterance != "an edited utterance" || edited.Item.Version != sc.Item.Version+1 {
		t.Fatalf("after the edit the screen shows %+v (%v)", edited.Item, err)
	}
}

// An item read while an admin write commits is not kept: it may be the
// item before the write.
func TestScreenItemNotKeptAcrossCommit(t *testing.T) {
	var c screenItems
	gen := c.gen.Load()
	c.forget() // an admin commit between the read and the put
	c.put(1, nil, gen, timeNowForTest())
	if _, ok := c.get(1, timeNowForTest()); ok {
		t.Fatal("an item read before a commit was kept after it")
	}
}

func timeNowForTest() time.Time { return time.Now() }
