package autograd

import "github.com/ecl-go/ecl/tensor"

// LogSoftmax is (x − m) − log Σ exp(x − m) along axis, with m the constant
// maximum: x − LogSumExp(x), accurate in float32 for large logits. One
// primitive (tensor.LogSoftmax), whose gradient is bit for bit that of the
// composed form (TestLogSoftmaxPrimitiveMatchesComposed).
func LogSoftmax[T tensor.Float](x *Var[T], axis int) *Var[T] {
	return record(opLogSoftmax, tensor.LogSoftmax(x.Value, axis), gradLogSoftmax[T](axis), x)
}

// Softmax is exp(x − m)/Σ exp(x − m) along axis: one primitive
// (tensor.Softmax), whose gradient y·(g − Σ g·y) reads the output, so the
// backward pass computes no exponential. Its values are within a few ulp
// of exp(LogSoftmax(x)) (TestSoftmaxPrimitiveNearComposed).
func Softmax[T tensor.Float](x *Var[T], axis int) *Var[T] {
	return record(opSoftmax, tensor.Softmax(x.Value, axis), gradSoftmax[T](axis), x)
}
