package autograd

import "github.com/ecl-go/ecl/tensor"

var opMatMul = def("matmul")

// MatMul is the (batched, broadcast) matrix product of a [..., M, K] and
// b [..., K, N].
func MatMul[T tensor.Float](a, b *Var[T]) *Var[T] {
	return record(opMatMul, tensor.MatMul(a.Value, b.Value), func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		return []*tensor.Tensor[T]{
			tensor.SumTo(tensor.MatMul(g, tensor.Transpose(b.Value, -1, -2)), a.Value.Shape()...),
			tensor.SumTo(tensor.MatMul(tensor.Transpose(a.Value, -1, -2), g), b.Value.Shape()...),
		}
	}, a, b)
}
