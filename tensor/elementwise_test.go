package tensor

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// unaryCase is an op under test with its scalar definition and the input
// domain it is checked on.
type unaryCase struct {
	name   string
	f64    func(*Tensor[float64]) *Tensor[float64]
	f32    func(*Tensor[float32]) *Tensor[float32]
	ref    func(float64) float64
	lo, hi float64
}

// b2f is 1 for true, 0 for false.
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func unaryCases() []unaryCase {
	return []unaryCase{
		{"Neg", Neg[float64], Neg[float32], func(v float64) float64 { return -v }, -5, 5},
		{"Exp", Exp[float64], Exp[float32], math.Exp, -10, 10},
		{"Log", Log[float64], Log[float32], math.Log, 0.01, 100},
		{"Sqrt", Sqrt[float64], Sqrt[float32], math.Sqrt, 0, 100},
		{"Abs", Abs[float64], Abs[float32], math.Abs, -5, 5},
		{"Sign", Sign[float64], Sign[float32], func(v float64) float64 { return b2f(v > 0) - b2f(v < 0) }, -3, 3},
		{"Step", Step[float64], Step[float32], func(v float64) float64 { return b2f(v > 0) }, -3, 3},
		{"Relu", Relu[float64], Relu[float32], func(v float64) float64 { return math.Max(v, 0) }, -3, 3},
		{"Sigmoid", Sigmoid[float64], Sigmoid[float32], func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }, -30, 30},
		{"Tanh", Tanh[float64], Tanh[float32], math.Tanh, -5, 5},
		{"PowScalar(2.5)", func(x *Tensor[float64]) *Tensor[float64] { return PowScalar(x, 2.5) }, func(x *Tensor[float32]) *Tensor[float32] { return PowScalar(x, 2.5) }, func(v float64) float64 { return math.Pow(v, 2.5) }, 0, 10},
		{"PowScalar(-1)", func(x *Tensor[float64]) *Tensor[float64] { return PowScalar(x, -1) }, func(x *Tensor[float32]) *Tensor[float32] { return PowScalar(x, -1) }, func(v float64) float64 { return 1 / v }, 0.1, 10},
		{"PowScalar(3)", func(x *Tensor[float64]) *Tensor[float64] { return PowScalar(x, 3) }, func(x *Tensor[float32]) *Tensor[float32] { return PowScalar(x, 3) }, func(v float64) float64 { return v * v * v }, -4, 4},
		{"Affine", func(x *Tensor[float64]) *Tensor[float64] { return Affine(x, 1.5, -0.25) }, func(x *Tensor[float32]) *Tensor[float32] { return Affine(x, 1.5, -0.25) }, func(v float64) float64 { return 1.5*v - 0.25 }, -5, 5},
		{"Scale", func(x *Tensor[float64]) *Tensor[float64] { return Scale(x, -3) }, func(x *Tensor[float32]) *Tensor[float32] { return Scale(x, -3) }, func(v float64) float64 { return -3 * v }, -5, 5},
		{"AddScalar", func(x *Tensor[float64]) *Tensor[float64] { return AddScalar(x, 0.5) }, func(x *Tensor[float32]) *Tensor[float32] { return AddScalar(x, 0.5) }, func(v float64) float64 { return v + 0.5 }, -5, 5},
		{"Clamp", func(x *Tensor[float64]) *Tensor[float64] { return Clamp(x, -1, 2) }, func(x *Tensor[float32]) *Tensor[float32] { return Clamp(x, -1, 2) }, func(v float64) float64 { return math.Min(math.Max(v, -1), 2) }, -4, 4},
		{"Inside", func(x *Tensor[float64]) *Tensor[float64] { return Inside(x, -1, 2) }, func(x *Tensor[float32]) *Tensor[float32] { return Inside(x, -1, 2) }, func(v float64) float64 { return b2f(-1 < v && v < 2) }, -4, 4},
	}
}

// unaryInputs is a grid over [lo, hi] with the end points, zero (when inside)
// and a few integers, so that boundaries are exercised.
func unaryInputs(lo, hi float64) []float64 {
	var xs []float64
	for i := 0; i <= 40; i++ {
		xs = append(xs, lo+(hi-lo)*float64(i)/40)
	}
	for _, v := range []float64{0, -1, 1, 2, -2} {
		if v >= lo && v <= hi {
			xs = append(xs, v)
		}
	}
	return xs
}

func TestUnaryOpsMatchMath(t *testing.T) {
	for _, c := range unaryCases() {
		xs := unaryInputs(c.lo, c.hi)
		x := FromSlice(xs, 1, len(xs))
		expectEach(t, c.name+" float64", c.f64(x), 1e-15, func(i []int) float64 { return c.ref(xs[i[1]]) })
		// float32: the CPU computes in float64 and rounds once.
		x32 := Convert[float32](x)
		d32 := x32.Data()
		expectEach(t, c.name+" float32", c.f32(x32), 1e-7, func(i []int) float64 {
			return float64(float32(c.ref(float64(d32[i[1]]))))
		})
		// A non-contiguous operand (transposed, then narrowed) gives the same
		// values and a dense result of its shape.
		m := Reshape(FromSlice(xs[:40]), 8, 5)
		v := Narrow(Transpose(m, 0, 1), 1, 2, 5) // [5 5], strides [1 5]
		got := c.f64(v)
		if !got.IsContiguous() || !slices.Equal(got.Shape(), []int{5, 5}) {
			t.Errorf("%s on a view: shape %v strides %v", c.name, got.Shape(), got.Strides())
		}
		expectEach(t, c.name+" on a view", got, 1e-15, func(i []int) float64 { return c.ref(v.At(i...)) })
		// The input is left alone.
		expectData(t, c.name+" input", x, xs...)
	}
}

func TestUnaryEdgeValues(t *testing.T) {
	inf := math.Inf(1)
	// Sigmoid never overflows to NaN and saturates correctly.
	for _, v := range []float64{-1e308, -1000, -800, -100, 0, 100, 800, 1000, 1e308, -inf, inf} {
		s := Sigmoid(Scalar(v)).Item()
		s32 := Sigmoid(Scalar(float32(v))).Item()
		want := 1 / (1 + math.Exp(-v))
		if v < 0 {
			want = math.Exp(v) / (1 + math.Exp(v))
		}
		if math.IsNaN(s) || math.IsNaN(float64(s32)) || !near(s, want, 1e-15) || s < 0 || s > 1 || s32 < 0 || s32 > 1 {
			t.Errorf("Sigmoid(%v) = %v (float32 %v), want %v", v, s, s32, want)
		}
	}
	if s := Sigmoid(Scalar(-50.0)).Item(); math.Abs(s-math.Exp(-50))/math.Exp(-50) > 1e-14 {
		t.Errorf("Sigmoid(-50) = %v lost relative precision (want ≈ %v)", s, math.Exp(-50))
	}
	expectData(t, "Sign", Sign(FromSlice([]float64{-2, math.Copysign(0, -1), 0, 3, -inf, inf})), -1, 0, 0, 1, -1, 1)
	expectData(t, "Step", Step(FromSlice([]float64{-1, 0, 1e-300})), 0, 0, 1)
	expectData(t, "Relu", Relu(FromSlice([]float64{-1, 0, 2})), 0, 0, 2)
	expectData(t, "Inside bounds", Inside(FromSlice([]float64{-1, -0.999, 1.999, 2}), -1, 2), 0, 1, 1, 0)
	expectData(t, "Clamp lo=hi", Clamp(FromSlice([]float64{-5, 0, 5}), 1, 1), 1, 1, 1)
	expectData(t, "Exp(±inf)", Exp(FromSlice([]float64{-inf, inf})), 0, inf)
	expectData(t, "Log(0)", Log(FromSlice([]float64{0, -1})), -inf, math.NaN())
	expectData(t, "Tanh(±1000)", Tanh(FromSlice([]float64{-1000, 1000})), -1, 1)
	mustPanic(t, func() { Clamp(Scalar(1.0), 2, 1) }, "tensor.Clamp")
}

type binaryCase struct {
	name string
	f64  func(a, b *Tensor[float64]) *Tensor[float64]
	f32  func(a, b *Tensor[float32]) *Tensor[float32]
	ref  func(x, y float64) float64
}

func binaryCases() []binaryCase {
	return []binaryCase{
		{"Add", Add[float64], Add[float32], func(x, y float64) float64 { return x + y }},
		{"Sub", Sub[float64], Sub[float32], func(x, y float64) float64 { return x - y }},
		{"Mul", Mul[float64], Mul[float32], func(x, y float64) float64 { return x * y }},
		{"Div", Div[float64], Div[float32], func(x, y float64) float64 { return x / y }},
		{"Pow", Pow[float64], Pow[float32], math.Pow},
		{"Maximum", Maximum[float64], Maximum[float32], math.Max},
		{"Minimum", Minimum[float64], Minimum[float32], math.Min},
		{"Greater", Greater[float64], Greater[float32], func(x, y float64) float64 { return b2f(x > y) }},
		{"GreaterEqual", GreaterEqual[float64], GreaterEqual[float32], func(x, y float64) float64 { return b2f(x >= y) }},
		{"Equal", Equal[float64], Equal[float32], func(x, y float64) float64 { return b2f(x == y) }},
	}
}

// checkBinary compares op(a, b) with ref applied to the broadcast operands
// read one element at a time through At.
func checkBinary(t *testing.T, c binaryCase, label string, a, b *Tensor[float64]) {
	t.Helper()
	shape, err := BroadcastShapes(a.Shape(), b.Shape())
	if err != nil {
		t.Fatalf("%s: %v", label, err)
	}
	got := c.f64(a, b)
	if !expectShape(t, c.name+" "+label, got, shape...) {
		return
	}
	la, lb := len(shape)-a.Dims(), len(shape)-b.Dims()
	pick := func(x *Tensor[float64], lead int, idx []int) float64 {
		j := make([]int, x.Dims())
		for d := range j {
			if x.Dim(d) != 1 {
				j[d] = idx[d+lead]
			}
		}
		return x.At(j...)
	}
	expectEach(t, c.name+" "+label, got, 1e-15, func(idx []int) float64 {
		return c.ref(pick(a, la, idx), pick(b, lb, idx))
	})
}

func TestBinaryOpsBroadcastAndViews(t *testing.T) {
	r := newRNG(11)
	// Small integers (as floats) make ties, equalities and exact powers
	// common; Pow gets a positive base below.
	operands := []struct {
		label string
		a, b  *Tensor[float64]
	}{
		{"[2 3 4]+[4]", randInts(r, 3, 2, 3, 4), randInts(r, 3, 4)},
		{"[2 1 4]+[3 1]", randInts(r, 3, 2, 1, 4), randInts(r, 3, 3, 1)},
		{"scalar+[2 3]", Scalar(2.0), randInts(r, 3, 2, 3)},
		{"[2 3]+scalar", randInts(r, 3, 2, 3), Scalar(-1.0)},
		{"[5 1]+[1 6]", randInts(r, 3, 5, 1), randInts(r, 3, 1, 6)},
		{"same shape", randInts(r, 3, 3, 4), randInts(r, 3, 3, 4)},
		{"transposed+narrowed", Transpose(randInts(r, 3, 4, 3), 0, 1), Narrow(randInts(r, 3, 3, 7), 1, 2, 4)},
		{"expanded+transposed", Expand(randInts(r, 3, 1, 4), 3, 4), Transpose(randInts(r, 3, 4, 3), 0, 1)},
		{"permuted 3-D+[3 1 1]", Permute(randInts(r, 3, 4, 2, 3), 2, 1, 0), randInts(r, 3, 3, 1, 1)},
		{"empty", Zeros[float64](0, 3), randInts(r, 3, 3)},
	}
	for _, c := range binaryCases() {
		for _, o := range operands {
			a, b := o.a, o.b
			if c.name == "Pow" {
				a = AddScalar(Abs(a), 0.5)
			}
			checkBinary(t, c, o.label, a, b)
		}
	}
	// Division by zero and powers of negative bases follow IEEE / math.Pow.
	x := FromSlice([]float64{1, -1, 0, -8})
	y := FromSlice([]float64{0, 0, 0, 1.0 / 3})
	expectData(t, "Div by zero", Div(x, y), math.Inf(1), math.Inf(-1), math.NaN(), -24)
	expectData(t, "Pow negative base", Pow(x, y), 1, 1, 1, math.NaN())
	// Both operands may be the same tensor.
	expectData(t, "Mul(x, x)", Mul(x, x), 1, 1, 0, 64)
}

func TestBinaryResultIsFresh(t *testing.T) {
	x := FromSlice([]float64{1, 2, 3})
	z := Add(x, Scalar(0.0))
	if z.Buffer() == x.Buffer() {
		t.Fatal("Add returned its operand's buffer")
	}
	z.Set(10, 0)
	if x.At(0) != 1 {
		t.Error("writing Add's result changed its operand")
	}
}

func TestBroadcastShapes(t *testing.T) {
	for _, c := range []struct {
		a, b, want []int
		ok         bool
	}{
		{[]int{2, 3, 4}, []int{4}, []int{2, 3, 4}, true},
		{[]int{2, 1, 4}, []int{3, 1}, []int{2, 3, 4}, true},
		{[]int{}, []int{2, 3}, []int{2, 3}, true},
		{[]int{1}, []int{}, []int{1}, true},
		{[]int{0, 1}, []int{1, 5}, []int{0, 5}, true},
		{[]int{1, 3}, []int{7, 1, 1}, []int{7, 1, 3}, true},
		{[]int{2, 3}, []int{4}, nil, false},
		{[]int{2, 3}, []int{3, 3}, nil, false},
		{[]int{0}, []int{2}, nil, false},
	} {
		got, err := BroadcastShapes(c.a, c.b)
		if (err == nil) != c.ok || (c.ok && !slices.Equal(got, c.want)) {
			t.Errorf("BroadcastShapes(%v, %v) = %v, %v; want %v ok=%v", c.a, c.b, got, err, c.want, c.ok)
		}
		if err != nil && (!strings.Contains(err.Error(), fmt.Sprint(c.a)) || !strings.Contains(err.Error(), fmt.Sprint(c.b))) {
			t.Errorf("error %q does not name both shapes", err)
		}
		var se *ShapeError
		if err != nil && (!errors.Is(err, ErrShape) || !errors.As(err, &se) || se.Op != "tensor.BroadcastShapes" || !slices.Equal(se.Shapes[1], c.b)) {
			t.Errorf("BroadcastShapes(%v, %v): error %#v, want a *ShapeError of both shapes", c.a, c.b, err)
		}
	}
}

func TestWhere(t *testing.T) {
	r := newRNG(12)
	cond := Greater(randInts(r, 2, 3, 1), Scalar(0.0)) // [3 1]
	x := randInts(r, 5, 4)                             // [4]
	y := Scalar(-100.0)
	w := Where(cond, x, y)
	expectShape(t, "Where", w, 3, 4)
	expectEach(t, "Where", w, 0, func(i []int) float64 {
		if cond.At(i[0], 0) != 0 {
			return x.At(i[1])
		}
		return -100
	})
	// Any non-zero (NaN included) selects x; views as operands.
	c := FromSlice([]float64{0, 2, -1, math.NaN(), 0, 0}, 2, 3)
	xv := Transpose(FromSlice([]float64{1, 2, 3, 4, 5, 6}, 3, 2), 0, 1) // [[1 3 5] [2 4 6]]
	yv := Expand(FromSlice([]float64{-1, -2}, 2, 1), 2, 3)
	expectData(t, "Where views", Where(c, xv, yv), -1, 3, 5, 2, -2, -2)
	mustPanic(t, func() { Where(Zeros[float64](2), Zeros[float64](3), Zeros[float64](1)) }, "tensor.Where", "[2]", "[3]")
}
