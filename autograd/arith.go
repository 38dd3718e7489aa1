package autograd

import "github.com/ecl-go/ecl/tensor"

// Add is a + b with broadcasting.
func Add[T tensor.Float](a, b *Var[T]) *Var[T] {
	return record(opAdd, tensor.Add(a.Value, b.Value), gradAdd, a, b)
}

// Sub is a − b with broadcasting.
func Sub[T tensor.Float](a, b *Var[T]) *Var[T] { return Add(a, Neg(b)) }

// Mul is a·b elementwise with broadcasting.
func Mul[T tensor.Float](a, b *Var[T]) *Var[T] {
	return record(opMul, tensor.Mul(a.Value, b.Value), gradMul, a, b)
}

// Div is a/b elementwise with broadcasting.
func Div[T tensor.Float](a, b *Var[T]) *Var[T] {
	return record(opDiv, tensor.Div(a.Value, b.Value), gradDiv, a, b)
}

// Neg is −x.
func Neg[T tensor.Float](x *Var[T]) *Var[T] { return record(opNeg, tensor.Neg(x.Value), gradNeg, x) }

// Affine is a·x + b for scalars a, b.
func Affine[T tensor.Float](x *Var[T], a, b T) *Var[T] {
	return record(opAffine, tensor.Affine(x.Value, a, b), gradAffine(a), x)
}

// Scale is a·x.
func Scale[T tensor.Float](x *Var[T], a T) *Var[T] { return Affine(x, a, 0) }

// AddScalar is x + b.
func AddScalar[T tensor.Float](x *Var[T], b T) *Var[T] { return Affine(x, 1, b) }

// Pow is aᵇ elementwise with broadcasting (a > 0 where b is differentiated).
func Pow[T tensor.Float](a, b *Var[T]) *Var[T] {
	return record(opPow, tensor.Pow(a.Value, b.Value), gradPow, a, b)
}

// PowScalar is xᵖ for a scalar p.
func PowScalar[T tensor.Float](x *Var[T], p T) *Var[T] {
	return record(opPowScalar, tensor.PowScalar(x.Value, p), gradPowScalar(p), x)
}
