package tensor

import (
	"fmt"
	"math"
	"slices"
)

// The batch-norm kernels, with ε as their attribute: BatchNormKernel reads
// x, γ, β and writes y, μ, σ²; BatchNormBackwardKernel reads g, x, γ, μ, σ²
// and writes dx, dγ, dβ.
var (
	BatchNormKernel         = NewKernel[float64]("batch_norm")
	BatchNormBackwardKernel = NewKernel[float64]("batch_norm_backward")
)

func init() {
	registerCPU(BatchNormKernel, batchNormCPU[float32], batchNormCPU[float64])
	registerCPU(BatchNormBackwardKernel, batchNormBackwardCPU[float32], batchNormBackwardCPU[float64])
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
	y, mean, variance = ZerosOn(dev, x.Shape()...), ZerosOn(dev, c), ZerosOn(dev, c)
	body([]*Tensor[T]{y, mean, variance}, []*Tensor[T]{Contiguous(x), Contiguous(gamma), Contiguous(beta)}, float64(eps))
	return y, mean, variance
}

func batchNormCPU[T Float](out, in []*Tensor[T], eps float64) {
	n, c, s := bnShape("BatchNorm", in[0], in[1], in[2])
	xs, ys, gs, bs := HostData(in[0]), HostData(out[0]), HostData(in[1]), HostData(in[2])
	ms, vs := HostData(out[1]), HostData(out[2])
	parallelFor(c, 3*n*s, func(lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			mu, va := channelStats(xs, n, c, s, ch)
			ms[ch], vs[ch] = T(mu), T(va)
			a := float64(gs[ch]) / math.Sqrt(va+float64(T(eps)))
			scale, shift := T(a), T(float64(bs[ch])-mu*a)
			for i := range n {
				off := (i*c + ch) * s
				for j, v := range xs[off : off+s] {
					ys[off+j] = v*scale + shift
				}
			}
		}
	})
}

// channelStats is the mean and biased variance of channel ch of x [n, c, s]
// (two passes, in float64).
func channelStats[T Float](xs []T, n, c, s, ch int) (mean, variance float64) {
	m := float64(n * s)
	sum := 0.0
	for i := range n {
		for _, v := range xs[(i*c+ch)*s : (i*c+ch+1)*s] {
			sum += float64(v)
		}
	}
	mean = sum / m
	sq := 0.0
	for i := range n {
		for _, v := range xs[(i*c+ch)*s : (i*c+ch+1)*s] {
			d := float64(v) - mean
			sq += d * d
		}
	}
	return mean, sq / m
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
		panic(fmt.Sprintf("tensor.BatchNormBackward: gradient %v for input %v", g.Shape(), x.Shape()))
	}
	dev := x.Device()
	body, ok := Lookup(BatchNormBackwardKernel, dev)
	if !ok {
		return batchNormBackwardComposed(g, x, gamma, mean, variance, eps)
	}
	dx, dgamma, dbeta = ZerosOn(dev, x.Shape()...), ZerosOn(dev, c), ZerosOn(dev, c)
	in := []*Tensor[T]{Contiguous(g), Contiguous(x), Contiguous(gamma), Contiguous(mean), Contiguous(variance)}
	body([]*Tensor[T]{dx, dgamma, dbeta}, in, float64(eps))
	return dx, dgamma, dbeta
}

func batchNormBackwardCPU[T Float](out, in []*Tensor[T], eps float64) {
	n, c, s := bnShape("BatchNormBackward", in[1], in[2], in[3], in[4])
	gs, xs, gam, ms, vs := HostData(in[0]), HostData(in[1]), HostData(in[2]), HostData(in[3]), HostData(in[4])
	dxs, dgs, dbs := HostData(out[0]), HostData(out[1]), HostData(out[2])
	m := float64(n * s)
	parallelFor(c, 3*n*s, func(lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			mu, inv := float64(ms[ch]), 1/math.Sqrt(float64(vs[ch])+float64(T(eps)))
			sg, sgx := 0.0, 0.0
			for i := range n {
				off := (i*c + ch) * s
				for j, gv := range gs[off : off+s] {
					sg += float64(gv)
					sgx += float64(gv) * (float64(xs[off+j]) - mu)
				}
			}
			sgx *= inv // Σ g·x̂
			dgs[ch], dbs[ch] = T(sgx), T(sg)
			// dx = a·g + kx·x + k0 with a = γ/√(σ²+ε).
			a := float64(gam[ch]) * inv
			kx := -a * inv * sgx / m
			k0 := -a*sg/m - kx*mu
			ta, tkx, tk0 := T(a), T(kx), T(k0)
			for i := range n {
				off := (i*c + ch) * s
				for j, gv := range gs[off : off+s] {
					dxs[off+j] = ta*gv + tkx*xs[off+j] + tk0
				}
			}
		}
	})
}

// bnShape checks x [N, C, …] against the per-channel tensors and returns N,
// C and the number of values per channel and sample.
func bnShape[T Float](op string, x *Tensor[T], perChannel ...*Tensor[T]) (n, c, s int) {
	sh := x.Shape()
	if len(sh) < 2 {
		panic(fmt.Sprintf("tensor.%s: input %v, want [N, C, …]", op, sh))
	}
	for _, t := range perChannel {
		if !slices.Equal(t.Shape(), []int{sh[1]}) {
			panic(fmt.Sprintf("tensor.%s: input %v with per-channel tensor %v, want [%d]", op, sh, t.Shape(), sh[1]))
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
