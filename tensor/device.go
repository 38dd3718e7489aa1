package tensor

// Buffer is a device's storage of Len elements.
type Buffer[T Float] interface {
	Device() Device[T]
	Len() int
}

// UnaryOp selects an elementwise function of one operand and up to two scalar
// parameters a, b.
type UnaryOp int

// The unary primitives.
const (
	OpNeg     UnaryOp = iota // −x
	OpExp                    // eˣ
	OpLog                    // ln x
	OpSqrt                   // √x
	OpAbs                    // |x|
	OpSign                   // −1, 0 or 1
	OpStep                   // 1 if x > 0, else 0
	OpRelu                   // max(x, 0); NaN stays NaN
	OpSigmoid                // 1/(1+e⁻ˣ), computed without overflow
	OpTanh                   // tanh x
	OpPowS                   // xᵃ
	OpAffine                 // a·x + b
	OpClamp                  // min(max(x, a), b)
	OpInside                 // 1 if a < x < b, else 0
	OpLgamma                 // ln Γ(x) for x > 0
	OpDigamma                // ψ(x) = d ln Γ(x)/dx for x > 0
)

// BinaryOp selects an elementwise function of two operands.
type BinaryOp int

// The binary primitives. Comparisons give 1 or 0.
const (
	OpAdd BinaryOp = iota
	OpSub
	OpMul
	OpDiv
	OpPow
	OpMax
	OpMin
	OpGreater
	OpGreaterEqual
	OpEqual
)

// ReduceOp selects a reduction along one axis.
type ReduceOp int

// The reductions. ArgMax and ArgMin give the index of the first extreme
// element, as a value of the element type.
const (
	OpSum ReduceOp = iota
	OpMaxR
	OpMinR
	OpArgMax
	OpArgMin
)

// Device is the set of primitives a backend implements. The tensor package
// checks shapes and devices, allocates destinations (contiguous, on the same
// device) and computes broadcast views before calling these methods, so
// implementations can assume well-formed arguments:
//   - dst tensors are contiguous unless stated otherwise;
//   - Binary and Where operands already have dst's shape (broadcast by
//     stride-0 views) and may be any strided view;
//   - Reduce, ScatterAdd, the convolution and pooling kernels receive
//     contiguous inputs (Gather's x may be strided);
//   - index slices are in range.
//
// CPU is the reference implementation; every other backend is tested against it.
type Device[T Float] interface {
	String() string

	// Alloc returns a zeroed buffer of n elements.
	Alloc(n int) Buffer[T]
	// Empty returns a buffer of n elements of unspecified contents, for the
	// destination of an op that writes every element (a GPU then skips
	// zeroing it).
	Empty(n int) Buffer[T]
	// Upload copies host data into a new buffer.
	Upload(src []T) Buffer[T]
	// Download copies the elements of src, in row-major order, to dst.
	Download(dst []T, src *Tensor[T])
	// Fill sets every element of the (possibly strided) view dst to v.
	Fill(dst *Tensor[T], v T)
	// Copy copies src into the (possibly strided) view dst of the same shape.
	Copy(dst, src *Tensor[T])

	Unary(op UnaryOp, dst, x *Tensor[T], a, b T)
	Binary(op BinaryOp, dst, x, y *Tensor[T])
	// Where sets dst = x where cond ≠ 0, else y.
	Where(dst, cond, x, y *Tensor[T])
	// Reduce reduces x along axis into dst, which has x's shape with that
	// axis of size 1.
	Reduce(op ReduceOp, dst, x *Tensor[T], axis int)

	// MatMul computes dst[b] = a[b]·b[b] for 3-D a [B,M,K], b [B,K,N] and
	// dst [B,M,N]. a and b may be views with any strides (a batch stride of
	// 0 broadcasts one matrix; transposed views are common).
	MatMul(dst, a, b *Tensor[T])

	Conv2D(y, x, w *Tensor[T], p Conv2DParams)
	Conv2DBackwardInput(dx, dy, w *Tensor[T], p Conv2DParams)
	Conv2DBackwardWeight(dw, x, dy *Tensor[T], p Conv2DParams)
	MaxPool2D(y, x *Tensor[T], p Pool2DParams)
	MaxPool2DBackward(dx, x, dy *Tensor[T], p Pool2DParams)
	AvgPool2D(y, x *Tensor[T], p Pool2DParams)
	AvgPool2DBackward(dx, dy *Tensor[T], p Pool2DParams)

	// Gather sets dst[i…, j, k…] = x[i…, idx[i…,j,k…], k…] along axis; idx
	// holds one index per element of dst, row-major.
	Gather(dst, x *Tensor[T], axis int, idx []int)
	// ScatterAdd adds src[i…, j, k…] into dst[i…, idx[i…,j,k…], k…] along
	// axis; idx holds one index per element of src, row-major.
	ScatterAdd(dst, src *Tensor[T], axis int, idx []int)
}
