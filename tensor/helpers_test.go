package tensor

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// newRNG is a deterministic generator for one test.
func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed*0x9e3779b97f4a7c15+1)) }

// near reports |got − want| ≤ rel·max(1, |want|); NaN matches NaN and an
// infinity matches only itself.
func near(got, want, rel float64) bool {
	switch {
	case math.IsNaN(want):
		return math.IsNaN(got)
	case math.IsInf(want, 0):
		return got == want
	}
	return math.Abs(got-want) <= rel*math.Max(1, math.Abs(want))
}

// expectShape checks x's shape.
func expectShape[T Float](t *testing.T, name string, x *Tensor[T], want ...int) bool {
	t.Helper()
	if !slices.Equal(x.Shape(), want) {
		t.Errorf("%s: shape %v, want %v", name, x.Shape(), want)
		return false
	}
	return true
}

// expectEach compares every element of got, in row-major order, with
// ref(multi-index) within rel; it reports the first difference only.
func expectEach[T Float](t *testing.T, name string, got *Tensor[T], rel float64, ref func(idx []int) float64) {
	t.Helper()
	data := got.Data()
	for i, idx := range allIndices(got.Shape()) {
		if w := ref(idx); !near(float64(data[i]), w, rel) {
			t.Errorf("%s at %v: got %v, want %v", name, idx, data[i], w)
			return
		}
	}
}

// expectData checks got's row-major elements exactly against want.
func expectData[T Float](t *testing.T, name string, got *Tensor[T], want ...float64) {
	t.Helper()
	d := got.Data()
	if len(d) != len(want) {
		t.Errorf("%s: %d elements %v, want %v", name, len(d), d, want)
		return
	}
	for i := range d {
		if !near(float64(d[i]), want[i], 0) {
			t.Errorf("%s: %v, want %v", name, d, want)
			return
		}
	}
}

// randInts is a float64 tensor of integers in [-n, n], so that ties and
// equalities occur.
func randInts(r *rand.Rand, n int, shape ...int) *Tensor[float64] {
	x := Zeros[float64](shape...)
	d := HostData(x)
	for i := range d {
		d[i] = float64(r.IntN(2*n+1) - n)
	}
	return x
}

// withProcs runs the rest of the test with GOMAXPROCS n, so that the
// parallel paths run even on a one-core machine.
func withProcs(t *testing.T, n int) {
	old := runtime.GOMAXPROCS(n)
	t.Cleanup(func() { runtime.GOMAXPROCS(old) })
}

// checkCase fails t unless the case's parameters p are valid and its work,
// which takes the parallel path from grain on, takes it exactly when
// parallel says.
func checkCase(t *testing.T, name string, p interface{ Validate() error }, work int, parallel bool) {
	t.Helper()
	if err := p.Validate(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if big := work >= grain; big != parallel {
		t.Fatalf("%s: parallel path %v, want %v", name, big, parallel)
	}
}

// offsetOf is the buffer position of idx in x, computed from the view's
// shape, strides and offset.
func offsetOf[T Float](x *Tensor[T], idx []int) int {
	off := x.Offset()
	for d, i := range idx {
		off += i * x.Strides()[d]
	}
	return off
}

// reader is a fast stand-in for x.At on a CPU tensor: it reads the buffer at
// offset + Σ idx·strides directly, without going through strided.
func reader[T Float](x *Tensor[T]) func(idx ...int) float64 {
	data, st, off := host(x), x.Strides(), x.Offset()
	return func(idx ...int) float64 {
		o := off
		for d, i := range idx {
			o += i * st[d]
		}
		return float64(data[o])
	}
}
