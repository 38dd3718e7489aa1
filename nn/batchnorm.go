package nn

import (
	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// BatchNorm2d normalises each channel of [N, C, H, W]: in training with the
// batch's mean and (biased) variance, updating running estimates with
// momentum 0.1 (the variance unbiased, as PyTorch); in evaluation with the
// running estimates. Scale γ starts at 1 and shift β at 0.
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
	s := x.Shape()
	c := s[1]
	var mean, variance *autograd.Var[T]
	if b.training {
		// Mean over N, H, W of the [N, C, H·W] view.
		flat := autograd.Reshape(x, s[0], c, s[2]*s[3])
		count := T(s[0] * s[2] * s[3])
		mean = autograd.Scale(autograd.Sum(autograd.Sum(flat, 2, true), 0, true), 1/count) // [1, C, 1]
		d := autograd.Sub(flat, mean)
		variance = autograd.Scale(autograd.Sum(autograd.Sum(autograd.Mul(d, d), 2, true), 0, true), 1/count)
		m, v := tensor.Reshape(mean.Value, c), tensor.Reshape(variance.Value, c)
		unbiased := tensor.Scale(v, count/max(count-1, 1))
		b.RunMean = tensor.Add(tensor.Scale(b.RunMean, 1-b.Momentum), tensor.Scale(m, b.Momentum))
		b.RunVar = tensor.Add(tensor.Scale(b.RunVar, 1-b.Momentum), tensor.Scale(unbiased, b.Momentum))
		mean, variance = autograd.Reshape(mean, 1, c, 1, 1), autograd.Reshape(variance, 1, c, 1, 1)
	} else {
		mean = autograd.Const(tensor.Reshape(b.RunMean, 1, c, 1, 1))
		variance = autograd.Const(tensor.Reshape(b.RunVar, 1, c, 1, 1))
	}
	// y = x·scale + shift with the per-channel scale = γ/√(var+ε) and shift =
	// β − mean·scale: two operations over the whole input (and its gradient)
	// instead of four.
	scale := autograd.Div(autograd.Reshape(b.Gamma, 1, c, 1, 1), autograd.Sqrt(autograd.AddScalar(variance, b.Eps)))
	shift := autograd.Sub(autograd.Reshape(b.Beta, 1, c, 1, 1), autograd.Mul(mean, scale))
	return autograd.Add(autograd.Mul(x, scale), shift)
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
