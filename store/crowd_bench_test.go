package store

import (
	"context"
	"fmt"
	"sync/atomic"
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
		f.db.AnswerCrowdTraining(ctx, f.study, p.Token, 1, 0, 6, 0, f.s)
		f.db.AnswerCrowdTraining(ctx, f.study, p.Token, 2, 0, 2, 0, f.s)
		ps = append(ps, p)
	}
	i := 0
	for b.Loop() {
		p := ps[i%len(ps)]
		pos := i/len(ps) + 1
		if _, err := f.db.SaveCrowdRating(ctx, f.study, p.Token, pos, 4, 0, f.s); err != nil {
			b.Fatal(err)
		}
		i++
		if pos >= 40 {
			b.Fatal("out of screens")
		}
	}
}

// BenchmarkEnterCrowd measures a new participant's arrival and consent,
// where the batch is assigned, among 100 batches of 40 screens.
func BenchmarkEnterCrowd(b *testing.B) {
	f := newCrowdFixture(b, 100, 40)
	f.s.Quota = 1 << 20
	i := 0
	for b.Loop() {
		if _, err := f.arrive(CrowdArrival{PID: pid(i)}); err != nil {
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

// BenchmarkGroupedAnswers measures answers of 200 participants at once
// through the write queue, with the commit's fsync left out
// (synchronous=NORMAL): the writer's own cost per answer, savepoints
// included.
func BenchmarkGroupedAnswers(b *testing.B) {
	f := newCrowdFixture(b, 40, 200) // 5 participants a batch, 200 screens each
	ctx := context.Background()
	db, err := OpenWith(ctx, f.db.Path(), Options{Synchronous: "NORMAL"})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.Now = f.db.Now
	var ps []*CrowdParticipant
	for i := range 200 {
		p, err := db.EnterCrowd(ctx, f.study, CrowdArrival{PID: pid(i)}, f.s)
		if err != nil {
			b.Fatal(err)
		}
		db.ConsentCrowd(ctx, f.study, p.Token, f.s)
		db.AnswerCrowdTraining(ctx, f.study, p.Token, 1, 0, 6, 0, f.s)
		db.AnswerCrowdTraining(ctx, f.study, p.Token, 2, 0, 2, 0, f.s)
		ps = append(ps, p)
	}
	var next atomic.Int64
	b.SetParallelism(100) // 200 goroutines on 2 cores
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		p := ps[next.Add(1)-1]
		pos := 1
		for pb.Next() {
			if pos > 200 {
				b.Error("out of screens: raise the batches' size")
				return
			}
			if _, err := db.SaveCrowdRating(ctx, f.study, p.Token, pos, 4, 0, f.s); err != nil {
				b.Error(err)
				return
			}
			pos++
		}
	})
}
