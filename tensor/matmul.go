package tensor

import (
	"slices"
)

// MatMul is the matrix product of the last two dimensions of a [..., M, K]
// and b [..., K, N], with the leading (batch) dimensions broadcast; a 1-D
// operand is not accepted (use Reshape). Transposed views are passed to BLAS
// without copying.
func MatMul[T Float](a, b *Tensor[T]) *Tensor[T] {
	sameDevice("MatMul", a, b)
	if a.Dims() < 2 || b.Dims() < 2 || a.shape[a.Dims()-1] != b.shape[b.Dims()-2] {
		panic(shapeError("MatMul", [][]int{a.shape, b.shape}, "shapes %v and %v do not multiply", a.shape, b.shape))
	}
	m, k, n := a.shape[a.Dims()-2], a.shape[a.Dims()-1], b.shape[b.Dims()-1]
	batch, err := BroadcastShapes(a.shape[:a.Dims()-2], b.shape[:b.Dims()-2])
	if err != nil {
		panic(shapeError("MatMul", [][]int{a.shape, b.shape}, "batch dimensions of %v and %v: %s", a.shape, b.shape, err.(*ShapeError).Detail))
	}
	nb := numel(batch)
	a3 := Reshape(Expand(a, append(slices.Clone(batch), m, k)...), nb, m, k)
	b3 := Reshape(Expand(b, append(slices.Clone(batch), k, n)...), nb, k, n)
	out := newDense(a.Device(), k > 0, []int{nb, m, n}) // zeroed when k = 0: the product is zero
	if nb*m*n > 0 {
		a.Device().MatMul(out, a3, b3)
	}
	return Reshape(out, append(batch, m, n)...)
}

// MatMulTo writes the product of the 2-D a [M, K] and b [K, N] into out, a
// contiguous [M, N] tensor on their device, and returns it: MatMul without
// allocating the result, for a loop that multiplies again and again into
// the same buffer. Transposed views of a and b are passed to BLAS as in
// MatMul; out must not overlap them.
func MatMulTo[T Float](out, a, b *Tensor[T]) *Tensor[T] {
	sameDevice("MatMulTo", a, b)
	sameDevice("MatMulTo", out, a)
	if a.Dims() != 2 || b.Dims() != 2 || out.Dims() != 2 || a.shape[1] != b.shape[0] || out.shape[0] != a.shape[0] || out.shape[1] != b.shape[1] {
		panic(shapeError("MatMulTo", [][]int{out.shape, a.shape, b.shape}, "out %v for the product of %v and %v, want 2-D [M, K]·[K, N] into [M, N]", out.shape, a.shape, b.shape))
	}
	if !out.IsContiguous() {
		panic(shapeError("MatMulTo", [][]int{out.shape}, "out is a non-contiguous view (strides %v)", out.strides))
	}
	m, k, n := a.shape[0], a.shape[1], b.shape[1]
	switch {
	case m*n == 0:
	case k == 0: // the product is zero
		CopyInto(out, ZerosOn(out.Device(), m, n))
	default:
		a.Device().MatMul(Reshape(out, 1, m, n), Reshape(a, 1, m, k), Reshape(b, 1, k, n))
	}
	return out
}
