package experiment

import (
	"github.com/ecl-go/ecl/ecl/metrics"
)

// Measurement is the calibration report of one model's predictions that the
// studies (Scores) and ecl eval share: accuracy, NLL, Brier score, the
// binned calibrations behind the top-label, class-wise and canonical
// errors, and ECE^KDE.
type Measurement struct {
	ACC, NLL, Brier float64
	Top             metrics.Calibration
	Classwise       metrics.Classwise
	// Canonical is there when asked for (its simplex grows as bins^(K−1)).
	Canonical *metrics.Canonical
	// KDE is ECE^KDE by mode, when asked for and there are at least two
	// samples, every mode with the Bandwidth selected on the probabilities.
	KDE       map[metrics.KDEMode]float64
	Bandwidth float64
}

// Measure computes the Measurement of probabilities probs [N, k] against
// labels under o: the canonical calibration when canonical, ECE^KDE in the
// modes kde. The first metric that fails is the error.
func Measure(probs []float64, k int, labels []int, o metrics.Options, canonical bool, kde ...metrics.KDEMode) (Measurement, error) {
	var m Measurement
	steps := []func() error{
		func() (err error) { m.ACC, err = metrics.Accuracy(probs, k, labels); return err },
		func() (err error) { m.Top, err = metrics.ECE(probs, k, labels, o); return err },
		func() (err error) { m.Classwise, err = metrics.ClasswiseECE(probs, k, labels, o); return err },
		func() (err error) { m.NLL, err = metrics.NLL(probs, k, labels); return err },
		func() (err error) { m.Brier, err = metrics.Brier(probs, k, labels); return err },
	}
	if canonical {
		steps = append(steps, func() error {
			can, err := metrics.CanonicalECE(probs, k, labels, o)
			m.Canonical = &can
			return err
		})
	}
	if len(kde) > 0 && len(labels) >= 2 { // the leave-one-out bandwidth needs two samples
		steps = append(steps, func() (err error) {
			if m.Bandwidth, err = metrics.KDEBandwidth(probs, k); err != nil {
				return err
			}
			m.KDE = map[metrics.KDEMode]float64{}
			for _, mode := range kde {
				res, err := metrics.ECEKDE(probs, k, labels, metrics.KDEOptions{Mode: mode, Bandwidth: m.Bandwidth})
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

// Scores are the studies' columns of m (CanECE 0 without the canonical
// calibration, KDE the canonical ECE^KDE).
func (m Measurement) Scores() Scores {
	s := Scores{ACC: m.ACC, ECE: m.Top.Error, CwECE: m.Classwise.Error, KDE: m.KDE[metrics.KDECanonical], NLL: m.NLL, Brier: m.Brier}
	if m.Canonical != nil {
		s.CanECE = m.Canonical.Error
	}
	return s
}
