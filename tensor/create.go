package tensor

import (
	"math"
	"math/rand/v2"
)

func checkShape(op string, shape []int) {
	for _, s := range shape {
		if s < 0 {
			panic(shapeError(op, [][]int{shape}, "negative dimension in shape %v", shape))
		}
	}
}

// ZerosOn allocates a zeroed contiguous tensor on dev.
func ZerosOn[T Float](dev Device[T], shape ...int) *Tensor[T] { return newDense(dev, false, shape) }

// emptyOn allocates a contiguous tensor on dev of unspecified contents
// (Device.Empty), for an op that writes every element.
func emptyOn[T Float](dev Device[T], shape ...int) *Tensor[T] { return newDense(dev, true, shape) }

func newDense[T Float](dev Device[T], empty bool, shape []int) *Tensor[T] {
	checkShape("Zeros", shape)
	dims := make([]int, 2*len(shape)) // shape and strides in one allocation
	s := copy(dims, shape)
	st := dims[s:]
	n := 1
	for d := s - 1; d >= 0; d-- {
		st[d] = n
		n *= shape[d]
	}
	t := &Tensor[T]{shape: dims[:s:s], strides: st}
	if empty {
		t.buf = dev.Empty(n)
	} else {
		t.buf = dev.Alloc(n)
	}
	return t
}

// Zeros allocates a zeroed contiguous tensor on the CPU.
func Zeros[T Float](shape ...int) *Tensor[T] { return ZerosOn[T](CPU[T]{}, shape...) }

// FullOn allocates a tensor of shape on dev with every element v.
func FullOn[T Float](dev Device[T], v T, shape ...int) *Tensor[T] {
	t := ZerosOn(dev, shape...)
	if v != 0 {
		dev.Fill(t, v)
	}
	return t
}

// Full allocates a CPU tensor with every element v.
func Full[T Float](v T, shape ...int) *Tensor[T] { return FullOn[T](CPU[T]{}, v, shape...) }

// Ones allocates a CPU tensor of ones.
func Ones[T Float](shape ...int) *Tensor[T] { return Full[T](1, shape...) }

// Scalar is a 0-dimensional CPU tensor holding v.
func Scalar[T Float](v T) *Tensor[T] { return FromSlice([]T{v}, []int{}...) }

// FromSliceOn copies data (row-major) into a new tensor of shape on dev; with
// no shape, the tensor is 1-D of len(data).
func FromSliceOn[T Float](dev Device[T], data []T, shape ...int) *Tensor[T] {
	shape = sliceShape("FromSlice", len(data), shape)
	return &Tensor[T]{shape: shape, strides: contiguousStrides(shape), buf: dev.Upload(data)}
}

// sliceShape checks shape (nil: [n]) for n values and returns a copy.
func sliceShape(op string, n int, shape []int) []int {
	if shape == nil {
		shape = []int{n}
	}
	checkShape(op, shape)
	if numel(shape) != n {
		panic(shapeError(op, [][]int{{n}, shape}, "%d values for shape %v", n, shape))
	}
	return append([]int{}, shape...)
}

// Wrap is a CPU tensor of shape backed by data itself, without copying:
// writes through either change both (HostData is the way back). With no
// shape it is 1-D of len(data).
func Wrap[T Float](data []T, shape ...int) *Tensor[T] {
	shape = sliceShape("Wrap", len(data), shape)
	return &Tensor[T]{shape: shape, strides: contiguousStrides(shape), buf: &cpuBuffer[T]{data: data}}
}

// FromSlice copies data into a new CPU tensor; see FromSliceOn.
func FromSlice[T Float](data []T, shape ...int) *Tensor[T] {
	return FromSliceOn[T](CPU[T]{}, data, shape...)
}

// Arange is the 1-D CPU tensor start, start+step, … of the values below
// stop (above it for a negative step); element i is start + i·step, so the
// length does not drift with rounding.
func Arange[T Float](start, stop, step T) *Tensor[T] {
	if step == 0 {
		panic(shapeError("Arange", nil, "step 0"))
	}
	n := int(math.Ceil(float64(stop-start) / float64(step)))
	data := make([]T, max(n, 0))
	for i := range data {
		data[i] = start + T(i)*step
	}
	return FromSlice(data, len(data))
}

// RandUniform fills a new CPU tensor with values uniform in [lo, hi) drawn
// from rng.
func RandUniform[T Float](rng *rand.Rand, lo, hi T, shape ...int) *Tensor[T] {
	t := Zeros[T](shape...)
	d := HostData(t)
	for i := range d {
		// Rounding to float32 can reach hi; keep the interval half-open.
		if d[i] = lo + (hi-lo)*T(rng.Float64()); d[i] >= hi && hi > lo {
			d[i] = below(hi)
		}
	}
	return t
}

// below is the largest value of T less than v.
func below[T Float](v T) T {
	if _, ok := any(v).(float32); ok {
		return T(math.Nextafter32(float32(v), float32(math.Inf(-1))))
	}
	return T(math.Nextafter(float64(v), math.Inf(-1)))
}

// RandNormal fills a new CPU tensor with normal values of the given mean and
// standard deviation drawn from rng.
func RandNormal[T Float](rng *rand.Rand, mean, std T, shape ...int) *Tensor[T] {
	t := Zeros[T](shape...)
	d := HostData(t)
	for i := range d {
		d[i] = mean + std*T(rng.NormFloat64())
	}
	return t
}

// To returns t on dev (t itself when it is already there).
func To[T Float](t *Tensor[T], dev Device[T]) *Tensor[T] {
	if t.Device() == dev {
		return t
	}
	return FromSliceOn(dev, t.Data(), t.Shape()...)
}

// Convert copies t to a CPU tensor of element type U.
func Convert[U, T Float](t *Tensor[T]) *Tensor[U] {
	src := t.Data()
	dst := make([]U, len(src))
	for i, v := range src {
		dst[i] = U(v)
	}
	return FromSlice(dst, t.Shape()...)
}
