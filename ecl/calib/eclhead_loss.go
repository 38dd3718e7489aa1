package calib

import (
	"slices"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/nn"
	"github.com/ecl-go/ecl/tensor"
)

// eclHeadRows is the number of rows of a domain in one graph of the ECL
// head's loss.
const eclHeadRows = 4096

// headLoss is the ECL head's objective, CE(head(z_s), y_s) + λ·ECL with
// ECL the soft-binned estimate on both domains, and its gradient in θ (1/T
// for the "ts" head, (w, b) for "vs"), computed a chunk of rows at a time:
// the estimate is a function of each domain's bin statistics, which are
// sums over the rows (ecl.SoftBinnedStats). A first pass sums every
// chunk's statistics; the estimate of those sums is differentiated in
// them; a second pass differentiates each chunk's cross-entropy and its
// statistics, weighted by those gradients, in θ. Memory is one chunk's
// graph instead of a graph over every row (14 GB at 5·10⁴ × 1,000).
type headLoss struct {
	src, tgt, auxS, auxT []float64 // logits and auxiliary estimates P(Y|X), [n, k]
	topS, topT           *topAux   // instead of auxS, auxT: the "ts" head's top-label values
	rowsS, rowsT         topRows   // with topS, topT: each row's extremes (evalTop)
	labels               []int     // of the source rows
	k                    int
	vs                   bool // the "vs" head
	paradigm             ecl.Paradigm
	lambda               float64
	sb                   *ecl.SoftBinned
}

// head returns θ as the head's parameters and the head itself.
func (h *headLoss) head(th []float64) ([]*autograd.Var[float64], func(z *autograd.Var[float64]) *autograd.Var[float64]) {
	if !h.vs {
		inv := autograd.Param(tensor.FromSlice(slices.Clone(th), 1, 1))
		return []*autograd.Var[float64]{inv}, func(z *autograd.Var[float64]) *autograd.Var[float64] { return autograd.Mul(z, inv) }
	}
	w, b := autograd.Param(tensor.FromSlice(slices.Clone(th[:h.k]), 1, h.k)), autograd.Param(tensor.FromSlice(slices.Clone(th[h.k:]), 1, h.k))
	return []*autograd.Var[float64]{w, b}, func(z *autograd.Var[float64]) *autograd.Var[float64] { return autograd.Add(autograd.Mul(z, w), b) }
}

// chunk is the graph of rows [lo, hi) of the source (src) or the target:
// their soft-binned statistics (nil when λ is 0) and, for the source, their
// share of the mean cross-entropy. th is the head's parameters.
func (h *headLoss) chunk(th []float64, head func(*autograd.Var[float64]) *autograd.Var[float64], src bool, lo, hi int) (stats, ce *autograd.Var[float64]) {
	k, logits, aux, top := h.k, h.tgt, h.auxT, h.topT
	if src {
		logits, aux, top = h.src, h.auxS, h.topS
	}
	z := head(autograd.Const(tensor.Wrap(logits[lo*k:hi*k], hi-lo, k)))
	if src {
		ce = autograd.Scale(nn.CrossEntropy(z, h.labels[lo:hi]), float64(hi-lo)/float64(len(h.labels)))
	}
	if h.lambda == 0 {
		return nil, ce
	}
	p := autograd.Softmax(z, 1)
	var a *autograd.Var[float64]
	switch {
	case top != nil:
		a = autograd.Const(tensor.Wrap(top.at(th[0])[lo:hi], hi-lo))
	case h.paradigm == ecl.TopLabel:
		a = topLabelAux(aux[lo*k:hi*k], p, k)
	default:
		a = autograd.Const(tensor.Wrap(aux[lo*k:hi*k], hi-lo, k))
	}
	return ecl.SoftBinnedStats(h.sb, p, a), ce
}

// eval returns the objective at th and writes its gradient into grad.
func (h *headLoss) eval(th, grad []float64) float64 {
	type part struct {
		src    bool
		lo, hi int
	}
	var parts []part
	for _, src := range []bool{true, false} {
		if !src && h.lambda == 0 {
			break // the target's rows enter through the estimate only
		}
		n := len(h.tgt) / h.k
		if src {
			n = len(h.labels)
		}
		for lo := 0; lo < n; lo += eclHeadRows {
			parts = append(parts, part{src, lo, min(lo+eclHeadRows, n)})
		}
	}
	// The estimate's gradient in each domain's statistics.
	f := 0.0
	var dstats [2]*tensor.Tensor[float64] // source, target
	if h.lambda > 0 {
		var sums [2]*tensor.Tensor[float64]
		for _, c := range parts {
			_, head := h.head(th)
			st, _ := h.chunk(th, head, c.src, c.lo, c.hi)
			d := 1
			if c.src {
				d = 0
			}
			if sums[d] == nil {
				sums[d] = st.Value
			} else {
				sums[d] = tensor.Add(sums[d], st.Value)
			}
		}
		ss, st := autograd.Param(sums[0]), autograd.Param(sums[1])
		e := autograd.Scale(ecl.SoftBinnedFromStats(h.sb, ss, st), h.lambda)
		e.Backward()
		f += e.Value.Item()
		dstats = [2]*tensor.Tensor[float64]{ss.Grad, st.Grad}
	}
	clear(grad)
	for _, c := range parts {
		params, head := h.head(th)
		st, ce := h.chunk(th, head, c.src, c.lo, c.hi)
		s := ce
		if st != nil {
			d := dstats[1]
			if c.src {
				d = dstats[0]
			}
			w := autograd.SumAll(autograd.Mul(st, autograd.Const(d)))
			if s == nil {
				s = w
			} else {
				s = autograd.Add(s, w)
			}
		}
		if ce != nil {
			f += ce.Value.Item()
		}
		s.Backward()
		off := 0
		for _, p := range params {
			for j, v := range tensor.HostData(p.Grad) {
				grad[off+j] += v
			}
			off += p.Value.Len()
		}
	}
	return f
}
