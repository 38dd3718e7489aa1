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

// SoftmaxKernel is Softmax's kernel, with the axis as attribute: in x;
// out its softmax.
var SoftmaxKernel = NewKernel[int]("softmax")

// SoftmaxBackwardKernel is SoftmaxBackward's kernel, with the axis as
// attribute: in the output gradient g and the softmax y; out the gradient
// of x.
var SoftmaxBackwardKernel = NewKernel[int]("softmax_backward")

func init() {
	registerCPU(LogSoftmaxKernel, logSoftmaxCPU[float32], logSoftmaxCPU[float64])
	registerCPU(LogSoftmaxBackwardKernel, logSoftmaxBackwardCPU[float32], logSoftmaxBackwardCPU[float64])
	registerCPU(SoftmaxKernel, softmaxCPU[float32], softmaxCPU[float64])
	registerCPU(SoftmaxBackwardKernel, softmaxBackwardCPU[float32], softmaxBackwardCPU[float64])
}

// Softmax is exp(x − m)/Σ exp(x − m) along axis, with m the shift of
// ShiftMax (a row of −∞ gives NaN, as 0/0). One pass per row where the
// device has a body; its exponentials are the AVX-512 kernels' where the
// CPU has them (within a few ulp of softmaxComposed, which runs elsewhere).
func Softmax[T Float](x *Tensor[T], axis int) *Tensor[T] {
	axis = x.axis("Softmax", axis)
	if body, ok := Lookup(SoftmaxKernel, x.Device()); ok {
		y := emptyOn(x.Device(), x.shape...)
		body([]*Tensor[T]{y}, []*Tensor[T]{Contiguous(x)}, axis)
		return y
	}
	return softmaxComposed(x, axis)
}

// softmaxComposed is Softmax in tensor ops: its reference.
func softmaxComposed[T Float](x *Tensor[T], axis int) *Tensor[T] {
	e := Exp(Sub(x, ShiftMax(x, axis)))
	return Div(e, Sum(e, axis, true))
}

// SoftmaxBackward is the gradient of x for y = Softmax(x, axis) and the
// output gradient g: y·(g − Σ g·y) along axis, from the output alone (no
// exponential is recomputed).
func SoftmaxBackward[T Float](g, y *Tensor[T], axis int) *Tensor[T] {
	axis = y.axis("SoftmaxBackward", axis)
	if !slices.Equal(g.shape, y.shape) {
		panic(shapeError("SoftmaxBackward", [][]int{g.shape, y.shape}, "gradient and output shapes differ"))
	}
	if body, ok := Lookup(SoftmaxBackwardKernel, y.Device()); ok {
		dx := emptyOn(y.Device(), y.shape...)
		body([]*Tensor[T]{dx}, []*Tensor[T]{Contiguous(g), Contiguous(y)}, axis)
		return dx
	}
	return softmaxBackwardComposed(g, y, axis)
}

// softmaxBackwardComposed is SoftmaxBackward in tensor ops: its reference.
func softmaxBackwardComposed[T Float](g, y *Tensor[T], axis int) *Tensor[T] {
	return Mul(y, Sub(g, Sum(Mul(g, y), axis, true)))
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

// softmaxCPU views x (contiguous) as [outer, n, inner] around the axis.
// Rows along the last axis take the AVX-512 exponentials where the CPU
// has them (ExpScaled64, expShiftAsm; the scalar loop where the shift is
// not finite, as for a row holding +∞ or NaN).
func softmaxCPU[T Float](out, in []*Tensor[T], axis int) {
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
				softmaxLaneTo(ys[at:], xs[at:], n, inner)
			}
		}
	})
}

// softmaxLaneTo writes the softmax of the n elements x[0], x[inner], … of
// one lane into y at the same offsets.
func softmaxLaneTo[T Float](y, x []T, n, inner int) {
	m := x[0]
	for i := 1; i < n; i++ {
		if v := x[i*inner]; v > m || v != v {
			m = v
		}
	}
	finite := m > T(math.Inf(-1)) && m < T(math.Inf(1))
	if !finite {
		m = 0
	}
	var sum float64
	ok := false
	if inner == 1 && finite {
		y, x := y[:n], x[:n]
		if y64, f64 := any(y).([]float64); f64 {
			sum, ok = ExpScaled64(y64, any(x).([]float64), float64(m), 1), true
		} else {
			copy(y, x)
			sum, ok = expShiftAsm(y, float64(m))
		}
	}
	if !ok {
		var s T
		for i := range n {
			e := T(math.Exp(float64(x[i*inner] - m)))
			y[i*inner] = e
			s += e
		}
		sum = float64(s)
	}
	s := T(sum)
	for i := range n {
		y[i*inner] /= s
	}
}

// softmaxBackwardCPU is softmaxCPU's backward: per lane, Σ g·y (in
// float64), then y·(g − Σ g·y).
func softmaxBackwardCPU[T Float](out, in []*Tensor[T], axis int) {
	g, y := in[0], in[1]
	gs, ys, ds := HostData(g), HostData(y), HostData(out[0])
	n, inner, outer := y.shape[axis], numel(y.shape[axis+1:]), numel(y.shape[:axis])
	if n == 0 {
		return
	}
	parallelFor(outer, 4*n*inner, func(lo, hi int) {
		for o := lo; o < hi; o++ {
			for j := range inner {
				at := o*n*inner + j
				gr, yr, d := gs[at:], ys[at:], ds[at:]
				var t float64
				for i := range n {
					t += float64(gr[i*inner]) * float64(yr[i*inner])
				}
				tt := T(t)
				for i := range n {
					d[i*inner] = yr[i*inner] * (gr[i*inner] - tt)
				}
			}
		}
	})
}
