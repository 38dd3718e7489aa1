package tensor

import (
	"math"
	"slices"
)

func reduce[T Float](op ReduceOp, name string, x *Tensor[T], axis int, keepDims bool) *Tensor[T] {
	axis = x.axis(name, axis)
	shape := slices.Clone(x.shape)
	shape[axis] = 1
	out := emptyOn(x.Device(), shape...)
	x.Device().Reduce(op, out, Contiguous(x), axis)
	if !keepDims {
		out = Squeeze(out, axis)
	}
	return out
}

// Sum adds the elements along axis.
func Sum[T Float](x *Tensor[T], axis int, keepDims bool) *Tensor[T] {
	return reduce(OpSum, "Sum", x, axis, keepDims)
}

// SumAll is the sum of every element, as a 0-dimensional tensor.
func SumAll[T Float](x *Tensor[T]) *Tensor[T] {
	return Sum(Reshape(x, x.Len()), 0, false)
}

// Mean averages the elements along axis.
func Mean[T Float](x *Tensor[T], axis int, keepDims bool) *Tensor[T] {
	n := x.Dim(axis)
	return Scale(Sum(x, axis, keepDims), 1/T(n))
}

// MeanAll is the mean of every element, as a 0-dimensional tensor.
func MeanAll[T Float](x *Tensor[T]) *Tensor[T] { return Scale(SumAll(x), 1/T(x.Len())) }

// Max is the largest element along axis (NaN if any is NaN).
func Max[T Float](x *Tensor[T], axis int, keepDims bool) *Tensor[T] {
	return reduce(OpMaxR, "Max", x, axis, keepDims)
}

// Min is the smallest element along axis (NaN if any is NaN).
func Min[T Float](x *Tensor[T], axis int, keepDims bool) *Tensor[T] {
	return reduce(OpMinR, "Min", x, axis, keepDims)
}

// ArgMax is the index of the first largest element along axis.
func ArgMax[T Float](x *Tensor[T], axis int, keepDims bool) *Tensor[T] {
	return reduce(OpArgMax, "ArgMax", x, axis, keepDims)
}

// ArgMin is the index of the first smallest element along axis.
func ArgMin[T Float](x *Tensor[T], axis int, keepDims bool) *Tensor[T] {
	return reduce(OpArgMin, "ArgMin", x, axis, keepDims)
}

// Ints returns the elements of an index tensor (such as ArgMax's) as ints.
func Ints[T Float](t *Tensor[T]) []int {
	d := t.Data()
	out := make([]int, len(d))
	for i, v := range d {
		out[i] = int(v)
	}
	return out
}

// SumTo sums x down to shape, the inverse of broadcasting shape to x's shape:
// leading dimensions are summed away and dimensions where shape has 1 are
// summed with keep-dims.
func SumTo[T Float](x *Tensor[T], shape ...int) *Tensor[T] {
	if slices.Equal(shape, x.shape) {
		return x
	}
	if b, err := BroadcastShapes(shape, x.shape); err != nil || !slices.Equal(b, x.shape) {
		panic(shapeError("SumTo", [][]int{x.shape, shape}, "%v does not broadcast to %v", shape, x.shape))
	}
	lead := len(x.shape) - len(shape)
	for d := 0; d < lead; d++ {
		x = Sum(x, 0, false)
	}
	for d, s := range shape {
		if s == 1 && x.shape[d] != 1 {
			x = Sum(x, d, true)
		}
	}
	return Reshape(x, shape...)
}

// LogSumExp is log Σ exp(x) along axis, computed stably around the maximum.
func LogSumExp[T Float](x *Tensor[T], axis int, keepDims bool) *Tensor[T] {
	m := ShiftMax(x, axis)
	s := Add(Log(Sum(Exp(Sub(x, m)), axis, true)), m)
	if !keepDims {
		s = Squeeze(s, axis)
	}
	return s
}

// ShiftMax is the keep-dims max along axis with infinities replaced by 0: the
// shift that keeps LogSumExp and Softmax finite, even on rows of −∞.
func ShiftMax[T Float](x *Tensor[T], axis int) *Tensor[T] {
	m := Max(x, axis, true)
	return Where(Inside(m, T(math.Inf(-1)), T(math.Inf(1))), m, ZerosOn(x.Device()))
}

// ExtremeAttr are Extremes' attributes: the axis, and whether the smallest
// (rather than the largest) element is sought.
type ExtremeAttr struct {
	Axis int
	Min  bool
}

// ExtremesKernel is Extremes' kernel: in x; out the extremes and their
// indices, both with the axis kept (size 1).
var ExtremesKernel = NewKernel[ExtremeAttr]("extremes")

func init() { registerCPU(ExtremesKernel, extremesCPU[float32], extremesCPU[float64]) }

// Extremes is Max (or Min) and ArgMax (ArgMin) along axis in one pass, both
// with the axis kept; devices without a body run the two reductions.
func Extremes[T Float](x *Tensor[T], axis int, min bool) (val, idx *Tensor[T]) {
	axis = x.axis("Extremes", axis)
	if body, ok := Lookup(ExtremesKernel, x.Device()); ok {
		shape := slices.Clone(x.shape)
		shape[axis] = 1
		val, idx = emptyOn(x.Device(), shape...), emptyOn(x.Device(), shape...)
		body([]*Tensor[T]{val, idx}, []*Tensor[T]{Contiguous(x)}, ExtremeAttr{axis, min})
		return val, idx
	}
	if min {
		return Min(x, axis, true), ArgMin(x, axis, true)
	}
	return Max(x, axis, true), ArgMax(x, axis, true)
}

// extremesCPU reduces rows of a contiguous last axis (the top-label
// top-label confidence) in the vector kernels where the CPU has AVX-512
// (float32), else in one loop each, other axes through
// reduceBlock.
func extremesCPU[T Float](out, in []*Tensor[T], at ExtremeAttr) {
	x := in[0]
	xs, vs, is := HostData(x), HostData(out[0]), HostData(out[1])
	n, inner, outer := x.shape[at.Axis], numel(x.shape[at.Axis+1:]), numel(x.shape[:at.Axis])
	valOp, argOp := OpMaxR, OpArgMax
	if at.Min {
		valOp, argOp = OpMinR, OpArgMin
	}
	cost := 2 * n * inner
	if inner == 1 && extremesAsmTakes(n) {
		cost = n // a few instructions per element in the vector kernel
	}
	parallelFor(outer, cost, func(lo, hi int) {
		if inner == 1 && n > 0 {
			lo += extremesAsm(xs[lo*n:hi*n], vs[lo:hi], is[lo:hi], n, at.Min)
		}
		for o := lo; o < hi; o++ {
			src, v, i := xs[o*n*inner:(o+1)*n*inner], vs[o*inner:(o+1)*inner], is[o*inner:(o+1)*inner]
			if inner > 1 || n == 0 {
				reduceBlock(valOp, v, src, n, inner)
				reduceBlock(argOp, i, src, n, inner)
				continue
			}
			v[0], i[0] = lastExtreme(src, at.Min)
		}
	})
}

// wideKernels is a set of assembly kernels: rows takes rows of k > 16
// contiguous float32 a row at a time (extremesWide's contract,
// reduce_amd64.go), zero writes zeros with streaming stores (zeroStream's).
type wideKernels struct {
	name string
	rows func(x *float32, rows, k int, flip float32, val, idx *float32) int
	zero func(dst *float32, n int)
}

// lastExtreme is the extreme of a non-empty row (NaN if any is NaN) and the
// index of the first extreme element (NaNs ignored, as ArgMax does).
func lastExtreme[T Float](row []T, min bool) (val, idx T) {
	best, bi, nan := row[0], 0, false
	for i, v := range row {
		if (!min && v > best) || (min && v < best) {
			best, bi = v, i
		}
		nan = nan || v != v
	}
	if nan {
		best = T(math.NaN())
	}
	return best, T(bi)
}

// ExtremeGradKernel is ExtremeGrad's kernel, with the axis as attribute:
// in g and the indices idx (both with the axis kept, size 1); out the
// gradient of x's shape.
var ExtremeGradKernel = NewKernel[int]("extreme_grad")

func init() { registerCPU(ExtremeGradKernel, extremeGradCPU[float32], extremeGradCPU[float64]) }

// ExtremeGrad is the gradient of a max or min along axis of x's shape for
// the output gradient g, given the indices idx of the extremes (ArgMax or
// ArgMin with the axis kept): g at each index, 0 elsewhere. The CPU
// scatters through host indices; other devices without a body compare the
// indices with the positions along the axis (extremeGradComposed), so
// nothing leaves the device.
func ExtremeGrad[T Float](g, idx *Tensor[T], axis int, shape ...int) *Tensor[T] {
	if axis < 0 {
		axis += len(shape)
	}
	if body, ok := Lookup(ExtremeGradKernel, g.Device()); ok {
		out := ZerosOn(g.Device(), shape...)
		body([]*Tensor[T]{out}, []*Tensor[T]{g, idx}, axis)
		return out
	}
	return extremeGradComposed(g, idx, axis, shape)
}

func extremeGradCPU[T Float](out, in []*Tensor[T], axis int) {
	shape := out[0].Shape()
	outer, k, inner := 1, shape[axis], 1
	for _, v := range shape[:axis] {
		outer *= v
	}
	for _, v := range shape[axis+1:] {
		inner *= v
	}
	o, g, idx := HostData(out[0]), HostData(Contiguous(in[0])), HostData(Contiguous(in[1]))
	for a := range outer {
		for i := range inner {
			j := a*inner + i
			o[(a*k+int(idx[j]))*inner+i] = g[j]
		}
	}
}

// extremeGradComposed is ExtremeGrad from Equal and Where.
func extremeGradComposed[T Float](g, idx *Tensor[T], axis int, shape []int) *Tensor[T] {
	ps := make([]int, len(shape))
	for i := range ps {
		ps[i] = 1
	}
	ps[axis] = shape[axis]
	p := make([]T, shape[axis])
	for i := range p {
		p[i] = T(i)
	}
	pos := FromSliceOn(g.Device(), p, ps...)
	return Where(Equal(pos, idx), Expand(g, shape...), ZerosOn(g.Device()))
}
