package nn

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// Module is a layer or a model. A module built from a Vars embeds it, which
// gives it Params, SetTraining and State.
type Module[T tensor.Float] interface {
	Forward(x *autograd.Var[T]) *autograd.Var[T]
	// Params lists the trainable parameters, in a fixed order.
	Params() []*autograd.Var[T]
	// SetTraining switches between training and evaluation behaviour
	// (dropout, batch statistics); layers without such behaviour ignore it.
	SetTraining(training bool)
	// State lists the tensors that define the module, parameters and
	// buffers, in a fixed order, each named by its path from the root of
	// the Vars it was created in ("layer1.0.bn1.running_var", PyTorch's
	// state_dict name): Save and SaveSafetensors write them, Load and
	// LoadSafetensors restore them in place, ToDevice moves them.
	State() []Named[T]
}

// Sequential applies its layers in order.
type Sequential[T tensor.Float] []Module[T]

// Forward applies each layer in turn; a layer that can run together with
// the layers after it (a DenseLayer, a BatchNorm2d before a ReLU) runs
// them in one go.
func (s Sequential[T]) Forward(x *autograd.Var[T]) *autograd.Var[T] {
	for i := 0; i < len(s); i++ {
		if r, ok := s[i].(runner[T]); ok {
			var used int
			x, used = r.forwardRun(x, s[i+1:])
			i += used
			continue
		}
		x = s[i].Forward(x)
	}
	return x
}

// runner is a layer that can run together with some of the layers that
// follow it in a Sequential: forwardRun returns the output and how many of
// rest it ran.
type runner[T tensor.Float] interface {
	forwardRun(x *autograd.Var[T], rest []Module[T]) (*autograd.Var[T], int)
}

// Params concatenates the layers' parameters.
func (s Sequential[T]) Params() []*autograd.Var[T] {
	var ps []*autograd.Var[T]
	for _, m := range s {
		ps = append(ps, m.Params()...)
	}
	return ps
}

// SetTraining sets the mode of every layer.
func (s Sequential[T]) SetTraining(training bool) {
	for _, m := range s {
		m.SetTraining(training)
	}
}

// State concatenates the layers' states.
func (s Sequential[T]) State() []Named[T] {
	var st []Named[T]
	for _, m := range s {
		st = append(st, m.State()...)
	}
	return st
}

// Next is the view of vb for the layer appended next to s, named by its
// index as in a PyTorch nn.Sequential.
func (s Sequential[T]) Next(vb Vars[T]) Vars[T] { return vb.Sub(strconv.Itoa(len(s))) }

// Func is a parameter-free layer made from a function, such as an activation.
type Func[T tensor.Float] func(*autograd.Var[T]) *autograd.Var[T]

// Forward applies the function.
func (f Func[T]) Forward(x *autograd.Var[T]) *autograd.Var[T] { return f(x) }

// Params is empty.
func (Func[T]) Params() []*autograd.Var[T] { return nil }

// SetTraining does nothing.
func (Func[T]) SetTraining(bool) {}

// State is empty.
func (Func[T]) State() []Named[T] { return nil }

// ReLU is the rectifier layer. In a Sequential, a BatchNorm2d followed by
// it runs as one fused op in training (BatchNorm2d.ForwardRelu).
func ReLU[T tensor.Float]() Module[T] { return reluLayer[T]{autograd.Relu[T]} }

// reluLayer is ReLU's layer, a type of its own for BatchNorm2d to find.
type reluLayer[T tensor.Float] struct{ Func[T] }

// Tanh is the hyperbolic-tangent layer.
func Tanh[T tensor.Float]() Func[T] { return autograd.Tanh[T] }

// ZeroGrad forgets the gradients of every parameter of m.
func ZeroGrad[T tensor.Float](m Module[T]) {
	for _, p := range m.Params() {
		p.ZeroGrad()
	}
}

// ToDevice moves every tensor of m's State (parameters and buffers) to
// dev, so that m runs on dev's kernels; inputs must be moved by the caller.
func ToDevice[T tensor.Float](m Module[T], dev tensor.Device[T]) {
	for _, n := range m.State() {
		*n.Ref = tensor.To(*n.Ref, dev)
	}
}

// CopyState copies the State of src (parameters and buffers such as
// BatchNorm's running statistics) into dst, which must have the same
// architecture: the same tensor shapes in the same order.
func CopyState[T tensor.Float](dst, src Module[T]) error {
	d, s := dst.State(), src.State()
	if len(d) != len(s) {
		return fmt.Errorf("nn.CopyState: %d tensors into %d", len(s), len(d))
	}
	for i := range d {
		if !slices.Equal(d[i].Value().Shape(), s[i].Value().Shape()) {
			return fmt.Errorf("nn.CopyState: tensor %d (%s) has shape %v, source %v", i, d[i].Name, d[i].Value().Shape(), s[i].Value().Shape())
		}
	}
	for i := range d {
		tensor.CopyInto(d[i].Value(), s[i].Value())
	}
	return nil
}
