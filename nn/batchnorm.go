package nn

import (
	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// BatchNorm2d normalises each channel of [N, C, H, W]: in training with the
// batch's mean and (biased) variance (autograd.BatchNorm, fused on the
// CPU), updating running estimates with momentum 0.1 (the variance
// unbiased, as PyTorch); in evaluation with the running estimates. Scale γ
// starts at 1 and shift β at 0. The state has PyTorch's names weight (γ),
// bias (β), running_mean and running_var; PyTorch's num_batches_tracked,
// used only without a momentum, is not kept.
type BatchNorm2d[T tensor.Float] struct {
	Vars[T]
	Gamma, Beta     *autograd.Var[T]
	RunMean, RunVar *Buffer[T]
	Eps, Momentum   T
	training        *bool
}

// NewBatchNorm2d creates the layer for c channels in vb.
func NewBatchNorm2d[T tensor.Float](vb Vars[T], c int) *BatchNorm2d[T] {
	return &BatchNorm2d[T]{
		Vars:  vb,
		Gamma: vb.Param("weight", tensor.Ones[T](c)), Beta: vb.Param("bias", tensor.Zeros[T](c)),
		RunMean: vb.Buffer("running_mean", tensor.Zeros[T](c)), RunVar: vb.Buffer("running_var", tensor.Ones[T](c)),
		Eps: 1e-5, Momentum: 0.1, training: vb.Mode(),
	}
}

// Forward normalises x.
func (b *BatchNorm2d[T]) Forward(x *autograd.Var[T]) *autograd.Var[T] {
	if *b.training {
		return b.train(x, func(m, v *tensor.Tensor[T]) *autograd.Var[T] {
			return autograd.BatchNorm(x, b.Gamma, b.Beta, b.Eps, m, v)
		})
	}
	return b.eval(x, nil, false)
}

// eval is Relu?(x·scale + shift + r) in evaluation mode, one pass
// (autograd.ChannelAffine).
func (b *BatchNorm2d[T]) eval(x, r *autograd.Var[T], relu bool) *autograd.Var[T] {
	scale, shift := b.evalAffine()
	return autograd.ChannelAffine(x, scale, shift, r, relu)
}

// evalAffine is the per-channel scale = γ/√(var+ε) and shift = β −
// mean·scale of evaluation mode, from the running estimates.
func (b *BatchNorm2d[T]) evalAffine() (scale, shift *autograd.Var[T]) {
	mean, variance := autograd.Const(b.RunMean.Value), autograd.Const(b.RunVar.Value)
	scale = autograd.Div(b.Gamma, autograd.Sqrt(autograd.AddScalar(variance, b.Eps)))
	return scale, autograd.Sub(b.Beta, autograd.Mul(mean, scale))
}

// AfterConv is b(conv(x)) plus r (nil for none), then Relu where relu: in
// evaluation, for a convolution without bias, one pass that normalises
// each output plane as the convolution writes it
// (autograd.Conv2DAffine); else the convolution, then Forward or
// ForwardRelu.
func (b *BatchNorm2d[T]) AfterConv(conv *Conv2d[T], x, r *autograd.Var[T], relu bool) *autograd.Var[T] {
	if !*b.training && conv.B == nil {
		scale, shift := b.evalAffine()
		return autograd.Conv2DAffine(x, conv.W, scale, shift, r, conv.Opt, relu)
	}
	h := conv.Forward(x)
	switch {
	case relu:
		return b.ForwardRelu(h, r)
	case r != nil:
		return autograd.Add(b.Forward(h), r)
	}
	return b.Forward(h)
}

// forwardRun runs b and, when rest starts with a ReLU, that too, fused.
func (b *BatchNorm2d[T]) forwardRun(x *autograd.Var[T], rest []Module[T]) (*autograd.Var[T], int) {
	if len(rest) > 0 {
		if _, ok := rest[0].(reluLayer[T]); ok {
			return b.ForwardRelu(x, nil), 1
		}
	}
	return b.Forward(x), 0
}

// ForwardRelu is Relu(Forward(x) + r), r of x's shape or nil for none, as
// one fused primitive: autograd.BatchNormRelu in training,
// autograd.ChannelAffine in evaluation.
func (b *BatchNorm2d[T]) ForwardRelu(x, r *autograd.Var[T]) *autograd.Var[T] {
	if !*b.training {
		return b.eval(x, r, true)
	}
	return b.train(x, func(m, v *tensor.Tensor[T]) *autograd.Var[T] {
		return autograd.BatchNormRelu(x, b.Gamma, b.Beta, r, b.Eps, m, v)
	})
}

// train runs norm, a batch norm of x in training that copies the batch
// statistics into its arguments, and tracks them.
func (b *BatchNorm2d[T]) train(x *autograd.Var[T], norm func(mean, variance *tensor.Tensor[T]) *autograd.Var[T]) *autograd.Var[T] {
	c := x.Shape()[1]
	dev := x.Value.Device()
	m, v := tensor.ZerosOn(dev, c), tensor.ZerosOn(dev, c)
	y := norm(m, v)
	b.track(m, v, x.Value.Len()/c)
	return y
}

// track moves the running estimates towards the batch mean m and biased
// variance v of count values per channel.
func (b *BatchNorm2d[T]) track(m, v *tensor.Tensor[T], count int) {
	n := T(count)
	unbiased := tensor.Scale(v, n/max(n-1, 1))
	// In place: the running estimates outlive a training step's arena.
	rm, rv := b.RunMean.Value, b.RunVar.Value
	tensor.CopyInto(rm, tensor.Add(tensor.Scale(rm, 1-b.Momentum), tensor.Scale(m, b.Momentum)))
	tensor.CopyInto(rv, tensor.Add(tensor.Scale(rv, 1-b.Momentum), tensor.Scale(unbiased, b.Momentum)))
}
