package tensor

import (
	"fmt"
	"math"
)

// unaryFunc returns the scalar function of op. The CPU computes in float64
// and rounds once, so float32 results are correctly rounded for the
// elementary functions.
func unaryFunc[T Float](op UnaryOp, a, b T) func(T) T {
	switch op {
	case OpNeg:
		return func(x T) T { return -x }
	case OpExp:
		return func(x T) T { return T(math.Exp(float64(x))) }
	case OpLog:
		return func(x T) T { return T(math.Log(float64(x))) }
	case OpSqrt:
		return func(x T) T { return T(math.Sqrt(float64(x))) }
	case OpAbs:
		return func(x T) T { return T(math.Abs(float64(x))) }
	case OpSign:
		return func(x T) T {
			switch {
			case x > 0:
				return 1
			case x < 0:
				return -1
			}
			return 0
		}
	case OpStep:
		return func(x T) T {
			if x > 0 {
				return 1
			}
			return 0
		}
	case OpRelu:
		return func(x T) T { return max(x, 0) } // NaN stays NaN, as in PyTorch
	case OpSigmoid:
		return func(x T) T {
			if x >= 0 {
				return T(1 / (1 + math.Exp(-float64(x))))
			}
			e := math.Exp(float64(x))
			return T(e / (1 + e))
		}
	case OpTanh:
		return func(x T) T { return T(math.Tanh(float64(x))) }
	case OpPowS:
		return func(x T) T { return T(math.Pow(float64(x), float64(a))) }
	case OpAffine:
		return func(x T) T { return a*x + b }
	case OpClamp:
		return func(x T) T { return min(max(x, a), b) }
	case OpInside:
		return func(x T) T {
			if a < x && x < b {
				return 1
			}
			return 0
		}
	case OpLgamma:
		return func(x T) T { v, _ := math.Lgamma(float64(x)); return T(v) }
	case OpDigamma:
		return func(x T) T { return T(digamma(float64(x))) }
	}
	panic(fmt.Sprintf("tensor: unknown unary op %d", op))
}

func binaryFunc[T Float](op BinaryOp) func(x, y T) T {
	switch op {
	case OpAdd:
		return func(x, y T) T { return x + y }
	case OpSub:
		return func(x, y T) T { return x - y }
	case OpMul:
		return func(x, y T) T { return x * y }
	case OpDiv:
		return func(x, y T) T { return x / y }
	case OpPow:
		return func(x, y T) T { return T(math.Pow(float64(x), float64(y))) }
	case OpMax:
		return func(x, y T) T { return max(x, y) }
	case OpMin:
		return func(x, y T) T { return min(x, y) }
	case OpGreater:
		return func(x, y T) T { return boolT[T](x > y) }
	case OpGreaterEqual:
		return func(x, y T) T { return boolT[T](x >= y) }
	case OpEqual:
		return func(x, y T) T { return boolT[T](x == y) }
	}
	panic(fmt.Sprintf("tensor: unknown binary op %d", op))
}

func boolT[T Float](b bool) T {
	if b {
		return 1
	}
	return 0
}

// Reduce views x (contiguous) as [outer, n, inner] around axis.
func (CPU[T]) Reduce(op ReduceOp, dst, x *Tensor[T], axis int) {
	xs := HostData(x)
	ds := HostData(dst)
	n := x.shape[axis]
	inner := numel(x.shape[axis+1:])
	outer := numel(x.shape[:axis])
	parallelFor(outer, n*inner, func(lo, hi int) {
		for o := lo; o < hi; o++ {
			src := xs[o*n*inner : (o+1)*n*inner]
			out := ds[o*inner : (o+1)*inner]
			reduceBlock(op, out, src, n, inner)
		}
	})
}

// reduceBlock reduces src [n, inner] over its first dimension into out [inner].
func reduceBlock[T Float](op ReduceOp, out, src []T, n, inner int) {
	if n == 0 {
		var v T
		switch op {
		case OpMaxR:
			v = T(math.Inf(-1))
		case OpMinR:
			v = T(math.Inf(1))
		case OpArgMax, OpArgMin:
			panic(shapeError("Extremes", nil, "argmax/argmin over an empty axis"))
		}
		for j := range out {
			out[j] = v
		}
		return
	}
	switch op {
	case OpSum:
		copy(out, src[:inner])
		for i := 1; i < n; i++ {
			row := src[i*inner : (i+1)*inner]
			for j, v := range row {
				out[j] += v
			}
		}
	case OpMaxR, OpMinR:
		copy(out, src[:inner])
		for i := 1; i < n; i++ {
			row := src[i*inner : (i+1)*inner]
			for j, v := range row {
				if (op == OpMaxR && v > out[j]) || (op == OpMinR && v < out[j]) || v != v {
					out[j] = v
				}
			}
		}
	case OpArgMax, OpArgMin:
		for j := 0; j < inner; j++ {
			best, bi := src[j], 0
			for i := 1; i < n; i++ {
				v := src[i*inner+j]
				if (op == OpArgMax && v > best) || (op == OpArgMin && v < best) {
					best, bi = v, i
				}
			}
			out[j] = T(bi)
		}
	default:
		panic(fmt.Sprintf("tensor: unknown reduce op %d", op))
	}
}

// gemmOperand describes a matrix view for BLAS: transposed or not, leading
// dimension, or ok=false when it must be made contiguous first.
func gemmOperand(rows, cols, rs, cs int) (trans bool, ld int, ok bool) {
	if ld, ok := rowMajorLD(rows, cols, rs, cs); ok {
		return false, ld, true
	}
	if ld, ok := rowMajorLD(cols, rows, cs, rs); ok { // the transpose
		return true, ld, true
	}
	return false, 0, false
}

// rowMajorLD is the leading dimension of a rows×cols view with strides rs,
// cs stored row by row, ok=false when it is not.
func rowMajorLD(rows, cols, rs, cs int) (ld int, ok bool) {
	if cs != 1 && cols != 1 {
		return 0, false
	}
	ld = rs
	if rows == 1 {
		ld = cols
	}
	return ld, ld >= max(cols, 1)
}

func (c CPU[T]) MatMul(dst, a, b *Tensor[T]) {
	B, M, K, N := a.shape[0], a.shape[1], a.shape[2], b.shape[2]
	ta, lda, ok := gemmOperand(M, K, a.strides[1], a.strides[2])
	if !ok {
		a = Contiguous(a)
		ta, lda = false, K
	}
	tb, ldb, ok := gemmOperand(K, N, b.strides[1], b.strides[2])
	if !ok {
		b = Contiguous(b)
		tb, ldb = false, N
	}
	as, bs, ds := host(a), host(b), HostData(dst)
	parallelFor(B, M*N*K, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			gemm(ta, tb, M, N, K, 1, as[a.offset+i*a.strides[0]:], lda, bs[b.offset+i*b.strides[0]:], ldb, 0, ds[i*M*N:(i+1)*M*N], N)
		}
	})
}

func (CPU[T]) Conv2D(y, x, w *Tensor[T], p Conv2DParams) {
	conv2dForward(HostData(y), HostData(x), HostData(w), nil, p)
}

func (CPU[T]) Conv2DBackwardInput(dx, dy, w *Tensor[T], p Conv2DParams) {
	conv2dBackwardInput(HostData(dx), HostData(dy), HostData(w), p)
}

func (CPU[T]) Conv2DBackwardWeight(dw, x, dy *Tensor[T], p Conv2DParams) {
	conv2dBackwardWeight(HostData(dw), HostData(x), HostData(dy), p)
}

func (CPU[T]) MaxPool2D(y, x *Tensor[T], p Pool2DParams) {
	maxPool2dForward(HostData(y), HostData(x), p)
}

func (CPU[T]) MaxPool2DBackward(dx, x, dy *Tensor[T], p Pool2DParams) {
	maxPool2dBackward(HostData(dx), HostData(x), HostData(dy), p)
}

func (CPU[T]) AvgPool2D(y, x *Tensor[T], p Pool2DParams) {
	avgPool2dForward(HostData(y), HostData(x), p)
}

func (CPU[T]) AvgPool2DBackward(dx, dy *Tensor[T], p Pool2DParams) {
	avgPool2dBackward(HostData(dx), HostData(dy), p)
}

// Gather and ScatterAdd walk the index tensor's shape (dst's for Gather,
// src's for ScatterAdd) in row-major order; the other operand is addressed by
// replacing the coordinate along axis with the index.
func (CPU[T]) Gather(dst, x *Tensor[T], axis int, idx []int) {
	xs, ds := host(x), HostData(dst)
	walkIndexed(dst.shape, x.strides, x.offset, axis, idx, func(i, off int) { ds[i] = xs[off] })
}

func (CPU[T]) ScatterAdd(dst, src *Tensor[T], axis int, idx []int) {
	ss, ds := HostData(src), host(dst)
	walkIndexed(src.shape, dst.strides, dst.offset, axis, idx, func(i, off int) { ds[off] += ss[i] })
}

// walkIndexed calls fn(i, off) for each row-major position i of shape, with
// off the offset into the other operand (strides, offset) whose coordinate
// along axis is idx[i]. It runs on one goroutine: ScatterAdd may hit one
// element from many positions.
func walkIndexed(shape, strides []int, offset, axis int, idx []int, fn func(i, off int)) {
	coord := make([]int, len(shape))
	for i := range idx {
		off := offset
		for d, c := range coord {
			if d == axis {
				c = idx[i]
			}
			off += c * strides[d]
		}
		fn(i, off)
		for d := len(shape) - 1; d >= 0; d-- {
			coord[d]++
			if coord[d] < shape[d] {
				break
			}
			coord[d] = 0
		}
	}
}

// digamma is ψ(x) for x > 0: the recurrence ψ(x) = ψ(x+1) − 1/x up to
// x ≥ 10, then the asymptotic series (truncation error below 1e-13 there).
func digamma(x float64) float64 {
	if !(x > 0) {
		return math.NaN()
	}
	r := 0.0
	for x < 10 {
		r -= 1 / x
		x++
	}
	f := 1 / (x * x)
	return r + math.Log(x) - 0.5/x - f*(1.0/12-f*(1.0/120-f*(1.0/252-f*(1.0/240-f*(1.0/132)))))
}
