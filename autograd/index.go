package autograd

import "github.com/ecl-go/ecl/tensor"

// Gather picks along axis, out[i…, j, k…] = x[i…, idx[i…,j,k…], k…], with the
// result's shape given (equal to x's outside axis).
func Gather[T tensor.Float](x *Var[T], axis int, idx []int, shape ...int) *Var[T] {
	return record(opGather, tensor.Gather(x.Value, axis, idx, shape...), gradGather[T](axis, idx), x)
}

// IndexSelect takes the slices idx of x along axis.
func IndexSelect[T tensor.Float](x *Var[T], axis int, idx []int) *Var[T] {
	if axis < 0 {
		axis += x.Value.Dims()
	}
	full, shape := tensor.SelectIndex(x.Value.Shape(), axis, idx)
	return Gather(x, axis, full, shape...)
}

// Where is a where cond ≠ 0, else b (cond is a constant mask), with
// broadcasting.
func Where[T tensor.Float](cond *tensor.Tensor[T], a, b *Var[T]) *Var[T] {
	return record(opWhere, tensor.Where(cond, a.Value, b.Value), gradWhere(cond), a, b)
}

// Maximum is the elementwise max(a, b); ties send the gradient to a.
func Maximum[T tensor.Float](a, b *Var[T]) *Var[T] {
	return Where(tensor.GreaterEqual(a.Value, b.Value), a, b)
}

// Minimum is the elementwise min(a, b); ties send the gradient to a.
func Minimum[T tensor.Float](a, b *Var[T]) *Var[T] {
	return Where(tensor.GreaterEqual(b.Value, a.Value), a, b)
}
