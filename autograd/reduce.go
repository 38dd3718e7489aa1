package autograd

import "github.com/ecl-go/ecl/tensor"

// Sum adds along axis.
func Sum[T tensor.Float](x *Var[T], axis int, keepDims bool) *Var[T] {
	return record(opSum, tensor.Sum(x.Value, axis, keepDims), gradSum[T](axis), x)
}

// SumAll is the sum of all elements, as a 0-dimensional value.
func SumAll[T tensor.Float](x *Var[T]) *Var[T] { return Sum(Reshape(x, x.Value.Len()), 0, false) }

// Mean averages along axis.
func Mean[T tensor.Float](x *Var[T], axis int, keepDims bool) *Var[T] {
	return Scale(Sum(x, axis, keepDims), 1/T(x.Value.Dim(axis)))
}

// MeanAll is the mean of all elements.
func MeanAll[T tensor.Float](x *Var[T]) *Var[T] { return Scale(SumAll(x), 1/T(x.Value.Len())) }

// extreme is Max or Min along axis; the gradient goes to the first extreme
// element.
func extreme[T tensor.Float](op *Op, x *Var[T], axis int, keepDims bool) *Var[T] {
	val, arg := tensor.Extremes(x.Value, axis, op == opMin)
	if !keepDims {
		val = tensor.Squeeze(val, axis)
	}
	return record(op, val, gradExtreme(arg, axis), x)
}

// Max is the largest element along axis.
func Max[T tensor.Float](x *Var[T], axis int, keepDims bool) *Var[T] {
	return extreme(opMax, x, axis, keepDims)
}

// Min is the smallest element along axis.
func Min[T tensor.Float](x *Var[T], axis int, keepDims bool) *Var[T] {
	return extreme(opMin, x, axis, keepDims)
}

// LogSumExp is log Σ exp(x) along axis, shifted by the (constant) maximum for
// stability.
func LogSumExp[T tensor.Float](x *Var[T], axis int, keepDims bool) *Var[T] {
	m := Const(tensor.ShiftMax(x.Value, axis))
	out := Add(Log(Sum(Exp(Sub(x, m)), axis, true)), m)
	if !keepDims {
		out = Squeeze(out, axis)
	}
	return out
}
