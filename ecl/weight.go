package ecl

import "math"

// AdaptiveWeight is the paper's loss weight λ = β^γ, where β is the ratio of
// the summed cross-entropy to the summed ECL over the iterations observed so
// far (γ = 1 by default; the paper's ablation tries 0.5 … 1.5).
type AdaptiveWeight struct {
	Gamma      float64
	sumCE, sum float64
}

// Observe adds one iteration's losses.
func (a *AdaptiveWeight) Observe(ce, ecl float64) {
	a.sumCE += ce
	a.sum += ecl
}

// Lambda is β^γ over the observed iterations, or 1 before any ECL has been
// seen.
func (a *AdaptiveWeight) Lambda() float64 {
	if a.sum <= 0 || a.sumCE <= 0 {
		return 1
	}
	g := a.Gamma
	if g == 0 {
		g = 1
	}
	return math.Pow(a.sumCE/a.sum, g)
}
