package calib

import (
	"math"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/internal/vec"
	"github.com/ecl-go/ecl/tensor"
)

// topRows are what the "ts" head's top-label objective needs of each row
// besides the logits: the largest and the smallest logit.
type topRows struct{ max, min []float64 }

func newTopRows(logits []float64, k int) topRows {
	n := len(logits) / k
	t := topRows{make([]float64, n), make([]float64, n)}
	tensor.ParallelFor(n, k, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			z := logits[i*k : (i+1)*k]
			t.max[i], t.min[i] = z[0], z[0]
			for _, v := range z[1:] {
				t.max[i], t.min[i] = max(t.max[i], v), min(t.min[i], v)
			}
		}
	})
	return t
}

// evalTop is eval for the "ts" head in the top-label paradigm, a row of
// logits z read once: with θ = 1/T, z_t the predicted class's logit (the
// largest for θ > 0, the smallest for θ < 0, class 0's for θ = 0),
// e_j = exp(θ·(z_j − z_t)), s₀ = Σ e_j and E = Σ z_j·e_j / s₀, the top
// confidence is c = 1/s₀ with dc/dθ = c·(z_t − E), and the source row's
// cross-entropy log s₀ − θ·(z_y − z_t) with derivative E − z_y. The
// estimate is differentiated in the confidences c (ecl.SoftBinnedStats of
// [n, 1] confidences), then chained through dc/dθ: no [n, k] arrays.
// TestHeadLossTopMatchesChunks checks it against eval.
func (h *headLoss) evalTop(th, grad []float64) float64 {
	theta, k := th[0], h.k
	// conf sets c and dc/dθ of every row of logits, and for the source the
	// cross-entropy and its derivative.
	conf := func(logits []float64, rows topRows, labels []int) (c, dc, ce, dce []float64) {
		n := len(logits) / k
		c, dc = make([]float64, n), make([]float64, n)
		if labels != nil {
			ce, dce = make([]float64, n), make([]float64, n)
		}
		tensor.ParallelFor(n, 4*k, func(lo, hi int) {
			e := make([]float64, k)
			for i := lo; i < hi; i++ {
				z := logits[i*k : (i+1)*k]
				zt := z[0]
				if theta > 0 {
					zt = rows.max[i]
				} else if theta < 0 {
					zt = rows.min[i]
				}
				s0 := tensor.ExpScaled64(e, z, zt, 1/theta)
				mean := vec.Dot(z, e) / s0
				c[i], dc[i] = 1/s0, (zt-mean)/s0
				if labels != nil {
					zy := z[labels[i]]
					ce[i], dce[i] = math.Log(s0)-theta*(zy-zt), mean-zy
				}
			}
		})
		return c, dc, ce, dce
	}
	cs, dcs, ce, dce := conf(h.src, h.rowsS, h.labels)
	f, g := 0.0, 0.0
	for i := range ce {
		f, g = f+ce[i], g+dce[i]
	}
	n := float64(len(ce))
	f, g = f/n, g/n
	if h.lambda > 0 {
		ct, dct, _, _ := conf(h.tgt, h.rowsT, nil)
		stats := func(c []float64, top *topAux) (*autograd.Var[float64], *autograd.Var[float64]) {
			cv := autograd.Param(tensor.Wrap(c, len(c), 1))
			return cv, ecl.SoftBinnedStats(h.sb, cv, autograd.Const(tensor.Wrap(top.at(theta), len(c))))
		}
		cvs, ss := stats(cs, h.topS)
		cvt, st := stats(ct, h.topT)
		e := autograd.Scale(ecl.SoftBinnedFromStats(h.sb, ss, st), h.lambda)
		e.Backward()
		f += e.Value.Item()
		g += vec.Dot(tensor.HostData(cvs.Grad), dcs) + vec.Dot(tensor.HostData(cvt.Grad), dct)
	}
	grad[0] = g
	return f
}
