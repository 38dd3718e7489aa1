package autograd

import (
	"fmt"
	"sync/atomic"

	"github.com/ecl-go/ecl/tensor"
)

// Var is a node of the computation graph.
type Var[T tensor.Float] struct {
	Value *tensor.Tensor[T]
	// Grad is the accumulated gradient of the last Backward, for leaves
	// that require gradients (nil before); intermediate gradients are
	// released once propagated.
	Grad *tensor.Tensor[T]

	requiresGrad bool
	op           *Op
	inputs       []*Var[T]
	backward     rule[T]
	// visit is the topo call that last listed v.
	visit uint64
}

// Op names a primitive operation with a backward rule. Ops are created only by
// def, which lists them for the gradient-check registry.
type Op struct{ name string }

func (o *Op) String() string { return o.name }

var primitives []string

func def(name string) *Op {
	primitives = append(primitives, name)
	return &Op{name}
}

// Primitives lists the ops that carry a backward rule.
func Primitives() []string { return append([]string(nil), primitives...) }

// Param is a leaf that requires gradients (a trainable parameter or an input
// being differentiated).
func Param[T tensor.Float](t *tensor.Tensor[T]) *Var[T] { return &Var[T]{Value: t, requiresGrad: true} }

// Const is a leaf without gradient.
func Const[T tensor.Float](t *tensor.Tensor[T]) *Var[T] { return &Var[T]{Value: t} }

// Detach is v's value as a constant: gradients do not flow through it.
func (v *Var[T]) Detach() *Var[T] { return Const(v.Value) }

// RequiresGrad reports whether gradients flow to v.
func (v *Var[T]) RequiresGrad() bool { return v.requiresGrad }

// Op is the primitive that made v, or nil for a leaf or a constant.
func (v *Var[T]) Op() *Op { return v.op }

// Shape is the shape of v's value.
func (v *Var[T]) Shape() []int { return v.Value.Shape() }

// ZeroGrad forgets v's gradient.
func (v *Var[T]) ZeroGrad() { v.Grad = nil }

var noGrad atomic.Int32

// NoGrad runs f without recording graphs: every result is a constant. It is
// process-wide, so do not train on another goroutine meanwhile.
func NoGrad(f func()) {
	noGrad.Add(1)
	defer noGrad.Add(-1)
	f()
}

// record makes the result of op with its backward rule (gradients.go), which
// runs only when some input requires gradients.
func record[T tensor.Float](op *Op, value *tensor.Tensor[T], backward rule[T], inputs ...*Var[T]) *Var[T] {
	v := &Var[T]{Value: value}
	if noGrad.Load() > 0 {
		return v
	}
	for _, in := range inputs {
		if in.requiresGrad {
			v.requiresGrad, v.op, v.inputs, v.backward = true, op, inputs, backward
			break
		}
	}
	return v
}

// Backward computes the gradient of v, which must hold one element, with
// respect to every leaf it depends on.
func (v *Var[T]) Backward() {
	if v.Value.Len() != 1 {
		panic(&tensor.ShapeError{Op: "autograd.Backward", Shapes: [][]int{v.Value.Shape()},
			Detail: fmt.Sprintf("output has shape %v; use BackwardWith for non-scalars", v.Value.Shape())})
	}
	v.BackwardWith(tensor.FullOn(v.Value.Device(), 1, v.Value.Shape()...))
}

// BackwardWith propagates the gradient g (of v's shape) back through the graph,
// adding into the gradients of the leaves.
func (v *Var[T]) BackwardWith(g *tensor.Tensor[T]) {
	if !v.requiresGrad {
		panic(&tensor.ArgumentError{Op: "autograd.Backward", Detail: "the output does not depend on any variable requiring gradients"})
	}
	order := topo(v)
	v.accumulate(g)
	for i := len(order) - 1; i >= 0; i-- {
		n := order[i]
		if n.backward == nil || n.Grad == nil {
			continue
		}
		grads := n.backward(n.Grad, n.Value, n.inputs)
		for j, in := range n.inputs {
			if in.requiresGrad && grads[j] != nil {
				in.accumulate(grads[j])
			}
		}
		n.Grad = nil
	}
}

func (v *Var[T]) accumulate(g *tensor.Tensor[T]) {
	if !sameShape(g, v.Value) {
		panic(&tensor.ShapeError{Op: "autograd.Backward", Shapes: [][]int{g.Shape(), v.Value.Shape()},
			Detail: fmt.Sprintf("gradient of shape %v for a value of shape %v (made by %v)", g.Shape(), v.Value.Shape(), v.op)})
	}
	if v.Grad == nil {
		v.Grad = tensor.Contiguous(g)
	} else {
		v.Grad = tensor.Add(v.Grad, g)
	}
}

// sameShape reports whether a and b have one shape, without copying it.
func sameShape[T tensor.Float](a, b *tensor.Tensor[T]) bool {
	if a.Dims() != b.Dims() {
		return false
	}
	for d := range a.Dims() {
		if a.Dim(d) != b.Dim(d) {
			return false
		}
	}
	return true
}

// visits numbers the topo calls.
var visits atomic.Uint64

// topo lists the nodes that require gradients reachable from v, inputs first.
func topo[T tensor.Float](v *Var[T]) []*Var[T] {
	var order []*Var[T]
	visit := visits.Add(1)
	type frame struct {
		v    *Var[T]
		next int
	}
	stack := []frame{{v, 0}}
	v.visit = visit
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.next < len(f.v.inputs) {
			in := f.v.inputs[f.next]
			f.next++
			if in.requiresGrad && in.visit != visit {
				in.visit = visit
				stack = append(stack, frame{in, 0})
			}
			continue
		}
		order = append(order, f.v)
		stack = stack[:len(stack)-1]
	}
	return order
}
