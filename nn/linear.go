package nn

import (
	"math"
	"math/rand/v2"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// Linear is y = x·Wᵀ + b with W [out, in] and b [out].
type Linear[T tensor.Float] struct {
	W, B *autograd.Var[T]
}

// NewLinear initialises W and b uniformly in ±1/√in, as PyTorch does.
func NewLinear[T tensor.Float](rng *rand.Rand, in, out int) *Linear[T] {
	bound := T(1 / math.Sqrt(float64(in)))
	return &Linear[T]{
		W: autograd.Param(tensor.RandUniform(rng, -bound, bound, out, in)),
		B: autograd.Param(tensor.RandUniform(rng, -bound, bound, out)),
	}
}

// Forward maps x [N, in] to [N, out].
func (l *Linear[T]) Forward(x *autograd.Var[T]) *autograd.Var[T] {
	return autograd.Add(autograd.MatMul(x, autograd.Transpose(l.W, 0, 1)), l.B)
}

// Params is [W, b].
func (l *Linear[T]) Params() []*autograd.Var[T] { return []*autograd.Var[T]{l.W, l.B} }

// SetTraining does nothing.
func (l *Linear[T]) SetTraining(bool) {}

// MLP is a multilayer perceptron in → hidden… → out with ReLU between layers.
func MLP[T tensor.Float](rng *rand.Rand, sizes ...int) Sequential[T] {
	var s Sequential[T]
	for i := 0; i+1 < len(sizes); i++ {
		if i > 0 {
			s = append(s, ReLU[T]())
		}
		s = append(s, NewLinear[T](rng, sizes[i], sizes[i+1]))
	}
	return s
}
