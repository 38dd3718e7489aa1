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
