package autograd

import "github.com/ecl-go/ecl/tensor"

var (
	opExp     = def("exp")
	opLog     = def("log")
	opSqrt    = def("sqrt")
	opAbs     = def("abs")
	opRelu    = def("relu")
	opSigmoid = def("sigmoid")
	opTanh    = def("tanh")
	opClamp   = def("clamp")
	opLgamma  = def("lgamma")
)

// Exp is eˣ.
func Exp[T tensor.Float](x *Var[T]) *Var[T] {
	out := tensor.Exp(x.Value)
	return record(opExp, out, func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		return []*tensor.Tensor[T]{tensor.Mul(g, out)}
	}, x)
}

// Log is ln x.
func Log[T tensor.Float](x *Var[T]) *Var[T] {
	return record(opLog, tensor.Log(x.Value), func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		return []*tensor.Tensor[T]{tensor.Div(g, x.Value)}
	}, x)
}

// Sqrt is √x.
func Sqrt[T tensor.Float](x *Var[T]) *Var[T] {
	out := tensor.Sqrt(x.Value)
	return record(opSqrt, out, func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		return []*tensor.Tensor[T]{tensor.Div(tensor.Scale(g, 0.5), out)}
	}, x)
}

// Abs is |x|, with gradient 0 at 0.
func Abs[T tensor.Float](x *Var[T]) *Var[T] {
	return record(opAbs, tensor.Abs(x.Value), func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		return []*tensor.Tensor[T]{tensor.Mul(g, tensor.Sign(x.Value))}
	}, x)
}

// Relu is max(x, 0), with gradient 0 at 0.
func Relu[T tensor.Float](x *Var[T]) *Var[T] {
	return record(opRelu, tensor.Relu(x.Value), func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		return []*tensor.Tensor[T]{tensor.ReluGrad(g, x.Value)}
	}, x)
}

// Sigmoid is 1/(1+e⁻ˣ).
func Sigmoid[T tensor.Float](x *Var[T]) *Var[T] {
	out := tensor.Sigmoid(x.Value)
	return record(opSigmoid, out, func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		// σ' = σ(1−σ)
		return []*tensor.Tensor[T]{tensor.Mul(g, tensor.Mul(out, tensor.Affine(out, -1, 1)))}
	}, x)
}

// Tanh is tanh x.
func Tanh[T tensor.Float](x *Var[T]) *Var[T] {
	out := tensor.Tanh(x.Value)
	return record(opTanh, out, func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		// tanh' = 1 − tanh²
		return []*tensor.Tensor[T]{tensor.Mul(g, tensor.Affine(tensor.Mul(out, out), -1, 1))}
	}, x)
}

// Clamp limits x to [lo, hi]; the gradient is 0 where x is clamped.
func Clamp[T tensor.Float](x *Var[T], lo, hi T) *Var[T] {
	return record(opClamp, tensor.Clamp(x.Value, lo, hi), func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		return []*tensor.Tensor[T]{tensor.Mul(g, tensor.Inside(x.Value, lo, hi))}
	}, x)
}

// Lgamma is ln Γ(x) for x > 0, with gradient the digamma function ψ(x).
func Lgamma[T tensor.Float](x *Var[T]) *Var[T] {
	return record(opLgamma, tensor.Lgamma(x.Value), func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		return []*tensor.Tensor[T]{tensor.Mul(g, tensor.Digamma(x.Value))}
	}, x)
}
