package agreement

// Expected agreement values and intervals, printed by
// analysis/agreement/testdata/agreement_ref.py (Python 3, stdlib only) from
// agreement_boot.csv and agreement_boot_draws.txt.

type refValue struct {
	point, lo, hi float64
	noCI          bool
}

func refAll() map[string]refValue {
	return map[string]refValue{
		"raw":          {0.75, 0.5691457204286148, 0.8720110329843377, false},
		"pabak":        {0.5, 0.13829144085722955, 0.7440220659686754, false},
		"light":        {0.38983505274814956, 0.007562368896566194, 0.6895373856778604, false},
		"fleiss":       {0.4166666666666666, -0.10480524802491718, 0.8334989850893432, false},
		"alpha":        {0.38980263157894735, 0.015349470683444, 0.6684242163877261, false},
		"pair01_kappa": {0.4571428571428573, -0.13451844344258415, 0.7783880034758159, false},
	}
}

func refAllCanc() map[string]refValue {
	return map[string]refValue{
		"raw":          {0.5454545454545454, 0.280091537409322, 0.7872872837754024, false},
		"pabak":        {0.09090909090909083, -0.43981692518135596, 0.5745745675508047, false},
		"light":        {0.012121212121212144, -0.09186748842440436, 0.3333333333333333, false},
		"fleiss":       {point: -0.5000000000000001, noCI: true},
		"alpha":        {-0.02857142857142847, -0.34615384615384603, 0.4640404986489859, false},
		"pair01_kappa": {-0.3636363636363634, -1.0, 0.0, false},
	}
}

func refScalar() map[string]refValue {
	return map[string]refValue{
		"raw":          {0.78125, 0.5545233349281835, 0.911085971251712, false},
		"pabak":        {0.5625, 0.10904666985636702, 0.822171942503424, false},
		"light":        {0.50997150997151, 0.0928621058240359, 0.8735256958715651, false},
		"fleiss":       {0.5235294117647059, -0.01732512402288587, 1.0, false},
		"alpha":        {0.5384615384615384, 0.12264085280675856, 0.8820993058147819, false},
		"pair01_kappa": {0.638888888888889, 0.0, 1.0, false},
	}
}

func refScalarCanc() map[string]refValue {
	return map[string]refValue{
		"raw":          {0.5, 0.21521606221387762, 0.7847839377861224, false},
		"pabak":        {0.0, -0.5695678755722448, 0.5695678755722449, false},
		"light":        {0.21212121212121218, 0.0, 0.3333333333333333, false},
		"fleiss":       {point: -0.5000000000000001, noCI: true},
		"alpha":        {0.0, -0.4285714285714288, 0.4526386512774326, false},
		"pair01_kappa": {-0.3636363636363634, -1.0, 0.0, false},
	}
}
