package analysis

// Expected agreement values and intervals, printed by
// analysis/testdata/agreement_ref.py (Python 3.11.7, stdlib only) from
// agreement_boot.csv and agreement_boot_draws.txt.

type refValue struct {
	point, lo, hi float64
	noCI          bool
}

func refAll() map[string]refValue {
	return map[string]refValue{
		"raw":          {0.75, 0.6040625000000001, 0.8915217391304348, false},
		"pabak":        {0.5, 0.2081249999999999, 0.7830434782608695, false},
		"light":        {0.38983505274814956, 0.008136950377635186, 0.6907302321221473, false},
		"fleiss":       {0.4166666666666666, -0.13543322734499202, 0.7666612554112552, false},
		"alpha":        {0.38980263157894735, 0.02857142857142847, 0.6749840357598978, false},
		"pair01_kappa": {0.4571428571428573, -0.04925734581853407, 0.8622137404580151, false},
	}
}

func refAllCanc() map[string]refValue {
	return map[string]refValue{
		"raw":          {0.5454545454545454, 0.33333333333333337, 0.8575892857142856, false},
		"pabak":        {0.09090909090909083, -0.33333333333333337, 0.7151785714285713, false},
		"light":        {0.012121212121212144, -0.3005769230769231, 0.3333333333333333, false},
		"fleiss":       {point: -0.5000000000000001, noCI: true},
		"alpha":        {-0.02857142857142847, -0.4000000000000001, 0.44572649572649564, false},
		"pair01_kappa": {-0.3636363636363634, -0.9346153846153846, 0.0, false},
	}
}

func refScalar() map[string]refValue {
	return map[string]refValue{
		"raw":          {0.78125, 0.5936121323529412, 0.9476425438596492, false},
		"pabak":        {0.5625, 0.18722426470588235, 0.8952850877192982, false},
		"light":        {0.50997150997151, 0.05076447515792104, 0.8690605590062113, false},
		"fleiss":       {0.5235294117647059, -0.10620300751879759, 1.0, false},
		"alpha":        {0.5384615384615384, 0.12049689440993791, 0.8798421835839598, false},
		"pair01_kappa": {0.638888888888889, 0.05135135135135168, 1.0, false},
	}
}

func refScalarCanc() map[string]refValue {
	return map[string]refValue{
		"raw":          {0.5, 0.24874999999999997, 0.878125, false},
		"pabak":        {0.0, -0.5025000000000001, 0.75625, false},
		"light":        {0.21212121212121218, -0.3177884615384615, 0.3333333333333333, false},
		"fleiss":       {point: -0.5000000000000001, noCI: true},
		"alpha":        {0.0, -0.5, 0.42857142857142866, false},
		"pair01_kappa": {-0.3636363636363634, -0.9346153846153846, 0.0, false},
	}
}
