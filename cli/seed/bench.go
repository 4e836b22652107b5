package seed

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"pragmalab/domain"
	"pragmalab/store"
	"pragmalab/studies"
)

// BenchCrowd is the crowd study SeedBenchCrowd made.
type BenchCrowd struct {
	StudyID      int64
	Items        int // data items
	Participants int // who completed a batch
	Ratings      int // ratings stored, attention checks included
}

// SeedBenchCrowd (`pragmalab bench analysis`) makes an open crowd study of items data items (and ten
// attention checks) with the default settings — batches of 30 items plus
// the checks, 5 participants per batch, each item in both conditions — and
// has every slot taken by a participant who completes the batch through
// the participants' own writes (entry, consent, training, one rating per
// screen). The ratings follow a plausible crowd: each participant has a
// bias and a spread, an implicature is rated likely unless cancelled (less
// so for the harder item types), the checks are mostly passed, and one
// participant in twenty answers at random. seed fixes all of it.
func (v *Seeder) SeedBenchCrowd(ctx context.Context, items int, seed uint64) (BenchCrowd, error) {
	db := v.db
	if items < 30 {
		return BenchCrowd{}, domain.Errorf(domain.EINVALID, "a crowd study needs at least 30 items (one batch), got %d", items)
	}
	s := &domain.Study{Kind: domain.KindCrowd, Name: "Analysis benchmark", Lang: "en", Seed: int64(seed)}
	if err := db.CreateStudy(ctx, s); err != nil {
		return BenchCrowd{}, err
	}
	var its []domain.Item
	for i := range items + 6 { // six more for the training
		its = append(its, domain.Item{
			Key: fmt.Sprintf("bench%05d", i), Type: domain.ItemTypes[i%len(domain.ItemTypes)],
			Context:     "S1: Do you need help with anything?",
			Utterance:   fmt.Sprintf("S2: I think C was looking for someone to do task %d.", i),
			Implicature: fmt.Sprintf("You can help by doing task %d for C.", i), Cancellation: "S2: Though they must be done by now.",
		})
	}
	for i := range 10 {
		its = append(its, domain.Item{Key: fmt.Sprintf("check%d", i), Type: domain.TypeSynthetic, Utterance: "u", Implicature: "b", Cancellation: "x",
			Check: []string{"high", "low"}[i%2]})
	}
	if err := db.ImportItems(ctx, s.ID, its); err != nil {
		return BenchCrowd{}, err
	}
	set := domain.DefaultCrowdSettings()
	set.CompletionCode = "BENCH"
	if err := db.SaveCrowdSettings(ctx, s.ID, set); err != nil {
		return BenchCrowd{}, err
	}
	b, err := studies.BuildCrowdBatches(ctx, db, s.ID, set, s.Seed)
	if err != nil {
		return BenchCrowd{}, err
	}
	if err := studies.OpenStudy(ctx, db, s.ID, ""); err != nil {
		return BenchCrowd{}, err
	}
	training, err := db.CrowdTraining(ctx, s.ID)
	if err != nil {
		return BenchCrowd{}, err
	}
	out := BenchCrowd{StudyID: s.ID, Items: b.Items, Participants: b.Batches * set.Quota}
	// Participants answer side by side, so their writes share groups.
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		next  = make(chan int)
	)
	for range 16 {
		wg.Go(func() {
			for i := range next {
				n, err := seedBenchParticipant(ctx, db, s.ID, set, training, i, seed)
				mu.Lock()
				out.Ratings += n
				if err != nil && first == nil {
					first = err
				}
				mu.Unlock()
			}
		})
	}
	for i := range out.Participants {
		next <- i
	}
	close(next)
	wg.Wait()
	return out, first
}

// seedBenchParticipant has participant i complete a batch; it returns the
// ratings stored.
func seedBenchParticipant(ctx context.Context, db *store.DB, studyID int64, set domain.CrowdSettings, training []domain.CrowdScreen, i int, seed uint64) (int, error) {
	rng := rand.New(rand.NewPCG(seed, uint64(i)))
	a := store.CrowdArrival{PID: fmt.Sprintf("%024x", 0xbe0c0000+i), StudyID: "bench", SessionID: fmt.Sprintf("bench%d", i)}
	p, err := db.EnterCrowd(ctx, studyID, a, set)
	if err != nil {
		return 0, err
	}
	if p, err = db.ConsentCrowd(ctx, studyID, p.Token, set); err != nil {
		return 0, err
	}
	for pos, t := range training {
		rating := 6
		if t.Condition == domain.ConditionCancel {
			rating = 2
		}
		if _, err := db.AnswerCrowdTraining(ctx, studyID, p.Token, pos+1, 0, rating, 4000, set); err != nil {
			return 0, err
		}
	}
	screens, err := db.CrowdBatchScreens(ctx, p.BatchID)
	if err != nil {
		return 0, err
	}
	bias, spread, careless := rng.NormFloat64()*0.6, 0.6+rng.Float64()*0.8, rng.IntN(20) == 0
	for _, sc := range screens {
		var mean float64
		switch {
		case careless:
			mean = 1 + 6*rng.Float64()
		case sc.Item.Check == "high":
			mean = 6.3
		case sc.Item.Check == "low":
			mean = 1.7
		case sc.Condition == domain.ConditionCancel:
			mean = 2.6 + bias
		default: // harder types are recognised less often
			mean = 5.8 - 0.3*float64(typeIndex(sc.Item.Type)) + bias
		}
		rating := int(math.Round(min(7, max(1, mean+rng.NormFloat64()*spread))))
		if _, err := db.SaveCrowdRating(ctx, studyID, p.Token, sc.Position, rating, 2000+rng.IntN(6000), set); err != nil {
			return 0, err
		}
	}
	return len(screens), nil
}

func typeIndex(t string) int {
	for i, x := range domain.ItemTypes {
		if x == t {
			return i
		}
	}
	return 0
}
