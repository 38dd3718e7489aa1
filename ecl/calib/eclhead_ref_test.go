package calib

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/nn"
	"github.com/ecl-go/ecl/tensor"
)

// evalWhole is headLoss.eval as one graph over every row of both domains:
// the reference its chunked passes are checked against.
func (h *headLoss) evalWhole(th, grad []float64) float64 {
	k, ns, nt := h.k, len(h.labels), len(h.tgt)/h.k
	params, head := h.head(th)
	hs := head(autograd.Const(tensor.Wrap(h.src, ns, k)))
	ht := head(autograd.Const(tensor.Wrap(h.tgt, nt, k)))
	ps, pt := autograd.Softmax(hs, 1), autograd.Softmax(ht, 1)
	f := nn.CrossEntropy(hs, h.labels)
	if h.lambda > 0 {
		as, at := autograd.Const(tensor.Wrap(h.auxS, ns, k)), autograd.Const(tensor.Wrap(h.auxT, nt, k))
		if h.paradigm == ecl.TopLabel {
			as, at = topLabelAux(h.auxS, ps, k), topLabelAux(h.auxT, pt, k)
		}
		f = autograd.Add(f, autograd.Scale(ecl.SoftBinnedLoss(h.sb, ps, pt, as, at), h.lambda))
	}
	f.Backward()
	off := 0
	for _, p := range params {
		off += copy(grad[off:], p.Grad.Data())
	}
	return f.Value.Item()
}

// The chunked loss equals the whole graph's, value and gradient, in every
// paradigm and head, over several chunks of each domain and with λ = 0.
func TestHeadLossChunksMatchWholeGraph(t *testing.T) {
	const k = 4
	ns, nt := 2*eclHeadRows+123, eclHeadRows+77
	r := rand.New(rand.NewPCG(31, 32))
	rows := func(n int) []float64 {
		x := make([]float64, n*k)
		for i := range x {
			x[i] = 2 * r.NormFloat64()
		}
		return x
	}
	probs := func(n int) []float64 { return Softmax(rows(n), k) }
	src, tgt, auxS, auxT := rows(ns), rows(nt), probs(ns), probs(nt)
	labels := make([]int, ns)
	for i := range labels {
		labels[i] = r.IntN(k)
	}
	for _, c := range []struct {
		p      ecl.Paradigm
		vs     bool
		lambda float64
	}{{ecl.TopLabel, false, 1}, {ecl.ClassWise, false, 2}, {ecl.Canonical, true, 1}, {ecl.TopLabel, true, 0.5}, {ecl.ClassWise, true, 0}} {
		sb, err := ecl.NewSoftBinned(ecl.Config{Paradigm: c.p, Classes: k, Bins: 15}, ecl.L1, 0)
		if err != nil {
			t.Fatal(err)
		}
		h := &headLoss{src: src, tgt: tgt, auxS: auxS, auxT: auxT, labels: labels, k: k, vs: c.vs, paradigm: c.p, lambda: c.lambda, sb: sb}
		th := []float64{0.7}
		if c.vs {
			th = []float64{0.8, 1.1, 0.6, 1.3, 0.1, -0.2, 0.05, 0}
		}
		got, want := make([]float64, len(th)), make([]float64, len(th))
		fg, fw := h.eval(th, got), h.evalWhole(th, want)
		if math.Abs(fg-fw) > 1e-12*math.Abs(fw) {
			t.Errorf("%v vs=%v λ=%v: loss %v in chunks, %v whole", c.p, c.vs, c.lambda, fg, fw)
		}
		for j := range want {
			if math.Abs(got[j]-want[j]) > 1e-10*(math.Abs(want[j])+1e-3) {
				t.Errorf("%v vs=%v λ=%v: ∂/∂θ%d = %v in chunks, %v whole", c.p, c.vs, c.lambda, j, got[j], want[j])
			}
		}
	}
}

// topHeadInstance draws, from r, an auxiliary model of d features and k
// classes, ns source and nt target rows of features and of logits (normal,
// times scale) and the source labels.
func topHeadInstance(r *rand.Rand, scale float64, k, d, ns, nt int) (a auxModel, xs, xt, src, tgt []float64, labels []int) {
	rows := func(n, m int) []float64 {
		x := make([]float64, n*m)
		for i := range x {
			x[i] = scale * r.NormFloat64()
		}
		return x
	}
	a = auxModel{w: rows(k, d), b: rows(1, k), d: d, k: k}
	xs, xt, src, tgt = rows(ns, d), rows(nt, d), rows(ns, k), rows(nt, k)
	labels = make([]int, ns)
	for i := range labels {
		labels[i] = r.IntN(k)
	}
	return a, xs, xt, src, tgt, labels
}

// The "ts" head's top-label values (topAux) stand for the [n, k]
// estimates: each equals the estimate at the class the head predicts, and
// the loss and gradient built on them equal those built on the full
// estimates (topLabelAux of the softmax) for a positive, a negative and a
// zero θ.
func TestTopAuxMatchesFullEstimates(t *testing.T) {
	const k, d = 5, 3
	ns, nt := eclHeadRows+321, 700
	a, xs, xt, src, tgt, labels := topHeadInstance(rand.New(rand.NewPCG(41, 42)), 2, k, d, ns, nt)
	fullS, fullT := a.probs(xs), a.probs(xt)
	topS, topT := a.top(xs, src), a.top(xt, tgt)
	for i := range ns {
		z := src[i*k : (i+1)*k]
		lo, hi := 0, 0
		for c := range z {
			if z[c] < z[lo] {
				lo = c
			}
			if z[c] > z[hi] {
				hi = c
			}
		}
		for _, c := range []struct {
			got  float64
			want int
		}{{topS.pos[i], hi}, {topS.neg[i], lo}, {topS.zero[i], 0}} {
			if w := fullS[i*k+c.want]; math.Abs(c.got-w) > 1e-15*w {
				t.Fatalf("row %d: top value %v, estimate at class %d %v", i, c.got, c.want, w)
			}
		}
	}
	sb, err := ecl.NewSoftBinned(ecl.Config{Paradigm: ecl.TopLabel, Classes: k, Bins: 15}, ecl.L1, 0)
	if err != nil {
		t.Fatal(err)
	}
	full := &headLoss{src: src, tgt: tgt, auxS: fullS, auxT: fullT, labels: labels, k: k, paradigm: ecl.TopLabel, lambda: 1, sb: sb}
	top := &headLoss{src: src, tgt: tgt, topS: topS, topT: topT, labels: labels, k: k, paradigm: ecl.TopLabel, lambda: 1, sb: sb}
	for _, th := range []float64{0.7, -0.4, 0} {
		gf, gt := make([]float64, 1), make([]float64, 1)
		ff, ft := full.eval([]float64{th}, gf), top.eval([]float64{th}, gt)
		if math.Abs(ff-ft) > 1e-12*math.Abs(ff) || math.Abs(gf[0]-gt[0]) > 1e-10*(math.Abs(gf[0])+1e-3) {
			t.Errorf("θ = %v: loss %v and gradient %v on the top values, %v and %v on the estimates", th, ft, gt[0], ff, gf[0])
		}
	}
}

// The "ts" head's top-label objective read a row at a time (evalTop)
// equals the chunked graphs (eval), value and gradient, for a positive, a
// negative and a zero θ, with λ > 0 and λ = 0.
func TestHeadLossTopMatchesChunks(t *testing.T) {
	const k, d = 7, 3
	ns, nt := eclHeadRows+211, 900
	a, xs, xt, src, tgt, labels := topHeadInstance(rand.New(rand.NewPCG(43, 44)), 3, k, d, ns, nt)
	sb, err := ecl.NewSoftBinned(ecl.Config{Paradigm: ecl.TopLabel, Classes: k, Bins: 15}, ecl.L1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, lambda := range []float64{1, 0} {
		h := &headLoss{src: src, tgt: tgt, topS: a.top(xs, src), topT: a.top(xt, tgt), rowsS: newTopRows(src, k), rowsT: newTopRows(tgt, k),
			labels: labels, k: k, paradigm: ecl.TopLabel, lambda: lambda, sb: sb}
		for _, th := range []float64{0.7, 2.5, -0.4, 0} {
			got, want := make([]float64, 1), make([]float64, 1)
			fg, fw := h.evalTop([]float64{th}, got), h.eval([]float64{th}, want)
			if math.Abs(fg-fw) > 1e-12*math.Abs(fw) || math.Abs(got[0]-want[0]) > 1e-10*(math.Abs(want[0])+1e-3) {
				t.Errorf("λ = %v, θ = %v: loss %v and gradient %v a row at a time, %v and %v in chunks", lambda, th, fg, got[0], fw, want[0])
			}
		}
	}
}

// evalTop's gradient equals the central difference of its value in θ, in
// float64, away from θ = 0 (where the predicted class, and the top-label
// auxiliary values with it, jump).
func TestHeadLossTopNumericGradient(t *testing.T) {
	const k, d = 6, 3
	a, xs, xt, src, tgt, labels := topHeadInstance(rand.New(rand.NewPCG(45, 46)), 2, k, d, 600, 500)
	sb, err := ecl.NewSoftBinned(ecl.Config{Paradigm: ecl.TopLabel, Classes: k, Bins: 15}, ecl.L1, 0)
	if err != nil {
		t.Fatal(err)
	}
	h := &headLoss{src: src, tgt: tgt, topS: a.top(xs, src), topT: a.top(xt, tgt), rowsS: newTopRows(src, k), rowsT: newTopRows(tgt, k),
		labels: labels, k: k, paradigm: ecl.TopLabel, lambda: 1, sb: sb}
	const step = 1e-5
	g := make([]float64, 1)
	for _, th := range []float64{0.7, 2.5, -0.4} {
		h.evalTop([]float64{th}, g)
		num := (h.evalTop([]float64{th + step}, make([]float64, 1)) - h.evalTop([]float64{th - step}, make([]float64, 1))) / (2 * step)
		if math.Abs(g[0]-num) > 1e-6*(math.Abs(num)+1e-3) {
			t.Errorf("θ = %v: gradient %v, central difference %v", th, g[0], num)
		}
	}
}
