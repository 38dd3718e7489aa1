package tensor

import (
	"fmt"
	"strings"
)

// Tensor is an n-dimensional view of a Buffer: element i of the view, with
// multi-index (i0, i1, …), is buf[offset + Σ i_d·strides[d]]. Strides may be 0
// (broadcast) but never negative. A Tensor's shape and strides never change
// after creation; views share the buffer.
type Tensor[T Float] struct {
	shape   []int
	strides []int
	offset  int
	buf     Buffer[T]
}

// Shape returns a copy of the shape (empty, not nil, for a scalar).
func (t *Tensor[T]) Shape() []int { return append(make([]int, 0, len(t.shape)), t.shape...) }

// Strides returns a copy of the strides, in elements.
func (t *Tensor[T]) Strides() []int { return append(make([]int, 0, len(t.strides)), t.strides...) }

// Offset is the position of the first element in the buffer.
func (t *Tensor[T]) Offset() int { return t.offset }

// Buffer is the storage the view reads.
func (t *Tensor[T]) Buffer() Buffer[T] { return t.buf }

// Device is the device holding the buffer.
func (t *Tensor[T]) Device() Device[T] { return t.buf.Device() }

// Dims is the number of dimensions (0 for a scalar).
func (t *Tensor[T]) Dims() int { return len(t.shape) }

// Dim is the size of dimension d; negative d counts from the end.
func (t *Tensor[T]) Dim(d int) int { return t.shape[t.axis("dim", d)] }

// Len is the number of elements.
func (t *Tensor[T]) Len() int { return numel(t.shape) }

// IsContiguous reports whether the view is row-major dense (strides of a
// freshly allocated tensor of its shape; size-1 dimensions may have any stride).
func (t *Tensor[T]) IsContiguous() bool {
	want := 1
	for d := len(t.shape) - 1; d >= 0; d-- {
		if t.shape[d] != 1 && t.strides[d] != want {
			return false
		}
		want *= t.shape[d]
	}
	return true
}

// Data returns the elements in row-major order, copied to a new host slice.
func (t *Tensor[T]) Data() []T {
	out := make([]T, t.Len())
	t.Device().Download(out, t)
	return out
}

// Item returns the only element of a one-element tensor.
func (t *Tensor[T]) Item() T {
	if t.Len() != 1 {
		panic(shapeError("Item", [][]int{t.shape}, "tensor of shape %v, want one element", t.shape))
	}
	return t.Data()[0]
}

// At returns the element at the multi-index idx (copied to the host; slow,
// for tests and small tensors).
func (t *Tensor[T]) At(idx ...int) T {
	return t.element("At", idx).Item()
}

// element is the scalar view of the element at idx, for op.
func (t *Tensor[T]) element(op string, idx []int) *Tensor[T] {
	if len(idx) != len(t.shape) {
		panic(shapeError(op, [][]int{t.shape}, "index %v for shape %v", idx, t.shape))
	}
	off := t.offset
	for d, i := range idx {
		if i < 0 || i >= t.shape[d] {
			panic(shapeError(op, [][]int{t.shape}, "index %v out of range for shape %v", idx, t.shape))
		}
		off += i * t.strides[d]
	}
	return &Tensor[T]{shape: []int{}, strides: []int{}, offset: off, buf: t.buf}
}

// Set writes v at the multi-index idx.
func (t *Tensor[T]) Set(v T, idx ...int) {
	t.Device().Fill(t.element("Set", idx), v)
}

// String prints the shape, dtype, device and (for small tensors) the values.
func (t *Tensor[T]) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Tensor[%s]%v on %s", DType[T](), t.shape, t.Device())
	if t.Len() <= 64 {
		fmt.Fprintf(&b, " %v", t.Data())
	}
	return b.String()
}

// axis resolves a possibly negative axis, panicking with the op's name when out
// of range.
func (t *Tensor[T]) axis(op string, a int) int {
	n := len(t.shape)
	if a < 0 {
		a += n
	}
	if a < 0 || a >= n {
		panic(shapeError(op, [][]int{t.shape}, "axis %d out of range for shape %v", a, t.shape))
	}
	return a
}

func numel(shape []int) int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return n
}

// contiguousStrides are the row-major strides of shape.
func contiguousStrides(shape []int) []int {
	st := make([]int, len(shape))
	s := 1
	for d := len(shape) - 1; d >= 0; d-- {
		st[d] = s
		s *= shape[d]
	}
	return st
}

// sameDevice panics when the tensors of an op live on different devices.
func sameDevice[T Float](op string, ts ...*Tensor[T]) Device[T] {
	dev := ts[0].Device()
	for _, t := range ts[1:] {
		if t.Device() != dev {
			panic(&DeviceError{Op: "tensor." + op, Devices: [2]string{dev.String(), t.Device().String()}})
		}
	}
	return dev
}
