package tensor

import (
	"slices"
)

// view is a tensor of the given layout over t's buffer: the one meaning of
// "view" in this package and kernels/cuda (a tensor that shares its
// buffer).
func (t *Tensor[T]) view(shape, strides []int, offset int) *Tensor[T] {
	return &Tensor[T]{shape: shape, strides: strides, offset: offset, buf: t.buf}
}

// Reshape returns a tensor of the new shape with the same elements in
// row-major order: a view when the strides allow it, else a copy. One
// dimension may be -1 and is inferred.
func Reshape[T Float](t *Tensor[T], shape ...int) *Tensor[T] {
	if slices.Equal(shape, t.shape) {
		return t
	}
	shape = slices.Clone(shape)
	infer, known := -1, 1
	for d, s := range shape {
		switch {
		case s == -1 && infer < 0:
			infer = d
		case s < 0:
			panic(shapeError("Reshape", [][]int{t.shape, shape}, "bad shape %v", shape))
		default:
			known *= s
		}
	}
	if infer >= 0 {
		if known == 0 {
			panic(shapeError("Reshape", [][]int{t.shape, shape}, "cannot infer -1 in %v next to a zero dimension (%v has %d elements)", shape, t.shape, t.Len()))
		}
		shape[infer] = t.Len() / known
	}
	if numel(shape) != t.Len() {
		panic(shapeError("Reshape", [][]int{t.shape, shape}, "cannot reshape %v (%d elements) to %v", t.shape, t.Len(), shape))
	}
	if st, ok := reshapeStrides(t.shape, t.strides, shape); ok {
		return t.view(shape, st, t.offset)
	}
	return Reshape(Contiguous(t), shape...)
}

// reshapeStrides finds strides that make a view of shape over the same
// elements, when one exists: each group of old dimensions that maps onto a
// group of new ones must be contiguous among itself.
func reshapeStrides(old, oldSt, shape []int) ([]int, bool) {
	st := make([]int, len(shape))
	if numel(old) == 0 {
		return contiguousStrides(shape), true
	}
	i, j := 0, 0
	for i < len(old) || j < len(shape) {
		// Skip size-1 dims on both sides.
		if j < len(shape) && shape[j] == 1 {
			st[j] = 1
			j++
			continue
		}
		if i < len(old) && old[i] == 1 {
			i++
			continue
		}
		if i >= len(old) || j >= len(shape) {
			return nil, false
		}
		// Grow groups until their sizes match.
		i0, j0 := i, j
		po, pn := old[i], shape[j]
		i++
		j++
		for po != pn {
			if po < pn {
				po *= old[i]
				i++
			} else {
				pn *= shape[j]
				j++
			}
		}
		// The old group must be contiguous within itself; its innermost
		// stride drives the new group.
		last := -1
		for d := i0; d < i; d++ {
			if old[d] == 1 {
				continue
			}
			if last >= 0 && oldSt[last] != oldSt[d]*old[d] {
				return nil, false
			}
			last = d
		}
		inner := oldSt[last]
		for d := j - 1; d >= j0; d-- {
			st[d] = inner
			inner *= shape[d]
		}
	}
	return st, true
}

// Permute reorders the dimensions: dimension d of the result is dimension
// axes[d] of t.
func Permute[T Float](t *Tensor[T], axes ...int) *Tensor[T] {
	if len(axes) != len(t.shape) {
		panic(shapeError("Permute", [][]int{t.shape}, "axes %v for shape %v", axes, t.shape))
	}
	seen := make([]bool, len(axes))
	shape, st := make([]int, len(axes)), make([]int, len(axes))
	for d, a := range axes {
		a = t.axis("Permute", a)
		if seen[a] {
			panic(shapeError("Permute", [][]int{t.shape}, "repeated axis in %v for shape %v", axes, t.shape))
		}
		seen[a] = true
		shape[d], st[d] = t.shape[a], t.strides[a]
	}
	return t.view(shape, st, t.offset)
}

// Transpose swaps dimensions a and b.
func Transpose[T Float](t *Tensor[T], a, b int) *Tensor[T] {
	axes := make([]int, len(t.shape))
	for i := range axes {
		axes[i] = i
	}
	a, b = t.axis("Transpose", a), t.axis("Transpose", b)
	axes[a], axes[b] = b, a
	return Permute(t, axes...)
}

// Narrow is the view of length elements of axis starting at start.
func Narrow[T Float](t *Tensor[T], axis, start, length int) *Tensor[T] {
	axis = t.axis("Narrow", axis)
	if start < 0 || length < 0 || start+length > t.shape[axis] {
		panic(shapeError("Narrow", [][]int{t.shape}, "[%d, %d) out of range for axis %d of shape %v", start, start+length, axis, t.shape))
	}
	shape := slices.Clone(t.shape)
	shape[axis] = length
	return t.view(shape, slices.Clone(t.strides), t.offset+start*t.strides[axis])
}

// Expand broadcasts t to shape without copying: dimensions of size 1 (and
// missing leading ones) repeat with stride 0; t itself when it has shape.
func Expand[T Float](t *Tensor[T], shape ...int) *Tensor[T] {
	checkShape("Expand", shape)
	if len(shape) < len(t.shape) {
		panic(shapeError("Expand", [][]int{t.shape, shape}, "cannot expand %v to %v", t.shape, shape))
	}
	if slices.Equal(shape, t.shape) {
		return t // views never change: t is its own expansion
	}
	lead := len(shape) - len(t.shape)
	st := make([]int, len(shape))
	for d := range shape {
		if d < lead {
			continue
		}
		switch s := t.shape[d-lead]; {
		case s == shape[d]:
			st[d] = t.strides[d-lead]
		case s == 1:
		default:
			panic(shapeError("Expand", [][]int{t.shape, shape}, "cannot expand %v to %v", t.shape, shape))
		}
	}
	return t.view(slices.Clone(shape), st, t.offset)
}

// Unsqueeze inserts a dimension of size 1 at axis (0 ≤ axis ≤ Dims).
func Unsqueeze[T Float](t *Tensor[T], axis int) *Tensor[T] {
	if axis < 0 {
		axis += len(t.shape) + 1
	}
	if axis < 0 || axis > len(t.shape) {
		panic(shapeError("Unsqueeze", [][]int{t.shape}, "axis %d for shape %v", axis, t.shape))
	}
	return t.view(slices.Insert(slices.Clone(t.shape), axis, 1), slices.Insert(slices.Clone(t.strides), axis, 0), t.offset)
}

// Squeeze removes dimension axis, which must have size 1.
func Squeeze[T Float](t *Tensor[T], axis int) *Tensor[T] {
	axis = t.axis("Squeeze", axis)
	if t.shape[axis] != 1 {
		panic(shapeError("Squeeze", [][]int{t.shape}, "axis %d of shape %v is not 1", axis, t.shape))
	}
	return t.view(slices.Delete(slices.Clone(t.shape), axis, axis+1), slices.Delete(slices.Clone(t.strides), axis, axis+1), t.offset)
}

// Contiguous returns t if it is dense row-major, else a dense copy.
func Contiguous[T Float](t *Tensor[T]) *Tensor[T] {
	if t.IsContiguous() {
		return t
	}
	return Clone(t)
}

// Clone copies t into a new dense tensor on the same device.
func Clone[T Float](t *Tensor[T]) *Tensor[T] {
	out := emptyOn(t.Device(), t.shape...)
	t.Device().Copy(out, t)
	return out
}

// CopyInto copies src into the view dst of the same shape and device.
func CopyInto[T Float](dst, src *Tensor[T]) {
	sameDevice("CopyInto", dst, src)
	if !slices.Equal(dst.shape, src.shape) {
		panic(shapeError("CopyInto", [][]int{dst.shape, src.shape}, "shapes %v and %v", dst.shape, src.shape))
	}
	dst.Device().Copy(dst, src)
}
