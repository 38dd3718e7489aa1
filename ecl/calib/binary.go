package calib

import (
	"fmt"
	"math"

	"github.com/ecl-go/ecl/ecl/baselines"
)

// Platt is Platt scaling (Platt, 1999) for two classes:
// P(class 1) = σ(A·s + B) with s = z₁ − z₀, the logit of the uncalibrated
// P(class 1). It is fitted by maximum likelihood on the 0/1 labels (no
// target smoothing).
type Platt struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

func (*Platt) family() string { return "platt" }

// Beta is beta calibration (Kull, Silva Filho & Flach, 2017) for two
// classes: P(class 1) = σ(A·ln p − B·ln(1−p) + C) with p the uncalibrated
// P(class 1) and A, B ≥ 0, fitted by maximum likelihood (when the
// unconstrained fit has A or B negative, that parameter is fixed at 0 and the
// others refitted, as the authors' betacal does).
type Beta struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
	C float64 `json:"c"`
}

func (*Beta) family() string { return "beta" }

// binaryFeatures checks a two-class fit or application and returns, per
// row, the features f(log P(class 0), log P(class 1)) (dim values each).
func binaryFeatures(fn string, logits []float64, k int, labels []int, dim int, f func(l0, l1 float64, out []float64)) ([]float64, error) {
	n, err := checkScores(fn, logits, k, labels)
	if err != nil {
		return nil, err
	}
	if k != 2 {
		return nil, fmt.Errorf("calib.%s: %d classes; Platt and beta calibration are for two", fn, k)
	}
	lp := logSoftmax(logits, 2)
	out := make([]float64, n*dim)
	for i := range n {
		f(lp[2*i], lp[2*i+1], out[i*dim:(i+1)*dim])
	}
	return out, nil
}

// fitLogistic fits P(y = 1) = σ(w·x + b) on rows of dim features by maximum
// likelihood (ecl/baselines' logistic regression, negatives as its "source"
// and positives as its "target").
func fitLogistic(fn string, x []float64, dim int, labels []int) ([]float64, float64, error) {
	var neg, pos []float64
	for i, y := range labels {
		if y == 1 {
			pos = append(pos, x[i*dim:(i+1)*dim]...)
		} else {
			neg = append(neg, x[i*dim:(i+1)*dim]...)
		}
	}
	if len(neg) == 0 || len(pos) == 0 {
		return nil, 0, fmt.Errorf("calib.%s: the labels hold only one class", fn)
	}
	m, err := baselines.FitDomain(neg, pos, dim, 0)
	if err != nil {
		return nil, 0, fmt.Errorf("calib.%s: %w", fn, err)
	}
	return m.W, m.B, nil
}

func plattFeature(l0, l1 float64, out []float64) { out[0] = l1 - l0 }

// FitPlatt fits Platt scaling.
func FitPlatt(logits []float64, k int, labels []int) (*Platt, error) {
	x, err := binaryFeatures("FitPlatt", logits, k, labels, 1, plattFeature)
	if err != nil {
		return nil, err
	}
	w, b, err := fitLogistic("FitPlatt", x, 1, labels)
	if err != nil {
		return nil, err
	}
	return &Platt{A: w[0], B: b}, nil
}

// Apply returns [1 − q, q] with q = σ(A·s + B).
func (c *Platt) Apply(logits []float64, k int) ([]float64, error) {
	x, err := binaryFeatures("Platt.Apply", logits, k, nil, 1, plattFeature)
	if err != nil {
		return nil, err
	}
	return binaryProbs(x, 1, func(f []float64) float64 { return c.A*f[0] + c.B }), nil
}

// betaFeatures are ln p and −ln(1 − p) of p = P(class 1).
func betaFeatures(l0, l1 float64, out []float64) { out[0], out[1] = l1, -l0 }

// FitBeta fits beta calibration.
func FitBeta(logits []float64, k int, labels []int) (*Beta, error) {
	x, err := binaryFeatures("FitBeta", logits, k, labels, 2, betaFeatures)
	if err != nil {
		return nil, err
	}
	w, c, err := fitLogistic("FitBeta", x, 2, labels)
	if err != nil {
		return nil, err
	}
	if w[0] >= 0 && w[1] >= 0 {
		return &Beta{A: w[0], B: w[1], C: c}, nil
	}
	// Keep the feature whose coefficient is larger and refit on it alone.
	keep := 0
	if w[1] > w[0] {
		keep = 1
	}
	one := make([]float64, len(labels))
	for i := range one {
		one[i] = x[2*i+keep]
	}
	v, c, err := fitLogistic("FitBeta", one, 1, labels)
	if err != nil {
		return nil, err
	}
	if v[0] < 0 {
		// Neither feature helps: the constant map to the positive rate.
		pos := 0.0
		for _, y := range labels {
			pos += float64(y)
		}
		return &Beta{C: math.Log(pos / (float64(len(labels)) - pos))}, nil
	}
	if keep == 0 {
		return &Beta{A: v[0], C: c}, nil
	}
	return &Beta{B: v[0], C: c}, nil
}

// Apply returns [1 − q, q] with q = σ(A·ln p − B·ln(1−p) + C).
func (c *Beta) Apply(logits []float64, k int) ([]float64, error) {
	x, err := binaryFeatures("Beta.Apply", logits, k, nil, 2, betaFeatures)
	if err != nil {
		return nil, err
	}
	return binaryProbs(x, 2, func(f []float64) float64 { return c.A*f[0] + c.B*f[1] + c.C }), nil
}

// binaryProbs returns [1 − σ(z), σ(z)] per row of dim features, z = lin(row).
func binaryProbs(x []float64, dim int, lin func([]float64) float64) []float64 {
	n := len(x) / dim
	out := make([]float64, 2*n)
	for i := range n {
		q := sigmoid(lin(x[i*dim : (i+1)*dim]))
		out[2*i], out[2*i+1] = 1-q, q
	}
	return out
}

func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}
