package tensor

import (
	"math"
	"sync/atomic"
)

// CPU is the pure-Go device: the reference implementation of Device. Large
// loops run on all cores (GOMAXPROCS goroutines).
type CPU[T Float] struct{}

// cpuBuffer is host memory; dead once the Arena step that made it has
// ended (its memory then belongs to the arena again).
type cpuBuffer[T Float] struct {
	data []T
	dead bool
	// zeros: data are the zeros it was allocated with, and no one has
	// taken them since (host), so a kernel filling a new output may skip
	// clearing it (hostFilled).
	zeros atomic.Bool
}

// newZeroBuffer is a buffer of n zeros, fresh from Go's allocator.
func newZeroBuffer[T Float](n int) *cpuBuffer[T] {
	b := &cpuBuffer[T]{data: make([]T, n)}
	b.zeros.Store(true)
	return b
}

func (b *cpuBuffer[T]) Device() Device[T] { return CPU[T]{} }
func (b *cpuBuffer[T]) Len() int          { return len(b.data) }

func (CPU[T]) String() string { return "cpu" }

// Alloc returns a zeroed host buffer, from the active Arena if there is
// one.
func (CPU[T]) Alloc(n int) Buffer[T] {
	if a := activeArena[T]().Load(); a != nil {
		return a.get(n, true)
	}
	return newZeroBuffer[T](n)
}

// Empty is Alloc, except that a buffer an Arena recycles is not zeroed
// again (Go zeroes new memory anyway).
func (CPU[T]) Empty(n int) Buffer[T] {
	if a := activeArena[T]().Load(); a != nil {
		return a.get(n, false)
	}
	return newZeroBuffer[T](n)
}

// Upload copies src into a new host buffer.
func (CPU[T]) Upload(src []T) Buffer[T] { return &cpuBuffer[T]{data: append([]T(nil), src...)} }

// host returns the backing slice of a CPU tensor.
func host[T Float](t *Tensor[T]) []T {
	b, ok := t.buf.(*cpuBuffer[T])
	if !ok {
		panic(&DeviceError{Op: "tensor.CPU", Devices: [2]string{"cpu", t.Device().String()}})
	}
	if b.dead {
		panic(argumentError("Arena", "%v tensor used after the Arena step that made it ended", t.shape))
	}
	if b.zeros.Load() {
		b.zeros.Store(false)
	}
	return b.data
}

// hostFilled returns the backing slice of t, a new contiguous CPU output
// that a kernel is about to fill, and whether it still holds the zeros it
// was allocated with (no one has taken its data since), in which case the
// kernel need not clear it.
func hostFilled[T Float](t *Tensor[T]) ([]T, bool) {
	b, ok := t.buf.(*cpuBuffer[T])
	zeros := ok && b.zeros.Load() && t.offset == 0
	return HostData(t), zeros
}

// HostData returns the backing slice of a contiguous CPU tensor, starting at
// its first element, without copying: writes through it change the tensor.
// It panics for other devices and for non-contiguous views.
func HostData[T Float](t *Tensor[T]) []T {
	if !t.IsContiguous() {
		panic(shapeError("HostData", [][]int{t.shape}, "non-contiguous view %v strides %v", t.shape, t.strides))
	}
	return host(t)[t.offset : t.offset+t.Len()]
}

func (c CPU[T]) Download(dst []T, src *Tensor[T]) {
	d := &Tensor[T]{shape: src.shape, strides: contiguousStrides(src.shape), buf: &cpuBuffer[T]{data: dst}}
	c.Copy(d, src)
}

func (CPU[T]) Fill(dst *Tensor[T], v T) {
	forEach1(dst, func(d []T, od, n, sd int) {
		for i := 0; i < n; i++ {
			d[od+i*sd] = v
		}
	})
}

func (CPU[T]) Copy(dst, src *Tensor[T]) {
	if transposeCopy(dst, src) {
		return
	}
	s := host(src)
	forEach2(dst, src, func(d []T, od, os, n, sd, ss int) {
		if sd == 1 && ss == 1 {
			copy(d[od:od+n], s[os:os+n])
			return
		}
		for i := 0; i < n; i++ {
			d[od+i*sd] = s[os+i*ss]
		}
	})
}

func (CPU[T]) Unary(op UnaryOp, dst, x *Tensor[T], a, b T) {
	if smallDense(dst, x) { // one call, no closures unless op needs f
		var f func(T) T
		if !unarySpelled(op) {
			f = unaryFunc[T](op, a, b)
		}
		unaryContiguous(op, HostData(dst), HostData(x), a, b, f)
		return
	}
	f := unaryFunc[T](op, a, b)
	s := host(x)
	forEach2(dst, x, func(d []T, od, os, n, sd, ss int) {
		if sd == 1 && ss == 1 {
			unaryContiguous(op, d[od:od+n], s[os:os+n], a, b, f)
			return
		}
		for i := 0; i < n; i++ {
			d[od+i*sd] = f(s[os+i*ss])
		}
	})
}

// unarySpelled reports whether unaryContiguous spells op out (and needs no
// f).
func unarySpelled(op UnaryOp) bool {
	return op == OpRelu || op == OpStep || op == OpAffine || op == OpSqrt
}

// unaryContiguous is the dense inner loop, with the cheap ops of training
// (ReLU and its mask, affine maps, the square root of Adam) spelled out to
// avoid a call per element.
func unaryContiguous[T Float](op UnaryOp, d, x []T, a, b T, f func(T) T) {
	switch op {
	case OpRelu:
		reluContiguous(d, x)
	case OpStep:
		for i, v := range x {
			d[i] = 0
			if v > 0 {
				d[i] = 1
			}
		}
	case OpAffine:
		for i, v := range x {
			d[i] = a*v + b
		}
	case OpSqrt: // as unaryFunc: in float64, rounded once
		for i, v := range x {
			d[i] = T(math.Sqrt(float64(v)))
		}
	default:
		for i, v := range x {
			d[i] = f(v)
		}
	}
}

func (CPU[T]) Binary(op BinaryOp, dst, x, y *Tensor[T]) {
	if smallDense(dst, x, y) { // one call, no closures unless op needs f
		var f func(a, b T) T
		if op != OpAdd && op != OpSub && op != OpMul && op != OpDiv { // spelled out in binaryContiguous
			f = binaryFunc[T](op)
		}
		binaryContiguous(op, HostData(dst), HostData(x), HostData(y), f)
		return
	}
	f := binaryFunc[T](op)
	xs, ys := host(x), host(y)
	forEach3(dst, x, y, func(d []T, od, ox, oy, n, sd, sx, sy int) {
		if sd == 1 && sx == 1 && sy == 1 {
			binaryContiguous(op, d[od:od+n], xs[ox:ox+n], ys[oy:oy+n], f)
			return
		}
		if sd == 1 && sx == 1 && sy == 0 {
			binaryScalar(op, d[od:od+n], xs[ox:ox+n], ys[oy], f)
			return
		}
		for i := 0; i < n; i++ {
			d[od+i*sd] = f(xs[ox+i*sx], ys[oy+i*sy])
		}
	})
}

// binaryContiguous is the dense inner loop, with the common arithmetic
// spelled out so the compiler can keep it free of calls.
func binaryContiguous[T Float](op BinaryOp, d, x, y []T, f func(a, b T) T) {
	switch op {
	case OpAdd:
		for i := range d {
			d[i] = x[i] + y[i]
		}
	case OpSub:
		for i := range d {
			d[i] = x[i] - y[i]
		}
	case OpMul:
		for i := range d {
			d[i] = x[i] * y[i]
		}
	case OpDiv:
		for i := range d {
			d[i] = x[i] / y[i]
		}
	default:
		for i := range d {
			d[i] = f(x[i], y[i])
		}
	}
}

// binaryScalar is binaryContiguous with one y for the whole row, as when a
// bias is broadcast over an image.
func binaryScalar[T Float](op BinaryOp, d, x []T, y T, f func(a, b T) T) {
	switch op {
	case OpAdd:
		for i, v := range x {
			d[i] = v + y
		}
	case OpMul:
		for i, v := range x {
			d[i] = v * y
		}
	default:
		for i, v := range x {
			d[i] = f(v, y)
		}
	}
}

func (c CPU[T]) Where(dst, cond, x, y *Tensor[T]) {
	c.Copy(dst, y)
	cs, xs := host(cond), host(x)
	forEach3(dst, cond, x, func(d []T, od, oc, ox, n, sd, sc, sx int) {
		for i := 0; i < n; i++ {
			if cs[oc+i*sc] != 0 {
				d[od+i*sd] = xs[ox+i*sx]
			}
		}
	})
}
