package calib

import (
	"fmt"
	"math"

	"github.com/ecl-go/ecl/ecl/baselines"
	"gonum.org/v1/gonum/optimize"
)

// Affine is softmax(W·x + b) with x the logits (Space "logits": vector and
// matrix scaling, Guo et al., 2017) or their log-softmax (Space "logprobs":
// Dirichlet calibration, Kull et al., 2019). W is k×k row-major, or its
// diagonal (k values) when Diagonal is set (vector scaling).
type Affine struct {
	Space    string    `json:"space"`
	Diagonal bool      `json:"diagonal"`
	W        []float64 `json:"w"`
	B        []float64 `json:"b"`
}

func (*Affine) family() string { return "affine" }

func (c *Affine) check(k int) error {
	nw := k * k
	if c.Diagonal {
		nw = k
	}
	if c.Space != "logits" && c.Space != "logprobs" {
		return fmt.Errorf("space %q, want logits or logprobs", c.Space)
	}
	if len(c.W) != nw || len(c.B) != k {
		return fmt.Errorf("%d weights and %d biases for %d classes (diagonal %v)", len(c.W), len(c.B), k, c.Diagonal)
	}
	for _, v := range append(append([]float64(nil), c.W...), c.B...) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("parameter %v is not finite", v)
		}
	}
	return nil
}

// Apply returns softmax(W·x + b) row by row.
func (c *Affine) Apply(logits []float64, k int) ([]float64, error) {
	if _, err := checkScores("Affine.Apply", logits, k, nil); err != nil {
		return nil, err
	}
	if err := c.check(k); err != nil {
		return nil, fmt.Errorf("calib.Affine.Apply: %w", err)
	}
	x := c.inputs(logits, k)
	out := make([]float64, len(x))
	z := make([]float64, k)
	for i := 0; i < len(x); i += k {
		affineRow(z, c.W, c.B, x[i:i+k], c.Diagonal)
		softmaxRow(out[i:i+k], z)
	}
	return out, nil
}

// inputs is x: the logits or their log-softmax.
func (c *Affine) inputs(logits []float64, k int) []float64 {
	if c.Space == "logprobs" {
		return logSoftmax(logits, k)
	}
	return logits
}

// affineRow sets z = W·x + b for one row (W k×d row-major, or diagonal).
func affineRow(z, w, b, x []float64, diag bool) {
	d := len(x)
	for i := range z {
		if diag {
			z[i] = w[i]*x[i] + b[i]
			continue
		}
		s := b[i]
		for j, v := range w[i*d : (i+1)*d] {
			s += v * x[j]
		}
		z[i] = s
	}
}

// ODIR is Kull et al.'s regularisation of an affine calibration map:
// Lambda/(k(k−1))·Σ_{i≠j} W_ij² + Mu/k·Σ_j b_j².
type ODIR struct{ Lambda, Mu float64 }

// FitVectorScaling fits softmax(w⊙z + b) on logits by the mean negative
// log-likelihood, with Mu/k·Σ b² (ODIR's intercept term; 0 for none).
func FitVectorScaling(logits []float64, k int, labels []int, mu float64) (*Affine, error) {
	return fitAffine("FitVectorScaling", &Affine{Space: "logits", Diagonal: true}, logits, k, labels, ODIR{Mu: mu})
}

// FitMatrixScaling fits softmax(W·z + b) on logits by the mean negative
// log-likelihood plus the ODIR term r (zero for the unregularised form).
func FitMatrixScaling(logits []float64, k int, labels []int, r ODIR) (*Affine, error) {
	return fitAffine("FitMatrixScaling", &Affine{Space: "logits"}, logits, k, labels, r)
}

// FitDirichlet is Dirichlet calibration: softmax(W·ln p + b) with p the
// uncalibrated probabilities, fitted by the mean negative log-likelihood
// plus the ODIR term r.
func FitDirichlet(logits []float64, k int, labels []int, r ODIR) (*Affine, error) {
	return fitAffine("FitDirichlet", &Affine{Space: "logprobs"}, logits, k, labels, r)
}

// affineIterations bounds the optimiser: with separable data and no
// regularisation the likelihood has no minimum.
const affineIterations = 2000

func fitAffine(fn string, c *Affine, logits []float64, k int, labels []int, r ODIR) (*Affine, error) {
	if _, err := checkScores(fn, logits, k, labels); err != nil {
		return nil, err
	}
	if !(r.Lambda >= 0) || !(r.Mu >= 0) {
		return nil, fmt.Errorf("calib.%s: regularisation λ %v, μ %v must be ≥ 0", fn, r.Lambda, r.Mu)
	}
	x := c.inputs(logits, k)
	nw := k * k
	if c.Diagonal {
		nw = k
	}
	// The identity map to start from.
	theta := make([]float64, nw+k)
	for i := range k {
		if c.Diagonal {
			theta[i] = 1
		} else {
			theta[i*k+i] = 1
		}
	}
	offDiag := 0.0
	if k > 1 {
		offDiag = r.Lambda / float64(k*(k-1))
	}
	pen := func(i, j int) float64 {
		if c.Diagonal || i == j {
			return 0
		}
		return offDiag
	}
	loss := linearLoss(x, k, k, labels, c.Diagonal, pen, r.Mu/float64(k))
	res, err := baselines.MinimizeSmooth(loss, theta, &optimize.Settings{GradientThreshold: 1e-8, MajorIterations: affineIterations}, &optimize.LBFGS{})
	if res == nil {
		return nil, fmt.Errorf("calib.%s: %w", fn, err)
	}
	c.W, c.B = res.X[:nw], res.X[nw:]
	if err := c.check(k); err != nil {
		return nil, fmt.Errorf("calib.%s: %w", fn, err)
	}
	return c, nil
}
