package optim

import (
	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// Optimizer updates parameters from their gradients.
type Optimizer interface {
	// Step applies one update to every parameter that has a gradient.
	Step()
	// SetLR changes the learning rate.
	SetLR(lr float64)
	LR() float64
}

// SGD is stochastic gradient descent: g ← grad + wd·p; with momentum μ,
// buf ← μ·buf + g (buf = g at the first step) and g ← buf, or with Nesterov
// g ← g + μ·buf; then p ← p − lr·g.
type SGD[T tensor.Float] struct {
	Params                []*autograd.Var[T]
	Rate, Momentum, Decay float64
	Nesterov              bool
	buf                   []*tensor.Tensor[T]
}

// NewSGD returns SGD over params.
func NewSGD[T tensor.Float](params []*autograd.Var[T], lr, momentum, weightDecay float64, nesterov bool) *SGD[T] {
	return &SGD[T]{Params: params, Rate: lr, Momentum: momentum, Decay: weightDecay, Nesterov: nesterov, buf: make([]*tensor.Tensor[T], len(params))}
}

func (o *SGD[T]) LR() float64      { return o.Rate }
func (o *SGD[T]) SetLR(lr float64) { o.Rate = lr }

func (o *SGD[T]) Step() {
	for i, p := range o.Params {
		if p.Grad == nil {
			continue
		}
		g := decayed(p, o.Decay)
		if o.Momentum != 0 {
			if o.buf[i] == nil {
				o.buf[i] = tensor.Clone(g)
			} else {
				o.buf[i] = tensor.Add(tensor.Scale(o.buf[i], T(o.Momentum)), g)
			}
			if o.Nesterov {
				g = tensor.Add(g, tensor.Scale(o.buf[i], T(o.Momentum)))
			} else {
				g = o.buf[i]
			}
		}
		tensor.CopyInto(p.Value, tensor.Sub(p.Value, tensor.Scale(g, T(o.Rate))))
	}
}

// decayed is p's gradient plus the L2 weight-decay term decay·p.
func decayed[T tensor.Float](p *autograd.Var[T], decay float64) *tensor.Tensor[T] {
	if decay == 0 {
		return p.Grad
	}
	return tensor.Add(p.Grad, tensor.Scale(p.Value, T(decay)))
}

// MultiStep multiplies the learning rate by Gamma at each epoch listed in
// Milestones, as PyTorch's MultiStepLR.
type MultiStep struct {
	Base       float64
	Milestones []int
	Gamma      float64
}

// Apply sets opt's learning rate for epoch (0-based: the rate used during
// that epoch).
func (s MultiStep) Apply(opt Optimizer, epoch int) {
	lr := s.Base
	for _, m := range s.Milestones {
		if epoch >= m {
			lr *= s.Gamma
		}
	}
	opt.SetLR(lr)
}
