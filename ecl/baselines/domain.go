package baselines

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ecl-go/ecl/internal/vec"
	"github.com/ecl-go/ecl/tensor"
	"gonum.org/v1/gonum/optimize"
)

// Domain is a logistic-regression classifier of "target" (1) against
// "source" (0) on d features: P(t|x) = σ(w·x + b).
type Domain struct {
	W     []float64
	B     float64
	prior float64 // ln(n_s/n_t): turns the posterior odds into a density ratio
}

// DomainRows is a domain classifier's training set, read in place: the
// rows of Source (domain 0) and Target (domain 1), D features each.
type DomainRows struct {
	Source, Target []float64
	D              int
	// Mean and Scale, when set (D values each, Scale > 0), standardise every
	// feature as (x − Mean)/Scale during the fit; the penalty applies to the
	// standardised weights, and the fitted Domain reads raw rows.
	Mean, Scale []float64
	// SourceCount and TargetCount, when set (one per row), count each row
	// that many times: 0 leaves it out (a cross-fitting fold), 2 repeats it
	// (a resample). Unset, every row counts once.
	SourceCount, TargetCount []float64
}

// FitDomain fits the classifier on source and target features (row-major,
// d columns) by minimising the mean log-loss plus l2/2·‖w‖².
func FitDomain(src, tgt []float64, d int, l2 float64) (*Domain, error) {
	return DomainRows{Source: src, Target: tgt, D: d}.Fit(l2)
}

// domainBlock is the number of rows whose partial sums share one slot: the
// sums are added in block order, so a fit does not depend on the cores.
const domainBlock = 256

// Fit minimises the mean (count-weighted) log-loss plus l2/2·‖w‖² over the
// rows by BFGS, from w = 0, b = 0, each evaluation one pass over the rows
// in parallel blocks.
func (x DomainRows) Fit(l2 float64) (*Domain, error) {
	d := x.D
	ns, nt := len(x.Source)/max(d, 1), len(x.Target)/max(d, 1)
	switch {
	case d < 1 || ns*d != len(x.Source) || nt*d != len(x.Target) || ns == 0 || nt == 0:
		return nil, fmt.Errorf("baselines.FitDomain: %d source and %d target values for %d features", len(x.Source), len(x.Target), d)
	case (x.Mean == nil) != (x.Scale == nil) || x.Mean != nil && (len(x.Mean) != d || len(x.Scale) != d):
		return nil, fmt.Errorf("baselines.FitDomain: %d means and %d scales for %d features", len(x.Mean), len(x.Scale), d)
	case x.SourceCount != nil && len(x.SourceCount) != ns || x.TargetCount != nil && len(x.TargetCount) != nt:
		return nil, fmt.Errorf("baselines.FitDomain: %d source and %d target counts for %d and %d rows", len(x.SourceCount), len(x.TargetCount), ns, nt)
	}
	for _, c := range [][]float64{x.SourceCount, x.TargetCount} {
		for i, v := range c {
			if !(v >= 0) || math.IsInf(v, 1) {
				return nil, fmt.Errorf("baselines.FitDomain: count %v at row %d", v, i)
			}
		}
	}
	for j, v := range x.Scale {
		if !(v > 0) || math.IsInf(v, 1) {
			return nil, fmt.Errorf("baselines.FitDomain: scale %v of feature %d", v, j)
		}
	}
	cs, ct := countOf(x.SourceCount, ns), countOf(x.TargetCount, nt)
	if cs <= 0 || ct <= 0 {
		return nil, fmt.Errorf("baselines.FitDomain: the source counts %v rows and the target %v", cs, ct)
	}
	n := cs + ct
	mean, scale := x.Mean, x.Scale
	if mean == nil {
		mean, scale = make([]float64, d), make([]float64, d)
		for j := range scale {
			scale[j] = 1
		}
	}
	bs := (ns + domainBlock - 1) / domainBlock
	blocks := bs + (nt+domainBlock-1)/domainBlock
	part := make([]float64, blocks*(d+2)) // per block: Σ r·x, Σ r, Σ loss
	v := make([]float64, d)
	loss := func(theta, grad []float64) float64 {
		w, b := theta[:d], theta[d]
		// The linear model on raw rows: z = c + v·x with v = w/scale and
		// c = b − v·mean.
		c := b
		for j := range v {
			v[j] = w[j] / scale[j]
			c -= v[j] * mean[j]
		}
		tensor.ParallelFor(blocks, domainBlock*d*4, func(lo, hi int) {
			var zs, es [domainBlock]float64
			for blk := lo; blk < hi; blk++ {
				rows, counts, y, first := x.Source, x.SourceCount, 0.0, blk*domainBlock
				if blk >= bs {
					rows, counts, y, first = x.Target, x.TargetCount, 1, (blk-bs)*domainBlock
				}
				p := part[blk*(d+2) : (blk+1)*(d+2)]
				clear(p)
				g := p[:d]
				nb := min(domainBlock, len(rows)/d-first)
				// z and e^−|z| for the block's rows, the exponentials
				// eight at a time: σ(z) and ln(1 + eᶻ) = max(z, 0) +
				// ln(1 + e^−|z|) both follow from them (the logarithm of
				// 1 + e, not log1p(e): an absolute error within 2⁻⁵³ of a
				// loss term, at a third of log1p's cost).
				for i := range nb {
					zs[i] = c + vec.Dot(v, rows[(first+i)*d:][:d])
					es[i] = -math.Abs(zs[i])
				}
				tensor.ExpScaled64(es[:nb], es[:nb], 0, 1)
				for i := range nb {
					m := 1.0
					if counts != nil {
						if m = counts[first+i]; m == 0 {
							continue
						}
					}
					z, e := zs[i], es[i]
					// log-loss of σ(z) against y, and its derivative σ(z) − y.
					sig := 1 / (1 + e)
					if z < 0 {
						sig = e / (1 + e)
					}
					r := m * (sig - y)
					p[d+1] += m * (max(z, 0) + math.Log(1+e) - y*z)
					p[d] += r
					vec.Axpy(r, rows[(first+i)*d:][:d], g)
				}
			}
		})
		clear(grad)
		f, sr := 0.0, 0.0
		for blk := range blocks {
			p := part[blk*(d+2) : (blk+1)*(d+2)]
			for j, gj := range p[:d] {
				grad[j] += gj
			}
			sr += p[d]
			f += p[d+1]
		}
		// The gradient in the standardised weights: ∂z/∂w_j = (x_j − mean_j)/scale_j.
		for j := range w {
			grad[j] = (grad[j]-mean[j]*sr)/scale[j]/n + l2*w[j]
			f += l2 / 2 * w[j] * w[j] * n
		}
		grad[d] = sr / n
		return f / n
	}
	res, err := MinimizeSmooth(loss, make([]float64, d+1), &optimize.Settings{GradientThreshold: 1e-9}, nil)
	if res == nil {
		return nil, fmt.Errorf("baselines.FitDomain: %w", err)
	}
	m := &Domain{W: make([]float64, d), B: res.X[d], prior: math.Log(cs / ct)}
	for j := range m.W {
		m.W[j] = res.X[j] / scale[j]
		m.B -= m.W[j] * mean[j]
	}
	return m, nil
}

// Balance resamples the rows of the domain that counts fewer, uniformly
// with replacement among those it counts, until both count as many
// (TransCal's balancing). It sets SourceCount and TargetCount (ones where
// unset) and draws from rng; counts must be 0 or 1.
func (x *DomainRows) Balance(rng *rand.Rand) {
	d := max(x.D, 1)
	ones := func(c []float64, n int) []float64 {
		if c != nil {
			return c
		}
		c = make([]float64, n)
		for i := range c {
			c[i] = 1
		}
		return c
	}
	x.SourceCount, x.TargetCount = ones(x.SourceCount, len(x.Source)/d), ones(x.TargetCount, len(x.Target)/d)
	small, to := x.SourceCount, countOf(x.TargetCount, 0)
	if countOf(x.SourceCount, 0) >= to {
		small, to = x.TargetCount, countOf(x.SourceCount, 0)
	}
	var in []int
	for i, c := range small {
		if c > 0 {
			in = append(in, i)
		}
	}
	for range int(to) - len(in) {
		small[in[rng.IntN(len(in))]]++
	}
}

// countOf is the sum of counts, or n when counts is nil.
func countOf(counts []float64, n int) float64 {
	if counts == nil {
		return float64(n)
	}
	s := 0.0
	for _, c := range counts {
		s += c
	}
	return s
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
