package metrics

// Measurement is the calibration report of one model's predictions that the
// studies and ecl eval share: accuracy, NLL, Brier score, the
// binned calibrations behind the top-label, class-wise and canonical
// errors, and ECE^KDE.
type Measurement struct {
	ACC, NLL, Brier float64
	Top             Calibration
	Classwise       Classwise
	// Canonical is there when asked for (its simplex grows as bins^(K−1)).
	Canonical *Canonical
	// KDE is ECE^KDE by mode, when asked for and there are at least two
	// samples, every mode with the Bandwidth selected on the probabilities.
	KDE       map[KDEMode]float64
	Bandwidth float64
}

// Measure computes the Measurement of probabilities probs [N, k] against
// labels under o: the canonical calibration when canonical, ECE^KDE in the
// modes kde. The first metric that fails is the error.
func Measure(probs []float64, k int, labels []int, o Options, canonical bool, kde ...KDEMode) (Measurement, error) {
	var m Measurement
	steps := []func() error{
		func() (err error) { m.ACC, err = Accuracy(probs, k, labels); return err },
		func() (err error) { m.Top, err = ECE(probs, k, labels, o); return err },
		func() (err error) { m.Classwise, err = ClasswiseECE(probs, k, labels, o); return err },
		func() (err error) { m.NLL, err = NLL(probs, k, labels); return err },
		func() (err error) { m.Brier, err = Brier(probs, k, labels); return err },
	}
	if canonical {
		steps = append(steps, func() error {
			can, err := CanonicalECE(probs, k, labels, o)
			m.Canonical = &can
			return err
		})
	}
	if len(kde) > 0 && len(labels) >= 2 { // the leave-one-out bandwidth needs two samples
		steps = append(steps, func() (err error) {
			if m.Bandwidth, err = KDEBandwidth(probs, k); err != nil {
				return err
			}
			m.KDE = map[KDEMode]float64{}
			for _, mode := range kde {
				res, err := ECEKDE(probs, k, labels, KDEOptions{Mode: mode, Bandwidth: m.Bandwidth})
				if err != nil {
					return err
				}
				m.KDE[mode] = res.Value
			}
			return nil
		})
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return Measurement{}, err
		}
	}
	return m, nil
}
