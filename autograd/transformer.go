package autograd

import "github.com/ecl-go/ecl/tensor"

// LayerNorm normalises each row of x [..., D] over its last axis with the
// row's mean and biased variance, then scales by gamma and shifts by beta
// [D], as one primitive (tensor.LayerNorm; PyTorch's nn.LayerNorm).
func LayerNorm[T tensor.Float](x, gamma, beta *Var[T], eps T) *Var[T] {
	y, mu, rstd := tensor.LayerNorm(x.Value, gamma.Value, beta.Value, eps)
	return record(opLayerNorm, y, gradLayerNorm(mu, rstd), x, gamma, beta)
}

// GELU is the exact Gaussian error linear unit x·Φ(x) (tensor.GELU;
// PyTorch's approximate='none').
func GELU[T tensor.Float](x *Var[T]) *Var[T] {
	return record(opGELU, tensor.GELU(x.Value), gradGELU[T], x)
}

// Attention is scaled dot-product attention softmax(q·kᵀ·scale)·v of
// queries q [..., N, Dh] over keys and values k, v [..., M, Dh], as one
// primitive (tensor.Attention: on the CPU by matrix products over tiles
// of queries, holding one tile's scores per core, forward and backward).
func Attention[T tensor.Float](q, k, v *Var[T], scale T) *Var[T] {
	o, lse := tensor.Attention(q.Value, k.Value, v.Value, scale)
	return record(opAttention, o, gradAttention(lse, scale), q, k, v)
}
