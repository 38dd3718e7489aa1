package optim

import (
	"fmt"
	"math"
	"slices"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// Adam is Kingma & Ba's optimiser with bias correction, as PyTorch's Adam:
// g ← grad + wd·p (L2 weight decay); m ← β1·m + (1−β1)·g;
// v ← β2·v + (1−β2)·g²; p ← p − lr·(m/(1−β1ᵗ)) / (√(v/(1−β2ᵗ)) + ε).
//
// A parameter on the CPU is updated in one pass (AdamHost), one on a device
// with a fused kernel (FusedAdam) by that kernel, and any other by composed
// tensor ops; all three round alike and agree bit for bit.
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
		switch d := p.Value.Device().(type) {
		case tensor.CPU[T]:
			AdamHost(p.Value, p.Grad, o.m[i], o.v[i], h)
		case FusedAdam[T]:
			d.AdamStep(p.Value, p.Grad, o.m[i], o.v[i], h)
		default:
			o.m[i], o.v[i] = adamComposed(p.Value, p.Grad, o.m[i], o.v[i], h)
		}
	}
}

// AdamUpdate is one Adam update of one parameter: Adam's settings and the
// parameter's step count after the update (1 at the first).
type AdamUpdate struct {
	LR, Beta1, Beta2, Eps, Decay float64
	Step                         int
}

// AdamScalars are an update's constants rounded to T, as every path rounds
// them: β1, 1−β1, β2, 1−β2, 1/√(1−β2ᵗ), ε, lr/(1−β1ᵗ) and the decay.
type AdamScalars[T tensor.Float] struct{ B1, C1, B2, C2, VScale, Eps, Rate, Decay T }

// Scalars are h's constants in T.
func Scalars[T tensor.Float](h AdamUpdate) AdamScalars[T] {
	if h.Step < 1 {
		panic(fmt.Sprintf("optim.Adam: step %d, want ≥ 1", h.Step))
	}
	bc1 := 1 - math.Pow(h.Beta1, float64(h.Step))
	bc2 := 1 - math.Pow(h.Beta2, float64(h.Step))
	return AdamScalars[T]{T(h.Beta1), T(1 - h.Beta1), T(h.Beta2), T(1 - h.Beta2),
		T(1 / math.Sqrt(bc2)), T(h.Eps), T(h.LR / bc1), T(h.Decay)}
}

// FusedAdam is a device with a one-pass Adam kernel: AdamStep updates p and
// its moments m, v in place from the gradient g (all contiguous, of one
// shape), as AdamHost does on the CPU.
type FusedAdam[T tensor.Float] interface {
	AdamStep(p, g, m, v *tensor.Tensor[T], h AdamUpdate)
}

// AdamHost applies update h in place to the CPU tensors p, m, v (contiguous,
// of one shape, with the gradient g) in one pass. The explicit conversions
// round every product, as the composed ops do, and keep the compiler from
// fusing it into a sum.
func AdamHost[T tensor.Float](p, g, m, v *tensor.Tensor[T], h AdamUpdate) {
	AdamShapes("optim.AdamHost", p, g, m, v)
	c := Scalars[T](h)
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

// AdamShapes panics, naming op, unless p, g, m and v are contiguous and of
// one shape.
func AdamShapes[T tensor.Float](op string, p, g, m, v *tensor.Tensor[T]) {
	for _, t := range []*tensor.Tensor[T]{p, g, m, v} {
		if !t.IsContiguous() || !slices.Equal(t.Shape(), p.Shape()) {
			panic(fmt.Sprintf("%s: parameter %v, gradient %v and moments %v, %v must share one shape and be contiguous",
				op, p.Shape(), g.Shape(), m.Shape(), v.Shape()))
		}
	}
}

// adamComposed is the update as tensor ops, for devices without a fused
// kernel: it writes p in place and returns the new moments.
func adamComposed[T tensor.Float](p, g, m, v *tensor.Tensor[T], h AdamUpdate) (m2, v2 *tensor.Tensor[T]) {
	c := Scalars[T](h)
	if c.Decay != 0 {
		g = tensor.Add(g, tensor.Scale(p, c.Decay))
	}
	m2 = tensor.Add(tensor.Scale(m, c.B1), tensor.Scale(g, c.C1))
	v2 = tensor.Add(tensor.Scale(v, c.B2), tensor.Scale(tensor.Mul(g, g), c.C2))
	den := tensor.AddScalar(tensor.Scale(tensor.Sqrt(v2), c.VScale), c.Eps)
	tensor.CopyInto(p, tensor.Sub(p, tensor.Scale(tensor.Div(m2, den), c.Rate)))
	return m2, v2
}
