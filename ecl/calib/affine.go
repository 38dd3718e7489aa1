package calib

import (
	"fmt"
	"math"

	"github.com/ecl-go/ecl/ecl/baselines"
	"github.com/ecl-go/ecl/ecl/predict"
	"github.com/ecl-go/ecl/tensor"
	"gonum.org/v1/gonum/optimize"
)

// Affine is softmax(W·x + b) with x the logits (Space "logits": vector and
// matrix scaling, Guo et al., 2017) or their log-softmax (Space "logprobs":
// Dirichlet calibration, Kull et al., 2019). W is k×k row-major, or its
// diagonal (k values) when Diagonal is set (vector scaling).
//
// ODIR is the regularisation a fit used (nil for the ECL head's vector
// scaling) and CV, when it was chosen by cross-validation (FitAffineCV),
// the search.
//
// Iterations and Evaluations are the L-BFGS iterations and objective
// evaluations of the fit (of its final fit when cross-validated): an
// iteration count at the cap (DefaultAffineIterations, or
// FitOptions.AffineIterations) means the fit stopped there.
type Affine struct {
	Space       string    `json:"space"`
	Diagonal    bool      `json:"diagonal"`
	W           []float64 `json:"w"`
	B           []float64 `json:"b"`
	ODIR        *ODIR     `json:"odir,omitempty"`
	CV          *ODIRCV   `json:"odir_cv,omitempty"`
	Iterations  int       `json:"iterations,omitempty"`
	Evaluations int       `json:"evaluations,omitempty"`
}

func (*Affine) family() string { return "affine" }

func (c *Affine) check(k int) error {
	nw := c.nparams(k)
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
	z := affineOut(c.inputs(logits, k), c.W, c.B, c.Diagonal)
	predict.SoftmaxRowsTo(z, z, k)
	return z, nil
}

// inputs is x: the logits, or their log-softmax read as the logits less
// each row's log-sum-exp (rowLSE), without an n×k copy.
func (c *Affine) inputs(logits []float64, k int) rows {
	x := rows{x: logits, d: k}
	if c.Space == "logprobs" {
		x.shift = rowLSE(logits, k)
	}
	return x
}

// affineOut returns z = W·x + b [n, k] for the rows x (W k×d row-major,
// or its diagonal when diag, with d = k): the engine's GEMMs, linearRows
// rows of x at a time into z's rows, then the biases, over the cores.
func affineOut(x rows, w, b []float64, diag bool) []float64 {
	k, n, d := len(b), x.n(), x.d
	z, buf := make([]float64, n*k), x.buffer(linearRows)
	for lo := 0; lo < n; lo += linearRows {
		hi := min(lo+linearRows, n)
		xs, zs := x.block(lo, hi, buf), z[lo*k:hi*k]
		if !diag {
			tensor.MatMulTo(tensor.Wrap(zs, hi-lo, k), tensor.Wrap(xs, hi-lo, d), tensor.Transpose(tensor.Wrap(w, k, d), 0, 1))
		}
		tensor.ParallelFor(hi-lo, 2*k, func(l, h int) {
			for s := l; s < h; s++ {
				zr, xr := zs[s*k:(s+1)*k], xs[s*d:(s+1)*d]
				for i := range zr {
					if diag {
						zr[i] = w[i]*xr[i] + b[i]
					} else {
						zr[i] += b[i]
					}
				}
			}
		})
	}
	return z
}

// ODIR is Kull et al.'s regularisation of an affine calibration map:
// Lambda/(k(k−1))·Σ_{i≠j} W_ij² + Mu/k·Σ_j b_j².
type ODIR struct {
	Lambda float64 `json:"lambda"`
	Mu     float64 `json:"mu"`
}

// FitVectorScaling fits softmax(w⊙z + b) on logits by the mean negative
// log-likelihood, with Mu/k·Σ b² (ODIR's intercept term; 0 for none).
func FitVectorScaling(logits []float64, k int, labels []int, mu float64) (*Affine, error) {
	return fitAffine("FitVectorScaling", affineMap("vs"), logits, k, labels, ODIR{Mu: mu}, 0)
}

// FitMatrixScaling fits softmax(W·z + b) on logits by the mean negative
// log-likelihood plus the ODIR term r (zero for the unregularised form).
func FitMatrixScaling(logits []float64, k int, labels []int, r ODIR) (*Affine, error) {
	return fitAffine("FitMatrixScaling", affineMap("ms"), logits, k, labels, r, 0)
}

// FitDirichlet is Dirichlet calibration: softmax(W·ln p + b) with p the
// uncalibrated probabilities, fitted by the mean negative log-likelihood
// plus the ODIR term r.
func FitDirichlet(logits []float64, k int, labels []int, r ODIR) (*Affine, error) {
	return fitAffine("FitDirichlet", affineMap("dirichlet"), logits, k, labels, r, 0)
}

// affineMap is the unfitted map of the affine method m (vs, ms or
// dirichlet), nil for another.
func affineMap(m string) *Affine {
	switch m {
	case "vs":
		return &Affine{Space: "logits", Diagonal: true}
	case "ms":
		return &Affine{Space: "logits"}
	case "dirichlet":
		return &Affine{Space: "logprobs"}
	}
	return nil
}

// DefaultAffineIterations bounds the optimiser of the affine maps unless
// FitOptions.AffineIterations does: with separable data and no
// regularisation the likelihood has no minimum.
const DefaultAffineIterations = 2000

// fitAffine fits c with r by at most iters L-BFGS iterations (0:
// DefaultAffineIterations).
func fitAffine(fn string, c *Affine, logits []float64, k int, labels []int, r ODIR, iters int) (*Affine, error) {
	if _, err := checkScores(fn, logits, k, labels); err != nil {
		return nil, err
	}
	if !(r.Lambda >= 0) || !(r.Mu >= 0) || math.IsInf(r.Lambda, 1) || math.IsInf(r.Mu, 1) {
		return nil, fmt.Errorf("calib.%s: regularisation λ %v, μ %v must be finite and ≥ 0", fn, r.Lambda, r.Mu)
	}
	if iters < 0 {
		return nil, fmt.Errorf("calib.%s: %d iterations, want ≥ 0 (0: %d)", fn, iters, DefaultAffineIterations)
	}
	theta, err := c.solve(c.inputs(logits, k), k, labels, r, nil, iters)
	if err != nil {
		return nil, fmt.Errorf("calib.%s: %w", fn, err)
	}
	return c.set(fn, theta, k, r)
}

// nparams is the number of weights of c's map for k classes (W or its
// diagonal), before the k biases.
func (c *Affine) nparams(k int) int {
	if c.Diagonal {
		return k
	}
	return k * k
}

// objective is the fitted loss of c's map on inputs x [n, k] (Affine.inputs)
// with labels: the mean negative log-likelihood plus the ODIR term r, as a
// function of θ = (W, b) writing its gradient.
func (c *Affine) objective(x rows, k int, labels []int, r ODIR) func(theta, grad []float64) float64 {
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
	return linearLoss(x, k, labels, c.Diagonal, pen, r.Mu/float64(k), nil, nil)
}

// solve minimises c.objective by at most iters L-BFGS iterations (0:
// DefaultAffineIterations) from theta0 (nil: the identity map, W = I and
// b = 0), records the iterations and evaluations in c, and returns θ =
// (W, b). It works in φ = θ/s with
// s = 1/√(1 + 2·pen/h) per parameter, pen its penalty and h = mean(x_j²)/k
// (1/k for a bias) a scale of the likelihood's curvature in it: a strong
// penalty then no longer makes the problem stiff, and a weak one leaves
// s ≈ 1.
func (c *Affine) solve(x rows, k int, labels []int, r ODIR, theta0 []float64, iters int) ([]float64, error) {
	if iters == 0 {
		iters = DefaultAffineIterations
	}
	nw := c.nparams(k)
	if theta0 == nil {
		theta0 = make([]float64, nw+k)
		for i := range k {
			if c.Diagonal {
				theta0[i] = 1
			} else {
				theta0[i*k+i] = 1
			}
		}
	}
	sq, buf := make([]float64, k), x.buffer(linearRows)
	for lo := 0; lo < x.n(); lo += linearRows {
		for i, v := range x.block(lo, min(lo+linearRows, x.n()), buf) {
			sq[i%k] += v * v
		}
	}
	n := float64(len(labels))
	scale := make([]float64, nw+k)
	for i := range scale {
		pen, h := r.Mu/float64(k), 1/float64(k)
		if i < nw {
			row, col := i/k, i%k
			if c.Diagonal {
				row, col = i, i
			}
			pen, h = 0, sq[col]/n/float64(k)
			if row != col && k > 1 {
				pen = r.Lambda / float64(k*(k-1))
			}
		}
		scale[i] = 1
		if pen > 0 && h > 0 {
			scale[i] = 1 / math.Sqrt(1+2*pen/h)
		}
	}
	loss, theta := c.objective(x, k, labels, r), make([]float64, nw+k)
	scaled := func(phi, grad []float64) float64 {
		for i, v := range phi {
			theta[i] = v * scale[i]
		}
		f := loss(theta, grad)
		for i := range grad {
			grad[i] *= scale[i]
		}
		return f
	}
	phi0 := make([]float64, nw+k)
	for i, v := range theta0 {
		phi0[i] = v / scale[i]
	}
	res, err := baselines.MinimizeSmooth(scaled, phi0, &optimize.Settings{GradientThreshold: 1e-8, MajorIterations: iters}, &optimize.LBFGS{})
	if res == nil {
		return nil, err
	}
	c.Iterations, c.Evaluations = res.Stats.MajorIterations, res.Stats.FuncEvaluations
	for i, v := range res.X {
		res.X[i] = v * scale[i]
	}
	return res.X, nil
}

// set makes θ = (W, b) c's parameters, fitted with r, and checks them.
func (c *Affine) set(fn string, theta []float64, k int, r ODIR) (*Affine, error) {
	nw := c.nparams(k)
	c.W, c.B, c.ODIR = theta[:nw], theta[nw:], &r
	if err := c.check(k); err != nil {
		return nil, fmt.Errorf("calib.%s: %w", fn, err)
	}
	return c, nil
}
