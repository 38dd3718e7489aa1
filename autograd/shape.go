package autograd

import (
	"github.com/ecl-go/ecl/tensor"
)

var (
	opReshape = def("reshape")
	opPermute = def("permute")
	opNarrow  = def("narrow")
	opExpand  = def("expand")
	opConcat  = def("concat")
)

// Reshape gives x a new shape with the same number of elements (-1 infers one
// dimension).
func Reshape[T tensor.Float](x *Var[T], shape ...int) *Var[T] {
	old := x.Value.Shape()
	return record(opReshape, tensor.Reshape(x.Value, shape...), func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		return []*tensor.Tensor[T]{tensor.Reshape(g, old...)}
	}, x)
}

// Squeeze removes dimension axis, of size 1.
func Squeeze[T tensor.Float](x *Var[T], axis int) *Var[T] {
	return Reshape(x, tensor.Squeeze(x.Value, axis).Shape()...)
}

// Unsqueeze inserts a dimension of size 1 at axis.
func Unsqueeze[T tensor.Float](x *Var[T], axis int) *Var[T] {
	return Reshape(x, tensor.Unsqueeze(x.Value, axis).Shape()...)
}

// Permute reorders dimensions: dimension d of the result is axes[d] of x.
func Permute[T tensor.Float](x *Var[T], axes ...int) *Var[T] {
	out := tensor.Permute(x.Value, axes...)
	return record(opPermute, out, func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		inv := make([]int, len(axes))
		for d, a := range axes {
			if a < 0 {
				a += len(axes)
			}
			inv[a] = d
		}
		return []*tensor.Tensor[T]{tensor.Permute(g, inv...)}
	}, x)
}

// Transpose swaps dimensions a and b.
func Transpose[T tensor.Float](x *Var[T], a, b int) *Var[T] {
	axes := make([]int, x.Value.Dims())
	for i := range axes {
		axes[i] = i
	}
	if a < 0 {
		a += len(axes)
	}
	if b < 0 {
		b += len(axes)
	}
	axes[a], axes[b] = axes[b], axes[a]
	return Permute(x, axes...)
}

// Narrow takes length elements of axis from start.
func Narrow[T tensor.Float](x *Var[T], axis, start, length int) *Var[T] {
	return record(opNarrow, tensor.Narrow(x.Value, axis, start, length), func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		dx := tensor.ZerosOn(g.Device(), x.Value.Shape()...)
		tensor.CopyInto(tensor.Narrow(dx, axis, start, length), g)
		return []*tensor.Tensor[T]{dx}
	}, x)
}

// Expand broadcasts x to shape without copying.
func Expand[T tensor.Float](x *Var[T], shape ...int) *Var[T] {
	return record(opExpand, tensor.Expand(x.Value, shape...), func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		return []*tensor.Tensor[T]{tensor.SumTo(g, x.Value.Shape()...)}
	}, x)
}

// Concat joins xs along axis.
func Concat[T tensor.Float](axis int, xs ...*Var[T]) *Var[T] {
	vals := make([]*tensor.Tensor[T], len(xs))
	for i, x := range xs {
		vals[i] = x.Value
	}
	return record(opConcat, tensor.Concat(axis, vals...), func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		grads := make([]*tensor.Tensor[T], len(xs))
		at := 0
		for i, v := range vals {
			n := v.Dim(axis)
			grads[i] = tensor.Narrow(g, axis, at, n)
			at += n
		}
		return grads
	}, xs...)
}

// Stack joins xs of one shape along a new axis.
func Stack[T tensor.Float](axis int, xs ...*Var[T]) *Var[T] {
	us := make([]*Var[T], len(xs))
	for i, x := range xs {
		us[i] = Unsqueeze(x, axis)
	}
	return Concat(axis, us...)
}
