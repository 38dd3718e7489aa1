package tensor

import (
	"math"
	"slices"
)

// LogSoftmaxKernel is LogSoftmax's kernel, with the axis as attribute: in
// x; out its log-softmax.
var LogSoftmaxKernel = NewKernel[int]("log_softmax")

// LogSoftmaxBackwardKernel is LogSoftmaxBackward's kernel, with the axis as
// attribute: in the output gradient g and x; out the gradient of x.
var LogSoftmaxBackwardKernel = NewKernel[int]("log_softmax_backward")

func init() {
	registerCPU(LogSoftmaxKernel, logSoftmaxCPU[float32], logSoftmaxCPU[float64])
	registerCPU(LogSoftmaxBackwardKernel, logSoftmaxBackwardCPU[float32], logSoftmaxBackwardCPU[float64])
}

// LogSoftmax is x − LogSumExp(x) along axis, computed as
// (x − m) − log Σ exp(x − m) around the maximum m (ShiftMax), which keeps
// float32 accurate for large logits. One pass per row where the device has
// a body (bit for bit logSoftmaxComposed, which runs elsewhere).
func LogSoftmax[T Float](x *Tensor[T], axis int) *Tensor[T] {
	axis = x.axis("LogSoftmax", axis)
	if body, ok := Lookup(LogSoftmaxKernel, x.Device()); ok {
		y := emptyOn(x.Device(), x.shape...)
		body([]*Tensor[T]{y}, []*Tensor[T]{Contiguous(x)}, axis)
		return y
	}
	return logSoftmaxComposed(x, axis)
}

// logSoftmaxComposed is LogSoftmax in tensor ops: its reference.
func logSoftmaxComposed[T Float](x *Tensor[T], axis int) *Tensor[T] {
	z := Sub(x, ShiftMax(x, axis))
	return Sub(z, Log(Sum(Exp(z), axis, true)))
}

// LogSoftmaxBackward is the gradient of x for y = LogSoftmax(x, axis) and
// the output gradient g: g − softmax(x)·Σ g along axis, computed as autograd
// differentiates the composed form — q = −Σg / Σ exp(x − m), then
// g + q·exp(x − m) — so that the fused and composed gradients agree bit for
// bit; the softmax is recomputed from x rather than kept.
func LogSoftmaxBackward[T Float](g, x *Tensor[T], axis int) *Tensor[T] {
	axis = x.axis("LogSoftmaxBackward", axis)
	if !slices.Equal(g.shape, x.shape) {
		panic(shapeError("LogSoftmaxBackward", [][]int{g.shape, x.shape}, "gradient and input shapes differ"))
	}
	if body, ok := Lookup(LogSoftmaxBackwardKernel, x.Device()); ok {
		dx := emptyOn(x.Device(), x.shape...)
		body([]*Tensor[T]{dx}, []*Tensor[T]{Contiguous(g), Contiguous(x)}, axis)
		return dx
	}
	return logSoftmaxBackwardComposed(g, x, axis)
}

// logSoftmaxBackwardComposed is LogSoftmaxBackward in tensor ops: its
// reference.
func logSoftmaxBackwardComposed[T Float](g, x *Tensor[T], axis int) *Tensor[T] {
	e := Exp(Sub(x, ShiftMax(x, axis)))
	q := Div(Neg(Sum(g, axis, true)), Sum(e, axis, true))
	return Add(g, Mul(q, e))
}

// softmaxLane returns, for the n elements x[0], x[inner], … of one lane
// along the axis, the shift m (the maximum, NaN if any is NaN, replaced by
// 0 when not finite, as ShiftMax) and Σ exp(x − m), with the reductions in
// the order of reduceBlock and the exponential of unaryFunc.
func softmaxLane[T Float](x []T, n, inner int) (m, sum T) {
	m = x[0]
	for i := 1; i < n; i++ {
		if v := x[i*inner]; v > m || v != v {
			m = v
		}
	}
	if !(m > T(math.Inf(-1)) && m < T(math.Inf(1))) {
		m = 0
	}
	sum = T(math.Exp(float64(x[0] - m)))
	for i := 1; i < n; i++ {
		sum += T(math.Exp(float64(x[i*inner] - m)))
	}
	return m, sum
}

// logSoftmaxCPU views x (contiguous) as [outer, n, inner] around the axis.
func logSoftmaxCPU[T Float](out, in []*Tensor[T], axis int) {
	x := in[0]
	xs, ys := HostData(x), HostData(out[0])
	n, inner, outer := x.shape[axis], numel(x.shape[axis+1:]), numel(x.shape[:axis])
	if n == 0 {
		return
	}
	parallelFor(outer, 8*n*inner, func(lo, hi int) {
		for o := lo; o < hi; o++ {
			for j := range inner {
				at := o*n*inner + j
				row, y := xs[at:], ys[at:]
				m, sum := softmaxLane(row, n, inner)
				l := T(math.Log(float64(sum)))
				for i := range n {
					y[i*inner] = (row[i*inner] - m) - l
				}
			}
		}
	})
}

// logSoftmaxBackwardCPU is logSoftmaxCPU's backward; the conversions to T
// round each product, as the composed form does (no fused multiply-add).
func logSoftmaxBackwardCPU[T Float](out, in []*Tensor[T], axis int) {
	g, x := in[0], in[1]
	gs, xs, ds := HostData(g), HostData(x), HostData(out[0])
	n, inner, outer := x.shape[axis], numel(x.shape[axis+1:]), numel(x.shape[:axis])
	if n == 0 {
		return
	}
	parallelFor(outer, 12*n*inner, func(lo, hi int) {
		for o := lo; o < hi; o++ {
			for j := range inner {
				at := o*n*inner + j
				row, gr, d := xs[at:], gs[at:], ds[at:]
				m, sum := softmaxLane(row, n, inner)
				t := gr[0]
				for i := 1; i < n; i++ {
					t += gr[i*inner]
				}
				q := -t / sum
				for i := range n {
					e := T(math.Exp(float64(row[i*inner] - m)))
					d[i*inner] = gr[i*inner] + T(q*e)
				}
			}
		}
	})
}
