package domain

import "slices"

// CrowdQualityOf computes the data-quality measures of one participant
// from their ratings in screen order (checks included) and response times
// in ms (0 unknown): the participants table's and `analyze integrity`'s
// one rule (docs/studies.md#data-quality-flags). The total time is not
// known from the ratings alone and stays 0.
func CrowdQualityOf(ratings, rts []int, fastMS int) CrowdQuality {
	var q CrowdQuality
	run := 0
	for i, r := range ratings {
		if i > 0 && r == ratings[i-1] {
			run++
		} else {
			run = 1
		}
		q.LongestRun = max(q.LongestRun, run)
	}
	var timed []int
	fast := 0
	for _, rt := range rts {
		if rt > 0 {
			timed = append(timed, rt)
			if rt < fastMS {
				fast++
			}
		}
	}
	if n := len(timed); n > 0 {
		slices.Sort(timed)
		q.MedianRT = timed[n/2]
		if n%2 == 0 {
			q.MedianRT = (timed[n/2-1] + timed[n/2]) / 2
		}
		q.Timed = n
		q.FastShare = float64(fast) / float64(n)
	}
	return q
}
