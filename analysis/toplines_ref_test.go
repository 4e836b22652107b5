package analysis

// Expected toplines values and intervals, printed by
// analysis/testdata/toplines_ref.py (Python 3.11.7, stdlib only) from
// toplines_boot.csv and toplines_boot_draws.txt.

type topRef struct {
	point, lo, hi float64
	noCI, noPoint bool
}

func toplinesRef() map[string]topRef {
	return map[string]topRef{
		"scalar/implicature_recognition":     {point: 1.0, lo: 1.0, hi: 1.0},
		"scalar/cancellation_recognition":    {point: 1.0, noCI: true},
		"scalar/belief_update":               {point: 1.0, noCI: true},
		"scalar/negation_cancellation":       {point: 0.6666666666666666, lo: 0.0, hi: 1.0},
		"scalar/strengthening":               {point: 1.0, noCI: true},
		"scalar/unchanged":                   {point: 0.6666666666666666, noCI: true},
		"scalar/pearson_r":                   {point: 0.12116511948328998, noCI: true},
		"discourse/implicature_recognition":  {point: 1.0, lo: 0.25, hi: 1.0},
		"discourse/cancellation_recognition": {point: 1.0, lo: 1.0, hi: 1.0},
		"discourse/belief_update":            {point: 1.0, lo: 0.0, hi: 1.0},
		"discourse/negation_cancellation":    {point: 1.0, lo: 0.7291666666666666, hi: 1.0},
		"discourse/strengthening":            {point: 0.25, lo: 0.0, hi: 1.0},
		"discourse/unchanged":                {point: 0.5, lo: 0.0, hi: 1.0},
		"discourse/pearson_r":                {point: -0.541977718377214, noCI: true},
		"synthetic/implicature_recognition":  {point: 0.5, lo: 0.0, hi: 1.0},
		"synthetic/cancellation_recognition": {point: 1.0, lo: 0.25, hi: 1.0},
		"synthetic/belief_update":            {point: 0.5, lo: 0.0, hi: 1.0},
		"synthetic/negation_cancellation":    {point: 1.0, lo: 0.3333333333333333, hi: 1.0},
		"synthetic/strengthening":            {point: 1.0, lo: 0.0, hi: 1.0},
		"synthetic/unchanged":                {point: 1.0, lo: 0.0, hi: 1.0},
		"synthetic/pearson_r":                {point: 0.9648569566769379, noCI: true},
		"natural/implicature_recognition":    {point: 0.75, lo: 0.0, hi: 1.0},
		"natural/cancellation_recognition":   {point: 1.0, lo: 0.30416666666666664, hi: 1.0},
		"natural/belief_update":              {point: 0.75, lo: 0.0, hi: 1.0},
		"natural/negation_cancellation":      {point: 1.0, lo: 1.0, hi: 1.0},
		"natural/strengthening":              {point: 0.75, lo: 0.0, hi: 1.0},
		"natural/unchanged":                  {point: 0.75, lo: 0.0, hi: 1.0},
		"natural/pearson_r":                  {point: 0.06484915190217083, noCI: true},
		"all/implicature_recognition":        {point: 0.8, lo: 0.49916666666666665, hi: 1.0},
		"all/cancellation_recognition":       {point: 1.0, lo: 0.6666666666666667, hi: 1.0},
		"all/belief_update":                  {point: 0.8, lo: 0.3325, hi: 1.0},
		"all/negation_cancellation":          {point: 0.9333333333333333, lo: 0.7136160714285714, hi: 1.0},
		"all/strengthening":                  {point: 0.7333333333333333, lo: 0.41624999999999995, hi: 1.0},
		"all/unchanged":                      {point: 0.7333333333333333, lo: 0.33333333333333337, hi: 1.0},
		"all/pearson_r":                      {point: 0.16040612528259096, lo: -0.8864136862692991, hi: 0.9189036671200987},
	}
}
