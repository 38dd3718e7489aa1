package ecl

import (
	"fmt"
	"math"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/ecl/bins"
	"github.com/ecl-go/ecl/tensor"
)

// Norm is the vector norm between the source and target expectations of a
// bin in the binned estimators.
type Norm int

const (
	L1 Norm = iota // the reference code's choice
	L2
)

// SoftBinned is the differentiable estimator of Eq. 7 on pairs of batches:
// soft counts n and weighted sums m per bin and domain,
// Ê_{d,j} = m_{d,j}/(n_{d,j} + eps), w_j = n_{t,j}/Σ_r n_{t,r}, and
// L̂ = Σ_j w_j ‖Ê_{s,j} − Ê_{t,j}‖, summed over classes for class-wise. It
// holds no state; NewSoftBinned makes it and SoftBinnedLoss computes it.
type SoftBinned struct {
	l     layout
	norm  Norm
	eps   float64
	input Input
}

// NewSoftBinned checks cfg (a *ConfigError if it is unusable) and returns
// the estimator with the given norm; eps ≤ 0 means 2⁻²³. Of cfg's settings
// the proximal step's (NProx, EMA, Skip) and Reduce are not used.
func NewSoftBinned(cfg Config, norm Norm, eps float64) (*SoftBinned, error) {
	l, err := cfg.layout()
	if err != nil {
		return nil, err
	}
	if eps <= 0 {
		eps = SkipThreshold
	}
	return &SoftBinned{l: l, norm: norm, eps: eps, input: cfg.Input}, nil
}

// SoftBinnedLoss is sb's estimate on one source and one target batch, with
// inputs as for MiniBatchLoss.
func SoftBinnedLoss[T tensor.Float](sb *SoftBinned, srcProbs, tgtProbs, srcAux, tgtAux *autograd.Var[T]) *autograd.Var[T] {
	return SoftBinnedFromStats(sb, SoftBinnedStats(sb, srcProbs, srcAux), SoftBinnedStats(sb, tgtProbs, tgtAux))
}

// SoftBinnedStats is one domain's statistics under sb: every bin's soft
// count and weighted sums over the batch's rows, inputs as for
// MiniBatchLoss. They are sums over the rows, so the statistics of a set
// too large for one graph are the sum of its chunks' (what the ECL head of
// ecl/calib does at 1,000 classes).
func SoftBinnedStats[T tensor.Float](sb *SoftBinned, probs, aux *autograd.Var[T]) *autograd.Var[T] {
	return binStats(sb.l, Probabilities(sb.input, probs), aux)
}

// SoftBinnedFromStats is SoftBinnedLoss from the source's and the target's
// SoftBinnedStats.
func SoftBinnedFromStats[T tensor.Float](sb *SoftBinned, src, tgt *autograd.Var[T]) *autograd.Var[T] {
	ns, ms := splitStats(sb.l, src)
	nt, mt := splitStats(sb.l, tgt)
	return softBinned(sb.norm, sb.eps, ns, ms, nt, mt)
}

// softBinned is SoftBinned from each domain's soft counts n [G, B] and
// weighted sums m [G, B, D].
func softBinned[T tensor.Float](norm Norm, eps float64, ns, ms, nt, mt *autograd.Var[T]) *autograd.Var[T] {
	expect := func(n, m *autograd.Var[T]) *autograd.Var[T] {
		return autograd.Div(m, autograd.Unsqueeze(autograd.AddScalar(n, T(eps)), 2))
	}
	diff := autograd.Sub(expect(ns, ms), expect(nt, mt)) // [G, B, D]
	var dist *autograd.Var[T]
	if norm == L1 {
		dist = autograd.Sum(autograd.Abs(diff), 2, false)
	} else {
		dist = autograd.Sqrt(autograd.AddScalar(autograd.Sum(autograd.Mul(diff, diff), 2, false), T(eps*eps)))
	}
	w := autograd.Div(nt, autograd.Sum(nt, 1, true)) // [G, B]
	return autograd.SumAll(autograd.Mul(w, dist))
}

// Hard is the hard-binned estimator used for evaluation: bins are formed on
// the target's confidences (equal-width bins of the top confidence or of each
// S_k, or the nearest simplex anchor for canonical), each weighted by its
// share of target samples, L̂ = Σ_j (#b_j^t/#D_t)‖Ê_{s,j} − Ê_{t,j}‖ with Ê the
// mean of p over a domain's samples in the bin (summed over classes for
// class-wise). Bins without a source sample are left out. Probabilities are
// row-major [N, K]; aux is [N] (top-label) or [N, K].
func Hard(cfg Config, norm Norm, srcProbs, tgtProbs, srcAux, tgtAux []float64) (float64, error) {
	l, err := cfg.layout()
	if err != nil {
		return 0, err
	}
	ns, nt := len(srcProbs)/l.k, len(tgtProbs)/l.k
	if len(srcProbs) != ns*l.k || len(tgtProbs) != nt*l.k || len(srcAux) != ns*l.g*l.d || len(tgtAux) != nt*l.g*l.d || nt == 0 {
		return 0, fmt.Errorf("ecl.Hard: %d/%d source and %d/%d target values do not fit K=%d (%v)",
			len(srcProbs), len(srcAux), len(tgtProbs), len(tgtAux), l.k, l.paradigm)
	}
	type acc struct {
		n   float64
		sum []float64
	}
	total := 0.0
	for g := 0; g < l.g; g++ {
		src, tgt := make([]acc, l.b), make([]acc, l.b)
		add := func(a []acc, probs, aux []float64, i int) {
			j := l.hardBin(probs[i*l.k:(i+1)*l.k], g)
			if a[j].sum == nil {
				a[j].sum = make([]float64, l.d)
			}
			a[j].n++
			for d := range l.d {
				a[j].sum[d] += aux[(i*l.g+g)*l.d+d]
			}
		}
		for i := range ns {
			add(src, srcProbs, srcAux, i)
		}
		for i := range nt {
			add(tgt, tgtProbs, tgtAux, i)
		}
		for j := range l.b {
			if src[j].n == 0 || tgt[j].n == 0 {
				continue
			}
			dist := 0.0
			for d := range l.d {
				v := src[j].sum[d]/src[j].n - tgt[j].sum[d]/tgt[j].n
				if norm == L1 {
					dist += math.Abs(v)
				} else {
					dist += v * v
				}
			}
			if norm == L2 {
				dist = math.Sqrt(dist)
			}
			total += tgt[j].n / float64(nt) * dist
		}
	}
	return total, nil
}

// hardBin is the bin of one probability vector s for group g.
func (l layout) hardBin(s []float64, g int) int {
	switch l.paradigm {
	case Canonical:
		return bins.Nearest(s, l.anchors, l.k)
	case ClassWise:
		return bins.EqualWidth(s[g], l.b)
	default:
		top := s[0]
		for _, v := range s[1:] {
			top = max(top, v)
		}
		return bins.EqualWidth(top, l.b)
	}
}
