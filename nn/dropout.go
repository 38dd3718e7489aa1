package nn

import (
	"fmt"
	"math/rand/v2"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// Dropout is inverted dropout: in training each element is zeroed with
// probability P and the survivors are scaled by 1/(1−P), so evaluation is
// the identity. The mask is drawn from the layer's own generator, one draw
// per element per Forward.
type Dropout[T tensor.Float] struct {
	Vars[T]
	P        float64
	rng      *rand.Rand
	training *bool
}

// NewDropout creates the layer in vb, in training mode; p must be in [0, 1).
func NewDropout[T tensor.Float](vb Vars[T], p float64, rng *rand.Rand) *Dropout[T] {
	if !(p >= 0 && p < 1) {
		panic(&tensor.ArgumentError{Op: "nn.Dropout", Detail: fmt.Sprintf("probability %v outside [0, 1)", p)})
	}
	return &Dropout[T]{Vars: vb, P: p, rng: rng, training: vb.Mode()}
}

// Forward multiplies x by a constant 0 or 1/(1−P) mask in training and
// returns x itself in evaluation or when P is 0.
func (d *Dropout[T]) Forward(x *autograd.Var[T]) *autograd.Var[T] {
	if !*d.training || d.P == 0 {
		return x
	}
	mask := make([]T, x.Value.Len())
	keep := T(1 / (1 - d.P))
	for i := range mask {
		if d.rng.Float64() >= d.P {
			mask[i] = keep
		}
	}
	return autograd.Mul(x, autograd.Const(tensor.FromSliceOn(x.Value.Device(), mask, x.Shape()...)))
}
