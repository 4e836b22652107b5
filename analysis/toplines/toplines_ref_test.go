package toplines

// Expected toplines values and intervals, printed by
// analysis/toplines/testdata/toplines_ref.py (Python 3, stdlib only) from
// toplines_boot.csv and toplines_boot_draws.txt.

type topRef struct {
	point, lo, hi float64
	noCI, noPoint bool
}

func toplinesRef() map[string]topRef {
	return map[string]topRef{
		"scalar/implicature_recognition":     {point: 1.0, lo: 0.43850296824495466, hi: 1.0},
		"scalar/cancellation_recognition":    {point: 1.0, noCI: true},
		"scalar/belief_update":               {point: 1.0, noCI: true},
		"scalar/negation_cancellation":       {point: 0.6666666666666666, noCI: true},
		"scalar/strengthening":               {point: 1.0, noCI: true},
		"scalar/unchanged":                   {point: 0.6666666666666666, noCI: true},
		"scalar/pearson_r":                   {point: 0.12116511948328998, noCI: true},
		"discourse/implicature_recognition":  {point: 1.0, lo: 0.5101091635454028, hi: 1.0},
		"discourse/cancellation_recognition": {point: 1.0, noCI: true},
		"discourse/belief_update":            {point: 1.0, lo: 0.5101091635454028, hi: 1.0},
		"discourse/negation_cancellation":    {point: 1.0, noCI: true},
		"discourse/strengthening":            {point: 0.25, noCI: true},
		"discourse/unchanged":                {point: 0.5, noCI: true},
		"discourse/pearson_r":                {point: -0.541977718377214, noCI: true},
		"synthetic/implicature_recognition":  {point: 0.5, lo: 0.0, hi: 0.866137901861252},
		"synthetic/cancellation_recognition": {point: 1.0, noCI: true},
		"synthetic/belief_update":            {point: 0.5, lo: 0.0, hi: 1.0},
		"synthetic/negation_cancellation":    {point: 1.0, lo: 0.5101091635454028, hi: 1.0},
		"synthetic/strengthening":            {point: 1.0, noCI: true},
		"synthetic/unchanged":                {point: 1.0, noCI: true},
		"synthetic/pearson_r":                {point: 0.9648569566769379, noCI: true},
		"natural/implicature_recognition":    {point: 0.75, lo: 0.30064184258240206, hi: 1.0},
		"natural/cancellation_recognition":   {point: 1.0, noCI: true},
		"natural/belief_update":              {point: 0.75, lo: 0.30064184258240206, hi: 1.0},
		"natural/negation_cancellation":      {point: 1.0, noCI: true},
		"natural/strengthening":              {point: 0.75, noCI: true},
		"natural/unchanged":                  {point: 0.75, noCI: true},
		"natural/pearson_r":                  {point: 0.06484915190217083, noCI: true},
		"all/implicature_recognition":        {point: 0.8, lo: 0.5481455128483066, hi: 1.0},
		"all/cancellation_recognition":       {point: 1.0, lo: 0.7961166989641523, hi: 1.0},
		"all/belief_update":                  {point: 0.8, lo: 0.5481455128483066, hi: 1.0},
		"all/negation_cancellation":          {point: 0.9333333333333333, lo: 0.7018347012622006, hi: 1.0},
		"all/strengthening":                  {point: 0.7333333333333333, lo: 0.43020594712000937, hi: 1.0},
		"all/unchanged":                      {point: 0.7333333333333333, lo: 0.4416227468245235, hi: 1.0},
		"all/pearson_r":                      {point: 0.16040612528259096, noCI: true},
	}
}
