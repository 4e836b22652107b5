package store

import (
	"context"
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
