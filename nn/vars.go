package nn

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// Vars names the tensors of a model where they are created, as candle-nn's
// VarBuilder does. A layer asks its Vars for each parameter and buffer by
// its PyTorch state_dict name (Param("weight", …), Buffer("running_mean",
// …)); a model gives each part a view one level down (Sub("conv1"),
// Sub("layer1.0")), so that every tensor carries the dotted path PyTorch
// gives it ("layer1.0.bn1.running_mean"). The views share one store, which
// keeps the tensors in creation order.
//
// A module that embeds the Vars it was built from gets Params, State and
// SetTraining from the store: they cover every tensor and training flag
// created under its path, its parts' included, with nothing listed by hand.
// Such a module's tensor fields are the store's: change their Value, never
// the field itself.
type Vars[T tensor.Float] struct {
	s    *varStore[T]
	path string
}

// varStore is what the views of one Vars share.
type varStore[T tensor.Float] struct {
	entries []varEntry[T]
	names   map[string]bool
	modes   []mode
}

// varEntry is one tensor of the store; param is nil for a buffer.
type varEntry[T tensor.Float] struct {
	Named[T]
	param *autograd.Var[T]
}

// mode is a training flag created at path.
type mode struct {
	path     string
	training *bool
}

// NewVars is an empty store, seen from its root.
func NewVars[T tensor.Float]() Vars[T] {
	return Vars[T]{s: &varStore[T]{names: map[string]bool{}}}
}

// Path is the dotted path of v from the store's root ("" at the root).
func (v Vars[T]) Path() string { return v.path }

// Sub is the view below v at name, which may itself be dotted ("layer1.0").
func (v Vars[T]) Sub(name string) Vars[T] { return Vars[T]{v.s, v.join(name)} }

// join is the full path of name under v; an empty part panics.
func (v Vars[T]) join(name string) string {
	if slices.Contains(strings.Split(name, "."), "") {
		panic(&tensor.ArgumentError{Op: "nn.Vars", Detail: fmt.Sprintf("name %q under %q has an empty part", name, v.path)})
	}
	if v.path == "" {
		return name
	}
	return v.path + "." + name
}

// Param creates the trainable parameter name under v, of value init. A
// name created twice in one store panics.
func (v Vars[T]) Param(name string, init *tensor.Tensor[T]) *autograd.Var[T] {
	p := autograd.Param(init)
	v.add(name, &p.Value, p)
	return p
}

// Buffer is a tensor of a module's state that is not trained, such as
// batch normalisation's running statistics.
type Buffer[T tensor.Float] struct {
	Value *tensor.Tensor[T]
}

// Buffer creates the buffer name under v, of value init. A name created
// twice in one store panics.
func (v Vars[T]) Buffer(name string, init *tensor.Tensor[T]) *Buffer[T] {
	b := &Buffer[T]{init}
	v.add(name, &b.Value, nil)
	return b
}

func (v Vars[T]) add(name string, ref **tensor.Tensor[T], p *autograd.Var[T]) {
	full := v.join(name)
	if v.s.names[full] {
		panic(&tensor.ArgumentError{Op: "nn.Vars", Detail: fmt.Sprintf("%q created twice", full)})
	}
	v.s.names[full] = true
	v.s.entries = append(v.s.entries, varEntry[T]{Named[T]{full, ref}, p})
}

// Mode creates a training-mode flag at v's path, true (training) at first,
// which SetTraining on v or on any view above it sets.
func (v Vars[T]) Mode() *bool {
	training := true
	v.s.modes = append(v.s.modes, mode{v.path, &training})
	return &training
}

// mustHaveStore panics if v is the zero Vars, that of a module written as
// a literal instead of made by its New function: its tensors are in no store.
func (v Vars[T]) mustHaveStore(method string) {
	if v.s == nil {
		panic("nn: " + method + " of a module without Vars (made as a literal, not by its New function)")
	}
}

// holds reports whether the path name lies under v.
func (v Vars[T]) holds(name string) bool {
	return v.path == "" || name == v.path || strings.HasPrefix(name, v.path+".")
}

// Params lists the parameters created under v, in creation order.
func (v Vars[T]) Params() []*autograd.Var[T] {
	v.mustHaveStore("Params")
	var ps []*autograd.Var[T]
	for _, e := range v.s.entries {
		if e.param != nil && v.holds(e.Name) {
			ps = append(ps, e.param)
		}
	}
	return ps
}

// State lists the parameters and buffers created under v, in creation
// order, each named by its full path.
func (v Vars[T]) State() []Named[T] {
	v.mustHaveStore("State")
	var st []Named[T]
	for _, e := range v.s.entries {
		if v.holds(e.Name) {
			st = append(st, e.Named)
		}
	}
	return st
}

// SetTraining sets every training flag created under v.
func (v Vars[T]) SetTraining(training bool) {
	v.mustHaveStore("SetTraining")
	for _, m := range v.s.modes {
		if v.holds(m.path) {
			*m.training = training
		}
	}
}
