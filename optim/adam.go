package optim

import (
	"fmt"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// Adam is Kingma & Ba's optimiser with bias correction, as PyTorch's Adam:
// g ← grad + wd·p (L2 weight decay); m ← β1·m + (1−β1)·g;
// v ← β2·v + (1−β2)·g²; p ← p − lr·(m/(1−β1ᵗ)) / (√(v/(1−β2ᵗ)) + ε).
//
// A parameter is updated by the body of tensor.AdamKernel registered for
// its device (on the CPU, AdamHost: one pass), or where there is none by
// composed tensor ops; they round alike and agree bit for bit.
type Adam[T tensor.Float] struct {
	Params                         []*autograd.Var[T]
	Rate, Beta1, Beta2, Eps, Decay float64
	m, v                           []*tensor.Tensor[T]
	t                              []int
}

// NewAdam returns Adam over params with β = (0.9, 0.999) and ε = 1e-8.
func NewAdam[T tensor.Float](params []*autograd.Var[T], lr, weightDecay float64) *Adam[T] {
	n := len(params)
	return &Adam[T]{Params: params, Rate: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, Decay: weightDecay,
		m: make([]*tensor.Tensor[T], n), v: make([]*tensor.Tensor[T], n), t: make([]int, n)}
}

func (o *Adam[T]) LR() float64      { return o.Rate }
func (o *Adam[T]) SetLR(lr float64) { o.Rate = lr }

func (o *Adam[T]) Step() {
	for i, p := range o.Params {
		if p.Grad == nil {
			continue
		}
		if o.m[i] == nil {
			o.m[i] = tensor.ZerosOn(p.Grad.Device(), p.Grad.Shape()...)
			o.v[i] = tensor.ZerosOn(p.Grad.Device(), p.Grad.Shape()...)
		}
		o.t[i]++
		h := AdamUpdate{LR: o.Rate, Beta1: o.Beta1, Beta2: o.Beta2, Eps: o.Eps, Decay: o.Decay, Step: o.t[i]}
		if body, ok := tensor.Lookup(tensor.AdamKernel, p.Value.Device()); ok {
			body(nil, []*tensor.Tensor[T]{p.Value, p.Grad, o.m[i], o.v[i]}, h)
		} else {
			o.m[i], o.v[i] = adamComposed(p.Value, p.Grad, o.m[i], o.v[i], h)
		}
	}
}

// AdamUpdate is one update of one parameter (tensor.AdamUpdate).
type AdamUpdate = tensor.AdamUpdate

func init() {
	tensor.Register(tensor.AdamKernel, tensor.Device[float32](tensor.CPU[float32]{}), adamBody[float32])
	tensor.Register(tensor.AdamKernel, tensor.Device[float64](tensor.CPU[float64]{}), adamBody[float64])
}

func adamBody[T tensor.Float](_, in []*tensor.Tensor[T], h AdamUpdate) {
	AdamHost(in[0], in[1], in[2], in[3], h)
}

// AdamHost applies update h in place to the CPU tensors p, m, v (contiguous,
// of one shape, with the gradient g) in one pass, split over the cores
// (tensor.AdamSpan: every product rounded apart, as the composed ops
// round).
func AdamHost[T tensor.Float](p, g, m, v *tensor.Tensor[T], h AdamUpdate) {
	tensor.AdamShapes("optim.AdamHost", p, g, m, v)
	c := tensor.AdamConstants[T](h)
	ps, gs, ms, vs := tensor.HostData(p), tensor.HostData(g), tensor.HostData(m), tensor.HostData(v)
	tensor.ParallelFor(len(ps), 16, func(lo, hi int) {
		tensor.AdamSpan(ps[lo:hi], gs[lo:hi], ms[lo:hi], vs[lo:hi], c)
	})
}

// adamComposed is the update as tensor ops, for devices without a fused
// kernel: it writes p in place and returns the new moments.
func adamComposed[T tensor.Float](p, g, m, v *tensor.Tensor[T], h AdamUpdate) (m2, v2 *tensor.Tensor[T]) {
	c := tensor.AdamConstants[T](h)
	if c.Decay != 0 {
		g = tensor.Add(g, tensor.Scale(p, c.Decay))
	}
	m2 = tensor.Add(tensor.Scale(m, c.B1), tensor.Scale(g, c.C1))
	v2 = tensor.Add(tensor.Scale(v, c.B2), tensor.Scale(tensor.Mul(g, g), c.C2))
	den := tensor.AddScalar(tensor.Scale(tensor.Sqrt(v2), c.VScale), c.Eps)
	tensor.CopyInto(p, tensor.Sub(p, tensor.Scale(tensor.Div(m2, den), c.Rate)))
	return m2, v2
}

// AdamState is Adam's state between steps, what a checkpoint keeps: each
// parameter's first and second moments (nil before its first step) as
// float64 (exact for float32) and its step count.
type AdamState struct {
	M, V [][]float64
	T    []int
}

// State returns a copy of o's state.
func (o *Adam[T]) State() AdamState {
	s := AdamState{M: make([][]float64, len(o.Params)), V: make([][]float64, len(o.Params)), T: append([]int(nil), o.t...)}
	for i := range o.Params {
		if o.m[i] == nil {
			continue
		}
		s.M[i], s.V[i] = float64s(o.m[i]), float64s(o.v[i])
	}
	return s
}

// SetState restores a state State returned for the same parameters, the
// moments on each parameter's device; the next Step continues bit for bit
// as the optimiser that State was taken from.
func (o *Adam[T]) SetState(s AdamState) error {
	n := len(o.Params)
	if len(s.M) != n || len(s.V) != n || len(s.T) != n {
		return fmt.Errorf("optim.Adam.SetState: a state of %d/%d/%d parameters for %d", len(s.M), len(s.V), len(s.T), n)
	}
	m, v := make([]*tensor.Tensor[T], n), make([]*tensor.Tensor[T], n)
	for i, p := range o.Params {
		if s.M[i] == nil && s.V[i] == nil {
			continue
		}
		size := p.Value.Len()
		if len(s.M[i]) != size || len(s.V[i]) != size {
			return fmt.Errorf("optim.Adam.SetState: parameter %d has %d values, the state's moments %d and %d", i, size, len(s.M[i]), len(s.V[i]))
		}
		m[i] = tensor.FromSliceOn(p.Value.Device(), convert[T](s.M[i]), p.Value.Shape()...)
		v[i] = tensor.FromSliceOn(p.Value.Device(), convert[T](s.V[i]), p.Value.Shape()...)
	}
	o.m, o.v, o.t = m, v, append([]int(nil), s.T...)
	return nil
}

// float64s is t's values (copied to the host) as float64.
func float64s[T tensor.Float](t *tensor.Tensor[T]) []float64 {
	d := tensor.To(t, tensor.CPU[T]{}).Data()
	out := make([]float64, len(d))
	for i, x := range d {
		out[i] = float64(x)
	}
	return out
}

// convert is xs as T (exact for values State made from T).
func convert[T tensor.Float](xs []float64) []T {
	out := make([]T, len(xs))
	for i, x := range xs {
		out[i] = T(x)
	}
	return out
}
