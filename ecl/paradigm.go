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
		return layout{}, fmt.Errorf("ecl: %d classes, need at least 2", k)
	}
	if b < 1 {
		return layout{}, fmt.Errorf("ecl: %d bins", b)
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
		return layout{}, fmt.Errorf("ecl: unknown paradigm %v", p)
	}
	l.tau = tau
	if l.tau == 0 {
		l.tau = bins.Temperature(l.b)
	}
	if !(l.tau > 0) || math.IsInf(l.tau, 0) {
		return layout{}, fmt.Errorf("ecl: temperature %v must be positive and finite", l.tau)
	}
	return l, nil
}

// assign returns the soft bin assignment ω [N, G, B] of the main head's
// probabilities s [N, K]: softmax over bins of −‖s − a_j‖²/τ.
func assign[T tensor.Float](l layout, s *autograd.Var[T]) *autograd.Var[T] {
	n, dev := s.Shape()[0], s.Value.Device()
	var x *autograd.Var[T] // broadcast with the anchors to [N, G, B, D]
	a := constOn(dev, l.anchors, 1, 1, l.b, l.d)
	switch l.paradigm {
	case Canonical:
		x = autograd.Reshape(s, n, 1, 1, l.k)
	case ClassWise:
		x = autograd.Reshape(s, n, l.k, 1, 1)
	case TopLabel:
		x = autograd.Reshape(autograd.Max(s, 1, false), n, 1, 1, 1)
	}
	diff := autograd.Sub(x, a)
	d2 := autograd.Sum(autograd.Mul(diff, diff), 3, false) // [N, G, B]
	return autograd.Softmax(autograd.Scale(d2, T(-1/l.tau)), 2)
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
		panic(fmt.Sprintf("ecl: auxiliary probabilities of shape %v for paradigm %v with K=%d", p.Shape(), l.paradigm, l.k))
	}
	return autograd.Reshape(p, n, l.g, l.d)
}

// binSums returns the soft counts n [G, B] and weighted sums m [G, B, D] of
// p [N, G, D] under ω [N, G, B].
func binSums[T tensor.Float](w, p *autograd.Var[T]) (n, m *autograd.Var[T]) {
	n = autograd.Sum(w, 0, false)
	m = autograd.Sum(autograd.Mul(autograd.Unsqueeze(w, 3), autograd.Unsqueeze(p, 2)), 0, false)
	return n, m
}

// constOn is v as a constant on dev, with the given shape.
func constOn[T tensor.Float](dev tensor.Device[T], v []float64, shape ...int) *autograd.Var[T] {
	out := make([]T, len(v))
	for i, x := range v {
		out[i] = T(x)
	}
	return autograd.Const(tensor.FromSliceOn(dev, out, shape...))
}

func toFloat64[T tensor.Float](t *tensor.Tensor[T]) []float64 {
	d := t.Data()
	out := make([]float64, len(d))
	for i, x := range d {
		out[i] = float64(x)
	}
	return out
}
