package tensor

// BroadcastShapes returns the NumPy broadcast of two shapes: aligned from the
// right, each pair of sizes equal or one of them 1. Shapes that do not
// broadcast are a *ShapeError.
func BroadcastShapes(a, b []int) ([]int, error) {
	n := max(len(a), len(b))
	out := make([]int, n)
	for i := 1; i <= n; i++ {
		x, y := 1, 1
		if i <= len(a) {
			x = a[len(a)-i]
		}
		if i <= len(b) {
			y = b[len(b)-i]
		}
		switch {
		case x == y || y == 1:
			out[n-i] = x
		case x == 1:
			out[n-i] = y
		default:
			return nil, shapeError("BroadcastShapes", [][]int{a, b}, "shapes %v and %v do not broadcast", a, b)
		}
	}
	return out, nil
}

func unary[T Float](op UnaryOp, x *Tensor[T], a, b T) *Tensor[T] {
	out := emptyOn(x.Device(), x.shape...)
	x.Device().Unary(op, out, x, a, b)
	return out
}

// Neg is −x.
func Neg[T Float](x *Tensor[T]) *Tensor[T] { return unary(OpNeg, x, 0, 0) }

// Exp is eˣ elementwise.
func Exp[T Float](x *Tensor[T]) *Tensor[T] { return unary(OpExp, x, 0, 0) }

// Log is ln x elementwise.
func Log[T Float](x *Tensor[T]) *Tensor[T] { return unary(OpLog, x, 0, 0) }

// Sqrt is √x elementwise.
func Sqrt[T Float](x *Tensor[T]) *Tensor[T] { return unary(OpSqrt, x, 0, 0) }

// Abs is |x| elementwise.
func Abs[T Float](x *Tensor[T]) *Tensor[T] { return unary(OpAbs, x, 0, 0) }

// Sign is −1, 0 or 1 elementwise.
func Sign[T Float](x *Tensor[T]) *Tensor[T] { return unary(OpSign, x, 0, 0) }

// Step is 1 where x > 0, else 0.
func Step[T Float](x *Tensor[T]) *Tensor[T] { return unary(OpStep, x, 0, 0) }

// Relu is max(x, 0).
func Relu[T Float](x *Tensor[T]) *Tensor[T] { return unary(OpRelu, x, 0, 0) }

// Sigmoid is 1/(1+e⁻ˣ).
func Sigmoid[T Float](x *Tensor[T]) *Tensor[T] { return unary(OpSigmoid, x, 0, 0) }

// Tanh is tanh x.
func Tanh[T Float](x *Tensor[T]) *Tensor[T] { return unary(OpTanh, x, 0, 0) }

// Lgamma is ln Γ(x) elementwise (x > 0).
func Lgamma[T Float](x *Tensor[T]) *Tensor[T] { return unary(OpLgamma, x, 0, 0) }

// Digamma is ψ(x) = d ln Γ(x)/dx elementwise (x > 0).
func Digamma[T Float](x *Tensor[T]) *Tensor[T] { return unary(OpDigamma, x, 0, 0) }

// PowScalar is xᵖ elementwise.
func PowScalar[T Float](x *Tensor[T], p T) *Tensor[T] { return unary(OpPowS, x, p, 0) }

// Affine is a·x + b elementwise.
func Affine[T Float](x *Tensor[T], a, b T) *Tensor[T] { return unary(OpAffine, x, a, b) }

// Scale is a·x.
func Scale[T Float](x *Tensor[T], a T) *Tensor[T] { return unary(OpAffine, x, a, 0) }

// AddScalar is x + b.
func AddScalar[T Float](x *Tensor[T], b T) *Tensor[T] { return unary(OpAffine, x, 1, b) }

// Clamp limits x to [lo, hi].
func Clamp[T Float](x *Tensor[T], lo, hi T) *Tensor[T] {
	if lo > hi {
		panic(argumentError("Clamp", "lo %v > hi %v", lo, hi))
	}
	return unary(OpClamp, x, lo, hi)
}

// Inside is 1 where lo < x < hi, else 0.
func Inside[T Float](x *Tensor[T], lo, hi T) *Tensor[T] { return unary(OpInside, x, lo, hi) }

// broadcast2 expands a and b to their common shape, naming op on failure.
func broadcast2[T Float](op string, a, b *Tensor[T]) (*Tensor[T], *Tensor[T], []int) {
	sameDevice(op, a, b)
	shape, err := BroadcastShapes(a.shape, b.shape)
	if err != nil {
		panic(shapeError(op, [][]int{a.shape, b.shape}, "%s", err.(*ShapeError).Detail))
	}
	return Expand(a, shape...), Expand(b, shape...), shape
}

func binary[T Float](op BinaryOp, name string, a, b *Tensor[T]) *Tensor[T] {
	a, b, shape := broadcast2(name, a, b)
	out := emptyOn(a.Device(), shape...)
	a.Device().Binary(op, out, a, b)
	return out
}

// Add is a + b with broadcasting.
func Add[T Float](a, b *Tensor[T]) *Tensor[T] { return binary(OpAdd, "Add", a, b) }

// Sub is a − b with broadcasting.
func Sub[T Float](a, b *Tensor[T]) *Tensor[T] { return binary(OpSub, "Sub", a, b) }

// Mul is a·b elementwise with broadcasting.
func Mul[T Float](a, b *Tensor[T]) *Tensor[T] { return binary(OpMul, "Mul", a, b) }

// Div is a/b elementwise with broadcasting.
func Div[T Float](a, b *Tensor[T]) *Tensor[T] { return binary(OpDiv, "Div", a, b) }

// Pow is aᵇ elementwise with broadcasting.
func Pow[T Float](a, b *Tensor[T]) *Tensor[T] { return binary(OpPow, "Pow", a, b) }

// Maximum is the elementwise max(a, b) with broadcasting.
func Maximum[T Float](a, b *Tensor[T]) *Tensor[T] { return binary(OpMax, "Maximum", a, b) }

// Minimum is the elementwise min(a, b) with broadcasting.
func Minimum[T Float](a, b *Tensor[T]) *Tensor[T] { return binary(OpMin, "Minimum", a, b) }

// Greater is 1 where a > b, else 0.
func Greater[T Float](a, b *Tensor[T]) *Tensor[T] { return binary(OpGreater, "Greater", a, b) }

// GreaterEqual is 1 where a ≥ b, else 0.
func GreaterEqual[T Float](a, b *Tensor[T]) *Tensor[T] {
	return binary(OpGreaterEqual, "GreaterEqual", a, b)
}

// Equal is 1 where a = b, else 0.
func Equal[T Float](a, b *Tensor[T]) *Tensor[T] { return binary(OpEqual, "Equal", a, b) }

// Where is x where cond ≠ 0, else y, with broadcasting of all three.
func Where[T Float](cond, x, y *Tensor[T]) *Tensor[T] {
	sameDevice("Where", cond, x, y)
	shape, err := BroadcastShapes(cond.shape, x.shape)
	if err == nil {
		shape, err = BroadcastShapes(shape, y.shape)
	}
	if err != nil {
		panic(shapeError("Where", [][]int{cond.shape, x.shape, y.shape}, "shapes %v, %v and %v do not broadcast", cond.shape, x.shape, y.shape))
	}
	out := emptyOn(x.Device(), shape...)
	x.Device().Where(out, Expand(cond, shape...), Expand(x, shape...), Expand(y, shape...))
	return out
}

// ReluGradKernel is ReluGrad's kernel: out[0] = in[0] where in[1] > 0, else
// 0, for inputs of out[0]'s shape with any strides (broadcasting views).
var ReluGradKernel = NewKernel[struct{}]("relu_grad")

// ReluGrad is g where x > 0, else 0 (with broadcasting): the gradient of
// Relu(x) given the gradient g of its result. Unlike g·Step(x), a non-finite
// g gives 0 where x ≤ 0, as in PyTorch. Devices without a ReluGradKernel
// body compute Where(Step(x), g, 0).
func ReluGrad[T Float](g, x *Tensor[T]) *Tensor[T] {
	gb, xb, shape := broadcast2("ReluGrad", g, x)
	dev := g.Device()
	body, ok := Lookup(ReluGradKernel, dev)
	if !ok {
		return reluGradComposed(g, x)
	}
	out := emptyOn(dev, shape...)
	body([]*Tensor[T]{out}, []*Tensor[T]{gb, xb}, struct{}{})
	return out
}

// reluGradComposed is ReluGrad from the Device primitives.
func reluGradComposed[T Float](g, x *Tensor[T]) *Tensor[T] {
	return Where(Step(x), g, ZerosOn(g.Device()))
}
