package tensor

import (
	"math"
	"slices"
)

// The fused kernels of a transformer block: layer normalisation, the exact
// (erf) GELU and scaled dot-product attention. Each has a CPU body (loops
// over host slices, rows split over cores, sums in float64) and a version
// for devices without a body: composed of tensor ops for layer norm and
// attention (also the CPU bodies' tested reference), a round trip through
// the CPU for GELU, whose erf no elementwise op computes.

// LayerNormKernel reads x [R, D], γ, β [D] and writes y [R, D], μ and
// 1/σ [R] (σ = √(var + ε), the variance biased); LayerNormBackwardKernel
// reads dy, x, γ, μ, 1/σ and writes dx, dγ, dβ. The attribute is ε.
// GELUKernel reads x and writes y; GELUBackwardKernel reads dy, x and
// writes dx. AttentionKernel reads q, k, v [BH, N, Dh] (the batch and
// head axes flattened) and writes o [BH, N, Dh] and the row log-sum-exp
// lse [BH, N]; AttentionBackwardKernel reads do, q, k, v, o, lse and
// writes dq, dk, dv. The attribute is the scale of the scores.
var (
	LayerNormKernel         = NewKernel[float64]("layer_norm")
	LayerNormBackwardKernel = NewKernel[float64]("layer_norm_backward")
	GELUKernel              = NewKernel[struct{}]("gelu")
	GELUBackwardKernel      = NewKernel[struct{}]("gelu_backward")
	AttentionKernel         = NewKernel[float64]("attention")
	AttentionBackwardKernel = NewKernel[float64]("attention_backward")
)

func init() {
	registerCPU(LayerNormKernel, layerNormCPU[float32], layerNormCPU[float64])
	registerCPU(LayerNormBackwardKernel, layerNormBackwardCPU[float32], layerNormBackwardCPU[float64])
	registerCPU(GELUKernel, geluCPU[float32], geluCPU[float64])
	registerCPU(GELUBackwardKernel, geluBackwardCPU[float32], geluBackwardCPU[float64])
	registerCPU(AttentionKernel, attentionCPU[float32], attentionCPU[float64])
	registerCPU(AttentionBackwardKernel, attentionBackwardCPU[float32], attentionBackwardCPU[float64])
}

// lnShape checks x [..., D] against γ and β [D] and returns the number of
// rows and D.
func lnShape[T Float](op string, x, gamma, beta *Tensor[T]) (rows, d int) {
	sh := x.Shape()
	if len(sh) < 1 || gamma.Dims() != 1 || beta.Dims() != 1 || gamma.Dim(0) != sh[len(sh)-1] || beta.Dim(0) != sh[len(sh)-1] {
		panic(shapeError(op, [][]int{sh, gamma.Shape(), beta.Shape()}, "input %v with scale %v and shift %v, want [..., D] and [D]", sh, gamma.Shape(), beta.Shape()))
	}
	sameDevice(op, x, gamma, beta)
	d = sh[len(sh)-1]
	if d == 0 {
		return 0, 0
	}
	return x.Len() / d, d
}

// LayerNorm normalises each row of x [..., D] (its last axis) with the
// row's mean μ and biased variance, then scales and shifts: y = γ·(x −
// μ)/√(var + ε) + β, γ and β [D]. It returns y and, for the backward
// pass, μ and 1/√(var + ε) (of x's shape without the last axis).
func LayerNorm[T Float](x, gamma, beta *Tensor[T], eps T) (y, mean, rstd *Tensor[T]) {
	rows, _ := lnShape("LayerNorm", x, gamma, beta)
	if eps <= 0 {
		panic(argumentError("LayerNorm", "ε = %v, want > 0", eps))
	}
	sh := x.Shape()
	dev := x.Device()
	body, ok := Lookup(LayerNormKernel, dev)
	if !ok || rows == 0 {
		return layerNormComposed(x, gamma, beta, eps)
	}
	y, mean, rstd = outputOn(dev, sh...), outputOn(dev, sh[:len(sh)-1]...), outputOn(dev, sh[:len(sh)-1]...)
	body([]*Tensor[T]{y, mean, rstd}, []*Tensor[T]{Contiguous(x), Contiguous(gamma), Contiguous(beta)}, float64(eps))
	return y, mean, rstd
}

// LayerNormBackward is the gradient of LayerNorm at x for the output
// gradient dy, from the μ and 1/σ it returned: with x̂ = (x − μ)/σ and
// g = dy·γ, dx = (g − mean(g) − x̂·mean(g·x̂))/σ per row, dγ = Σ dy·x̂ and
// dβ = Σ dy over the rows.
func LayerNormBackward[T Float](dy, x, gamma, mean, rstd *Tensor[T]) (dx, dgamma, dbeta *Tensor[T]) {
	rows, d := lnShape("LayerNormBackward", x, gamma, gamma)
	sh := x.Shape()
	sameShape("LayerNormBackward", sh, dy)
	sameShape("LayerNormBackward", sh[:len(sh)-1], mean, rstd)
	dev := x.Device()
	body, ok := Lookup(LayerNormBackwardKernel, dev)
	if !ok || rows == 0 {
		return layerNormBackwardComposed(dy, x, gamma, mean, rstd)
	}
	dx, dgamma, dbeta = outputOn(dev, sh...), outputOn(dev, d), outputOn(dev, d)
	body([]*Tensor[T]{dx, dgamma, dbeta}, []*Tensor[T]{Contiguous(dy), Contiguous(x), Contiguous(gamma), Contiguous(mean), Contiguous(rstd)}, 0)
	return dx, dgamma, dbeta
}

// layerNormComposed is LayerNorm in tensor ops.
func layerNormComposed[T Float](x, gamma, beta *Tensor[T], eps T) (y, mean, rstd *Tensor[T]) {
	mu := Mean(x, -1, true)
	xc := Sub(x, mu)
	r := Div(FullOn[T](x.Device(), 1), Sqrt(AddScalar(Mean(Mul(xc, xc), -1, true), eps)))
	y = Add(Mul(Mul(xc, r), gamma), beta)
	return y, Squeeze(mu, -1), Squeeze(r, -1)
}

// layerNormBackwardComposed is LayerNormBackward in tensor ops.
func layerNormBackwardComposed[T Float](dy, x, gamma, mean, rstd *Tensor[T]) (dx, dgamma, dbeta *Tensor[T]) {
	d := x.Dim(-1)
	r := Unsqueeze(rstd, -1)
	xh := Mul(Sub(x, Unsqueeze(mean, -1)), r)
	g := Mul(dy, gamma)
	dx = Mul(Sub(Sub(g, Mean(g, -1, true)), Mul(xh, Mean(Mul(g, xh), -1, true))), r)
	flat := func(t *Tensor[T]) *Tensor[T] { return Reshape(Contiguous(t), -1, d) }
	return dx, Sum(flat(Mul(dy, xh)), 0, false), Sum(flat(dy), 0, false)
}

// layerNormCPU is LayerNorm's CPU body: each row's mean and variance in
// float64 (two passes), then its affine map.
func layerNormCPU[T Float](out, in []*Tensor[T], eps float64) {
	rows, d := lnShape("LayerNorm", in[0], in[1], in[2])
	xs, gs, bs := HostData(in[0]), HostData(in[1]), HostData(in[2])
	ys, ms, rs := HostData(out[0]), HostData(out[1]), HostData(out[2])
	parallelFor(rows, 4*d, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			x, y := xs[i*d:(i+1)*d], ys[i*d:(i+1)*d]
			var s float64
			for _, v := range x {
				s += float64(v)
			}
			mu := s / float64(d)
			var q float64
			for _, v := range x {
				c := float64(v) - mu
				q += c * c
			}
			r := 1 / math.Sqrt(q/float64(d)+eps)
			for j, v := range x {
				y[j] = T((float64(v)-mu)*r*float64(gs[j]) + float64(bs[j]))
			}
			ms[i], rs[i] = T(mu), T(r)
		}
	})
}

// layerNormBackwardCPU is LayerNormBackward's CPU body: dx row by row, then
// dγ and dβ column by column (each column's sum over the rows in row
// order, so the result does not depend on the number of cores).
func layerNormBackwardCPU[T Float](out, in []*Tensor[T], _ float64) {
	dys, xs, gs, ms, rs := HostData(in[0]), HostData(in[1]), HostData(in[2]), HostData(in[3]), HostData(in[4])
	dxs, dgs, dbs := HostData(out[0]), HostData(out[1]), HostData(out[2])
	d := len(gs)
	rows := len(xs) / d
	parallelFor(rows, 6*d, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			dy, x, dx := dys[i*d:(i+1)*d], xs[i*d:(i+1)*d], dxs[i*d:(i+1)*d]
			mu, r := float64(ms[i]), float64(rs[i])
			var sg, sgx float64
			for j := range x {
				g := float64(dy[j]) * float64(gs[j])
				sg += g
				sgx += g * (float64(x[j]) - mu) * r
			}
			sg, sgx = sg/float64(d), sgx/float64(d)
			for j := range x {
				g := float64(dy[j]) * float64(gs[j])
				dx[j] = T((g - sg - (float64(x[j])-mu)*r*sgx) * r)
			}
		}
	})
	parallelFor(d, 3*rows, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			var sg, sb float64
			for i := range rows {
				dy := float64(dys[i*d+j])
				sg += dy * (float64(xs[i*d+j]) - float64(ms[i])) * float64(rs[i])
				sb += dy
			}
			dgs[j], dbs[j] = T(sg), T(sb)
		}
	})
}

// GELU is the Gaussian error linear unit x·Φ(x) = x·(1 + erf(x/√2))/2,
// exact (PyTorch's approximate='none'), elementwise.
func GELU[T Float](x *Tensor[T]) *Tensor[T] {
	return viaKernel(GELUKernel, "GELU", x.Shape(), x)
}

// GELUBackward is the gradient of GELU at x for the output gradient dy:
// dy·(Φ(x) + x·φ(x)).
func GELUBackward[T Float](dy, x *Tensor[T]) *Tensor[T] {
	sameShape("GELUBackward", x.Shape(), dy)
	return viaKernel(GELUBackwardKernel, "GELUBackward", x.Shape(), dy, x)
}

// viaKernel runs the one-output kernel k on ins, on the CPU when their
// device has no body (copying there and back).
func viaKernel[T Float](k *Kernel[struct{}], op string, shape []int, ins ...*Tensor[T]) *Tensor[T] {
	dev := sameDevice(op, ins...)
	body, ok := Lookup(k, dev)
	if !ok {
		cpu := make([]*Tensor[T], len(ins))
		for i, t := range ins {
			cpu[i] = To(t, Device[T](CPU[T]{}))
		}
		return To(viaKernel(k, op, shape, cpu...), dev)
	}
	out := outputOn(dev, shape...)
	cont := make([]*Tensor[T], len(ins))
	for i, t := range ins {
		cont[i] = Contiguous(t)
	}
	body([]*Tensor[T]{out}, cont, struct{}{})
	return out
}

func geluCPU[T Float](out, in []*Tensor[T], _ struct{}) {
	xs, ys := HostData(in[0]), HostData(out[0])
	parallelFor(len(xs), 32, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			x := float64(xs[i])
			ys[i] = T(x * 0.5 * (1 + math.Erf(x/math.Sqrt2)))
		}
	})
}

func geluBackwardCPU[T Float](out, in []*Tensor[T], _ struct{}) {
	dys, xs, dxs := HostData(in[0]), HostData(in[1]), HostData(out[0])
	parallelFor(len(xs), 48, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			x := float64(xs[i])
			cdf := 0.5 * (1 + math.Erf(x/math.Sqrt2))
			pdf := math.Exp(-x*x/2) / math.Sqrt(2*math.Pi)
			dxs[i] = T(float64(dys[i]) * (cdf + x*pdf))
		}
	})
}

// attnShape checks q [..., N, Dh] and k, v [..., M, Dh] (the same leading
// axes) and returns the product of the leading axes, N, M and Dh.
func attnShape[T Float](op string, q, k, v *Tensor[T]) (bh, n, m, dh int) {
	qs, ks, vs := q.Shape(), k.Shape(), v.Shape()
	r := len(qs)
	ok := r >= 2 && len(ks) == r && len(vs) == r && slices.Equal(ks, vs) && slices.Equal(qs[:r-2], ks[:r-2]) && qs[r-1] == ks[r-1]
	if !ok {
		panic(shapeError(op, [][]int{qs, ks, vs}, "queries %v, keys %v and values %v, want [..., N, D], [..., M, D] and [..., M, D]", qs, ks, vs))
	}
	sameDevice(op, q, k, v)
	bh = 1
	for _, s := range qs[:r-2] {
		bh *= s
	}
	return bh, qs[r-2], ks[r-2], qs[r-1]
}

// Attention is scaled dot-product attention softmax(q·kᵀ·scale)·v for
// queries q [..., N, Dh], keys and values k, v [..., M, Dh]; it returns
// the output [..., N, Dh] and each query's log-sum-exp of its scores
// [..., N], which the backward pass uses. The CPU body works on a tile of
// attnRows queries at a time against all keys by matrix products, so that
// no more than a tile's [attnRows, M] scores are held per core, never the
// [..., N, M] matrix (the CUDA body is flash-style, Dao et al. 2022, tiling
// the keys too). Devices without a body compose it of tensor ops, which do
// hold the scores.
func Attention[T Float](q, k, v *Tensor[T], scale T) (o, lse *Tensor[T]) {
	bh, n, m, dh := attnShape("Attention", q, k, v)
	dev := q.Device()
	body, ok := Lookup(AttentionKernel, dev)
	if !ok || bh*n*m*dh == 0 {
		return attentionComposed(q, k, v, scale)
	}
	sh := q.Shape()
	o, lse = outputOn(dev, sh...), outputOn(dev, sh[:len(sh)-1]...)
	body([]*Tensor[T]{Reshape(o, bh, n, dh), Reshape(lse, bh, n)}, []*Tensor[T]{
		Reshape(Contiguous(q), bh, n, dh), Reshape(Contiguous(k), bh, m, dh), Reshape(Contiguous(v), bh, m, dh)}, float64(scale))
	return o, lse
}

// AttentionBackward is the gradient of Attention with respect to q, k and
// v for the output gradient do, from the output o and log-sum-exp lse it
// returned: with p = exp(q·kᵀ·scale − lse) recomputed a tile at a time
// and D = rowsum(do·o), dv = pᵀ·do, ds = p·(do·vᵀ − D), dq = ds·k·scale
// and dk = dsᵀ·q·scale.
func AttentionBackward[T Float](do, q, k, v, o, lse *Tensor[T], scale T) (dq, dk, dv *Tensor[T]) {
	bh, n, m, dh := attnShape("AttentionBackward", q, k, v)
	sh := q.Shape()
	sameShape("AttentionBackward", sh, do, o)
	sameShape("AttentionBackward", sh[:len(sh)-1], lse)
	dev := q.Device()
	body, ok := Lookup(AttentionBackwardKernel, dev)
	if !ok || bh*n*m*dh == 0 {
		return attentionBackwardComposed(do, q, k, v, o, lse, scale)
	}
	dq, dk, dv = outputOn(dev, sh...), outputOn(dev, k.Shape()...), outputOn(dev, v.Shape()...)
	r3 := func(t *Tensor[T], rows int) *Tensor[T] { return Reshape(Contiguous(t), bh, rows, dh) }
	body([]*Tensor[T]{r3(dq, n), r3(dk, m), r3(dv, m)}, []*Tensor[T]{
		r3(do, n), r3(q, n), r3(k, m), r3(v, m), r3(o, n), Reshape(Contiguous(lse), bh, n)}, float64(scale))
	return dq, dk, dv
}

// attentionComposed is Attention in tensor ops, holding the scores.
func attentionComposed[T Float](q, k, v *Tensor[T], scale T) (o, lse *Tensor[T]) {
	s := Scale(MatMul(q, Transpose(k, -1, -2)), scale)
	return MatMul(Softmax(s, -1), v), LogSumExp(s, -1, false)
}

// attentionBackwardComposed is AttentionBackward in tensor ops.
func attentionBackwardComposed[T Float](do, q, k, v, o, lse *Tensor[T], scale T) (dq, dk, dv *Tensor[T]) {
	p := Exp(Sub(Scale(MatMul(q, Transpose(k, -1, -2)), scale), Unsqueeze(lse, -1)))
	dv = MatMul(Transpose(p, -1, -2), do)
	dd := Sum(Mul(do, o), -1, true)
	ds := Mul(p, Sub(MatMul(do, Transpose(v, -1, -2)), dd))
	return Scale(MatMul(ds, k), scale), Scale(MatMul(Transpose(ds, -1, -2), q), scale), dv
}

// attnRows is the number of queries whose scores against every key the
// forward CPU body holds at a time (one such tile per core).
const attnRows = 32

// attentionCPU is Attention's CPU body: for each batch·head, a tile of
// attnRows queries at a time, the scores of the tile against all keys by
// one matrix product (scale·Q·Kᵀ), each row's softmax with its maximum and
// sum in float64 (the log-sum-exp saved for the backward pass; the
// exponentials by expShiftAsm's vector kernel where it applies), then the
// output by a second product (P·V) divided by the row's sum. No more than
// a tile's scores are held on each core.
func attentionCPU[T Float](out, in []*Tensor[T], scale float64) {
	qs, ks, vs := in[0].Shape(), in[1].Shape(), in[2]
	bh, n, dh, m := qs[0], qs[1], qs[2], ks[1]
	q, k, v := HostData(in[0]), HostData(in[1]), HostData(vs)
	o, lse := HostData(out[0]), HostData(out[1])
	tiles := (n + attnRows - 1) / attnRows
	parallelFor(bh*tiles, 4*attnRows*m*dh, func(lo, hi int) {
		s := make([]T, attnRows*m)
		inv := make([]float64, attnRows)
		for t := lo; t < hi; t++ {
			b, r0 := t/tiles, t%tiles*attnRows
			rows := min(attnRows, n-r0)
			qt := q[(b*n+r0)*dh : (b*n+r0+rows)*dh]
			kb, vb := k[b*m*dh:(b+1)*m*dh], v[b*m*dh:(b+1)*m*dh]
			gemmSerial(false, true, rows, m, dh, T(scale), qt, dh, kb, dh, 0, s, m)
			for i := range rows {
				row := s[i*m : (i+1)*m]
				mx := rowMax(row)
				l, vec := 0.0, false
				if !math.IsInf(mx, 0) && !math.IsNaN(mx) {
					l, vec = expShiftAsm(row, mx)
				}
				if !vec { // a row with an infinite or NaN maximum, or no vector kernel
					for j, z := range row {
						p := math.Exp(float64(z) - mx)
						l += p
						row[j] = T(p)
					}
				}
				inv[i] = 1 / l
				lse[b*n+r0+i] = T(mx + math.Log(l))
			}
			ot := o[(b*n+r0)*dh : (b*n+r0+rows)*dh]
			gemmSerial(false, false, rows, dh, m, 1, s, m, vb, dh, 0, ot, dh)
			for i := range rows {
				for c := range dh {
					ot[i*dh+c] = T(float64(ot[i*dh+c]) * inv[i])
				}
			}
		}
	})
}

// rowMax is the largest element of row (−∞ if empty, NaN if it has one),
// in four running maxima: one chain of dependent max operations ran at a
// few cycles an element (14% of attention's forward and backward).
func rowMax[T Float](row []T) float64 {
	inf := T(math.Inf(-1))
	m0, m1, m2, m3 := inf, inf, inf, inf
	j := 0
	for ; j+4 <= len(row); j += 4 {
		v := row[j : j+4 : j+4]
		m0, m1, m2, m3 = max(m0, v[0]), max(m1, v[1]), max(m2, v[2]), max(m3, v[3])
	}
	for _, z := range row[j:] {
		m0 = max(m0, z)
	}
	return float64(max(m0, m1, m2, m3))
}

// attentionBackwardCPU is AttentionBackward's CPU body, one batch·head at
// a time on each core (which owns that slice of dk and dv), by matrix
// products over tiles of attnRows queries: the tile's probabilities P again
// from the scores (scale·Q·Kᵀ) and the saved log-sum-exp, dP = dO·Vᵀ,
// dS = scale·P∘(dP − rowsum(dO∘O)) (the row sums in float64), then
// dq = dS·K for the tile, and dk += dSᵀ·Q, dv += Pᵀ·dO.
func attentionBackwardCPU[T Float](out, in []*Tensor[T], scale float64) {
	qs, ks := in[1].Shape(), in[2].Shape()
	bh, n, dh, m := qs[0], qs[1], qs[2], ks[1]
	dO, q, k, v, o, lse := HostData(in[0]), HostData(in[1]), HostData(in[2]), HostData(in[3]), HostData(in[4]), HostData(in[5])
	dq, dk, dv := HostData(out[0]), HostData(out[1]), HostData(out[2])
	parallelFor(bh, 10*n*m*dh, func(lo, hi int) {
		p, dp := make([]T, attnRows*m), make([]T, attnRows*m)
		for b := lo; b < hi; b++ {
			kb, vb := k[b*m*dh:(b+1)*m*dh], v[b*m*dh:(b+1)*m*dh]
			dkb, dvb := dk[b*m*dh:(b+1)*m*dh], dv[b*m*dh:(b+1)*m*dh]
			clear(dkb)
			clear(dvb)
			for r0 := 0; r0 < n; r0 += attnRows {
				rows := min(attnRows, n-r0)
				span := func(x []T) []T { return x[(b*n+r0)*dh : (b*n+r0+rows)*dh] }
				qt, dot, ot := span(q), span(dO), span(o)
				gemmSerial(false, true, rows, m, dh, T(scale), qt, dh, kb, dh, 0, p, m)
				gemmSerial(false, true, rows, m, dh, 1, dot, dh, vb, dh, 0, dp, m)
				for i := range rows {
					dd := dot64(dot[i*dh:(i+1)*dh], ot[i*dh:(i+1)*dh], 0)
					l := float64(lse[b*n+r0+i])
					vec := false
					if !math.IsInf(l, 0) && !math.IsNaN(l) {
						_, vec = expShiftAsm(p[i*m:(i+1)*m], l)
					}
					for j := range m {
						e := i*m + j
						pj := float64(p[e])
						if !vec {
							pj = math.Exp(pj - l)
							p[e] = T(pj)
						}
						dp[e] = T(pj * (float64(dp[e]) - dd) * scale)
					}
				}
				gemmSerial(false, false, rows, dh, m, 1, dp, m, kb, dh, 0, span(dq), dh)
				gemmSerial(true, false, m, dh, rows, 1, dp, m, qt, dh, 1, dkb, dh)
				gemmSerial(true, false, m, dh, rows, 1, p, m, dot, dh, 1, dvb, dh)
			}
		}
	})
}
