package autograd

import "github.com/ecl-go/ecl/tensor"

var opMatMul = def("matmul")

// MatMul is the (batched, broadcast) matrix product of a [..., M, K] and
// b [..., K, N].
func MatMul[T tensor.Float](a, b *Var[T]) *Var[T] {
	return record(opMatMul, tensor.MatMul(a.Value, b.Value), func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		var ga, gb *tensor.Tensor[T] // only for inputs that need them
		if a.requiresGrad {
			ga = tensor.SumTo(tensor.MatMul(g, tensor.Transpose(b.Value, -1, -2)), a.Value.Shape()...)
		}
		if b.requiresGrad {
			gb = tensor.SumTo(tensor.MatMul(tensor.Transpose(a.Value, -1, -2), g), b.Value.Shape()...)
		}
		return []*tensor.Tensor[T]{ga, gb}
	}, a, b)
}
