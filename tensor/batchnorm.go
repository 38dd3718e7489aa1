package tensor

import (
	"math"
	"slices"
)

// The batch-norm kernels, with ε as their attribute: BatchNormKernel reads
// x, γ, β and writes y, μ, σ²; BatchNormBackwardKernel reads g, x, γ, μ, σ²
// and writes dx, dγ, dβ.
// BatchNormReluKernel reads x, γ, β and optionally r, and writes y, μ, σ²;
// BatchNormReluBackwardKernel reads gy, y, x, γ, μ, σ² and writes dx, dγ,
// dβ and, if given a fourth output, dr (the gradient at the batch norm's
// output).
var (
	BatchNormKernel             = NewKernel[float64]("batch_norm")
	BatchNormBackwardKernel     = NewKernel[float64]("batch_norm_backward")
	BatchNormReluKernel         = NewKernel[float64]("batch_norm_relu")
	BatchNormReluBackwardKernel = NewKernel[float64]("batch_norm_relu_backward")
)

func init() {
	registerCPU(BatchNormKernel, batchNormCPU[float32], batchNormCPU[float64])
	registerCPU(BatchNormBackwardKernel, batchNormBackwardCPU[float32], batchNormBackwardCPU[float64])
	registerCPU(BatchNormReluKernel, batchNormReluCPU[float32], batchNormReluCPU[float64])
	registerCPU(BatchNormReluBackwardKernel, batchNormReluBackwardCPU[float32], batchNormReluBackwardCPU[float64])
}

// BatchNorm normalises x [N, C, …] per channel with the batch's mean μ and
// biased variance σ² over every axis but 1, then scales and shifts:
// y = γ·(x − μ)/√(σ² + ε) + β, with γ, β of shape [C]. It returns y, μ and
// σ² ([C]). On the CPU it runs as fused loops (two reads of x, one write of
// y, statistics summed in float64); on devices without a BatchNormKernel
// body it is composed of tensor ops (batchNormComposed, also the CPU loops'
// reference).
func BatchNorm[T Float](x, gamma, beta *Tensor[T], eps T) (y, mean, variance *Tensor[T]) {
	_, c, _ := bnShape("BatchNorm", x, gamma, beta)
	dev := x.Device()
	body, ok := Lookup(BatchNormKernel, dev)
	if !ok {
		return batchNormComposed(x, gamma, beta, eps)
	}
	y, mean, variance = outputOn(dev, x.Shape()...), ZerosOn(dev, c), ZerosOn(dev, c)
	body([]*Tensor[T]{y, mean, variance}, []*Tensor[T]{Contiguous(x), Contiguous(gamma), Contiguous(beta)}, float64(eps))
	return y, mean, variance
}

func batchNormCPU[T Float](out, in []*Tensor[T], eps float64) { batchNormForward(out, in, eps, false) }

// batchNormForward is the CPU body of BatchNorm and, with relu,
// BatchNormRelu (whose fourth input, if any, is the residual r): per
// channel the statistics (channelStats), then each value's affine map,
// with r added and ReLU in the same pass.
func batchNormForward[T Float](out, in []*Tensor[T], eps float64, relu bool) {
	n, c, s := bnShape("BatchNorm", in[0], in[1], in[2])
	xs, ys, gs, bs := HostData(in[0]), HostData(out[0]), HostData(in[1]), HostData(in[2])
	ms, vs := HostData(out[1]), HostData(out[2])
	var rs []T
	if len(in) == 4 {
		rs = HostData(in[3])
	}
	parallelFor(c, 3*n*s, func(lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			mu, va := channelStats(xs, n, c, s, ch)
			ms[ch], vs[ch] = T(mu), T(va)
			a := float64(gs[ch]) / math.Sqrt(va+float64(T(eps)))
			scale, shift := T(a), T(float64(bs[ch])-mu*a)
			for i := range n {
				off := (i*c + ch) * s
				y, x := ys[off:off+s], xs[off:off+s]
				switch {
				case rs != nil:
					affineAddRelu(y, x, rs[off:off+s], scale, shift)
				case relu:
					affineRelu(y, x, scale, shift)
				default:
					for j, v := range x {
						y[j] = v*scale + shift
					}
				}
			}
		}
	})
}

// affineAddRelu sets dst[i] = max(src[i]·a + b + r[i], 0), rounded as the
// composed ops (Add after the affine map), in assembly where it can.
func affineAddRelu[T Float](dst, src, r []T, a, b T) {
	src, r = src[:len(dst)], r[:len(dst)]
	for j := affineAddReluAsm(dst, src, r, a, b); j < len(dst); j++ {
		dst[j] = max(src[j]*a+b+r[j], 0)
	}
}

// channelStats is the mean and biased variance of channel ch of x [n, c, s]
// in one pass, in float64: the sums of x − x₀ and its squares, x₀ the
// channel's first value, so that the variance, their mean square less the
// squared mean, cancels little where the values lie far from zero.
func channelStats[T Float](xs []T, n, c, s, ch int) (mean, variance float64) {
	if n*s == 0 {
		return 0, 0
	}
	m, x0 := float64(n*s), float64(xs[ch*s])
	sum, sq := 0.0, 0.0
	for i := range n {
		a, b := bnSums(xs[(i*c+ch)*s:(i*c+ch+1)*s], x0)
		sum, sq = sum+a, sq+b
	}
	d := sum / m
	return x0 + d, max(sq/m-d*d, 0)
}

// bnSums is Σ (x[i] − c) and Σ (x[i] − c)² in float64, in assembly where
// it can (its partial sums then add in another order).
func bnSums[T Float](x []T, c float64) (s, ss float64) {
	n, s, ss := bnSumsAsm(x, c)
	for _, v := range x[n:] {
		d := float64(v) - c
		s += d
		ss += d * d
	}
	return s, ss
}

// bnDots is Σ g[i] and Σ g[i]·(x[i] − c) in float64, in assembly where it
// can.
func bnDots[T Float](g, x []T, c float64) (sg, sgx float64) {
	n, sg, sgx := bnDotsAsm(g, x, c)
	x = x[:len(g)]
	for j, v := range g[n:] {
		sg += float64(v)
		sgx += float64(v) * (float64(x[n+j]) - c)
	}
	return sg, sgx
}

// BatchNormBackward is BatchNorm's gradient for the output gradient g, from
// the statistics BatchNorm returned: with x̂ = (x − μ)/√(σ² + ε) and m
// values per channel, dβ = Σ g, dγ = Σ g·x̂ and
// dx = γ/√(σ² + ε)·(g − dβ/m − x̂·dγ/m). Fused loops on the CPU (one read of
// g and x for the sums, one more and a write for dx), composed tensor ops
// on devices without a BatchNormBackwardKernel body.
func BatchNormBackward[T Float](g, x, gamma, mean, variance *Tensor[T], eps T) (dx, dgamma, dbeta *Tensor[T]) {
	_, c, _ := bnShape("BatchNormBackward", x, gamma, mean, variance)
	if !slices.Equal(g.Shape(), x.Shape()) {
		panic(shapeError("BatchNormBackward", [][]int{g.Shape(), x.Shape()}, "gradient %v for input %v", g.Shape(), x.Shape()))
	}
	dev := x.Device()
	body, ok := Lookup(BatchNormBackwardKernel, dev)
	if !ok {
		return batchNormBackwardComposed(g, x, gamma, mean, variance, eps)
	}
	dx, dgamma, dbeta = outputOn(dev, x.Shape()...), ZerosOn(dev, c), ZerosOn(dev, c)
	in := []*Tensor[T]{Contiguous(g), Contiguous(x), Contiguous(gamma), Contiguous(mean), Contiguous(variance)}
	body([]*Tensor[T]{dx, dgamma, dbeta}, in, float64(eps))
	return dx, dgamma, dbeta
}

func batchNormBackwardCPU[T Float](out, in []*Tensor[T], eps float64) {
	g, x := in[0], in[1]
	batchNormBackward(out, g, nil, x, in[2:], eps)
}

// batchNormBackward is the CPU body of BatchNormBackward and, with the
// ReLU's output y, BatchNormReluBackward: out is dx, dγ, dβ and, with y,
// optionally dr; stats is γ, μ, σ². With y, the gradient g at the batch
// norm's output is gy where y > 0, else 0 (ReluGrad), masked inside both
// passes' kernels (bnDotsRelu, bnInputGrad) and written only as dr, which
// the first pass writes and the second reads.
func batchNormBackward[T Float](out []*Tensor[T], gy, y, x *Tensor[T], stats []*Tensor[T], eps float64) {
	n, c, s := bnShape("BatchNormBackward", x, stats...)
	gys, xs, gam, ms, vs := HostData(gy), HostData(x), HostData(stats[0]), HostData(stats[1]), HostData(stats[2])
	dxs, dgs, dbs := HostData(out[0]), HostData(out[1]), HostData(out[2])
	var ys, drs []T // the ReLU's output, the residual's gradient
	if y != nil {
		ys = HostData(y)
	}
	if len(out) == 4 {
		drs = HostData(out[3])
	}
	m := float64(n * s)
	parallelFor(c, 3*n*s, func(lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			mu, inv := float64(ms[ch]), 1/math.Sqrt(float64(vs[ch])+float64(T(eps)))
			sg, sgx := 0.0, 0.0
			for i := range n {
				off := (i*c + ch) * s
				var a, b float64
				switch {
				case ys == nil:
					a, b = bnDots(gys[off:off+s], xs[off:off+s], mu)
				case drs == nil:
					a, b = bnDotsRelu(nil, gys[off:off+s], ys[off:off+s], xs[off:off+s], mu)
				default:
					a, b = bnDotsRelu(drs[off:off+s], gys[off:off+s], ys[off:off+s], xs[off:off+s], mu)
				}
				sg, sgx = sg+a, sgx+b
			}
			sgx *= inv // Σ g·x̂
			dgs[ch], dbs[ch] = T(sgx), T(sg)
			// dx = a·g + kx·x + k0 with a = γ/√(σ²+ε).
			a := float64(gam[ch]) * inv
			kx := -a * inv * sgx / m
			k0 := -a*sg/m - kx*mu
			for i := range n {
				off := (i*c + ch) * s
				g, mask := gys[off:off+s], ys
				switch {
				case drs != nil:
					g, mask = drs[off:off+s], nil
				case ys != nil:
					mask = ys[off : off+s]
				}
				bnInputGrad(dxs[off:off+s], g, mask, xs[off:off+s], T(a), T(kx), T(k0))
			}
		}
	})
}

// bnDotsRelu is bnDots of g where y > 0, else 0 (ReluGrad(g, y)), which
// it also writes to dr unless dr is nil; in assembly where it can.
func bnDotsRelu[T Float](dr, g, y, x []T, c float64) (sg, sgx float64) {
	n, sg, sgx := bnDotsReluAsm(dr, g, y, x, c)
	y, x = y[:len(g)], x[:len(g)]
	for j := n; j < len(g); j++ {
		v := g[j]
		if !(y[j] > 0) {
			v = 0
		}
		if dr != nil {
			dr[j] = v
		}
		sg += float64(v)
		sgx += float64(v) * (float64(x[j]) - c)
	}
	return sg, sgx
}

// bnDotsReluAdd is bnDotsRelu of g where y > 0, else 0, adding a times
// that masked g to d (d[i] += a·g[i]) instead of storing it; in assembly
// where it can.
func bnDotsReluAdd[T Float](d, g, y, x []T, c float64, a T) (sg, sgx float64) {
	n, sg, sgx := bnDotsReluAddAsm(d, g, y, x, c, a)
	d, y, x = d[:len(g)], y[:len(g)], x[:len(g)]
	for j := n; j < len(g); j++ {
		v := g[j]
		if !(y[j] > 0) {
			v = 0
		}
		d[j] += a * v
		sg += float64(v)
		sgx += float64(v) * (float64(x[j]) - c)
	}
	return sg, sgx
}

// bnInputGrad sets dx[i] = a·g[i] + b·x[i] + c, with g[i] taken as 0
// where y[i] ≤ 0 or NaN unless y is nil (BatchNormBackward's dx with the
// ReLU's mask); in assembly where it can.
func bnInputGrad[T Float](dx, g, y, x []T, a, b, c T) {
	g, x = g[:len(dx)], x[:len(dx)]
	if y != nil {
		y = y[:len(dx)]
	}
	for j := bnInputGradAsm(dx, g, y, x, a, b, c); j < len(dx); j++ {
		v := g[j]
		if y != nil && !(y[j] > 0) {
			v = 0
		}
		dx[j] = a*v + b*x[j] + c
	}
}

// BatchNormRelu is Relu(BatchNorm(x, γ, β) + r), with r of x's shape or
// nil for none, and BatchNorm's μ and σ²: the batch norm, ReLU and
// residual sum of a ResNet block. On the CPU one pass after the
// statistics; on devices without a BatchNormReluKernel body the composed
// ops (batchNormReluComposed, also the CPU's reference).
func BatchNormRelu[T Float](x, gamma, beta, r *Tensor[T], eps T) (y, mean, variance *Tensor[T]) {
	_, c, _ := bnShape("BatchNormRelu", x, gamma, beta)
	if r != nil && !slices.Equal(r.Shape(), x.Shape()) {
		panic(shapeError("BatchNormRelu", [][]int{x.Shape(), r.Shape()}, "residual %v for input %v", r.Shape(), x.Shape()))
	}
	dev := x.Device()
	body, ok := Lookup(BatchNormReluKernel, dev)
	if !ok {
		return batchNormReluComposed(x, gamma, beta, r, eps)
	}
	y, mean, variance = outputOn(dev, x.Shape()...), ZerosOn(dev, c), ZerosOn(dev, c)
	in := []*Tensor[T]{Contiguous(x), Contiguous(gamma), Contiguous(beta)}
	if r != nil {
		in = append(in, Contiguous(r))
	}
	body([]*Tensor[T]{y, mean, variance}, in, float64(eps))
	return y, mean, variance
}

func batchNormReluCPU[T Float](out, in []*Tensor[T], eps float64) {
	batchNormForward(out, in, eps, true)
}

// BatchNormReluBackward is BatchNormRelu's gradient for the output
// gradient gy, from its output y and the statistics it returned: dx, dγ,
// dβ as BatchNormBackward's for the gradient g = ReluGrad(gy, y), and, if
// residual, dr = g (else nil). On the CPU g is made one row at a time as
// it is needed, and written only as dr.
func BatchNormReluBackward[T Float](gy, y, x, gamma, mean, variance *Tensor[T], eps T, residual bool) (dx, dgamma, dbeta, dr *Tensor[T]) {
	_, c, _ := bnShape("BatchNormReluBackward", x, gamma, mean, variance)
	if !slices.Equal(gy.Shape(), x.Shape()) || !slices.Equal(y.Shape(), x.Shape()) {
		panic(shapeError("BatchNormReluBackward", [][]int{gy.Shape(), y.Shape(), x.Shape()}, "gradient %v and output %v for input %v", gy.Shape(), y.Shape(), x.Shape()))
	}
	dev := x.Device()
	body, ok := Lookup(BatchNormReluBackwardKernel, dev)
	if !ok {
		return batchNormReluBackwardComposed(gy, y, x, gamma, mean, variance, eps, residual)
	}
	out := []*Tensor[T]{outputOn(dev, x.Shape()...), ZerosOn(dev, c), ZerosOn(dev, c)}
	if residual {
		dr = outputOn(dev, x.Shape()...)
		out = append(out, dr)
	}
	in := []*Tensor[T]{Contiguous(gy), Contiguous(y), Contiguous(x), Contiguous(gamma), Contiguous(mean), Contiguous(variance)}
	body(out, in, float64(eps))
	return out[0], out[1], out[2], dr
}

func batchNormReluBackwardCPU[T Float](out, in []*Tensor[T], eps float64) {
	batchNormBackward(out, in[0], in[1], in[2], in[3:], eps)
}

// outputOn allocates a tensor that a kernel body overwrites: of
// unspecified contents on the CPU, whose bodies write every element,
// zeroed elsewhere.
func outputOn[T Float](dev Device[T], shape ...int) *Tensor[T] {
	if _, ok := dev.(CPU[T]); ok {
		return emptyOn(dev, shape...)
	}
	return ZerosOn(dev, shape...)
}

// bnShape checks x [N, C, …] against the per-channel tensors and returns N,
// C and the number of values per channel and sample.
func bnShape[T Float](op string, x *Tensor[T], perChannel ...*Tensor[T]) (n, c, s int) {
	sh := x.Shape()
	if len(sh) < 2 {
		panic(shapeError(op, [][]int{sh}, "input %v, want [N, C, …]", sh))
	}
	for _, t := range perChannel {
		if !slices.Equal(t.Shape(), []int{sh[1]}) {
			panic(shapeError(op, [][]int{sh, t.Shape()}, "input %v with per-channel tensor %v, want [%d]", sh, t.Shape(), sh[1]))
		}
	}
	return sh[0], sh[1], x.Len() / max(sh[0]*sh[1], 1)
}

// perChannel reshapes a [C] tensor to broadcast over [N, C, S].
func perChannel[T Float](t *Tensor[T]) *Tensor[T] { return Reshape(t, 1, t.Len(), 1) }

// channelSums sums x [N, C, S] over N and S into [C].
func channelSums[T Float](x *Tensor[T]) *Tensor[T] {
	return Reshape(Sum(Sum(x, 2, true), 0, true), x.Shape()[1])
}

// batchNormComposed is BatchNorm as tensor ops.
func batchNormComposed[T Float](x, gamma, beta *Tensor[T], eps T) (y, mean, variance *Tensor[T]) {
	n, c, s := bnShape("BatchNorm", x, gamma, beta)
	x3 := Reshape(x, n, c, s)
	inv := 1 / T(n*s)
	mean = Scale(channelSums(x3), inv)
	d := Sub(x3, perChannel(mean))
	variance = Scale(channelSums(Mul(d, d)), inv)
	scale := Div(gamma, Sqrt(AddScalar(variance, eps)))
	y = Add(Mul(d, perChannel(scale)), perChannel(beta))
	return Reshape(y, x.Shape()...), mean, variance
}

// batchNormBackwardComposed is BatchNormBackward as tensor ops.
func batchNormBackwardComposed[T Float](g, x, gamma, mean, variance *Tensor[T], eps T) (dx, dgamma, dbeta *Tensor[T]) {
	n, c, s := bnShape("BatchNormBackward", x, gamma, mean, variance)
	x3, g3 := Reshape(x, n, c, s), Reshape(g, n, c, s)
	invStd := Div(FullOn[T](x.Device(), 1, c), Sqrt(AddScalar(variance, eps)))
	xhat := Mul(Sub(x3, perChannel(mean)), perChannel(invStd))
	dbeta = channelSums(g3)
	dgamma = channelSums(Mul(g3, xhat))
	inv := 1 / T(n*s)
	centred := Sub(Sub(g3, perChannel(Scale(dbeta, inv))), Mul(xhat, perChannel(Scale(dgamma, inv))))
	dx = Mul(centred, perChannel(Mul(gamma, invStd)))
	return Reshape(dx, x.Shape()...), dgamma, dbeta
}

// batchNormReluComposed is BatchNormRelu as tensor ops.
func batchNormReluComposed[T Float](x, gamma, beta, r *Tensor[T], eps T) (y, mean, variance *Tensor[T]) {
	y, mean, variance = BatchNorm(x, gamma, beta, eps)
	if r != nil {
		y = Add(y, r)
	}
	return Relu(y), mean, variance
}

// batchNormReluBackwardComposed is BatchNormReluBackward as tensor ops.
func batchNormReluBackwardComposed[T Float](gy, y, x, gamma, mean, variance *Tensor[T], eps T, residual bool) (dx, dgamma, dbeta, dr *Tensor[T]) {
	g := ReluGrad(gy, y)
	dx, dgamma, dbeta = BatchNormBackward(g, x, gamma, mean, variance, eps)
	if residual {
		dr = g
	}
	return dx, dgamma, dbeta, dr
}
