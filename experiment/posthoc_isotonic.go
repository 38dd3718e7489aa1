package experiment

import (
	"math/rand/v2"

	"github.com/ecl-go/ecl/ecl/calib"
	"github.com/ecl-go/ecl/tensor"
)

// fitIsotonic is isotonic regression (Zadrozny & Elkan, 2002), the
// non-parametric counterpart of TS without a correction for the shift:
// each class probability of the base model mapped by the non-decreasing
// function fitted on the held-out source (calib.FitIsotonic, one-vs-rest,
// rows renormalised).
func fitIsotonic[T tensor.Float](a *arm[T], _ *rand.Rand) (src, tgt []float64, err error) {
	lv, ls, lt := a.baseLogits()
	iso, err := calib.FitIsotonic(lv, a.classes, a.val.Y)
	if err != nil {
		return nil, nil, err
	}
	if src, err = iso.Apply(ls, a.classes); err != nil {
		return nil, nil, err
	}
	tgt, err = iso.Apply(lt, a.classes)
	return src, tgt, err
}
