package tensor

import (
	"math"
	"slices"
	"testing"
)

func TestZerosOnesFull(t *testing.T) {
	for _, shape := range [][]int{{}, {3}, {2, 3}, {2, 0, 4}, {1, 1, 1}} {
		z, o, f := Zeros[float64](shape...), Ones[float32](shape...), Full[float64](-2.5, shape...)
		for name, x := range map[string]interface {
			Shape() []int
			IsContiguous() bool
			Len() int
		}{"Zeros": z, "Ones": o, "Full": f} {
			if !slices.Equal(x.Shape(), shape) || !x.IsContiguous() || x.Len() != numel(shape) {
				t.Errorf("%s%v: shape %v len %d", name, shape, x.Shape(), x.Len())
			}
		}
		for i := range z.Len() {
			if z.Data()[i] != 0 || o.Data()[i] != 1 || f.Data()[i] != -2.5 {
				t.Fatalf("values at %d: %v %v %v", i, z.Data()[i], o.Data()[i], f.Data()[i])
			}
		}
	}
	// Each call allocates its own buffer.
	a, b := Zeros[float64](2), Zeros[float64](2)
	a.Set(1, 0)
	if b.At(0) != 0 || a.Buffer() == b.Buffer() {
		t.Error("Zeros tensors share storage")
	}
	if f := Full[float64](math.Inf(-1), 2); !math.IsInf(f.At(1), -1) {
		t.Error("Full(−Inf)")
	}
}

func TestFromSliceAndScalar(t *testing.T) {
	data := []float64{1, 2, 3, 4, 5, 6}
	x := FromSlice(data, 2, 3)
	data[0] = 100
	if x.At(0, 0) != 1 {
		t.Error("FromSlice aliases its input slice")
	}
	expectShape(t, "FromSlice", x, 2, 3)
	if x.At(1, 2) != 6 || !slices.Equal(x.Strides(), []int{3, 1}) || x.Offset() != 0 {
		t.Errorf("FromSlice layout: strides %v", x.Strides())
	}
	expectShape(t, "FromSlice without shape", FromSlice([]float32{1, 2, 3}), 3)
	expectShape(t, "FromSlice empty", FromSlice([]float64{}), 0)
	s := Scalar(float32(2.5))
	if s.Dims() != 0 || s.Len() != 1 || s.Item() != 2.5 || s.At() != 2.5 {
		t.Errorf("Scalar: %v", s)
	}
	if !isCPU(s.Device()) {
		t.Errorf("Scalar on %v", s.Device())
	}
}

// isCPU reports whether dev is the CPU device.
func isCPU[T Float](dev Device[T]) bool { _, ok := dev.(CPU[T]); return ok }

func TestArange(t *testing.T) {
	expectData(t, "Arange(0,5,1)", Arange[float64](0, 5, 1), 0, 1, 2, 3, 4)
	expectData(t, "Arange(5,0,-2)", Arange[float64](5, 0, -2), 5, 3, 1)
	expectData(t, "Arange(-1,1,0.5)", Arange[float32](-1, 1, 0.5), -1, -0.5, 0, 0.5)
	expectData(t, "Arange(2,-1,-1)", Arange[float64](2, -1, -1), 2, 1, 0)
	expectShape(t, "Arange empty", Arange[float64](0, 0, 1), 0)
	expectShape(t, "Arange wrong direction", Arange[float64](0, -3, 1), 0)
	expectShape(t, "Arange wrong direction, negative step", Arange[float64](0, 3, -1), 0)
	mustPanic(t, func() { Arange[float64](0, 1, 0) }, "tensor.Arange", "step 0")
}

// Arange's length is ⌈(stop − start)/step⌉ and element i is start + i·step,
// as in NumPy; accumulating v += step instead drifts (0.1·10 < 1 in
// float64) and, in float32 past 2²⁴, never reaches stop.
func TestArangeLengthDoesNotDrift(t *testing.T) {
	for _, c := range []struct{ start, stop, step float64 }{
		{0, 1, 0.1}, {1, 0, -0.1}, {0, 3, 0.3}, {-1, 1, 0.2}, {0, 100, 0.01},
	} {
		got := Arange[float64](c.start, c.stop, c.step)
		n := int(math.Ceil((c.stop - c.start) / c.step))
		if got.Len() != n {
			t.Errorf("Arange(%v, %v, %v) has %d elements, want %d", c.start, c.stop, c.step, got.Len(), n)
			continue
		}
		for i, v := range got.Data() {
			if !near(v, c.start+float64(i)*c.step, 1e-12) {
				t.Errorf("Arange(%v, %v, %v)[%d] = %v", c.start, c.stop, c.step, i, v)
				break
			}
		}
	}
}

func TestRandDeterminismAndMoments(t *testing.T) {
	const n = 20000
	u1 := RandUniform[float64](newRNG(71), -1, 3, n)
	u2 := RandUniform[float64](newRNG(71), -1, 3, n)
	u3 := RandUniform[float64](newRNG(72), -1, 3, n)
	if !slices.Equal(u1.Data(), u2.Data()) {
		t.Error("RandUniform differs for the same seed")
	}
	if slices.Equal(u1.Data(), u3.Data()) {
		t.Error("RandUniform is the same for different seeds")
	}
	var s, s2 float64
	for _, v := range u1.Data() {
		if v < -1 || v >= 3 {
			t.Fatalf("uniform value %v outside [-1, 3)", v)
		}
		s += v
		s2 += v * v
	}
	mean, vr := s/n, s2/n-(s/n)*(s/n)
	// mean 1, variance 16/12; the mean's standard error is √(4/3/n) ≈ 0.008.
	if math.Abs(mean-1) > 0.05 || math.Abs(vr-4.0/3) > 0.05 {
		t.Errorf("uniform mean %v variance %v, want 1 and 1.333", mean, vr)
	}
	u32 := RandUniform[float32](newRNG(73), 2, 2.5, 3, 50)
	expectShape(t, "RandUniform float32", u32, 3, 50)
	for _, v := range u32.Data() {
		if v < 2 || v > 2.5 {
			t.Fatalf("float32 uniform value %v outside [2, 2.5]", v)
		}
	}

	g1 := RandNormal[float64](newRNG(74), 3, 2, 100, 200)
	g2 := RandNormal[float64](newRNG(74), 3, 2, 100, 200)
	if !slices.Equal(g1.Data(), g2.Data()) {
		t.Error("RandNormal differs for the same seed")
	}
	s, s2 = 0, 0
	var s3 float64
	for _, v := range g1.Data() {
		s += v
		s2 += v * v
	}
	m := s / float64(g1.Len())
	sd := math.Sqrt(s2/float64(g1.Len()) - m*m)
	for _, v := range g1.Data() {
		s3 += math.Pow((v-m)/sd, 3)
	}
	if math.Abs(m-3) > 0.05 || math.Abs(sd-2) > 0.05 || math.Abs(s3/float64(g1.Len())) > 0.1 {
		t.Errorf("normal mean %v sd %v skew %v, want 3, 2, 0", m, sd, s3/float64(g1.Len()))
	}
	// The generator is consumed: two draws from one rng differ.
	r := newRNG(75)
	if slices.Equal(RandNormal[float32](r, 0, 1, 10).Data(), RandNormal[float32](r, 0, 1, 10).Data()) {
		t.Error("consecutive draws are equal")
	}
}

func TestConvertAndDType(t *testing.T) {
	x := FromSlice([]float64{0.1, -2, 1e-40, 3.5, 1e39, math.Inf(-1)}, 2, 3)
	c := Convert[float32](x)
	expectShape(t, "Convert", c, 2, 3)
	for i, v := range c.Data() {
		if want := float32(x.Data()[i]); v != want {
			t.Errorf("Convert[float32] element %d = %v, want %v", i, v, want)
		}
	}
	back := Convert[float64](c)
	for i, v := range back.Data() {
		if v != float64(c.Data()[i]) {
			t.Errorf("Convert[float64] element %d = %v", i, v)
		}
	}
	// A view converts in its row-major order; scalars stay 0-d.
	tiny := 1e-40 // a float32 subnormal
	expectData(t, "Convert transposed", Convert[float32](Transpose(x, 0, 1)), float64(float32(0.1)), 3.5, -2, math.Inf(1), float64(float32(tiny)), math.Inf(-1))
	if s := Convert[float32](Scalar(1.5)); s.Dims() != 0 || s.Item() != 1.5 {
		t.Errorf("Convert scalar %v", s)
	}
	if Convert[float64](x).Buffer() == x.Buffer() {
		t.Error("Convert to the same type shares the buffer")
	}
	if DType[float32]() != "float32" || DType[float64]() != "float64" {
		t.Errorf("DType %q %q", DType[float32](), DType[float64]())
	}
	if s := FromSlice([]float32{1}).String(); s != "Tensor[float32][1] on cpu [1]" {
		t.Errorf("String %q", s)
	}
}
