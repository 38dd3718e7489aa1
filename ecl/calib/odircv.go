package calib

import (
	"fmt"
	"math"

	"github.com/ecl-go/ecl/tensor"
)

// ODIRSearch asks for ODIR chosen by stratified cross-validation
// (FitAffineCV): Folds folds (0 for DefaultODIRFolds) drawn from Seed,
// each fit of at most Iterations L-BFGS iterations (0 for
// DefaultAffineIterations).
type ODIRSearch struct {
	Folds      int
	Seed       uint64
	Iterations int
}

// DefaultODIRFolds is the number of folds of the search when none is given.
const DefaultODIRFolds = 5

// odirPatience is how many successive grid points may fail to lower the
// best held-out NLL before the search stops.
const odirPatience = 2

// ODIRPoint is one point of the search with its held-out negative
// log-likelihood: the mean over every sample of −ln p(label), each sample
// predicted by the map fitted without its fold.
type ODIRPoint struct {
	ODIR
	NLL float64 `json:"nll"`
}

// ODIRCV is what a search did: its folds and seed, the points it fitted,
// strongest first, and the number of fits, the final one on all the data
// included.
type ODIRCV struct {
	Folds int         `json:"folds"`
	Seed  uint64      `json:"seed"`
	Path  []ODIRPoint `json:"path"`
	Fits  int         `json:"fits"`
}

// ODIRGrid is the path of penalties the search walks for k classes,
// strongest first: 10⁶, 10⁵, … down to 10⁻⁵ below 100 classes and to
// 10⁻² from 100 classes on (the decades of Kull et al.'s experiments,
// whose code starts at 10⁻⁵ for 10 classes and at 10⁻² for 100 and 1,000).
func ODIRGrid(k int) []float64 {
	lo := -5
	if k >= 100 {
		lo = -2
	}
	var g []float64
	for i := 6; i >= lo; i-- {
		g = append(g, math.Pow10(i))
	}
	return g
}

// FitAffineCV fits the affine method m (vs, ms or dirichlet) with ODIR
// chosen by stratified cross-validation on the fitting set: for each
// penalty v of ODIRGrid(k), strongest first, λ = μ = v (μ = v alone for
// vs, which has no off-diagonal), every fold's map is fitted on the other
// folds starting from its solution at the previous v (warm start), and the
// point's held-out NLL is computed. The search stops once odirPatience
// (2) successive points fail to lower the best held-out NLL, so it makes
// at most folds·len(ODIRGrid(k)) + 1 fits. The final map is fitted on all
// the data at the best point, starting from the mean of the folds'
// solutions there; it records the point (Affine.ODIR) and the search
// (Affine.CV).
//
// Tying μ to λ walks one path where Kull et al.'s experiments searched a
// 2-D grid (λ ∈ {1, 2.5, 5}·10^i by μ ∈ 10^i, 432 points and 2,160 fits at
// 10 classes); it is the one-penalty form of their package's default
// (reg_mu unset).
func FitAffineCV(m string, logits []float64, k int, labels []int, s ODIRSearch) (*Affine, error) {
	const fn = "FitAffineCV"
	c := affineMap(m)
	if c == nil {
		return nil, fmt.Errorf("calib.%s: method %q has no ODIR (want vs, ms or dirichlet)", fn, m)
	}
	n, err := checkScores(fn, logits, k, labels)
	if err != nil {
		return nil, err
	}
	if s.Iterations < 0 {
		return nil, fmt.Errorf("calib.%s: %d iterations, want ≥ 0 (0: %d)", fn, s.Iterations, DefaultAffineIterations)
	}
	folds := s.Folds
	if folds == 0 {
		folds = DefaultODIRFolds
	}
	fold, err := StratifiedFolds(labels, folds, s.Seed)
	if err != nil {
		return nil, fmt.Errorf("calib.%s: %w", fn, err)
	}
	x := c.inputs(logits, k)
	type part struct {
		xin, xout   rows // x's rows in and out of the fold, by index
		yin, yout   []int
		theta, best []float64
	}
	parts := make([]part, folds)
	for j := range parts {
		parts[j].xin, parts[j].xout = x, x
	}
	for i, g := range fold {
		for j := range parts {
			p := &parts[j]
			if j == g {
				p.xout.idx, p.yout = append(p.xout.idx, i), append(p.yout, labels[i])
			} else {
				p.xin.idx, p.yin = append(p.xin.idx, i), append(p.yin, labels[i])
			}
		}
	}
	cv := &ODIRCV{Folds: folds, Seed: s.Seed}
	best := 0
	for i, v := range ODIRGrid(k) {
		r := ODIR{Lambda: v, Mu: v}
		if c.Diagonal {
			r.Lambda = 0
		}
		nll := 0.0
		for j := range parts {
			p := &parts[j]
			if p.theta, err = c.solve(p.xin, k, p.yin, r, p.theta, s.Iterations); err != nil {
				return nil, fmt.Errorf("calib.%s: %s at λ %g, μ %g, fold %d: %w", fn, m, r.Lambda, r.Mu, j+1, err)
			}
			cv.Fits++
			nll += c.nll(p.theta, p.xout, k, p.yout)
		}
		cv.Path = append(cv.Path, ODIRPoint{ODIR: r, NLL: nll / float64(n)})
		if i == 0 || cv.Path[i].NLL < cv.Path[best].NLL {
			best = i
			for j := range parts {
				parts[j].best = parts[j].theta
			}
		} else if i-best >= odirPatience {
			break
		}
	}
	start := make([]float64, len(parts[0].best))
	for _, p := range parts {
		for i, v := range p.best {
			start[i] += v / float64(folds)
		}
	}
	r := cv.Path[best].ODIR
	theta, err := c.solve(x, k, labels, r, start, s.Iterations)
	if err != nil {
		return nil, fmt.Errorf("calib.%s: %s at λ %g, μ %g: %w", fn, m, r.Lambda, r.Mu, err)
	}
	cv.Fits++
	c.CV = cv
	return c.set(fn, theta, k, r)
}

// nll is the summed negative log-likelihood of labels under the map θ =
// (W, b) of c's form on inputs x [n, k].
func (c *Affine) nll(theta []float64, x rows, k int, labels []int) float64 {
	nw := c.nparams(k)
	z := affineOut(x, theta[:nw], theta[nw:], c.Diagonal)
	loss := make([]float64, len(labels))
	tensor.ParallelFor(len(labels), 20*k, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			zr := z[i*k : (i+1)*k]
			zy := zr[labels[i]]
			loss[i] = softmaxRow(zr, zr) - zy
		}
	})
	s := 0.0
	for _, v := range loss {
		s += v
	}
	return s
}
