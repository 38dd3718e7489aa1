package autograd

import "github.com/ecl-go/ecl/tensor"

// The gradient table: every primitive op, declared with def, and its
// backward rule beside it. A rule maps the gradient g = ∂L/∂y of the op's
// output y to one gradient per input x[i], of x[i]'s shape (nil where x[i]
// needs none); "↓" in a comment means summed over broadcast dimensions to
// the input's shape (tensor.SumTo). Rules that need the forward pass's
// arguments (an axis, a scalar, saved statistics) are built by a function of
// those arguments. The forward functions in the other files compute y and
// record it with its rule; composite ops (Sub, Mean, LogSumExp, …) have no
// rule here.

// rule is a primitive's backward rule, given the output gradient g, the
// output y and the inputs x.
type rule[T tensor.Float] func(g, y *tensor.Tensor[T], x []*Var[T]) []*tensor.Tensor[T]

// grads is a rule's result.
type grads[T tensor.Float] = []*tensor.Tensor[T]

// Arithmetic (arith.go).
var (
	opAdd       = def("add")
	opMul       = def("mul")
	opDiv       = def("div")
	opNeg       = def("neg")
	opAffine    = def("affine")
	opPow       = def("pow")
	opPowScalar = def("pow_scalar")
)

// add: y = a + b; ∂a = g↓, ∂b = g↓.
func gradAdd[T tensor.Float](g, _ *tensor.Tensor[T], x []*Var[T]) grads[T] {
	return grads[T]{tensor.SumTo(g, x[0].Value.Shape()...), tensor.SumTo(g, x[1].Value.Shape()...)}
}

// mul: y = a·b; ∂a = (g·b)↓, ∂b = (g·a)↓.
func gradMul[T tensor.Float](g, _ *tensor.Tensor[T], x []*Var[T]) grads[T] {
	a, b := x[0], x[1]
	var ga, gb *tensor.Tensor[T] // only for inputs that need them
	if a.requiresGrad {
		ga = tensor.SumTo(tensor.Mul(g, b.Value), a.Value.Shape()...)
	}
	if b.requiresGrad {
		gb = tensor.SumTo(tensor.Mul(g, a.Value), b.Value.Shape()...)
	}
	return grads[T]{ga, gb}
}

// div: y = a/b; ∂a = (g/b)↓, ∂b = (−(g/b)·y)↓.
func gradDiv[T tensor.Float](g, y *tensor.Tensor[T], x []*Var[T]) grads[T] {
	a, b := x[0], x[1]
	ga := tensor.Div(g, b.Value)
	var gb *tensor.Tensor[T]
	if b.requiresGrad {
		gb = tensor.SumTo(tensor.Neg(tensor.Mul(ga, y)), b.Value.Shape()...)
	}
	return grads[T]{tensor.SumTo(ga, a.Value.Shape()...), gb}
}

// neg: y = −x; ∂x = −g.
func gradNeg[T tensor.Float](g, _ *tensor.Tensor[T], _ []*Var[T]) grads[T] {
	return grads[T]{tensor.Neg(g)}
}

// affine: y = a·x + b; ∂x = a·g.
func gradAffine[T tensor.Float](a T) rule[T] {
	return func(g, _ *tensor.Tensor[T], _ []*Var[T]) grads[T] { return grads[T]{tensor.Scale(g, a)} }
}

// pow: y = aᵇ; ∂a = (g·b·aᵇ⁻¹)↓, ∂b = (g·y·ln a)↓.
func gradPow[T tensor.Float](g, y *tensor.Tensor[T], x []*Var[T]) grads[T] {
	a, b := x[0], x[1]
	gout := tensor.Mul(g, y)
	var gb *tensor.Tensor[T]
	if b.requiresGrad {
		gb = tensor.SumTo(tensor.Mul(gout, tensor.Log(a.Value)), b.Value.Shape()...)
	}
	return grads[T]{
		tensor.SumTo(tensor.Mul(tensor.Mul(g, b.Value), tensor.Pow(a.Value, tensor.AddScalar(b.Value, -1))), a.Value.Shape()...),
		gb,
	}
}

// pow_scalar: y = xᵖ; ∂x = g·p·xᵖ⁻¹.
func gradPowScalar[T tensor.Float](p T) rule[T] {
	return func(g, _ *tensor.Tensor[T], x []*Var[T]) grads[T] {
		return grads[T]{tensor.Mul(g, tensor.Scale(tensor.PowScalar(x[0].Value, p-1), p))}
	}
}

// Elementwise functions (unary.go).
var (
	opExp     = def("exp")
	opLog     = def("log")
	opSqrt    = def("sqrt")
	opAbs     = def("abs")
	opRelu    = def("relu")
	opSigmoid = def("sigmoid")
	opTanh    = def("tanh")
	opClamp   = def("clamp")
	opLgamma  = def("lgamma")
)

// exp: y = eˣ; ∂x = g·y.
func gradExp[T tensor.Float](g, y *tensor.Tensor[T], _ []*Var[T]) grads[T] {
	return grads[T]{tensor.Mul(g, y)}
}

// log: y = ln x; ∂x = g/x.
func gradLog[T tensor.Float](g, _ *tensor.Tensor[T], x []*Var[T]) grads[T] {
	return grads[T]{tensor.Div(g, x[0].Value)}
}

// sqrt: y = √x; ∂x = g/(2y).
func gradSqrt[T tensor.Float](g, y *tensor.Tensor[T], _ []*Var[T]) grads[T] {
	return grads[T]{tensor.Div(tensor.Scale(g, 0.5), y)}
}

// abs: y = |x|; ∂x = g·sign x (0 at 0).
func gradAbs[T tensor.Float](g, _ *tensor.Tensor[T], x []*Var[T]) grads[T] {
	return grads[T]{tensor.Mul(g, tensor.Sign(x[0].Value))}
}

// relu: y = max(x, 0); ∂x = g where x > 0, else 0.
func gradRelu[T tensor.Float](g, _ *tensor.Tensor[T], x []*Var[T]) grads[T] {
	return grads[T]{tensor.ReluGrad(g, x[0].Value)}
}

// sigmoid: y = σ(x); ∂x = g·y(1−y).
func gradSigmoid[T tensor.Float](g, y *tensor.Tensor[T], _ []*Var[T]) grads[T] {
	return grads[T]{tensor.Mul(g, tensor.Mul(y, tensor.Affine(y, -1, 1)))}
}

// tanh: y = tanh x; ∂x = g·(1−y²).
func gradTanh[T tensor.Float](g, y *tensor.Tensor[T], _ []*Var[T]) grads[T] {
	return grads[T]{tensor.Mul(g, tensor.Affine(tensor.Mul(y, y), -1, 1))}
}

// clamp: y = min(max(x, lo), hi); ∂x = g where lo ≤ x ≤ hi, else 0.
func gradClamp[T tensor.Float](lo, hi T) rule[T] {
	return func(g, _ *tensor.Tensor[T], x []*Var[T]) grads[T] {
		return grads[T]{tensor.Mul(g, tensor.Inside(x[0].Value, lo, hi))}
	}
}

// lgamma: y = ln Γ(x); ∂x = g·ψ(x).
func gradLgamma[T tensor.Float](g, _ *tensor.Tensor[T], x []*Var[T]) grads[T] {
	return grads[T]{tensor.Mul(g, tensor.Digamma(x[0].Value))}
}

// Reductions (reduce.go).
var (
	opSum = def("sum")
	opMax = def("max")
	opMin = def("min")
)

// sum: y = Σ x along axis; ∂x = g broadcast back along axis.
func gradSum[T tensor.Float](axis int) rule[T] {
	return func(g, _ *tensor.Tensor[T], x []*Var[T]) grads[T] {
		shape := x[0].Value.Shape()
		return grads[T]{tensor.Expand(keptDims(g, shape, axis), shape...)}
	}
}

// max, min: y = x at the extreme index arg along axis; ∂x = g at the first
// extreme element, 0 elsewhere.
func gradExtreme[T tensor.Float](arg *tensor.Tensor[T], axis int) rule[T] {
	return func(g, _ *tensor.Tensor[T], x []*Var[T]) grads[T] {
		shape := x[0].Value.Shape()
		return grads[T]{tensor.ExtremeGrad(keptDims(g, shape, axis), arg, axis, shape...)}
	}
}

// keptDims restores the reduced axis (size 1) of g when it was squeezed.
func keptDims[T tensor.Float](g *tensor.Tensor[T], shape []int, axis int) *tensor.Tensor[T] {
	if axis < 0 {
		axis += len(shape)
	}
	if g.Dims() == len(shape) {
		return g
	}
	return tensor.Unsqueeze(g, axis)
}

// Softmax (softmax.go).
var (
	opLogSoftmax = def("log_softmax")
	opSoftmax    = def("softmax")
)

// log_softmax: y = x − log Σ exp(x) along axis; ∂x = g − softmax(x)·Σ g
// (tensor.LogSoftmaxBackward, which recomputes the softmax from x).
func gradLogSoftmax[T tensor.Float](axis int) rule[T] {
	return func(g, _ *tensor.Tensor[T], x []*Var[T]) grads[T] {
		return grads[T]{tensor.LogSoftmaxBackward(g, x[0].Value, axis)}
	}
}

// softmax: y = exp(x)/Σ exp(x) along axis; ∂x = y·(g − Σ g·y)
// (tensor.SoftmaxBackward, from the output).
func gradSoftmax[T tensor.Float](axis int) rule[T] {
	return func(g, y *tensor.Tensor[T], _ []*Var[T]) grads[T] {
		return grads[T]{tensor.SoftmaxBackward(g, y, axis)}
	}
}

// Shapes (shape.go).
var (
	opReshape = def("reshape")
	opPermute = def("permute")
	opNarrow  = def("narrow")
	opExpand  = def("expand")
	opConcat  = def("concat")
)

// reshape: ∂x = g in x's shape.
func gradReshape[T tensor.Float](g, _ *tensor.Tensor[T], x []*Var[T]) grads[T] {
	return grads[T]{tensor.Reshape(g, x[0].Value.Shape()...)}
}

// permute: dimension d of y is axes[d] of x; ∂x = g under the inverse
// permutation.
func gradPermute[T tensor.Float](axes []int) rule[T] {
	return func(g, _ *tensor.Tensor[T], _ []*Var[T]) grads[T] {
		inv := make([]int, len(axes))
		for d, a := range axes {
			if a < 0 {
				a += len(axes)
			}
			inv[a] = d
		}
		return grads[T]{tensor.Permute(g, inv...)}
	}
}

// narrow: y = x[start : start+length] along axis; ∂x = g there, 0 elsewhere.
func gradNarrow[T tensor.Float](axis, start, length int) rule[T] {
	return func(g, _ *tensor.Tensor[T], x []*Var[T]) grads[T] {
		dx := tensor.ZerosOn(g.Device(), x[0].Value.Shape()...)
		tensor.CopyInto(tensor.Narrow(dx, axis, start, length), g)
		return grads[T]{dx}
	}
}

// expand: y = x broadcast; ∂x = g↓.
func gradExpand[T tensor.Float](g, _ *tensor.Tensor[T], x []*Var[T]) grads[T] {
	return grads[T]{tensor.SumTo(g, x[0].Value.Shape()...)}
}

// concat: y = [x₀, x₁, …] along axis; ∂xᵢ = g's slice of xᵢ.
func gradConcat[T tensor.Float](axis int) rule[T] {
	return func(g, _ *tensor.Tensor[T], x []*Var[T]) grads[T] {
		out := make(grads[T], len(x))
		at := 0
		for i, v := range x {
			n := v.Value.Dim(axis)
			out[i] = tensor.Narrow(g, axis, at, n)
			at += n
		}
		return out
	}
}

// Indexing (index.go).
var (
	opGather = def("gather")
	opWhere  = def("where")
)

// gather: y = x[…, idx, …] along axis; ∂x = g scattered back, added at
// repeated indices.
func gradGather[T tensor.Float](axis int, idx []int) rule[T] {
	return func(g, _ *tensor.Tensor[T], x []*Var[T]) grads[T] {
		return grads[T]{tensor.ScatterAdd(g, axis, idx, x[0].Value.Shape()...)}
	}
}

// where: y = cond ? a : b; ∂a = (g where cond)↓, ∂b = (g where not cond)↓.
func gradWhere[T tensor.Float](cond *tensor.Tensor[T]) rule[T] {
	return func(g, _ *tensor.Tensor[T], x []*Var[T]) grads[T] {
		zero := tensor.ZerosOn(g.Device())
		return grads[T]{
			tensor.SumTo(tensor.Where(cond, g, zero), x[0].Value.Shape()...),
			tensor.SumTo(tensor.Where(cond, zero, g), x[1].Value.Shape()...),
		}
	}
}

// Linear algebra (linalg.go).
var opMatMul = def("mat_mul")

// mat_mul: y = a·b; ∂a = (g·bᵀ)↓, ∂b = (aᵀ·g)↓ over batch dimensions.
func gradMatMul[T tensor.Float](g, _ *tensor.Tensor[T], x []*Var[T]) grads[T] {
	a, b := x[0], x[1]
	var ga, gb *tensor.Tensor[T] // only for inputs that need them
	if a.requiresGrad {
		ga = tensor.SumTo(tensor.MatMul(g, tensor.Transpose(b.Value, -1, -2)), a.Value.Shape()...)
	}
	if b.requiresGrad {
		gb = tensor.SumTo(tensor.MatMul(tensor.Transpose(a.Value, -1, -2), g), b.Value.Shape()...)
	}
	return grads[T]{ga, gb}
}

// Convolution and pooling (conv.go).
var (
	opConv2D       = def("conv2d")
	opConv2DBias   = def("conv2d_bias")
	opConv2DAffine = def("conv2d_affine")
	opMaxPool2D    = def("max_pool2d")
	opAvgPool2D    = def("avg_pool2d")
)

// conv2d: y = x ⋆ w; ∂x = g ⋆ᵀ w (transposed convolution), ∂w = x ⋆ g
// (tensor.Conv2DBackward).
func gradConv2D[T tensor.Float](p tensor.Conv2DParams) rule[T] {
	return func(g, _ *tensor.Tensor[T], x []*Var[T]) grads[T] { return convGrads(g, x[0], x[1], p) }
}

// conv2d_bias: y = x ⋆ w + b; ∂x, ∂w as conv2d, ∂b = Σ g over N, OH, OW.
func gradConv2DBias[T tensor.Float](p tensor.Conv2DParams) rule[T] {
	return func(g, _ *tensor.Tensor[T], x []*Var[T]) grads[T] {
		var db *tensor.Tensor[T]
		if x[2].requiresGrad {
			db = tensor.Conv2DBiasBackward(g)
		}
		return append(convGrads(g, x[0], x[1], p), db)
	}
}

// conv2d_affine: y = relu?(z·a + b + r), z = x ⋆ w; the channel_affine rule
// for z (kept by the forward where a requires its gradient, else nil),
// then the conv2d rule for ∂z.
func gradConv2DAffine[T tensor.Float](p tensor.Conv2DParams, z *tensor.Tensor[T], relu bool) rule[T] {
	return func(g, y *tensor.Tensor[T], x []*Var[T]) grads[T] {
		a := affineGrads(g, y, z, x[2].Value, relu, len(x) == 5)
		return append(convGrads(a[0], x[0], x[1], p), a[1:]...)
	}
}

// convGrads is the gradients of x and w, where they require them, for the
// output gradient g.
func convGrads[T tensor.Float](g *tensor.Tensor[T], x, w *Var[T], p tensor.Conv2DParams) grads[T] {
	var dx, dw *tensor.Tensor[T]
	if x.requiresGrad && w.requiresGrad {
		dx, dw = tensor.Conv2DBackward(x.Value, g, w.Value, p)
		return grads[T]{dx, dw}
	}
	if x.requiresGrad {
		dx = tensor.Conv2DBackwardInput(g, w.Value, p)
	}
	if w.requiresGrad {
		dw = tensor.Conv2DBackwardWeight(x.Value, g, p)
	}
	return grads[T]{dx, dw}
}

// max_pool2d: y = max of each window; ∂x = g routed to each window's maximum.
func gradMaxPool2D[T tensor.Float](p tensor.Pool2DParams) rule[T] {
	return func(g, _ *tensor.Tensor[T], x []*Var[T]) grads[T] {
		return grads[T]{tensor.MaxPool2DBackward(x[0].Value, g, p)}
	}
}

// avg_pool2d: y = mean of each window; ∂x = g/(kh·kw) spread over its window.
func gradAvgPool2D[T tensor.Float](p tensor.Pool2DParams) rule[T] {
	return func(g, _ *tensor.Tensor[T], _ []*Var[T]) grads[T] {
		return grads[T]{tensor.AvgPool2DBackward(g, p)}
	}
}

// Normalisation (norm.go, densenet.go).
var (
	opBatchNorm     = def("batch_norm")
	opBatchNormRelu = def("batch_norm_relu")
	opChannelAffine = def("channel_affine")
	opDenseBlock    = def("dense_block")
)

// batch_norm: y = γ·x̂ + β with x̂ = (x − μ)/√(σ² + ε) per channel;
// ∂γ = Σ g·x̂, ∂β = Σ g, ∂x = γ/√(σ² + ε)·(g − mean g − x̂·mean(g·x̂))
// (tensor.BatchNormBackward), from the batch statistics mu, va.
func gradBatchNorm[T tensor.Float](mu, va *tensor.Tensor[T], eps T) rule[T] {
	return func(g, _ *tensor.Tensor[T], x []*Var[T]) grads[T] {
		dx, dgamma, dbeta := tensor.BatchNormBackward(g, x[0].Value, x[1].Value, mu, va, eps)
		return grads[T]{dx, dgamma, dbeta}
	}
}

// batch_norm_relu: y = relu(batch_norm(x) + r); the batch_norm rule on g·[y > 0],
// and ∂r = g·[y > 0] when r (a fourth input) requires it
// (tensor.BatchNormReluBackward).
func gradBatchNormRelu[T tensor.Float](mu, va *tensor.Tensor[T], eps T) rule[T] {
	return func(g, y *tensor.Tensor[T], x []*Var[T]) grads[T] {
		dx, dgamma, dbeta, dr := tensor.BatchNormReluBackward(g, y, x[0].Value, x[1].Value, mu, va, eps, len(x) == 4 && x[3].requiresGrad)
		return grads[T]{dx, dgamma, dbeta, dr}[:len(x)]
	}
}

// channel_affine: y = relu?(x·a + b + r) per channel; with g' = g·[y > 0]
// under the ReLU (g without it), ∂x = g'·a, ∂a = Σ g'·x and ∂b = Σ g' over
// every axis but the channel's, ∂r = g'.
func gradChannelAffine[T tensor.Float](relu bool) rule[T] {
	return func(g, y *tensor.Tensor[T], x []*Var[T]) grads[T] {
		return affineGrads(g, y, x[0].Value, x[1].Value, relu, len(x) == 4)
	}
}

// affineGrads is the channel_affine rule for the output y = relu?(z·a + b
// + r) and its gradient g: ∂z, ∂a (nil for a nil z), ∂b, and ∂r where
// withR.
func affineGrads[T tensor.Float](g, y, z, a *tensor.Tensor[T], relu, withR bool) grads[T] {
	if relu {
		g = tensor.ReluGrad(g, y)
	}
	n, c := y.Dim(0), y.Dim(1)
	per := func(t *tensor.Tensor[T]) *tensor.Tensor[T] { // the sum over all but the channel axis
		return tensor.Reshape(tensor.Sum(tensor.Sum(tensor.Reshape(tensor.Contiguous(t), n, c, -1), 2, false), 0, false), c)
	}
	bc := make([]int, y.Dims())
	for i := range bc {
		bc[i] = 1
	}
	bc[1] = c
	var da *tensor.Tensor[T]
	if z != nil {
		da = per(tensor.Mul(g, z))
	}
	out := grads[T]{tensor.Mul(g, tensor.Reshape(a, bc...)), da, per(g)}
	if withR {
		out = append(out, g)
	}
	return out
}

// dense_block: the layers of a dense block; ∂x and each unit's parameters'
// gradients, the units' batch norms and ReLUs recomputed from st
// (tensor.DenseBlockBackward).
func gradDenseBlock[T tensor.Float](st *tensor.DenseBlockState[T]) rule[T] {
	return func(g, _ *tensor.Tensor[T], _ []*Var[T]) grads[T] {
		dx, units := tensor.DenseBlockBackward(g, st)
		out := grads[T]{dx}
		for _, d := range units {
			out = append(out, d.Params()...)
		}
		return out
	}
}

// Soft binning of the ECL loss (softbin.go).
var (
	opSoftAssign    = def("soft_assign")
	opBinStats      = def("bin_stats")
	opSoftBinStats  = def("soft_bin_stats")
	opTopLabelStats = def("top_label_stats")
)

// soft_assign: y = ω = softmax over anchors of −‖x − a‖²/τ; ∂x from
// g and ω (tensor.SoftAssignBackward).
func gradSoftAssign[T tensor.Float](sb tensor.SoftBins) rule[T] {
	return func(g, y *tensor.Tensor[T], x []*Var[T]) grads[T] {
		return grads[T]{tensor.SoftAssignBackward(g, y, x[0].Value, sb)}
	}
}

// bin_stats: y = per bin [Σω, Σω·p, Σω·‖p‖²]; ∂ω and ∂p, linear in g
// (tensor.BinStatsBackward).
func gradBinStats[T tensor.Float](g, _ *tensor.Tensor[T], x []*Var[T]) grads[T] {
	dw, dp := tensor.BinStatsBackward(g, x[0].Value, x[1].Value)
	return grads[T]{dw, dp}
}

// soft_bin_stats: y = bin_stats(soft_assign(x), p); the two rules chained,
// ω recomputed sample by sample (tensor.SoftBinStatsBackward).
func gradSoftBinStats[T tensor.Float](sb tensor.SoftBins) rule[T] {
	return func(g, _ *tensor.Tensor[T], x []*Var[T]) grads[T] {
		dx, dp := tensor.SoftBinStatsBackward(g, x[0].Value, x[1].Value, sb)
		return grads[T]{dx, dp}
	}
}

// top_label_stats: y = soft_bin_stats(max_k s, p); ∂s only at each row's
// first maximum, from the saved maxima top and their indices idx, s having
// k columns (tensor.TopLabelStatsBackward).
func gradTopLabelStats[T tensor.Float](sb tensor.SoftBins, top, idx *tensor.Tensor[T], k int) rule[T] {
	return func(g, _ *tensor.Tensor[T], x []*Var[T]) grads[T] {
		ds, dp := tensor.TopLabelStatsBackward(g, top, idx, x[1].Value, k, sb)
		return grads[T]{ds, dp}
	}
}

// Transformer blocks (transformer.go).
var (
	opLayerNorm = def("layer_norm")
	opGELU      = def("gelu")
	opAttention = def("attention")
)

// layer_norm: y = γ·x̂ + β with x̂ = (x − μ)·r, r = 1/√(var + ε) per row
// of the last axis; ∂γ = Σ g·x̂, ∂β = Σ g over the rows,
// ∂x = r·(g·γ − mean(g·γ) − x̂·mean(g·γ·x̂)) (tensor.LayerNormBackward),
// from the saved mu and rstd.
func gradLayerNorm[T tensor.Float](mu, rstd *tensor.Tensor[T]) rule[T] {
	return func(g, _ *tensor.Tensor[T], x []*Var[T]) grads[T] {
		dx, dgamma, dbeta := tensor.LayerNormBackward(g, x[0].Value, x[1].Value, mu, rstd)
		return grads[T]{dx, dgamma, dbeta}
	}
}

// gelu: y = x·Φ(x); ∂x = g·(Φ(x) + x·φ(x)) (tensor.GELUBackward).
func gradGELU[T tensor.Float](g, _ *tensor.Tensor[T], x []*Var[T]) grads[T] {
	return grads[T]{tensor.GELUBackward(g, x[0].Value)}
}

// attention: y = softmax(q·kᵀ·s)·v = p·v; ∂v = pᵀ·g, ∂q = s·ds·k,
// ∂k = s·dsᵀ·q with ds = p·(g·vᵀ − rowsum(g·y)), p recomputed from the
// saved log-sum-exp lse (tensor.AttentionBackward).
func gradAttention[T tensor.Float](lse *tensor.Tensor[T], scale T) rule[T] {
	return func(g, y *tensor.Tensor[T], x []*Var[T]) grads[T] {
		dq, dk, dv := tensor.AttentionBackward(g, x[0].Value, x[1].Value, x[2].Value, y, lse, scale)
		return grads[T]{dq, dk, dv}
	}
}
