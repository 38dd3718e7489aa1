package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// mustPanic runs f and checks that it panics with a message containing every
// one of want.
func mustPanic(t *testing.T, f func(), want ...string) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Errorf("no panic, want one mentioning %q", want)
			return
		}
		msg := fmt.Sprint(r)
		for _, w := range want {
			if !strings.Contains(msg, w) {
				t.Errorf("panic %q does not mention %q", msg, w)
			}
		}
	}()
	f()
}

func seq(shape ...int) *Tensor[float64] {
	return Arange[float64](0, float64(numel(shape)), 1).reshaped(shape...)
}

func (t *Tensor[T]) reshaped(shape ...int) *Tensor[T] { return Reshape(t, shape...) }

func TestViewsShareStorage(t *testing.T) {
	x := seq(2, 3, 4)
	v := Reshape(x, 6, 4)
	if v.Buffer() != x.Buffer() {
		t.Error("Reshape of a contiguous tensor copied")
	}
	tr := Transpose(x, 0, 2) // [4, 3, 2]
	if tr.IsContiguous() || tr.At(3, 1, 0) != x.At(0, 1, 3) {
		t.Errorf("Transpose: contiguous=%v, value %v", tr.IsContiguous(), tr.At(3, 1, 0))
	}
	// Reshaping a transposed view must copy, and keep row-major order.
	flat := Reshape(tr, 24)
	if flat.Buffer() == x.Buffer() {
		t.Error("Reshape of a transposed view shared the buffer")
	}
	for i, v := range flat.Data() {
		a, b, c := i/6, (i/2)%3, i%2
		if v != x.At(c, b, a) {
			t.Fatalf("flat[%d] = %v, want %v", i, v, x.At(c, b, a))
		}
	}
	n := Narrow(x, 2, 1, 2) // [2, 3, 2]
	if n.At(1, 2, 1) != x.At(1, 2, 2) || n.Buffer() != x.Buffer() {
		t.Error("Narrow")
	}
	// Merging the leading dims of a narrowed view is still a view.
	if m := Reshape(n, 6, 2); m.Buffer() != x.Buffer() || m.At(5, 0) != x.At(1, 2, 1) {
		t.Error("Reshape of a narrowed view")
	}
	e := Expand(FromSlice([]float64{1, 2, 3}, 3, 1), 2, 3, 4)
	if e.At(1, 2, 3) != 3 || e.Strides()[0] != 0 || e.Strides()[2] != 0 {
		t.Errorf("Expand strides %v", e.Strides())
	}
	if s := Squeeze(Unsqueeze(x, 1), 1).Shape(); fmt.Sprint(s) != "[2 3 4]" {
		t.Errorf("Unsqueeze/Squeeze shape %v", s)
	}
	if s := Reshape(x, -1, 4).Shape(); fmt.Sprint(s) != "[6 4]" {
		t.Errorf("-1 inferred %v", s)
	}
	c := Clone(n)
	c.Set(-1, 0, 0, 0)
	if n.At(0, 0, 0) == -1 {
		t.Error("Clone shares storage")
	}
	n.Set(-5, 0, 0, 0)
	if x.At(0, 0, 1) != -5 {
		t.Error("Set on a view did not write through")
	}
}

func TestBroadcastingArithmetic(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, c := range []struct{ a, b []int }{
		{[]int{2, 3, 4}, []int{4}}, {[]int{2, 1, 4}, []int{3, 1}}, {[]int{}, []int{2, 2}}, {[]int{5, 1}, []int{1, 6}},
	} {
		a, b := RandNormal[float64](r, 0, 1, c.a...), RandNormal[float64](r, 0, 1, c.b...)
		shape, _ := BroadcastShapes(c.a, c.b)
		for name, f := range map[string]struct {
			op  func(a, b *Tensor[float64]) *Tensor[float64]
			ref func(x, y float64) float64
		}{
			"Add": {Add[float64], func(x, y float64) float64 { return x + y }},
			"Sub": {Sub[float64], func(x, y float64) float64 { return x - y }},
			"Mul": {Mul[float64], func(x, y float64) float64 { return x * y }},
			"Div": {Div[float64], func(x, y float64) float64 { return x / y }},
			"Max": {Maximum[float64], math.Max},
			"Min": {Minimum[float64], math.Min},
			"Pow": {func(a, b *Tensor[float64]) *Tensor[float64] { return Pow(Abs(a), b) }, func(x, y float64) float64 { return math.Pow(math.Abs(x), y) }},
			"Gt":  {Greater[float64], func(x, y float64) float64 { return boolT[float64](x > y) }},
		} {
			got := f.op(a, b)
			if fmt.Sprint(got.Shape()) != fmt.Sprint(shape) {
				t.Fatalf("%s %v %v: shape %v", name, c.a, c.b, got.Shape())
			}
			ea, eb := Expand(a, shape...), Expand(b, shape...)
			for i, idx := range allIndices(shape) {
				want := f.ref(ea.At(idx...), eb.At(idx...))
				if g := got.Data()[i]; math.Abs(g-want) > 1e-15*math.Max(1, math.Abs(want)) {
					t.Fatalf("%s %v %v at %v: %v, want %v", name, c.a, c.b, idx, g, want)
				}
			}
		}
	}
}

func allIndices(shape []int) [][]int {
	var out [][]int
	idx := make([]int, len(shape))
	for range numel(shape) {
		out = append(out, append([]int(nil), idx...))
		for d := len(shape) - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	return out
}

// Large non-contiguous operands go through the parallel strided loop.
func TestStridedParallelPath(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	a := Transpose(RandNormal[float64](r, 0, 1, 500, 300), 0, 1)     // [300, 500]
	b := Narrow(RandNormal[float64](r, 0, 1, 300, 700), 1, 100, 500) // [300, 500]
	got := Add(a, b).Data()
	ad, bd := a.Data(), b.Data()
	for i := range got {
		if got[i] != ad[i]+bd[i] {
			t.Fatalf("element %d", i)
		}
	}
	for i, idx := range [][]int{{0, 0}, {299, 499}, {123, 321}} {
		if a.At(idx...)+b.At(idx...) != got[idx[0]*500+idx[1]] {
			t.Errorf("probe %d", i)
		}
	}
}

func TestUnaryOps(t *testing.T) {
	x := FromSlice([]float64{-800, -2, -0.5, 0, 0.5, 2, 800})
	for name, c := range map[string]struct {
		got *Tensor[float64]
		ref func(float64) float64
	}{
		"Exp":     {Exp(Clamp(x, -50, 50)), func(v float64) float64 { return math.Exp(math.Max(-50, math.Min(50, v))) }},
		"Abs":     {Abs(x), math.Abs},
		"Relu":    {Relu(x), func(v float64) float64 { return math.Max(v, 0) }},
		"Sigmoid": {Sigmoid(x), func(v float64) float64 { return 0.5 * (1 + math.Tanh(v/2)) }},
		"Tanh":    {Tanh(x), math.Tanh},
		"Sign":    {Sign(x), func(v float64) float64 { return float64(boolT[float64](v > 0) - boolT[float64](v < 0)) }},
		"Step":    {Step(x), func(v float64) float64 { return boolT[float64](v > 0) }},
		"Affine":  {Affine(x, 2, 1), func(v float64) float64 { return 2*v + 1 }},
		"Inside":  {Inside(x, -1, 1), func(v float64) float64 { return boolT[float64](v > -1 && v < 1) }},
		"Sqrt":    {Sqrt(Abs(x)), func(v float64) float64 { return math.Sqrt(math.Abs(v)) }},
		"Log":     {Log(AddScalar(Abs(x), 1)), func(v float64) float64 { return math.Log(math.Abs(v) + 1) }},
		"PowS":    {PowScalar(Abs(x), 1.5), func(v float64) float64 { return math.Pow(math.Abs(v), 1.5) }},
		"Neg":     {Neg(x), func(v float64) float64 { return -v }},
	} {
		for i, v := range x.Data() {
			if g, w := c.got.Data()[i], c.ref(v); math.Abs(g-w) > 1e-15*math.Max(1, math.Abs(w)) || math.IsNaN(g) {
				t.Errorf("%s(%v) = %v, want %v", name, v, g, w)
			}
		}
	}
}

func TestReductions(t *testing.T) {
	x := FromSlice([]float64{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8}, 3, 4)
	check := func(name string, got *Tensor[float64], shape string, want []float64) {
		t.Helper()
		if fmt.Sprint(got.Shape()) != shape || fmt.Sprint(got.Data()) != fmt.Sprint(want) {
			t.Errorf("%s: %v %v, want %s %v", name, got.Shape(), got.Data(), shape, want)
		}
	}
	check("Sum0", Sum(x, 0, false), "[4]", []float64{13, 13, 11, 15})
	check("Sum1k", Sum(x, 1, true), "[3 1]", []float64{9, 22, 21})
	check("Max1", Max(x, 1, false), "[3]", []float64{4, 9, 8})
	check("Min0", Min(x, 0, false), "[4]", []float64{3, 1, 2, 1})
	check("ArgMax1", ArgMax(x, -1, false), "[3]", []float64{2, 1, 3})
	check("ArgMin0", ArgMin(x, 0, false), "[4]", []float64{0, 0, 1, 0})
	check("SumTo", SumTo(x, 1, 4), "[1 4]", []float64{13, 13, 11, 15})
	check("SumAll", SumAll(Transpose(x, 0, 1)), "[]", []float64{52})
	check("Mean", Mean(x, 0, false), "[4]", []float64{13.0 / 3, 13.0 / 3, 11.0 / 3, 5})
	check("Sum empty", Sum(Zeros[float64](2, 0), 1, false), "[2]", []float64{0, 0})
	check("Max empty", Max(Zeros[float64](2, 0), 1, false), "[2]", []float64{math.Inf(-1), math.Inf(-1)})
	// Stable softmax and log-sum-exp on large and −∞ rows.
	y := FromSlice([]float64{1000, 1000, math.Inf(-1), math.Inf(-1), 0, math.Log(3)}, 3, 2)
	lse := LogSumExp(y, 1, false).Data()
	if lse[0] != 1000+math.Log(2) || !math.IsInf(lse[1], -1) || math.Abs(lse[2]-math.Log(4)) > 1e-15 {
		t.Errorf("LogSumExp %v", lse)
	}
	sm := Softmax(y, 1).Data()
	if sm[0] != 0.5 || math.Abs(sm[5]-0.75) > 1e-15 {
		t.Errorf("Softmax %v", sm)
	}
	if ls := LogSoftmax(y, 1).Data(); math.Abs(ls[4]-math.Log(0.25)) > 1e-15 {
		t.Errorf("LogSoftmax %v", ls)
	}
}

func naiveMatMul(a, b []float64, m, k, n int) []float64 {
	c := make([]float64, m*n)
	for i := range m {
		for j := range n {
			for l := range k {
				c[i*n+j] += a[i*k+l] * b[l*n+j]
			}
		}
	}
	return c
}

func TestMatMul(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for _, s := range [][3]int{{1, 1, 1}, {7, 5, 3}, {200, 300, 150}, {4, 0, 3}, {0, 3, 2}} {
		m, k, n := s[0], s[1], s[2]
		a, b := RandNormal[float64](r, 0, 1, m, k), RandNormal[float64](r, 0, 1, k, n)
		want := naiveMatMul(a.Data(), b.Data(), m, k, n)
		for name, got := range map[string]*Tensor[float64]{
			"dense":      MatMul(a, b),
			"transposed": MatMul(Transpose(Clone(Transpose(a, 0, 1)), 0, 1), Transpose(Clone(Transpose(b, 0, 1)), 0, 1)),
		} {
			if d := maxDiff(got.Data(), want); d > 1e-12 {
				t.Errorf("%v %s: differs by %g", s, name, d)
			}
		}
	}
	// Batched with a broadcast batch dimension: a [2,1,3,4] · b [3,4,5].
	a, b := RandNormal[float64](r, 0, 1, 2, 1, 3, 4), RandNormal[float64](r, 0, 1, 3, 4, 5)
	c := MatMul(a, b)
	if fmt.Sprint(c.Shape()) != "[2 3 3 5]" {
		t.Fatalf("batched shape %v", c.Shape())
	}
	for i := range 2 {
		for j := range 3 {
			got := Narrow(Narrow(c, 0, i, 1), 1, j, 1).Data()
			want := naiveMatMul(Narrow(a, 0, i, 1).Data(), Narrow(b, 0, j, 1).Data(), 3, 4, 5)
			if d := maxDiff(got, want); d > 1e-12 {
				t.Errorf("batch %d,%d differs by %g", i, j, d)
			}
		}
	}
}

func TestIndexOps(t *testing.T) {
	x := seq(3, 4)
	if g := Gather(x, 1, []int{3, 0, 1, 1, 2, 2}, 3, 2).Data(); fmt.Sprint(g) != "[3 0 5 5 10 10]" {
		t.Errorf("Gather %v", g)
	}
	if s := ScatterAdd(Ones[float64](3, 2), 1, []int{3, 0, 1, 1, 2, 2}, 3, 4).Data(); fmt.Sprint(s) != "[1 0 0 1 0 2 0 0 0 0 2 0]" {
		t.Errorf("ScatterAdd %v", s)
	}
	if s := IndexSelect(x, 0, []int{2, 0}).Data(); fmt.Sprint(s) != "[8 9 10 11 0 1 2 3]" {
		t.Errorf("IndexSelect %v", s)
	}
	if c := Concat(1, x, Narrow(x, 1, 0, 1)); fmt.Sprint(c.Shape()) != "[3 5]" || c.At(2, 4) != 8 {
		t.Errorf("Concat %v", c)
	}
	if s := Stack(0, x, x); fmt.Sprint(s.Shape()) != "[2 3 4]" || s.At(1, 2, 3) != 11 {
		t.Errorf("Stack %v", s.Shape())
	}
	if o := OneHot[float32]([]int{2, 0}, 3).Data(); fmt.Sprint(o) != "[0 0 1 1 0 0]" {
		t.Errorf("OneHot %v", o)
	}
	if w := Where(FromSlice([]float64{1, 0, 1}), Scalar(7.0), FromSlice([]float64{1, 2, 3})).Data(); fmt.Sprint(w) != "[7 2 7]" {
		t.Errorf("Where %v", w)
	}
}

func TestShapeErrorsNameOpAndShapes(t *testing.T) {
	a, b := Zeros[float64](2, 3), Zeros[float64](4)
	mustPanic(t, func() { Add(a, b) }, "tensor.Add", "[2 3]", "[4]")
	mustPanic(t, func() { MatMul(a, Zeros[float64](4, 5)) }, "tensor.MatMul", "[2 3]", "[4 5]")
	mustPanic(t, func() { Reshape(a, 4, 2) }, "tensor.Reshape", "[2 3]", "[4 2]")
	mustPanic(t, func() { Concat(0, a, Zeros[float64](2, 4)) }, "tensor.Concat", "[2 3]", "[2 4]")
	mustPanic(t, func() { Gather(a, 1, []int{0, 3}, 2, 1) }, "tensor.Gather", "index 3")
	mustPanic(t, func() { OneHot[float64]([]int{0, 5}, 3) }, "tensor.OneHot", "label 5")
	mustPanic(t, func() { Expand(a, 3, 3) }, "tensor.Expand", "[2 3]", "[3 3]")
	mustPanic(t, func() { Narrow(a, 1, 2, 2) }, "tensor.Narrow", "[2 3]")
	mustPanic(t, func() { Sum(a, 2, false) }, "tensor.Sum", "axis 2", "[2 3]")
	mustPanic(t, func() { Conv2D(Zeros[float64](1, 2, 5, 5), Zeros[float64](3, 1, 3, 3), ConvOptions{}) }, "tensor.Conv2D", "[1 2 5 5]", "[3 1 3 3]")
	mustPanic(t, func() { Add(a, FromSliceOn[float64](otherDevice{}, make([]float64, 6), 2, 3)) }, "different devices")
}

// otherDevice is a CPU that reports itself as a different device.
type otherDevice struct{ CPU[float64] }

func (otherDevice) String() string { return "other" }
func (otherDevice) Upload(src []float64) Buffer[float64] {
	return &otherBuffer{cpuBuffer[float64]{data: append([]float64(nil), src...)}}
}

type otherBuffer struct{ cpuBuffer[float64] }

func (*otherBuffer) Device() Device[float64] { return otherDevice{} }

// float32 forward results agree with float64 within 1e-5 relative.
func TestFloat32MatchesFloat64(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	x64 := Convert[float64](RandUniform[float32](r, -2, 2, 6, 7)) // values exact in float32
	y64 := Convert[float64](RandUniform[float32](r, 0.5, 2, 6, 7))
	w64 := Convert[float64](RandUniform[float32](r, -1, 1, 7, 5))
	x32, y32, w32 := Convert[float32](x64), Convert[float32](y64), Convert[float32](w64)
	add := func(name string, f32 func(x, y, w *Tensor[float32]) *Tensor[float32], f64 func(x, y, w *Tensor[float64]) *Tensor[float64]) {
		got, want := f32(x32, y32, w32).Data(), f64(x64, y64, w64).Data()
		for i := range want {
			if math.Abs(float64(got[i])-want[i]) > 1e-5*math.Max(1, math.Abs(want[i])) {
				t.Errorf("%s[%d]: float32 %v, float64 %v", name, i, got[i], want[i])
				return
			}
		}
	}
	add("Exp", func(x, _, _ *Tensor[float32]) *Tensor[float32] { return Exp(x) }, func(x, _, _ *Tensor[float64]) *Tensor[float64] { return Exp(x) })
	add("Log", func(_, y, _ *Tensor[float32]) *Tensor[float32] { return Log(y) }, func(_, y, _ *Tensor[float64]) *Tensor[float64] { return Log(y) })
	add("Sigmoid", func(x, _, _ *Tensor[float32]) *Tensor[float32] { return Sigmoid(x) }, func(x, _, _ *Tensor[float64]) *Tensor[float64] { return Sigmoid(x) })
	add("Tanh", func(x, _, _ *Tensor[float32]) *Tensor[float32] { return Tanh(x) }, func(x, _, _ *Tensor[float64]) *Tensor[float64] { return Tanh(x) })
	add("Div", func(x, y, _ *Tensor[float32]) *Tensor[float32] { return Div(x, y) }, func(x, y, _ *Tensor[float64]) *Tensor[float64] { return Div(x, y) })
	add("Pow", func(x, y, _ *Tensor[float32]) *Tensor[float32] { return Pow(y, x) }, func(x, y, _ *Tensor[float64]) *Tensor[float64] { return Pow(y, x) })
	add("Sum", func(x, _, _ *Tensor[float32]) *Tensor[float32] { return Sum(x, 1, false) }, func(x, _, _ *Tensor[float64]) *Tensor[float64] { return Sum(x, 1, false) })
	add("Softmax", func(x, _, _ *Tensor[float32]) *Tensor[float32] { return Softmax(x, 1) }, func(x, _, _ *Tensor[float64]) *Tensor[float64] { return Softmax(x, 1) })
	add("LogSoftmax", func(x, _, _ *Tensor[float32]) *Tensor[float32] { return LogSoftmax(x, 0) }, func(x, _, _ *Tensor[float64]) *Tensor[float64] { return LogSoftmax(x, 0) })
	add("LogSumExp", func(x, _, _ *Tensor[float32]) *Tensor[float32] { return LogSumExp(x, 1, false) }, func(x, _, _ *Tensor[float64]) *Tensor[float64] { return LogSumExp(x, 1, false) })
	add("MatMul", func(x, _, w *Tensor[float32]) *Tensor[float32] { return MatMul(x, w) }, func(x, _, w *Tensor[float64]) *Tensor[float64] { return MatMul(x, w) })
	add("Conv2D", func(x, _, _ *Tensor[float32]) *Tensor[float32] {
		return Conv2D(Reshape(x, 1, 1, 6, 7), Reshape(Narrow(Reshape(x, 42), 0, 0, 9), 1, 1, 3, 3), ConvOptions{PadH: 1, PadW: 1})
	}, func(x, _, _ *Tensor[float64]) *Tensor[float64] {
		return Conv2D(Reshape(x, 1, 1, 6, 7), Reshape(Narrow(Reshape(x, 42), 0, 0, 9), 1, 1, 3, 3), ConvOptions{PadH: 1, PadW: 1})
	})
}

func TestCreation(t *testing.T) {
	if a := Arange[float64](5, 0, -2).Data(); fmt.Sprint(a) != "[5 3 1]" {
		t.Errorf("Arange %v", a)
	}
	a := RandNormal[float64](rand.New(rand.NewPCG(9, 9)), 1, 2, 1000)
	b := RandNormal[float64](rand.New(rand.NewPCG(9, 9)), 1, 2, 1000)
	if maxDiff(a.Data(), b.Data()) != 0 {
		t.Error("RandNormal is not deterministic for a seed")
	}
	if m := MeanAll(a).Item(); math.Abs(m-1) > 0.2 {
		t.Errorf("mean %v", m)
	}
	u := RandUniform[float32](rand.New(rand.NewPCG(1, 9)), -1, 3, 500).Data()
	for _, v := range u {
		if v < -1 || v >= 3 {
			t.Fatalf("uniform value %v", v)
		}
	}
	if s := Scalar(2.5); s.Dims() != 0 || s.Item() != 2.5 {
		t.Error("Scalar")
	}
	if DType[float32]() != "float32" || DType[float64]() != "float64" {
		t.Error("DType")
	}
	if f := Full[float64](3, 2, 2).Data(); fmt.Sprint(f) != "[3 3 3 3]" {
		t.Error("Full")
	}
}

// maxDiff is the largest difference of a and b relative to max(1, |b|).
func maxDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(a[i]-b[i])/max(1, math.Abs(b[i])))
	}
	return d
}

// The dense fast path and the strided loop agree, NaN included.
func TestUnaryFastPathMatchesStrided(t *testing.T) {
	x := FromSlice([]float64{-2, -0.5, 0, 0.5, 3, math.NaN()}, 2, 3)
	xt := Transpose(Clone(Transpose(x, 0, 1)), 0, 1) // same values, strided
	for name, f := range map[string]func(*Tensor[float64]) *Tensor[float64]{
		"Relu":   Relu[float64],
		"Step":   Step[float64],
		"Affine": func(v *Tensor[float64]) *Tensor[float64] { return Affine(v, 2, 1) },
	} {
		a, b := f(x).Data(), f(xt).Data()
		for i := range a {
			if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
				t.Errorf("%s[%d]: dense %v, strided %v", name, i, a[i], b[i])
			}
		}
	}
	if r := Relu(x).Data()[5]; !math.IsNaN(r) {
		t.Errorf("Relu(NaN) = %v, want NaN", r)
	}
}
