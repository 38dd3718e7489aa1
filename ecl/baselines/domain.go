package baselines

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/optimize"
)

// Domain is a logistic-regression classifier of "target" (1) against
// "source" (0) on d features: P(t|x) = σ(w·x + b).
type Domain struct {
	W     []float64
	B     float64
	prior float64 // ln(n_s/n_t): turns the posterior odds into a density ratio
}

// FitDomain fits the classifier on source and target features (row-major,
// d columns) by minimising the mean log-loss plus l2/2·‖w‖².
func FitDomain(src, tgt []float64, d int, l2 float64) (*Domain, error) {
	ns, nt := len(src)/max(d, 1), len(tgt)/max(d, 1)
	if d < 1 || ns*d != len(src) || nt*d != len(tgt) || ns == 0 || nt == 0 {
		return nil, fmt.Errorf("baselines.FitDomain: %d source and %d target values for %d features", len(src), len(tgt), d)
	}
	n := float64(ns + nt)
	loss := func(theta, grad []float64) float64 {
		w, b := theta[:d], theta[d]
		f := 0.0
		for i := range grad {
			grad[i] = 0
		}
		for _, dom := range []struct {
			x []float64
			y float64
		}{{src, 0}, {tgt, 1}} {
			for i := 0; i*d < len(dom.x); i++ {
				x := dom.x[i*d : (i+1)*d]
				z := b
				for j := range w {
					z += w[j] * x[j]
				}
				// log-loss of σ(z) against y, and its derivative σ(z) − y.
				f += softplus(z) - dom.y*z
				r := sigmoid(z) - dom.y
				for j := range w {
					grad[j] += r * x[j] / n
				}
				grad[d] += r / n
			}
		}
		for j := range w {
			f += l2 / 2 * w[j] * w[j] * n
			grad[j] += l2 * w[j]
		}
		return f / n
	}
	res, err := MinimizeSmooth(loss, make([]float64, d+1), &optimize.Settings{GradientThreshold: 1e-9}, nil)
	if res == nil {
		return nil, fmt.Errorf("baselines.FitDomain: %w", err)
	}
	return &Domain{W: res.X[:d], B: res.X[d], prior: math.Log(float64(ns) / float64(nt))}, nil
}

// Ratio estimates the density ratio p_t(x)/p_s(x) = P(t|x)/P(s|x)·n_s/n_t,
// clipped to [lo, hi] (hi ≤ 0 means no upper clip).
func (m *Domain) Ratio(x []float64, lo, hi float64) float64 {
	z := m.B + m.prior
	for j, w := range m.W {
		z += w * x[j]
	}
	r := math.Exp(z)
	if hi > 0 {
		r = min(r, hi)
	}
	return max(r, lo)
}

func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// softplus is ln(1 + eᶻ) without overflow.
func softplus(z float64) float64 {
	if z > 30 {
		return z
	}
	return math.Log1p(math.Exp(z))
}
