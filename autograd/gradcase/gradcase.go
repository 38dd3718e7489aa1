package gradcase

import (
	"fmt"
	"math/rand/v2"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// t64 and v64 are the float64 tensors and variables of the cases.
type (
	t64 = *tensor.Tensor[float64]
	v64 = *autograd.Var[float64]
)

// Case is one gradient check: the exported autograd function it checks,
// a maker of its inputs on a device and the function of them.
type Case struct {
	Name   string
	Inputs func(r *rand.Rand, dev tensor.Device[float64]) []*tensor.Tensor[float64]
	F      func(xs []*autograd.Var[float64]) *autograd.Var[float64]
}

// Check runs autograd.Check on c with its inputs drawn from a generator
// seeded by seed and made on dev, the output projected with seed. It also
// returns an error when an input or the output of F is not on dev.
func (c Case) Check(seed uint64, dev tensor.Device[float64]) (autograd.CheckReport, error) {
	inputs := c.Inputs(rand.New(rand.NewPCG(seed, 1)), dev)
	for i, x := range inputs {
		if x.Device() != dev {
			return autograd.CheckReport{Name: c.Name}, fmt.Errorf("gradcase %s: input %d on %s, want %s", c.Name, i, x.Device(), dev)
		}
	}
	var off error
	onDev := func(xs []v64) v64 {
		y := c.F(xs)
		if d := y.Value.Device(); d != dev && off == nil {
			off = fmt.Errorf("gradcase %s: output on %s, want %s", c.Name, d, dev)
		}
		return y
	}
	rep, err := autograd.Check(c.Name, onDev, inputs, autograd.CheckOptions{Seed: seed})
	if off != nil {
		return rep, off
	}
	return rep, err
}

// Cases returns the table, a fresh copy: at least one case for every
// exported function of autograd that returns a *Var, named after it.
func Cases() []Case { return append([]Case(nil), cases...) }

// maker draws one input from r and puts it on dev.
type maker func(r *rand.Rand, dev tensor.Device[float64]) t64

// in makes a case's inputs, one from each maker.
func in(ms ...maker) func(*rand.Rand, tensor.Device[float64]) []t64 {
	return func(r *rand.Rand, dev tensor.Device[float64]) []t64 {
		out := make([]t64, len(ms))
		for i, m := range ms {
			out[i] = m(r, dev)
		}
		return out
	}
}

// drawn is a dense input of shape drawn uniformly from [lo, hi].
func drawn(lo, hi float64, shape ...int) maker {
	return func(r *rand.Rand, dev tensor.Device[float64]) t64 {
		return tensor.To(tensor.RandUniform[float64](r, lo, hi, shape...), dev)
	}
}

// uniform draws an input of shape uniformly from [−1, 1].
func uniform(shape ...int) maker { return drawn(-1, 1, shape...) }

// positive draws an input of shape uniformly from [0.5, 2] (for
// logarithms, roots and divisors).
func positive(shape ...int) maker { return drawn(0.5, 2, shape...) }

// transposed is a non-contiguous input of shape: the transpose of a dense
// tensor with the last two dimensions swapped.
func transposed(shape ...int) maker {
	return func(r *rand.Rand, dev tensor.Device[float64]) t64 {
		n := len(shape)
		sw := append([]int(nil), shape...)
		sw[n-1], sw[n-2] = sw[n-2], sw[n-1]
		return tensor.Transpose(uniform(sw...)(r, dev), -1, -2)
	}
}

// narrowed is a non-contiguous input of shape: a tensor three columns
// wider, narrowed.
func narrowed(shape ...int) maker {
	return func(r *rand.Rand, dev tensor.Device[float64]) t64 {
		big := append([]int(nil), shape...)
		big[len(big)-1] += 3
		return tensor.Narrow(uniform(big...)(r, dev), -1, 1, shape[len(shape)-1])
	}
}

func unary(f func(v64) v64) func([]v64) v64       { return func(x []v64) v64 { return f(x[0]) } }
func binary(f func(v64, v64) v64) func([]v64) v64 { return func(x []v64) v64 { return f(x[0], x[1]) } }

// mask34 is a fixed [3, 4] tensor of zeros and ones, on the CPU.
var mask34 = tensor.Step(tensor.RandUniform[float64](rand.New(rand.NewPCG(7, 7)), -1, 1, 3, 4))

// softBins are b fixed anchors of dimension e in [−1, 1]^e, temperature 0.5.
func softBins(e, b int) tensor.SoftBins {
	r := rand.New(rand.NewPCG(uint64(e), uint64(b)))
	a := make([]float64, e*b)
	for i := range a {
		a[i] = 2*r.Float64() - 1
	}
	return tensor.SoftBins{Anchors: a, Dim: e, Tau: 0.5}
}
