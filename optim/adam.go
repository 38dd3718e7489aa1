package optim

import (
	"math"

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
// of one shape, with the gradient g) in one pass. The explicit conversions
// round every product, as the composed ops do, and keep the compiler from
// fusing it into a sum.
func AdamHost[T tensor.Float](p, g, m, v *tensor.Tensor[T], h AdamUpdate) {
	tensor.AdamShapes("optim.AdamHost", p, g, m, v)
	c := tensor.AdamConstants[T](h)
	ps, gs, ms, vs := tensor.HostData(p), tensor.HostData(g), tensor.HostData(m), tensor.HostData(v)
	for i := range ps {
		gi := gs[i]
		if c.Decay != 0 {
			gi += T(c.Decay * ps[i])
		}
		ms[i] = T(c.B1*ms[i]) + T(c.C1*gi)
		vs[i] = T(c.B2*vs[i]) + T(c.C2*T(gi*gi))
		den := T(c.VScale*T(math.Sqrt(float64(vs[i])))) + c.Eps
		ps[i] -= T(c.Rate * T(ms[i]/den))
	}
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
