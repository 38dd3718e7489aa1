package nn

import (
	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// BatchNorm2d normalises each channel of [N, C, H, W]: in training with the
// batch's mean and (biased) variance (autograd.BatchNorm, fused on the
// CPU), updating running estimates with momentum 0.1 (the variance
// unbiased, as PyTorch); in evaluation with the running estimates. Scale γ
// starts at 1 and shift β at 0.
type BatchNorm2d[T tensor.Float] struct {
	Gamma, Beta     *autograd.Var[T]
	RunMean, RunVar *tensor.Tensor[T]
	Eps, Momentum   T
	training        bool
}

// NewBatchNorm2d makes the layer for c channels.
func NewBatchNorm2d[T tensor.Float](c int) *BatchNorm2d[T] {
	return &BatchNorm2d[T]{
		Gamma: autograd.Param(tensor.Ones[T](c)), Beta: autograd.Param(tensor.Zeros[T](c)),
		RunMean: tensor.Zeros[T](c), RunVar: tensor.Ones[T](c),
		Eps: 1e-5, Momentum: 0.1, training: true,
	}
}

// Forward normalises x.
func (b *BatchNorm2d[T]) Forward(x *autograd.Var[T]) *autograd.Var[T] {
	c := x.Shape()[1]
	if b.training {
		dev := x.Value.Device()
		m, v := tensor.ZerosOn(dev, c), tensor.ZerosOn(dev, c)
		y := autograd.BatchNorm(x, b.Gamma, b.Beta, b.Eps, m, v)
		b.track(m, v, x.Value.Len()/c)
		return y
	}
	// y = x·scale + shift with the per-channel scale = γ/√(var+ε) and shift =
	// β − mean·scale from the running estimates.
	mean := autograd.Const(tensor.Reshape(b.RunMean, 1, c, 1, 1))
	variance := autograd.Const(tensor.Reshape(b.RunVar, 1, c, 1, 1))
	scale := autograd.Div(autograd.Reshape(b.Gamma, 1, c, 1, 1), autograd.Sqrt(autograd.AddScalar(variance, b.Eps)))
	shift := autograd.Sub(autograd.Reshape(b.Beta, 1, c, 1, 1), autograd.Mul(mean, scale))
	return autograd.Add(autograd.Mul(x, scale), shift)
}

// track moves the running estimates towards the batch mean m and biased
// variance v of count values per channel.
func (b *BatchNorm2d[T]) track(m, v *tensor.Tensor[T], count int) {
	n := T(count)
	unbiased := tensor.Scale(v, n/max(n-1, 1))
	// In place: the running estimates outlive a training step's arena.
	tensor.CopyInto(b.RunMean, tensor.Add(tensor.Scale(b.RunMean, 1-b.Momentum), tensor.Scale(m, b.Momentum)))
	tensor.CopyInto(b.RunVar, tensor.Add(tensor.Scale(b.RunVar, 1-b.Momentum), tensor.Scale(unbiased, b.Momentum)))
}

// Params is [γ, β].
func (b *BatchNorm2d[T]) Params() []*autograd.Var[T] { return []*autograd.Var[T]{b.Gamma, b.Beta} }

// SetTraining switches between batch and running statistics.
func (b *BatchNorm2d[T]) SetTraining(t bool) { b.training = t }

// State is γ, β and the running mean and variance (Load overwrites the
// current running tensors in place).
func (b *BatchNorm2d[T]) State() []Named[T] {
	return []Named[T]{{"weight", &b.Gamma.Value}, {"bias", &b.Beta.Value}, {"running_mean", &b.RunMean}, {"running_var", &b.RunVar}}
}
