package nn

import (
	"math"
	"math/rand/v2"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// Conv2d is a 2-D convolution over NCHW input with weights [O, C, KH, KW]
// and an optional bias [O], named weight and bias as in PyTorch.
type Conv2d[T tensor.Float] struct {
	Vars[T]
	W, B *autograd.Var[T] // B is nil without bias
	Opt  tensor.ConvOptions
}

// NewConv2d creates in vb a k×k convolution from in to out channels,
// initialised like PyTorch (U(±1/√fan_in)).
func NewConv2d[T tensor.Float](vb Vars[T], rng *rand.Rand, in, out, k int, opt tensor.ConvOptions, bias bool) *Conv2d[T] {
	bound := T(1 / math.Sqrt(float64(in*k*k)))
	c := &Conv2d[T]{Vars: vb, W: vb.Param("weight", tensor.RandUniform(rng, -bound, bound, out, in, k, k)), Opt: opt}
	if bias {
		c.B = vb.Param("bias", tensor.RandUniform(rng, -bound, bound, out))
	}
	return c
}

// Forward convolves x [N, C, H, W].
func (c *Conv2d[T]) Forward(x *autograd.Var[T]) *autograd.Var[T] {
	if c.B == nil {
		return autograd.Conv2D(x, c.W, c.Opt)
	}
	return autograd.Conv2DBias(x, c.W, c.B, c.Opt)
}

// MaxPool2d is k×k max pooling with stride s.
func MaxPool2d[T tensor.Float](k, s int) Func[T] {
	return func(x *autograd.Var[T]) *autograd.Var[T] {
		return autograd.MaxPool2D(x, k, k, tensor.ConvOptions{StrideH: s, StrideW: s})
	}
}

// AvgPool2d is k×k average pooling with stride s.
func AvgPool2d[T tensor.Float](k, s int) Func[T] {
	return func(x *autograd.Var[T]) *autograd.Var[T] {
		return autograd.AvgPool2D(x, k, k, tensor.ConvOptions{StrideH: s, StrideW: s})
	}
}

// GlobalAvgPool averages each channel of [N, C, H, W] to [N, C].
func GlobalAvgPool[T tensor.Float]() Func[T] {
	return func(x *autograd.Var[T]) *autograd.Var[T] {
		s := x.Shape()
		return autograd.Mean(autograd.Reshape(x, s[0], s[1], s[2]*s[3]), 2, false)
	}
}

// Flatten reshapes [N, …] to [N, rest].
func Flatten[T tensor.Float]() Func[T] {
	return func(x *autograd.Var[T]) *autograd.Var[T] { return autograd.Reshape(x, x.Shape()[0], -1) }
}
