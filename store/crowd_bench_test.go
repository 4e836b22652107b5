package store

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkSaveCrowdRating measures one answer's write transaction.
func BenchmarkSaveCrowdRating(b *testing.B) {
	f := newCrowdFixture(b, 200, 40)
	ctx := context.Background()
	var ps []*CrowdParticipant
	for i := range 200 {
		p, err := f.db.EnterCrowd(ctx, f.study, CrowdArrival{PID: pid(i)}, f.s)
		if err != nil {
			b.Fatal(err)
		}
		f.db.ConsentCrowd(ctx, f.study, p.Token, f.s)
		f.db.AnswerCrowdTraining(ctx, f.study, p.Token, 1, 0, 6, f.s)
		f.db.AnswerCrowdTraining(ctx, f.study, p.Token, 2, 0, 2, f.s)
		ps = append(ps, p)
	}
	i := 0
	for b.Loop() {
		p := ps[i%len(ps)]
		pos := i/len(ps) + 1
		if _, err := f.db.SaveCrowdRating(ctx, f.study, p.Token, pos, 4, f.s); err != nil {
			b.Fatal(err)
		}
		i++
		if pos >= 40 {
			b.Fatal("out of screens")
		}
	}
}

// BenchmarkEnterCrowd measures a new participant's assignment among 100
// batches of 40 screens.
func BenchmarkEnterCrowd(b *testing.B) {
	f := newCrowdFixture(b, 100, 40)
	f.s.Quota = 1 << 20
	ctx := context.Background()
	i := 0
	for b.Loop() {
		if _, err := f.db.EnterCrowd(ctx, f.study, CrowdArrival{PID: pid(i)}, f.s); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkTakeSlot measures choosing a new participant's batch inside the
// writer (fsync left out: the transaction is rolled back) with 10 and
// 1,000 batches whose places are mostly taken: the cost must not grow.
func BenchmarkTakeSlot(b *testing.B) {
	for _, nb := range []int{10, 1000} {
		b.Run(fmt.Sprintf("batches=%d", nb), func(b *testing.B) {
			f := newCrowdFixture(b, nb, 2)
			ctx := context.Background()
			for i := range 4 * nb {
				if _, err := f.db.EnterCrowd(ctx, f.study, CrowdArrival{PID: pid(i)}, f.s); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				tx, err := f.db.write.BeginTx(ctx, nil)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := f.db.takeSlot(ctx, tx, f.study, f.s); err != nil {
					b.Fatal(err)
				}
				tx.Rollback()
			}
		})
	}
}
