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

// alongAxis runs kernel k on x along axis where x's device has a body,
// else composed: the forward passes of Softmax and LogSoftmax.
func alongAxis[T Float](op string, k *Kernel[int], x *Tensor[T], axis int, composed func(*Tensor[T], int) *Tensor[T]) *Tensor[T] {
	axis = x.axis(op, axis)
	if body, ok := Lookup(k, x.Device()); ok {
		y := emptyOn(x.Device(), x.shape...)
		body([]*Tensor[T]{y}, []*Tensor[T]{Contiguous(x)}, axis)
		return y
	}
	return composed(x, axis)
}

// alongAxisBackward runs kernel k on the output gradient g and v (the
// forward pass's input or output, as what names it; of g's shape) along
// axis where v's device has a body, else composed: the backward passes of
// Softmax and LogSoftmax.
func alongAxisBackward[T Float](op, what string, k *Kernel[int], g, v *Tensor[T], axis int, composed func(g, v *Tensor[T], axis int) *Tensor[T]) *Tensor[T] {
	axis = v.axis(op, axis)
	if !slices.Equal(g.shape, v.shape) {
		panic(shapeError(op, [][]int{g.shape, v.shape}, "gradient and %s shapes differ", what))
	}
	if body, ok := Lookup(k, v.Device()); ok {
		dx := emptyOn(v.Device(), v.shape...)
		body([]*Tensor[T]{dx}, []*Tensor[T]{Contiguous(g), Contiguous(v)}, axis)
		return dx
	}
	return composed(g, v, axis)
}

// Softmax is exp(x − m)/Σ exp(x − m) along axis, with m the shift of
// ShiftMax (a row of −∞ gives NaN, as 0/0). One pass per row where the
// device has a body; its exponentials are the AVX-512 kernels' where the
// CPU has them (within a few ulp of softmaxComposed, which runs elsewhere).
func Softmax[T Float](x *Tensor[T], axis int) *Tensor[T] {
	return alongAxis("Softmax", SoftmaxKernel, x, axis, softmaxComposed[T])
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
	return alongAxisBackward("SoftmaxBackward", "output", SoftmaxBackwardKernel, g, y, axis, softmaxBackwardComposed[T])
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
	return alongAxis("LogSoftmax", LogSoftmaxKernel, x, axis, logSoftmaxComposed[T])
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
	return alongAxisBackward("LogSoftmaxBackward", "input", LogSoftmaxBackwardKernel, g, x, axis, logSoftmaxBackwardComposed[T])
}

// logSoftmaxBackwardComposed is LogSoftmaxBackward in tensor ops: its
// reference.
func logSoftmaxBackwardComposed[T Float](g, x *Tensor[T], axis int) *Tensor[T] {
	e := Exp(Sub(x, ShiftMax(x, axis)))
	q := Div(Neg(Sum(g, axis, true)), Sum(e, axis, true))
	return Add(g, Mul(q, e))
}

// forLanes calls f for every lane of x's shape (contiguous) along axis,
// viewed as [outer, n, inner]: at is the offset of the lane's first element,
// its others follow every inner elements. The outer index runs over the
// cores, cost being one lane's work per element.
func forLanes(shape []int, axis, cost int, f func(at, n, inner int)) {
	n, inner, outer := shape[axis], numel(shape[axis+1:]), numel(shape[:axis])
	if n == 0 {
		return
	}
	parallelFor(outer, cost*n*inner, func(lo, hi int) {
		for o := lo; o < hi; o++ {
			for j := range inner {
				f(o*n*inner+j, n, inner)
			}
		}
	})
}

// laneShift returns the shift of one lane's n elements x[0], x[inner], …:
// their maximum (NaN if any is NaN), replaced by 0 when not finite, as
// ShiftMax; finite reports whether the maximum was.
func laneShift[T Float](x []T, n, inner int) (m T, finite bool) {
	m = x[0]
	for i := 1; i < n; i++ {
		if v := x[i*inner]; v > m || v != v {
			m = v
		}
	}
	if !(m > T(math.Inf(-1)) && m < T(math.Inf(1))) {
		return 0, false
	}
	return m, true
}

// softmaxLane returns, for the n elements x[0], x[inner], … of one lane
// along the axis, the shift m (laneShift) and Σ exp(x − m), with the
// reductions in the order of reduceBlock and the exponential of unaryFunc.
func softmaxLane[T Float](x []T, n, inner int) (m, sum T) {
	m, _ = laneShift(x, n, inner)
	sum = T(math.Exp(float64(x[0] - m)))
	for i := 1; i < n; i++ {
		sum += T(math.Exp(float64(x[i*inner] - m)))
	}
	return m, sum
}

// logSoftmaxCPU views x (contiguous) as [outer, n, inner] around the axis.
func logSoftmaxCPU[T Float](out, in []*Tensor[T], axis int) {
	xs, ys := HostData(in[0]), HostData(out[0])
	forLanes(in[0].shape, axis, 8, func(at, n, inner int) {
		row, y := xs[at:], ys[at:]
		m, sum := softmaxLane(row, n, inner)
		l := T(math.Log(float64(sum)))
		for i := range n {
			y[i*inner] = (row[i*inner] - m) - l
		}
	})
}

// logSoftmaxBackwardCPU is logSoftmaxCPU's backward; the conversions to T
// round each product, as the composed form does (no fused multiply-add).
func logSoftmaxBackwardCPU[T Float](out, in []*Tensor[T], axis int) {
	gs, xs, ds := HostData(in[0]), HostData(in[1]), HostData(out[0])
	forLanes(in[1].shape, axis, 12, func(at, n, inner int) {
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
	})
}

// softmaxCPU views x (contiguous) as [outer, n, inner] around the axis.
// Rows along the last axis take the AVX-512 exponentials where the CPU
// has them (ExpScaled64, expShiftAsm; the scalar loop where the shift is
// not finite, as for a row holding +∞ or NaN).
func softmaxCPU[T Float](out, in []*Tensor[T], axis int) {
	xs, ys := HostData(in[0]), HostData(out[0])
	forLanes(in[0].shape, axis, 8, func(at, n, inner int) { softmaxLaneTo(ys[at:], xs[at:], n, inner) })
}

// softmaxLaneTo writes the softmax of the n elements x[0], x[inner], … of
// one lane into y at the same offsets.
func softmaxLaneTo[T Float](y, x []T, n, inner int) {
	m, finite := laneShift(x, n, inner)
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
	gs, ys, ds := HostData(in[0]), HostData(in[1]), HostData(out[0])
	forLanes(in[1].shape, axis, 4, func(at, n, inner int) {
		gr, yr, d := gs[at:], ys[at:], ds[at:]
		var t float64
		for i := range n {
			t += float64(gr[i*inner]) * float64(yr[i*inner])
		}
		tt := T(t)
		for i := range n {
			d[i*inner] = yr[i*inner] * (gr[i*inner] - tt)
		}
	})
}
