package autograd

import "github.com/ecl-go/ecl/tensor"

// MatMul is the (batched, broadcast) matrix product of a [..., M, K] and
// b [..., K, N].
func MatMul[T tensor.Float](a, b *Var[T]) *Var[T] {
	return record(opMatMul, tensor.MatMul(a.Value, b.Value), gradMatMul, a, b)
}
