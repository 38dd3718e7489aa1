package autograd

import "github.com/ecl-go/ecl/tensor"

// Reshape gives x a new shape with the same number of elements (-1 infers one
// dimension).
func Reshape[T tensor.Float](x *Var[T], shape ...int) *Var[T] {
	return record(opReshape, tensor.Reshape(x.Value, shape...), gradReshape, x)
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
	return record(opPermute, tensor.Permute(x.Value, axes...), gradPermute[T](axes), x)
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
	return record(opNarrow, tensor.Narrow(x.Value, axis, start, length), gradNarrow[T](axis, start, length), x)
}

// Expand broadcasts x to shape without copying.
func Expand[T tensor.Float](x *Var[T], shape ...int) *Var[T] {
	return record(opExpand, tensor.Expand(x.Value, shape...), gradExpand, x)
}

// Concat joins xs along axis.
func Concat[T tensor.Float](axis int, xs ...*Var[T]) *Var[T] {
	vals := make([]*tensor.Tensor[T], len(xs))
	for i, x := range xs {
		vals[i] = x.Value
	}
	return record(opConcat, tensor.Concat(axis, vals...), gradConcat[T](axis), xs...)
}

// Stack joins xs of one shape along a new axis.
func Stack[T tensor.Float](axis int, xs ...*Var[T]) *Var[T] {
	us := make([]*Var[T], len(xs))
	for i, x := range xs {
		us[i] = Unsqueeze(x, axis)
	}
	return Concat(axis, us...)
}
