package autograd

import (
	"github.com/ecl-go/ecl/tensor"
)

var (
	opAdd    = def("add")
	opMul    = def("mul")
	opDiv    = def("div")
	opNeg    = def("neg")
	opAffine = def("affine")
	opPow    = def("pow")
	opPowS   = def("pow_scalar")
)

// Add is a + b with broadcasting.
func Add[T tensor.Float](a, b *Var[T]) *Var[T] {
	return record(opAdd, tensor.Add(a.Value, b.Value), func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		return []*tensor.Tensor[T]{tensor.SumTo(g, a.Value.Shape()...), tensor.SumTo(g, b.Value.Shape()...)}
	}, a, b)
}

// Sub is a − b with broadcasting.
func Sub[T tensor.Float](a, b *Var[T]) *Var[T] { return Add(a, Neg(b)) }

// Mul is a·b elementwise with broadcasting.
func Mul[T tensor.Float](a, b *Var[T]) *Var[T] {
	return record(opMul, tensor.Mul(a.Value, b.Value), func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		var ga, gb *tensor.Tensor[T] // only for inputs that need them
		if a.requiresGrad {
			ga = tensor.SumTo(tensor.Mul(g, b.Value), a.Value.Shape()...)
		}
		if b.requiresGrad {
			gb = tensor.SumTo(tensor.Mul(g, a.Value), b.Value.Shape()...)
		}
		return []*tensor.Tensor[T]{ga, gb}
	}, a, b)
}

// Div is a/b elementwise with broadcasting.
func Div[T tensor.Float](a, b *Var[T]) *Var[T] {
	out := tensor.Div(a.Value, b.Value)
	return record(opDiv, out, func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		ga := tensor.Div(g, b.Value)
		var gb *tensor.Tensor[T]
		if b.requiresGrad {
			gb = tensor.SumTo(tensor.Neg(tensor.Mul(ga, out)), b.Value.Shape()...)
		}
		return []*tensor.Tensor[T]{tensor.SumTo(ga, a.Value.Shape()...), gb}
	}, a, b)
}

// Neg is −x.
func Neg[T tensor.Float](x *Var[T]) *Var[T] {
	return record(opNeg, tensor.Neg(x.Value), func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		return []*tensor.Tensor[T]{tensor.Neg(g)}
	}, x)
}

// Affine is a·x + b for scalars a, b.
func Affine[T tensor.Float](x *Var[T], a, b T) *Var[T] {
	return record(opAffine, tensor.Affine(x.Value, a, b), func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		return []*tensor.Tensor[T]{tensor.Scale(g, a)}
	}, x)
}

// Scale is a·x.
func Scale[T tensor.Float](x *Var[T], a T) *Var[T] { return Affine(x, a, 0) }

// AddScalar is x + b.
func AddScalar[T tensor.Float](x *Var[T], b T) *Var[T] { return Affine(x, 1, b) }

// Pow is aᵇ elementwise with broadcasting (a > 0 where b is differentiated).
func Pow[T tensor.Float](a, b *Var[T]) *Var[T] {
	out := tensor.Pow(a.Value, b.Value)
	return record(opPow, out, func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		gout := tensor.Mul(g, out)
		var gb *tensor.Tensor[T]
		if b.requiresGrad {
			gb = tensor.SumTo(tensor.Mul(gout, tensor.Log(a.Value)), b.Value.Shape()...)
		}
		return []*tensor.Tensor[T]{
			tensor.SumTo(tensor.Mul(tensor.Mul(g, b.Value), tensor.Pow(a.Value, tensor.AddScalar(b.Value, -1))), a.Value.Shape()...),
			gb,
		}
	}, a, b)
}

// PowScalar is xᵖ for a scalar p.
func PowScalar[T tensor.Float](x *Var[T], p T) *Var[T] {
	return record(opPowS, tensor.PowScalar(x.Value, p), func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		return []*tensor.Tensor[T]{tensor.Mul(g, tensor.Scale(tensor.PowScalar(x.Value, p-1), p))}
	}, x)
}
