package plan

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"pragmalab/analysis/toplines"
	"pragmalab/domain"
	"strconv"
)

// SyntheticItems is the number of implicature items WriteSyntheticRatings
// draws from (271, the ImplicatureX data set's size).
const SyntheticItems = 271

// syntheticChecks is the number of attention checks every participant gets
// (the published design of docs/studies.md#crowd-design, half expected high,
// half low).
const syntheticChecks = 10

// WriteSyntheticRatings writes a ratings file of about rows rows from
// participants participants, for benchmarks and tests: each participant
// has 10 attention checks (about 1 in 20 participants careless enough to be
// excluded) and rates distinct items in random conditions, with
// ratings drawn around an item-level likelihood that cancellation lowers.
// The same seed gives the same file.
func WriteSyntheticRatings(w io.Writer, rows, participants int, seed uint64) error {
	if participants < 1 || rows < participants*(syntheticChecks+1) {
		return fmt.Errorf("synthetic ratings: need at least %d rows for %d participants", participants*(syntheticChecks+1), participants)
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString("participant_id,batch_id,item_id,item_type,condition,rating,check\n")
	base := make([]float64, SyntheticItems)
	for i := range base {
		base[i] = 2 + 4*rng.Float64()
	}
	itemsEach := rows/participants - syntheticChecks
	extra := rows % participants
	if itemsEach+1 > SyntheticItems*int(toplines.NumConditions) {
		return fmt.Errorf("synthetic ratings: at most %d ratings per participant", SyntheticItems*int(toplines.NumConditions)+syntheticChecks)
	}
	var line []byte
	for p := range participants {
		n := itemsEach
		if p < extra {
			n++
		}
		pid := "P" + strconv.Itoa(100000+p)
		batch := "B" + strconv.Itoa(p%18+1)
		careless := rng.IntN(20) == 0
		for c := range syntheticChecks {
			kind, want := "high", 6
			if c%2 == 1 {
				kind, want = "low", 2
			}
			r := want + rng.IntN(3) - 1
			if careless {
				r = 1 + rng.IntN(7)
			}
			line = fmt.Appendf(line[:0], "%s,%s,check%02d,,trigger,%d,%s\n", pid, batch, c+1, r, kind)
			bw.Write(line)
		}
		start := rng.IntN(SyntheticItems * 5)
		for k := range n {
			// Consecutive slots of (item, condition) never repeat within a participant.
			slot := (start + k) % (SyntheticItems * int(toplines.NumConditions))
			item, cond := slot%SyntheticItems, toplines.Condition(slot/SyntheticItems)
			mu := base[item]
			if cond == toplines.Cancel || cond == toplines.Negation {
				mu -= 2.5
			} else if cond == toplines.Strengthen {
				mu += 1
			}
			r := int(mu + rng.NormFloat64())
			r = max(1, min(7, r))
			line = line[:0]
			line = append(line, pid...)
			line = append(line, ',')
			line = append(line, batch...)
			line = append(line, ",item"...)
			line = strconv.AppendInt(line, int64(item+1), 10)
			line = append(line, ',')
			line = append(line, domain.TableTypes[syntheticType(item)]...)
			line = append(line, ',')
			line = append(line, toplines.ConditionNames[cond]...)
			line = append(line, ',', byte('0'+r), ',', '\n')
			bw.Write(line)
		}
	}
	return bw.Flush()
}

// syntheticType spreads items over the types in the data set's proportions
// (46 scalar, 31 discourse, 144 synthetic, 50 natural).
func syntheticType(item int) int {
	switch {
	case item < 46:
		return 0
	case item < 77:
		return 1
	case item < 221:
		return 2
	}
	return 3
}
