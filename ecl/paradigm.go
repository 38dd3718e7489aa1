package ecl

import (
	"fmt"
	"math"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/ecl/bins"
	"github.com/ecl-go/ecl/tensor"
)

// Paradigm selects what is binned and what the auxiliary head estimates.
type Paradigm int

const (
	// Canonical bins the whole probability vector on simplex anchors; p is
	// the K-vector P(Y|X).
	Canonical Paradigm = iota
	// ClassWise bins each class probability S_k on 1-D anchors; p_k = P(Y=k|X).
	ClassWise
	// TopLabel bins the top confidence on 1-D anchors; p = P(Ŷ correct|X).
	TopLabel
)

var paradigmNames = []string{"canonical", "classwise", "toplabel"}

func (p Paradigm) String() string {
	if p < 0 || int(p) >= len(paradigmNames) {
		return fmt.Sprintf("Paradigm(%d)", int(p))
	}
	return paradigmNames[p]
}

// ParseParadigm reads "canonical", "classwise" or "toplabel".
func ParseParadigm(s string) (Paradigm, error) {
	for i, n := range paradigmNames {
		if s == n {
			return Paradigm(i), nil
		}
	}
	return 0, fmt.Errorf("ecl: unknown paradigm %q (want canonical, classwise or toplabel)", s)
}

// SkipThreshold is the reference code's minimum soft count of a bin
// (float32 machine epsilon, 2⁻²³), kept in float64 too.
const SkipThreshold = 1.0 / (1 << 23)

// layout fixes the shapes of a paradigm: G groups (K for class-wise, else 1)
// of B bins over D-dimensional p (K for canonical, else 1), and the anchors,
// [B, D] for canonical and [B] otherwise.
type layout struct {
	paradigm Paradigm
	k, g, b  int
	d        int
	anchors  []float64
	tau      float64
}

func newLayout(p Paradigm, k, b int, tau float64) (layout, error) {
	if k < 2 {
		return layout{}, &ConfigError{"Classes", k, "need at least 2"}
	}
	if b < 1 {
		return layout{}, &ConfigError{"Bins", b, "need at least 1"}
	}
	l := layout{paradigm: p, k: k, g: 1, d: 1}
	switch p {
	case Canonical:
		a, _ := bins.Simplex(b, k)
		l.anchors, l.b, l.d = a, len(a)/k, k
	case ClassWise:
		l.anchors, l.b, l.g = bins.Centers(b), b, k
	case TopLabel:
		l.anchors, l.b = bins.Centers(b), b
	default:
		return layout{}, &ConfigError{"Paradigm", p, "unknown"}
	}
	l.tau = tau
	if l.tau == 0 {
		l.tau = bins.Temperature(l.b)
	}
	if !(l.tau > 0) || math.IsInf(l.tau, 0) {
		return layout{}, &ConfigError{"Tau", l.tau, "must be positive and finite"}
	}
	return l, nil
}

// softBins are the layout's anchors and temperature for the soft-binning
// kernels.
func (l layout) softBins() tensor.SoftBins {
	return tensor.SoftBins{Anchors: l.anchors, Dim: len(l.anchors) / l.b, Tau: l.tau}
}

// points views the main head's probabilities s [N, K] as the points that
// are binned, [N, G, E]: the probability vector (canonical) or each class
// probability (class-wise).
func points[T tensor.Float](l layout, s *autograd.Var[T]) *autograd.Var[T] {
	n := s.Shape()[0]
	if l.paradigm == Canonical {
		return autograd.Reshape(s, n, 1, l.k)
	}
	return autograd.Reshape(s, n, l.k, 1)
}

// auxShape views the auxiliary probabilities as [N, G, D]: top-label p is
// [N] or [N, 1], class-wise and canonical p are [N, K].
func auxShape[T tensor.Float](l layout, p *autograd.Var[T]) *autograd.Var[T] {
	n := p.Shape()[0]
	want := l.k
	if l.paradigm == TopLabel {
		want = 1
	}
	if p.Value.Len() != n*want {
		panic(shapeError("ecl", [][]int{p.Shape()}, "auxiliary probabilities of shape %v for paradigm %v with K=%d", p.Shape(), l.paradigm, l.k))
	}
	return autograd.Reshape(p, n, l.g, l.d)
}

// binStats is one domain's bin statistics [G, B, D+2] (tensor.SoftBinStats):
// per bin the soft count n, the weighted sums m [D] of the auxiliary
// probabilities p and q = Σ_i ω_i·‖p_i‖², from the main head's
// probabilities s [N, K], in one pass that never holds the assignment ω
// [N, G, B] (top-label: nor the top confidences, autograd.TopLabelStats).
func binStats[T tensor.Float](l layout, s, p *autograd.Var[T]) *autograd.Var[T] {
	if s.Shape()[0] != p.Shape()[0] {
		panic(shapeError("ecl", [][]int{s.Shape(), p.Shape()}, "%d main-head and %d auxiliary rows", s.Shape()[0], p.Shape()[0]))
	}
	p = auxShape(l, p)
	if l.paradigm == TopLabel {
		return autograd.TopLabelStats(s, autograd.Reshape(p, p.Shape()[0]), l.softBins())
	}
	return autograd.SoftBinStats(points(l, s), p, l.softBins())
}

// splitStats returns the soft counts n [G, B] and weighted sums m [G, B, D]
// of the statistics st.
func splitStats[T tensor.Float](l layout, st *autograd.Var[T]) (n, m *autograd.Var[T]) {
	return autograd.Reshape(autograd.Narrow(st, 2, 0, 1), l.g, l.b), autograd.Narrow(st, 2, 1, l.d)
}

// downloadStats copies the soft counts n [G·B] and weighted sums m [G·B·D] of
// both domains' statistics ss, st to float64, in one download.
func downloadStats[T tensor.Float](l layout, ss, st *tensor.Tensor[T]) (ns, ms, nt, mt []float64) {
	d := tensor.Concat(0, ss, st).Data()
	split := func(d []T) (n, m []float64) {
		n, m = make([]float64, l.g*l.b), make([]float64, 0, l.g*l.b*l.d)
		for gj := range n {
			s := d[gj*(l.d+2) : (gj+1)*(l.d+2)]
			n[gj] = float64(s[0])
			for _, v := range s[1 : l.d+1] {
				m = append(m, float64(v))
			}
		}
		return n, m
	}
	ns, ms = split(d[:len(d)/2])
	nt, mt = split(d[len(d)/2:])
	return ns, ms, nt, mt
}

// shapeError is the *tensor.ShapeError this package's functions panic with
// for inputs of the wrong shape.
func shapeError(op string, shapes [][]int, format string, args ...any) *tensor.ShapeError {
	return &tensor.ShapeError{Op: op, Shapes: shapes, Detail: fmt.Sprintf(format, args...)}
}

// constOn is v as a constant on dev, with the given shape.
func constOn[T tensor.Float](dev tensor.Device[T], v []float64, shape ...int) *autograd.Var[T] {
	out := make([]T, len(v))
	for i, x := range v {
		out[i] = T(x)
	}
	return autograd.Const(tensor.FromSliceOn(dev, out, shape...))
}
