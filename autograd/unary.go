package autograd

import "github.com/ecl-go/ecl/tensor"

// Exp is eˣ.
func Exp[T tensor.Float](x *Var[T]) *Var[T] { return record(opExp, tensor.Exp(x.Value), gradExp, x) }

// Log is ln x.
func Log[T tensor.Float](x *Var[T]) *Var[T] { return record(opLog, tensor.Log(x.Value), gradLog, x) }

// Sqrt is √x.
func Sqrt[T tensor.Float](x *Var[T]) *Var[T] {
	return record(opSqrt, tensor.Sqrt(x.Value), gradSqrt, x)
}

// Abs is |x|, with gradient 0 at 0.
func Abs[T tensor.Float](x *Var[T]) *Var[T] { return record(opAbs, tensor.Abs(x.Value), gradAbs, x) }

// Relu is max(x, 0), with gradient 0 at 0.
func Relu[T tensor.Float](x *Var[T]) *Var[T] {
	return record(opRelu, tensor.Relu(x.Value), gradRelu, x)
}

// Sigmoid is 1/(1+e⁻ˣ).
func Sigmoid[T tensor.Float](x *Var[T]) *Var[T] {
	return record(opSigmoid, tensor.Sigmoid(x.Value), gradSigmoid, x)
}

// Tanh is tanh x.
func Tanh[T tensor.Float](x *Var[T]) *Var[T] {
	return record(opTanh, tensor.Tanh(x.Value), gradTanh, x)
}

// Clamp limits x to [lo, hi]; the gradient is 0 where x is clamped.
func Clamp[T tensor.Float](x *Var[T], lo, hi T) *Var[T] {
	return record(opClamp, tensor.Clamp(x.Value, lo, hi), gradClamp(lo, hi), x)
}

// Lgamma is ln Γ(x) for x > 0, with gradient the digamma function ψ(x).
func Lgamma[T tensor.Float](x *Var[T]) *Var[T] {
	return record(opLgamma, tensor.Lgamma(x.Value), gradLgamma, x)
}
