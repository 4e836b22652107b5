package agreement

import (
	"math"
	"pragmalab/analysis"
	"runtime"
	"slices"
	"sync"
)

// Annotator models (docs/statistics.md#annotator-models): Dawid & Skene
// (1979) and MACE (Hovy et al. 2013) over the answers of several
// annotators to one categorical question. Both take the answers as a
// labelSet and know nothing of items' names; annotatorModels (in
// annotator_agreement.go) names them.

// DSMaxIterations and DSTolerance stop Dawid–Skene's EM: after this many
// iterations, or as soon as the log-likelihood changes by less than the
// tolerance.
const (
	DSMaxIterations = 1000
	DSTolerance     = 1e-8
)

// MACE's settings, those of the paper's variational-Bayes training and of
// its reference implementation: a Beta(0.5, 0.5) prior on each annotator's
// competence, a symmetric Dirichlet(10) prior on the labels a guessing
// annotator gives, a uniform prior on the true label, 10 random starts of
// 50 iterations each (the start with the highest log marginal likelihood
// is kept), initial values 1 + 0.5·U(0,1) normalised; the starts come from
// a fixed seed so the same answers give the same competences.
const (
	MACEAlpha      = 0.5 // Beta prior, guessing side
	MACEBeta       = 0.5 // Beta prior, knowing side
	MACEDirichlet  = 10.0
	MACERestarts   = 10
	MACEIterations = 50
	MACENoise      = 0.5
	MACESeed       = 20130609
)

// labelSet holds the answers to one question: item i's answers are
// ann[start[i]:start[i+1]] (annotator index) and lab[…] (label 0…k−1).
type labelSet struct {
	k, annotators int
	start         []int
	ann           []int32
	lab           []int8
}

func (s *labelSet) items() int { return len(s.start) - 1 }

// majorityInit is the majority vote as a distribution: 1 on the label most
// annotators gave the item, ties shared equally.
func (s *labelSet) majorityInit() [][]float64 {
	t := make([][]float64, s.items())
	votes := make([]int, s.k)
	for i := range t {
		clear(votes)
		for j := s.start[i]; j < s.start[i+1]; j++ {
			votes[s.lab[j]]++
		}
		top := slices.Max(votes)
		ties := 0
		for _, v := range votes {
			if v == top {
				ties++
			}
		}
		t[i] = make([]float64, s.k)
		for l, v := range votes {
			if v == top {
				t[i][l] = 1 / float64(ties)
			}
		}
	}
	return t
}

// dsFit is a fitted Dawid–Skene model: priors[k], confusion[a][k][l] (the
// chance annotator a answers l on an item of true class k), posterior[i][k].
type dsFit struct {
	priors     []float64
	confusion  [][][]float64
	posterior  [][]float64
	logLik     float64
	iterations int
	converged  bool
}

// accuracy is annotator a's chance of giving the true class: Σ_k π_k θ_kk.
func (f *dsFit) accuracy(a int) float64 {
	var acc float64
	for k, p := range f.priors {
		acc += p * f.confusion[a][k][k]
	}
	return acc
}

// dawidSkene fits Dawid & Skene's model by EM from the majority vote: an
// M-step (class priors and confusion matrices from the current posteriors,
// unsmoothed; a confusion row with no weight stays uniform), then an
// E-step (posteriors and log-likelihood), until the log-likelihood changes
// by less than DSTolerance or DSMaxIterations M/E rounds have run.
func dawidSkene(s *labelSet) *dsFit {
	k, na, n := s.k, s.annotators, s.items()
	f := &dsFit{priors: make([]float64, k), posterior: s.majorityInit()}
	// counts[a*k*k + c*k + l]: weight of items of class c annotator a labelled l.
	counts := make([]float64, na*k*k)
	logConf := make([]float64, na*k*k)
	logPrior := make([]float64, k)
	lp := make([]float64, k)
	prev := math.NaN()
	for f.iterations < DSMaxIterations {
		f.iterations++
		// M-step.
		clear(counts)
		clear(f.priors)
		for i := range n {
			t := f.posterior[i]
			for c := range k {
				f.priors[c] += t[c]
			}
			for j := s.start[i]; j < s.start[i+1]; j++ {
				base := int(s.ann[j])*k*k + int(s.lab[j])
				for c := range k {
					counts[base+c*k] += t[c]
				}
			}
		}
		for c := range k {
			f.priors[c] /= float64(n)
			logPrior[c] = math.Log(f.priors[c])
		}
		for a := range na {
			for c := range k {
				row := counts[a*k*k+c*k : a*k*k+c*k+k]
				var tot float64
				for _, v := range row {
					tot += v
				}
				for l, v := range row {
					p := 1 / float64(k)
					if tot > 0 {
						p = v / tot
					}
					logConf[a*k*k+c*k+l] = math.Log(p)
				}
			}
		}
		// E-step.
		var ll float64
		for i := range n {
			copy(lp, logPrior)
			for j := s.start[i]; j < s.start[i+1]; j++ {
				base := int(s.ann[j])*k*k + int(s.lab[j])
				for c := range k {
					lp[c] += logConf[base+c*k]
				}
			}
			lse := logSumExp(lp)
			ll += lse
			t := f.posterior[i]
			for c := range k {
				t[c] = math.Exp(lp[c] - lse)
			}
		}
		f.logLik = ll
		if math.Abs(ll-prev) < DSTolerance {
			f.converged = true
			break
		}
		prev = ll
	}
	f.confusion = make([][][]float64, na)
	for a := range na {
		f.confusion[a] = make([][]float64, k)
		for c := range k {
			f.confusion[a][c] = make([]float64, k)
			for l := range k {
				f.confusion[a][c][l] = math.Exp(logConf[a*k*k+c*k+l])
			}
		}
	}
	return f
}

// logSumExp is log Σ exp(x), exact when some x are −Inf.
func logSumExp(x []float64) float64 {
	m := slices.Max(x)
	if math.IsInf(m, -1) {
		return m
	}
	var s float64
	for _, v := range x {
		s += math.Exp(v - m)
	}
	return m + math.Log(s)
}

// maceFit is a fitted MACE model: competence[a] (posterior mean of the
// chance annotator a knows rather than guesses), strategy[a][l] (the
// labels a guesses), posterior[i][l].
type maceFit struct {
	competence []float64
	strategy   [][]float64
	posterior  [][]float64
	logLik     float64
}

// mace fits MACE by variational-Bayes EM with the paper's priors (see the
// constants above), keeping the best of MACERestarts seeded starts.
func mace(s *labelSet) *maceFit {
	k, na := s.k, s.annotators
	// The starts' initial values are drawn in order from the seed, then
	// the starts run side by side; the best is the highest likelihood,
	// the earliest start on a tie, whatever order they finish in.
	rng := analysis.NewRand(MACESeed)
	starts := make([]*maceState, MACERestarts)
	for r := range starts {
		st := newMACEState(s)
		for a := range na {
			g, kn := 1+MACENoise*rng.Float64(), 1+MACENoise*rng.Float64()
			st.guess[a], st.know[a] = g/(g+kn), kn/(g+kn)
			var tot float64
			for l := range k {
				st.strat[a*k+l] = 1 + MACENoise*rng.Float64()
				tot += st.strat[a*k+l]
			}
			for l := range k {
				st.strat[a*k+l] /= tot
			}
		}
		starts[r] = st
	}
	var wg sync.WaitGroup
	next := make(chan *maceState)
	for range min(runtime.GOMAXPROCS(0), len(starts)) {
		wg.Go(func() {
			for st := range next {
				for range MACEIterations {
					st.eStep(false)
					st.variationalM()
				}
				st.eStep(true)
			}
		})
	}
	for _, st := range starts {
		next <- st
	}
	close(next)
	wg.Wait()
	best := starts[0]
	for _, st := range starts[1:] {
		if st.logLik > best.logLik {
			best = st
		}
	}
	f := &maceFit{competence: make([]float64, na), strategy: make([][]float64, na), logLik: best.logLik,
		posterior: make([][]float64, s.items())}
	for a := range na {
		// The variational posterior of competence is
		// Beta(know + β, guess + α); its mean is reported.
		f.competence[a] = (best.knowN[a] + MACEBeta) / (best.knowN[a] + best.guessN[a] + MACEAlpha + MACEBeta)
		f.strategy[a] = slices.Clone(best.strat[a*k : a*k+k])
	}
	for i := range f.posterior {
		f.posterior[i] = slices.Clone(best.post[i*k : i*k+k])
	}
	return f
}

// maceState is one start of MACE's training.
type maceState struct {
	s             *labelSet
	guess, know   []float64 // P(guessing), P(knowing) per annotator (variational weights)
	strat         []float64 // [a*k+l]
	guessN, knowN []float64 // expected counts
	stratN        []float64
	post          []float64 // [i*k+l]
	logLik        float64
	gold          []float64
	g, hit, kd    []float64 // [a*k+x], see eStep
}

func newMACEState(s *labelSet) *maceState {
	na, k := s.annotators, s.k
	return &maceState{s: s, guess: make([]float64, na), know: make([]float64, na), strat: make([]float64, na*k),
		guessN: make([]float64, na), knowN: make([]float64, na), stratN: make([]float64, na*k),
		post: make([]float64, s.items()*k), gold: make([]float64, k),
		g: make([]float64, na*k), hit: make([]float64, na*k), kd: make([]float64, na*k)}
}

// eStep computes each item's posterior over the true label and the expected
// counts of knowing, guessing and guessed labels (and, with withLL, the log
// marginal likelihood, which only the choice of the best start needs); the
// products are rescaled as they shrink so that many annotators on one item
// cannot underflow.
func (st *maceState) eStep(withLL bool) {
	s, k := st.s, st.s.k
	clear(st.guessN)
	clear(st.knowN)
	clear(st.stratN)
	// Per annotator and answer x: g = P(guess)·ξ(x), the factor of every
	// true label but x; hit = g + P(know), the factor of true label x;
	// kd = P(know)/hit, so P(knowing | T = x) is kd.
	for a := range s.annotators {
		for x := range k {
			g := st.guess[a] * st.strat[a*k+x]
			st.g[a*k+x], st.hit[a*k+x] = g, g+st.know[a]
			st.kd[a*k+x] = st.know[a] / (g + st.know[a])
		}
	}
	st.logLik = 0
	const tiny, huge = 1e-200, 1e200
	gold := st.gold
	for i := range s.items() {
		var logScale float64
		for l := range k {
			gold[l] = 1 / float64(k)
		}
		for j := s.start[i]; j < s.start[i+1]; j++ {
			ax := int(s.ann[j])*k + int(s.lab[j])
			g := st.g[ax]
			top := 0.0
			for l := range k {
				gold[l] *= g
			}
			gold[s.lab[j]] *= st.hit[ax] / g
			for _, v := range gold {
				top = max(top, v)
			}
			if top < tiny {
				for l := range k {
					gold[l] *= huge
				}
				logScale -= math.Log(huge)
			}
		}
		var marg float64
		for _, v := range gold {
			marg += v
		}
		if withLL {
			st.logLik += math.Log(marg) + logScale
		}
		post := st.post[i*k : i*k+k]
		for l := range k {
			post[l] = gold[l] / marg
		}
		for j := s.start[i]; j < s.start[i+1]; j++ {
			a, x := int(s.ann[j]), int(s.lab[j])
			// P(knowing | answers) = P(T = x)·know / (g + know); the rest
			// of the mass is guessing, which also counts label x.
			pk := post[x] * st.kd[a*k+x]
			st.knowN[a] += pk
			st.guessN[a] += 1 - pk
			st.stratN[a*k+x] += 1 - pk
		}
	}
}

// variationalM sets each annotator's weights to exp(ψ(count + prior)) /
// exp(ψ(Σ counts + Σ priors)), the variational-Bayes M-step.
func (st *maceState) variationalM() {
	k := st.s.k
	for a := range st.guess {
		norm := digamma(st.guessN[a] + st.knowN[a] + MACEAlpha + MACEBeta)
		st.guess[a] = math.Exp(digamma(st.guessN[a]+MACEAlpha) - norm)
		st.know[a] = math.Exp(digamma(st.knowN[a]+MACEBeta) - norm)
		var tot float64
		for l := range k {
			tot += st.stratN[a*k+l]
		}
		norm = digamma(tot + MACEDirichlet*float64(k))
		for l := range k {
			st.strat[a*k+l] = math.Exp(digamma(st.stratN[a*k+l]+MACEDirichlet) - norm)
		}
	}
}

// digamma is ψ(x) for x > 0: the recurrence up to x ≥ 6, then the
// asymptotic series (error below 1e-12).
func digamma(x float64) float64 {
	var r float64
	for x < 6 {
		r -= 1 / x
		x++
	}
	f := 1 / (x * x)
	return r + math.Log(x) - 0.5/x - f*(1.0/12-f*(1.0/120-f*(1.0/252-f*(1.0/240-f*(1.0/132)))))
}
