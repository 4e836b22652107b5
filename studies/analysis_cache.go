package studies

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sync"

	"pragmalab/analysis"
	"pragmalab/domain"
)

// analysisCacheStudies is how many studies' analyses a Service keeps: the
// studies whose Analysis pages were looked at last.
const analysisCacheStudies = 8

// Analysis returns the study and its analysis — what its Analysis page,
// the page's figures and its downloads show (docs/architecture.md#analysis).
//
// The analysis is computed once per change of what it is computed from:
// every call reads the study's rows (the rows its export writes) and its
// analysis options (thresholds, data-quality flags, the researcher's
// include/exclude decisions), which costs a few queries, and reuses the
// analysis computed last for this study when those are the same. The key is
// a SHA-256 of the rows and the options themselves, not a counter of
// writes: so a new answer, an exclusion decision, a settings change or an
// edited item key invalidates it whichever process wrote it (the CLI writes
// to the same file), and a write that changes none of them (a participant
// starting a batch) does not. The bootstrap of the intervals, the figures
// and their rendering — the costly part — run once per version.
func (s *Service) Analysis(ctx context.Context, studyID int64) (*domain.Study, *Analysis, error) {
	st, err := s.db.Study(ctx, studyID)
	if err != nil {
		return nil, nil, err
	}
	var (
		in      any // what the analysis is computed from: the key hashes it
		compute func() *Analysis
	)
	switch st.Kind {
	case domain.KindCrowd:
		_, set, err := s.db.CrowdStudy(ctx, studyID)
		if err != nil {
			return nil, nil, err
		}
		opt, err := crowdOptions(ctx, s.db, studyID, set)
		if err != nil {
			return nil, nil, err
		}
		rows, err := crowdRatingRows(ctx, s.db, studyID)
		if err != nil {
			return st, &Analysis{Command: ToplinesCommand(opt), Problem: err}, nil
		}
		if rows == nil {
			return st, &Analysis{Command: "pragmalab analyze toplines --ratings ratings.csv", Empty: "No participant has completed a batch yet."}, nil
		}
		in = struct {
			Options analysis.Options
			Rows    []analysis.RatingRow
		}{opt, rows}
		compute = func() *Analysis {
			rs, err := analysis.NewRatings(rows)
			if err != nil {
				return &Analysis{Command: ToplinesCommand(opt), Problem: err}
			}
			a := RatingsAnalysis(rs, opt)
			a.ExportFile = "ratings.csv"
			return a
		}
	case domain.KindExpert:
		js, err := Judgements(ctx, s.db, studyID)
		if err != nil {
			return nil, nil, err
		}
		if len(js) == 0 {
			return st, &Analysis{Command: "pragmalab analyze agreement --judgements judgements.csv", ExportFile: "judgements.csv",
				Empty: "No expert has judged an item yet."}, nil
		}
		in, compute = js, func() *Analysis { return AgreementAnalysis(js) }
	case domain.KindContext:
		as, err := ContextAnswers(ctx, s.db, studyID)
		if err != nil {
			return nil, nil, err
		}
		if len(as) == 0 {
			return st, &Analysis{Command: "pragmalab analyze context --answers answers.csv", Empty: "No expert has given a final answer yet."}, nil
		}
		in, compute = as, func() *Analysis {
			a := ContextAnalysis(as)
			a.ExportFile = "context_answers.csv"
			return a
		}
	case domain.KindExplain:
		rs, err := ExplanationRatings(ctx, s.db, studyID)
		if err != nil {
			return nil, nil, err
		}
		if len(rs) == 0 {
			return st, &Analysis{Command: "pragmalab analyze explanations --ratings explanation_ratings.csv", Empty: "No explanation has been rated yet."}, nil
		}
		in, compute = rs, func() *Analysis {
			a := ExplanationsAnalysis(rs)
			a.ExportFile = "explanation_ratings.csv"
			return a
		}
	default:
		return st, &Analysis{Empty: "There is no analysis for this kind of study."}, nil
	}
	key, err := analysisKey(st.Kind, in)
	if err != nil {
		return nil, nil, err
	}
	return st, s.analyses.get(studyID, key, compute), nil
}

// analysisKey is the SHA-256 of what an analysis is computed from.
func analysisKey(kind string, in any) ([sha256.Size]byte, error) {
	h := sha256.New()
	if err := json.NewEncoder(h).Encode(struct {
		Kind string
		In   any
	}{kind, in}); err != nil {
		return [sha256.Size]byte{}, fmt.Errorf("analysis key: %w", err)
	}
	return [sha256.Size]byte(h.Sum(nil)), nil
}

// analysisCache keeps the last analysis of the studies looked at last, each
// with the key of what it was computed from.
type analysisCache struct {
	mu      sync.Mutex
	max     int
	entries map[int64]*analysisEntry
	order   []int64 // study ids, least recently used first
	// computed counts the analyses computed (tests).
	computed int
}

type analysisEntry struct {
	key   [sha256.Size]byte
	ready chan struct{} // closed once a is set
	a     *Analysis
}

func newAnalysisCache(max int) *analysisCache {
	return &analysisCache{max: max, entries: map[int64]*analysisEntry{}}
}

// get returns the study's analysis of that key, computing it unless it is
// kept; requests of the same key while it is being computed wait for that
// computation (a page's figures arrive together) instead of repeating it.
func (c *analysisCache) get(studyID int64, key [sha256.Size]byte, compute func() *Analysis) *Analysis {
	c.mu.Lock()
	e := c.entries[studyID]
	if e != nil && e.key == key {
		c.touch(studyID)
		c.mu.Unlock()
		<-e.ready
		if e.a != nil {
			return e.a
		}
		return compute() // the computation that was waited for panicked
	}
	e = &analysisEntry{key: key, ready: make(chan struct{})}
	c.entries[studyID] = e
	c.touch(studyID)
	for len(c.order) > c.max {
		delete(c.entries, c.order[0])
		c.order = c.order[1:]
	}
	c.computed++
	c.mu.Unlock()
	defer close(e.ready)
	e.a = compute()
	return e.a
}

// touch makes studyID the most recently used; c.mu is held.
func (c *analysisCache) touch(studyID int64) {
	for i, id := range c.order {
		if id == studyID {
			c.order = append(c.order[:i], c.order[i+1:]...)
			break
		}
	}
	c.order = append(c.order, studyID)
}
