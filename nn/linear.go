package nn

import (
	"math"
	"math/rand/v2"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// Linear is y = x·Wᵀ + b with W [out, in] and b [out], named weight and
// bias as in PyTorch.
type Linear[T tensor.Float] struct {
	Vars[T]
	W, B *autograd.Var[T]
}

// NewLinear creates the layer in vb, initialising W and b uniformly in
// ±1/√in, as PyTorch does.
func NewLinear[T tensor.Float](vb Vars[T], rng *rand.Rand, in, out int) *Linear[T] {
	bound := T(1 / math.Sqrt(float64(in)))
	return &Linear[T]{
		Vars: vb,
		W:    vb.Param("weight", tensor.RandUniform(rng, -bound, bound, out, in)),
		B:    vb.Param("bias", tensor.RandUniform(rng, -bound, bound, out)),
	}
}

// Forward maps x [N, in] to [N, out].
func (l *Linear[T]) Forward(x *autograd.Var[T]) *autograd.Var[T] {
	return autograd.Add(autograd.MatMul(x, autograd.Transpose(l.W, 0, 1)), l.B)
}

// MLP is a multilayer perceptron in → hidden… → out with ReLU between
// layers, created in vb with each layer named by its index, as in a
// PyTorch nn.Sequential ("0", "2", …).
func MLP[T tensor.Float](vb Vars[T], rng *rand.Rand, sizes ...int) Sequential[T] {
	var s Sequential[T]
	for i := 0; i+1 < len(sizes); i++ {
		if i > 0 {
			s = append(s, ReLU[T]())
		}
		s = append(s, NewLinear(s.Next(vb), rng, sizes[i], sizes[i+1]))
	}
	return s
}
