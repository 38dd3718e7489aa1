package calib

import (
	"fmt"
	"slices"
	"sort"
)

// Isotonic is isotonic regression (Zadrozny & Elkan, 2002): each class
// probability (P(class 1) alone for two classes) is mapped by a
// non-decreasing function, the pool-adjacent-violators fit of the class
// indicators, stored as knots (X[c], Y[c]) — the ends of each constant
// run — and interpolated linearly between them, constant beyond the ends
// (as scikit-learn's IsotonicRegression with out_of_bounds="clip"). With
// more than two classes the row is renormalised.
type Isotonic struct {
	X [][]float64 `json:"x"`
	Y [][]float64 `json:"y"`
}

func (*Isotonic) family() string { return "isotonic" }

func (c *Isotonic) check(k int) error {
	if len(c.X) != fittedClasses(k) || len(c.Y) != len(c.X) {
		return fmt.Errorf("%d knot lists for %d classes", len(c.X), k)
	}
	for i, x := range c.X {
		if len(x) == 0 || len(c.Y[i]) != len(x) {
			return fmt.Errorf("class %d: %d x and %d y knots", i, len(x), len(c.Y[i]))
		}
		if !slices.IsSorted(x) {
			return fmt.Errorf("class %d: knots not sorted", i)
		}
	}
	return nil
}

// FitIsotonic fits the isotonic map of each class.
func FitIsotonic(logits []float64, k int, labels []int) (*Isotonic, error) {
	if _, err := checkScores("FitIsotonic", logits, k, labels); err != nil {
		return nil, err
	}
	m := fittedClasses(k)
	c := &Isotonic{X: make([][]float64, m), Y: make([][]float64, m)}
	perClass(logits, k, labels, 40*len(labels), func(i int, scores, own []float64) {
		c.X[i], c.Y[i] = pav(scores, own)
	})
	return c, nil
}

// pav returns the knots of the least-squares non-decreasing fit of 0/1
// outcomes on the scores x (no NaN), given the scores of the samples whose
// outcome is 1 (ones, a sub-multiset of x); it sorts both in place. Tied
// scores are pooled first, then adjacent blocks that violate the order are
// merged (weighted by their counts); each block contributes its first and
// last x at its mean.
func pav(x, ones []float64) (kx, ky []float64) {
	slices.Sort(x)
	slices.Sort(ones)
	type block struct{ lo, hi, sum, w float64 }
	var st []block
	j := 0 // next of ones
	for i := 0; i < len(x); {
		v, w, sum := x[i], 0.0, 0.0
		for ; i < len(x) && x[i] == v; i++ {
			w++
		}
		for ; j < len(ones) && ones[j] == v; j++ {
			sum++
		}
		st = append(st, block{v, v, sum, w})
		for n := len(st); n > 1 && st[n-2].sum/st[n-2].w >= st[n-1].sum/st[n-1].w; n = len(st) {
			a, b := st[n-2], st[n-1]
			st = append(st[:n-2], block{a.lo, b.hi, a.sum + b.sum, a.w + b.w})
		}
	}
	for _, b := range st {
		v := b.sum / b.w
		kx, ky = append(kx, b.lo), append(ky, v)
		if b.hi > b.lo {
			kx, ky = append(kx, b.hi), append(ky, v)
		}
	}
	return kx, ky
}

// interpolate evaluates the piecewise-linear function through the knots at
// v, constant beyond the ends.
func interpolate(kx, ky []float64, v float64) float64 {
	j := sort.SearchFloat64s(kx, v) // first knot ≥ v
	switch {
	case j == 0:
		return ky[0]
	case j == len(kx):
		return ky[len(ky)-1]
	}
	x0, x1 := kx[j-1], kx[j]
	if x1 == x0 {
		return ky[j]
	}
	return ky[j-1] + (v-x0)/(x1-x0)*(ky[j]-ky[j-1])
}

// Apply maps every class probability by its isotonic function.
func (c *Isotonic) Apply(logits []float64, k int) ([]float64, error) {
	if err := c.check(k); err != nil {
		return nil, fmt.Errorf("calib.Isotonic.Apply: %w", err)
	}
	maps := make([]func(float64) float64, len(c.X))
	for i := range maps {
		kx, ky := c.X[i], c.Y[i]
		maps[i] = func(p float64) float64 { return interpolate(kx, ky, p) }
	}
	return oneVsRest("Isotonic.Apply", logits, k, maps)
}
