package baselines

import (
	"slices"

	"gonum.org/v1/gonum/optimize"
)

// MinimizeSmooth minimises loss from x0 with method (BFGS when nil) and
// settings (nil for gonum's defaults). loss returns the value at x and
// writes the gradient into grad. gonum asks for the value and the gradient
// at the same points in separate calls; one pass computes both, kept for
// the last point. The result is nil only when gonum returns none.
func MinimizeSmooth(loss func(x, grad []float64) float64, x0 []float64, settings *optimize.Settings, method optimize.Method) (*optimize.Result, error) {
	var at, lastGrad []float64
	var lastF float64
	eval := func(x []float64) {
		if at != nil && slices.Equal(at, x) {
			return
		}
		at, lastGrad = slices.Clone(x), make([]float64, len(x))
		lastF = loss(x, lastGrad)
	}
	prob := optimize.Problem{
		Func: func(x []float64) float64 { eval(x); return lastF },
		Grad: func(g, x []float64) { eval(x); copy(g, lastGrad) },
	}
	if method == nil {
		method = &optimize.BFGS{}
	}
	res, err := optimize.Minimize(prob, x0, settings, method)
	if res == nil {
		return nil, err
	}
	return res, nil
}
