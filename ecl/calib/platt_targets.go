package calib

import (
	"fmt"
	"math"
)

// PlattTargets chooses what Platt scaling fits its sigmoid to.
type PlattTargets int

const (
	// LabelTargets fits the 0/1 labels by maximum likelihood (FitPlatt).
	LabelTargets PlattTargets = iota
	// SmoothedTargets fits Platt's (1999) smoothed targets: (N₊ + 1)/(N₊ + 2)
	// for a positive and 1/(N₋ + 2) for a negative, N₊ and N₋ the numbers of
	// each, which keep the fit off the extremes on small or separable data;
	// scikit-learn's CalibratedClassifierCV(method="sigmoid") does this.
	SmoothedTargets
)

// PlattTargetNames are the names ParsePlattTargets reads, in order.
var PlattTargetNames = []string{"labels", "smoothed"}

// ParsePlattTargets reads "labels" or "smoothed".
func ParsePlattTargets(s string) (PlattTargets, error) {
	for i, n := range PlattTargetNames {
		if s == n {
			return PlattTargets(i), nil
		}
	}
	return 0, fmt.Errorf("%q: want labels or smoothed", s)
}

// FitPlattWith fits Platt scaling to the targets t chooses.
func FitPlattWith(logits []float64, k int, labels []int, t PlattTargets) (*Platt, error) {
	if t == LabelTargets {
		return FitPlatt(logits, k, labels)
	}
	if t != SmoothedTargets {
		return nil, fmt.Errorf("calib.FitPlattWith: unknown targets %d (want LabelTargets or SmoothedTargets)", t)
	}
	x, err := binaryFeatures("FitPlattWith", logits, k, labels, 1, plattFeature)
	if err != nil {
		return nil, err
	}
	var pos, neg float64
	for _, y := range labels {
		if y == 1 {
			pos++
		} else {
			neg++
		}
	}
	if pos == 0 || neg == 0 {
		return nil, fmt.Errorf("calib.FitPlattWith: the labels hold only one class")
	}
	hi, lo := (pos+1)/(pos+2), 1/(neg+2)
	targets := make([]float64, len(labels))
	for i, y := range labels {
		targets[i] = lo
		if y == 1 {
			targets[i] = hi
		}
	}
	a, b := softLogistic(x, targets, 0, math.Log((pos+1)/(neg+1)))
	return &Platt{A: a, B: b}, nil
}

// softLogistic fits σ(a·x + b) to targets t in (0, 1) by minimising the
// cross-entropy Σ softplus(z) − t·z, z = a·x + b, with Newton's method
// from (a0, b0), halving a step until the loss does not rise. The loss is
// convex, and strictly so for targets strictly inside (0, 1) with x not
// constant, so the minimum is unique.
func softLogistic(x, t []float64, a0, b0 float64) (a, b float64) {
	loss := func(a, b float64) float64 {
		s := 0.0
		for i, xi := range x {
			z := a*xi + b
			s += softplus(z) - t[i]*z
		}
		return s
	}
	a, b = a0, b0
	f := loss(a, b)
	for range 100 {
		var ga, gb, haa, hab, hbb float64
		for i, xi := range x {
			p := sigmoid(a*xi + b)
			r, w := p-t[i], p*(1-p)
			ga, gb = ga+r*xi, gb+r
			haa, hab, hbb = haa+w*xi*xi, hab+w*xi, hbb+w
		}
		det := haa*hbb - hab*hab
		if !(det > 0) || math.Abs(ga)+math.Abs(gb) < 1e-13*float64(len(x)) {
			break
		}
		da, db := (hbb*ga-hab*gb)/det, (haa*gb-hab*ga)/det
		step := 1.0
		for range 60 {
			if g := loss(a-step*da, b-step*db); g <= f {
				a, b, f = a-step*da, b-step*db, g
				break
			}
			step /= 2
		}
		if step < 1e-15 {
			break
		}
	}
	return a, b
}

// softplus is ln(1 + eᶻ) without overflow.
func softplus(z float64) float64 {
	if z > 30 {
		return z
	}
	if z < -30 {
		return math.Exp(z)
	}
	return math.Log1p(math.Exp(z))
}
