package tensor

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"unsafe"
)

// naiveReduce folds x along axis one element at a time through At; the
// result has keep-dims shape. ArgMax/ArgMin keep the first extreme index.
func naiveReduce(x *Tensor[float64], axis int, op string) *Tensor[float64] {
	shape := x.Shape()
	n := shape[axis]
	shape[axis] = 1
	out := Zeros[float64](shape...)
	for _, idx := range allIndices(shape) {
		var acc float64
		switch op {
		case "max":
			acc = math.Inf(-1)
		case "min":
			acc = math.Inf(1)
		}
		best, bi := 0.0, 0
		for i := 0; i < n; i++ {
			j := slices.Clone(idx)
			j[axis] = i
			v := x.At(j...)
			switch op {
			case "sum", "mean":
				acc += v
			case "max":
				acc = math.Max(acc, v)
			case "min":
				acc = math.Min(acc, v)
			case "argmax":
				if i == 0 || v > best {
					best, bi = v, i
				}
			case "argmin":
				if i == 0 || v < best {
					best, bi = v, i
				}
			}
		}
		switch op {
		case "mean":
			acc /= float64(n)
		case "argmax", "argmin":
			acc = float64(bi)
		}
		out.Set(acc, idx...)
	}
	return out
}

func TestReductionsAlongEachAxis(t *testing.T) {
	r := newRNG(31)
	inputs := map[string]*Tensor[float64]{
		"random":     RandNormal[float64](r, 0, 1, 3, 4, 5),
		"ties":       randInts(r, 2, 3, 4, 5), // ArgMax/ArgMin must pick the first
		"transposed": Transpose(RandNormal[float64](r, 0, 1, 5, 4, 3), 0, 2),
		"narrowed":   Narrow(RandNormal[float64](r, 0, 1, 3, 9, 5), 1, 3, 4),
	}
	ops := []struct {
		name string
		f    func(*Tensor[float64], int, bool) *Tensor[float64]
	}{
		{"sum", Sum[float64]}, {"mean", Mean[float64]}, {"max", Max[float64]},
		{"min", Min[float64]}, {"argmax", ArgMax[float64]}, {"argmin", ArgMin[float64]},
	}
	for in, x := range inputs {
		for _, op := range ops {
			for _, axis := range []int{0, 1, 2, -1, -3} {
				a := axis
				if a < 0 {
					a += 3
				}
				want := naiveReduce(x, a, op.name)
				for _, keep := range []bool{true, false} {
					got := op.f(x, axis, keep)
					label := fmt.Sprintf("%s %s axis %d keep %v", op.name, in, axis, keep)
					shape := want.Shape()
					if !keep {
						shape = slices.Delete(shape, a, a+1)
					}
					if !expectShape(t, label, got, shape...) {
						continue
					}
					expectData(t, label, Reshape(got, -1), approx(want.Data(), got.Data(), 1e-14)...)
				}
			}
		}
	}
}

// approx returns want, except where got is within rel of it, where it
// returns got (so that expectData's exact check becomes a tolerance check).
func approx(want []float64, got []float64, rel float64) []float64 {
	out := slices.Clone(want)
	for i := range out {
		if i < len(got) && near(got[i], want[i], rel) {
			out[i] = got[i]
		}
	}
	return out
}

func TestReductionsLargeParallel(t *testing.T) {
	withProcs(t, 4)
	x := RandNormal[float64](newRNG(32), 0, 1, 64, 100, 8)
	for axis := range 3 {
		expectData(t, fmt.Sprint("Sum axis ", axis), Sum(x, axis, true), approx(naiveReduce(x, axis, "sum").Data(), Sum(x, axis, true).Data(), 1e-13)...)
		expectData(t, fmt.Sprint("Max axis ", axis), Max(x, axis, true), naiveReduce(x, axis, "max").Data()...)
	}
}

func TestSumAllMeanAll(t *testing.T) {
	x := RandNormal[float64](newRNG(33), 0, 1, 4, 5, 6)
	var s float64
	for _, v := range x.Data() {
		s += v
	}
	for name, v := range map[string]*Tensor[float64]{"dense": x, "transposed": Transpose(x, 0, 2), "permuted": Permute(x, 1, 2, 0)} {
		if got := SumAll(v); got.Dims() != 0 || !near(got.Item(), s, 1e-13) {
			t.Errorf("SumAll %s = %v (dims %d), want %v", name, got.Item(), got.Dims(), s)
		}
		if got := MeanAll(v); got.Dims() != 0 || !near(got.Item(), s/120, 1e-13) {
			t.Errorf("MeanAll %s = %v, want %v", name, got.Item(), s/120)
		}
	}
	if got := SumAll(Scalar(2.5)); got.Dims() != 0 || got.Item() != 2.5 {
		t.Errorf("SumAll of a scalar %v", got)
	}
	if got := SumAll(Zeros[float64](0, 4)).Item(); got != 0 {
		t.Errorf("SumAll of an empty tensor %v", got)
	}
	expectData(t, "SumAll by hand", SumAll(FromSlice([]float64{1, 2, 3, 4}, 2, 2)), 10)
	expectData(t, "MeanAll by hand", MeanAll(FromSlice([]float64{1, 2, 3, 4}, 2, 2)), 2.5)
}

func TestSumTo(t *testing.T) {
	x := RandNormal[float64](newRNG(34), 0, 1, 2, 3, 4)
	for _, shape := range [][]int{{4}, {3, 1}, {1, 1, 4}, {2, 1, 1}, {1, 3, 1}, {2, 3, 4}, {3, 4}, {1}, {}} {
		got := SumTo(x, shape...)
		if !expectShape(t, fmt.Sprint("SumTo ", shape), got, shape...) {
			continue
		}
		// Each element of x adds into the element of shape it broadcasts from.
		want := make([]float64, numel(shape))
		lead := 3 - len(shape)
		st := contiguousStrides(shape)
		for _, idx := range allIndices(x.Shape()) {
			o := 0
			for d := range shape {
				if shape[d] != 1 {
					o += idx[d+lead] * st[d]
				}
			}
			want[o] += x.At(idx...)
		}
		expectData(t, fmt.Sprint("SumTo ", shape), got, approx(want, got.Data(), 1e-13)...)
	}
	// SumTo is the adjoint of broadcasting: Σ Expand(y)·x = Σ y·SumTo(x).
	y := RandNormal[float64](newRNG(35), 0, 1, 3, 1)
	lhs := SumAll(Mul(Expand(y, 2, 3, 4), x)).Item()
	rhs := SumAll(Mul(y, SumTo(x, 3, 1))).Item()
	if !near(lhs, rhs, 1e-12) {
		t.Errorf("adjoint: %v vs %v", lhs, rhs)
	}
	mustPanic(t, func() { SumTo(x, 5) }, "tensor.SumTo", "[5]", "[2 3 4]")
	mustPanic(t, func() { SumTo(x, 2, 2, 3, 4) }, "tensor.SumTo")
}

func naiveLSE(row []float64) float64 {
	m := math.Inf(-1)
	for _, v := range row {
		m = math.Max(m, v)
	}
	if math.IsInf(m, -1) {
		return m
	}
	var s float64
	for _, v := range row {
		s += math.Exp(v - m)
	}
	return m + math.Log(s)
}

// naiveLogSoftmax is (v − max) − log Σ exp(r − max) for v in row r.
func naiveLogSoftmax(r []float64, v float64) float64 {
	m := math.Inf(-1)
	for _, u := range r {
		m = math.Max(m, u)
	}
	var s float64
	for _, u := range r {
		s += math.Exp(u - m)
	}
	return (v - m) - math.Log(s)
}

func TestLogSumExpSoftmax(t *testing.T) {
	inf := math.Inf(1)
	rows := [][]float64{
		{0.5, -1, 2, 0.25},
		{1000, 1000, 999, 998},       // would overflow without the shift
		{-1000, -1001, -999, -1000},  // would underflow to log 0
		{-inf, -inf, -inf, -inf},     // all −∞: LogSumExp −∞, not NaN
		{-inf, 0, -inf, math.Log(3)}, // some −∞
		{3, 3, 3, 3},
	}
	var flat []float64
	for _, r := range rows {
		flat = append(flat, r...)
	}
	x := FromSlice(flat, len(rows), 4)
	lse := LogSumExp(x, 1, false)
	expectShape(t, "LogSumExp", lse, len(rows))
	expectShape(t, "LogSumExp keep", LogSumExp(x, 1, true), len(rows), 1)
	for i, r := range rows {
		if got, want := lse.At(i), naiveLSE(r); !near(got, want, 1e-14) {
			t.Errorf("LogSumExp row %d %v = %v, want %v", i, r, got, want)
		}
	}
	expectData(t, "LogSumExp by hand", LogSumExp(FromSlice([]float64{math.Log(1), math.Log(2), math.Log(5)}), 0, false), math.Log(8))
	if got := LogSumExp(FromSlice([]float64{1000, 1000}), 0, false).Item(); got != 1000+math.Ln2 {
		t.Errorf("LogSumExp(1000, 1000) = %v", got)
	}
	// Along axis 0 equals along axis 1 of the transpose.
	xt := Transpose(x, 0, 1)
	expectData(t, "LogSumExp axis 0 of transpose", LogSumExp(xt, 0, false), lse.Data()...)

	sm := Softmax(x, 1)
	ls := LogSoftmax(x, 1)
	for i, r := range rows {
		m := naiveLSE(r)
		var sum float64
		for j, v := range r {
			p := sm.At(i, j)
			sum += p
			if math.IsInf(m, -1) {
				// 0/0: an all −∞ row has no distribution; nothing to check
				// except that finite rows elsewhere stay finite.
				continue
			}
			if want := math.Exp(v - m); !near(p, want, 1e-13) {
				t.Errorf("Softmax row %d col %d = %v, want %v", i, j, p, want)
			}
			if want := naiveLogSoftmax(r, v); !near(ls.At(i, j), want, 1e-14) {
				t.Errorf("LogSoftmax row %d col %d = %v, want %v", i, j, ls.At(i, j), want)
			}
		}
		if !math.IsInf(m, -1) && math.Abs(sum-1) > 1e-14 {
			t.Errorf("Softmax row %d sums to %v", i, sum)
		}
	}
	by := []float64{0.25, 0.75}
	expectEach(t, "Softmax by hand", Softmax(FromSlice([]float64{math.Log(1), math.Log(3)}), 0), 1e-15, func(i []int) float64 { return by[i[0]] })
	// Softmax along axis 0 of a transpose equals the transpose of Softmax along 1.
	expectEach(t, "Softmax axis 0", Softmax(xt, 0), 1e-15, func(i []int) float64 {
		if math.IsNaN(sm.At(i[1], i[0])) {
			return math.NaN()
		}
		return sm.At(i[1], i[0])
	})
}

func TestZeroLengthAxis(t *testing.T) {
	x := Zeros[float64](3, 0, 2)
	expectShape(t, "Sum", Sum(x, 1, false), 3, 2)
	expectData(t, "Sum over empty axis", Sum(x, 1, false), 0, 0, 0, 0, 0, 0)
	expectData(t, "Max over empty axis", Max(x, 1, true), math.Inf(-1), math.Inf(-1), math.Inf(-1), math.Inf(-1), math.Inf(-1), math.Inf(-1))
	expectData(t, "Min over empty axis", Min(Zeros[float64](0), 0, false), math.Inf(1))
	// Reducing a non-empty axis of an empty tensor gives an empty result.
	expectShape(t, "Sum along a full axis", Sum(x, 0, false), 0, 2)
	mustPanic(t, func() { ArgMax(x, 1, false) }, "argmax")
}

func TestMaxMinPropagateNaN(t *testing.T) {
	nan := math.NaN()
	x := FromSlice([]float64{1, nan, 3, nan, 2, 0}, 2, 3)
	expectData(t, "Max with NaN", Max(x, 1, false), nan, nan)
	expectData(t, "Min with NaN", Min(x, 1, false), nan, nan)
	expectData(t, "Max column", Max(x, 0, false), nan, nan, 3)
	expectData(t, "Min column", Min(x, 0, false), nan, nan, 0)
}

func TestInts(t *testing.T) {
	if got := Ints(FromSlice([]float64{0, 2, 7, 1})); !slices.Equal(got, []int{0, 2, 7, 1}) {
		t.Errorf("Ints %v", got)
	}
	x := FromSlice([]float32{3, 9, 9, 1, 0, 5}, 2, 3)
	if got := Ints(ArgMax(x, 1, false)); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("Ints(ArgMax) %v", got)
	}
	if got := Ints(Transpose(FromSlice([]float64{1, 2, 3, 4}, 2, 2), 0, 1)); !slices.Equal(got, []int{1, 3, 2, 4}) {
		t.Errorf("Ints of a view %v", got)
	}
}

// TestExtremeGrad: the CPU body puts g at each extreme's index and 0
// elsewhere, as its composed reference (Equal and Where, the version other
// devices run) does, along every axis; and its result sums back to g.
func TestExtremeGrad(t *testing.T) {
	x := FromSlice([]float64{3, -1, 4, 1, -5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2, 6, 4}, 2, 3, 4)
	for axis := range 3 {
		idx := ArgMax(x, axis, true)
		gs := slices.Clone(x.Shape())
		gs[axis] = 1
		g := Scale(Add(Arange[float64](0, float64(numel(gs)), 1), Full[float64](1, numel(gs))), 1.5)
		g = Reshape(g, gs...)
		got := ExtremeGrad(g, idx, axis, x.Shape()...)
		want := extremeGradComposed(g, idx, axis, x.Shape())
		if !slices.Equal(got.Data(), want.Data()) {
			t.Errorf("axis %d: %v, composed %v", axis, got.Data(), want.Data())
		}
		if back := Sum(got, axis, true); !slices.Equal(back.Data(), g.Data()) {
			t.Errorf("axis %d: the gradient sums to %v, want %v", axis, back.Data(), g.Data())
		}
	}
}

// TestExtremes: the fused body gives Max/Min and ArgMax/ArgMin along every
// axis, ties going to the first extreme, NaN propagating into the value
// and ignored by the index, as the two reductions do.
func TestExtremes(t *testing.T) {
	nan := math.NaN()
	x := FromSlice([]float64{3, -1, 4, 1, -5, 9, nan, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, nan, 2, 6, 4}, 2, 3, 4)
	same := func(name string, got, want *Tensor[float64]) {
		t.Helper()
		g, w := got.Data(), want.Data()
		if !slices.Equal(got.Shape(), want.Shape()) || len(g) != len(w) {
			t.Fatalf("%s: shape %v, want %v", name, got.Shape(), want.Shape())
		}
		for i := range g {
			if g[i] != w[i] && !(math.IsNaN(g[i]) && math.IsNaN(w[i])) {
				t.Errorf("%s: %v, want %v", name, g, w)
				return
			}
		}
	}
	for axis := range 3 {
		v, i := Extremes(x, axis, false)
		same(fmt.Sprint("Max along ", axis), v, Max(x, axis, true))
		same(fmt.Sprint("ArgMax along ", axis), i, ArgMax(x, axis, true))
		v, i = Extremes(x, axis, true)
		same(fmt.Sprint("Min along ", axis), v, Min(x, axis, true))
		same(fmt.Sprint("ArgMin along ", axis), i, ArgMin(x, axis, true))
	}
	v, i := Extremes(FromSlice([]float64{nan, 2, 1, 7, 7, 0}, 2, 3), -1, false)
	expectData(t, "Max, NaN first", v, nan, 7)
	expectData(t, "ArgMax, NaN first and a tie", i, 0, 0)
}

// TestExtremesVectorMatchesScalar checks the kernels of Extremes (in
// AVX-512 a row per vector, a row per lane, blocks of rows reduced
// together; wide rows one at a time, whole vectors and a tail, in each of
// wideSets) against the scalar loop in float32: ties, NaNs first and later,
// ±∞ (in one block, both signs in one lane), whole vectors of rows and a
// tail, both directions.
func TestExtremesVectorMatchesScalar(t *testing.T) {
	if len(wideSets) == 0 {
		t.Skip("no vector kernel on this CPU or build")
	}
	defer func(k int, w wideKernels, v bool) { extremesColsK, extremesTreeOn, wide, extremesVec = k, true, w, v }(extremesColsK, wide, extremesVec)
	vec := extremesVec
	r := newRNG(5)
	for _, k := range []int{1, 2, 3, 4, 10, 16, 17, 23, 24, 31, 32, 33, 63, 64, 65, 100, 1000} {
		x := RandNormal[float32](r, 0, 1, 1000+7, k)
		d := HostData(x)
		for i := 0; i < len(d); i += 37 {
			d[i] = d[(i+1)%len(d)] // ties
		}
		d[0], d[5*k+k/2], d[40*k] = float32(math.NaN()), float32(math.NaN()), float32(math.Inf(1))
		d[70*k+k-1], d[90*k] = float32(math.Inf(-1)), float32(math.NaN())
		d[200*k], d[203*k] = float32(math.Inf(1)), float32(math.Inf(-1))
		d[300*k+k-1] = 1e30 // the maximum in the last element, in the tail
		for _, set := range wideSets {
			if k <= 16 && (!vec || set.name != wideSets[0].name) {
				continue // one AVX-512 pass for the short rows
			}
			for _, min := range []bool{false, true} {
				// extremesRows, then extremesTree, then extremesCols where k ≤ 4
				for _, colsK := range []int{-1, 0, 4} {
					extremesColsK, extremesTreeOn = max(colsK, 0), colsK >= 0
					wide, extremesVec = set, vec
					gv, gi := Extremes(x, 1, min)
					wide, extremesVec = wideKernels{}, false
					wv, wi := Extremes(x, 1, min)
					for i, w := range wv.Data() {
						g := gv.Data()[i]
						if (g != w && !(math.IsNaN(float64(g)) && math.IsNaN(float64(w)))) || gi.Data()[i] != wi.Data()[i] {
							t.Fatalf("%s k=%d min=%v columns up to %d row %d: %v at %v, scalar %v at %v", set.name, k, min, colsK, i, g, gi.Data()[i], w, wi.Data()[i])
						}
					}
				}
			}
		}
	}
}

// TestClearStream checks that clearStream zeroes exactly its slice of
// garbage, at every alignment and around the lengths where it streams,
// with each of wideSets' streaming kernels and with none.
func TestClearStream(t *testing.T) {
	defer func(w wideKernels) { wide = w }(wide)
	buf := make([]float32, 400)
	for _, set := range append([]wideKernels{{name: "go"}}, wideSets...) {
		wide = set
		for _, stream := range []bool{false, true} {
			for off := range 20 {
				for _, n := range []int{0, 1, 15, 16, 63, 64, 65, 80, 81, 200, 333} {
					for i := range buf {
						buf[i] = 7
					}
					clearStream(buf[off:off+n], stream)
					for i, v := range buf {
						want := float32(7)
						if i >= off && i < off+n {
							want = 0
						}
						if v != want {
							t.Fatalf("%s stream=%v off=%d n=%d: buf[%d] = %v, want %v", set.name, stream, off, n, i, v, want)
						}
					}
				}
			}
		}
	}
}

// TestExtremeGradVectorMatchesScalar checks the kernels of the top-label
// gradient rows (extremeGradAsm) on rows of garbage: zeros but the value
// (NaN included) at the index, every row of the whole blocks written, none
// after them; the streaming one does nothing where dst is not 64-byte
// aligned, the cached one works there too.
func TestExtremeGradVectorMatchesScalar(t *testing.T) {
	if !extremesVec {
		t.Skip("no vector kernel on this CPU or build")
	}
	r := newRNG(9)
	for _, k := range []int{1, 2, 3, 4, 10, 16} {
		rows := 16*7 + 5
		val := HostData(RandNormal[float32](r, 0, 1, rows))
		val[3] = float32(math.NaN())
		idx := make([]float32, rows)
		for i := range idx {
			idx[i] = float32(r.IntN(k))
		}
		buf := make([]float32, rows*k+16)
		off := 0
		for uintptr(unsafe.Pointer(&buf[off]))%64 != 0 {
			off++
		}
		for _, c := range []struct {
			o      int
			stream bool
		}{{off, true}, {off + 1, true}, {off, false}, {off + 1, false}} {
			o := c.o
			dst := buf[o : o+rows*k]
			for i := range dst {
				dst[i] = 7
			}
			done := extremeGradAsm(dst, val, idx, k, c.stream)
			want := 16 * 7
			if o != off && c.stream {
				want = 0
			}
			if done != want {
				t.Fatalf("k=%d offset %d stream %v: %d rows done, want %d", k, o-off, c.stream, done, want)
			}
			for i, v := range dst {
				row, c := i/k, i%k
				w := float32(7)
				if row < done {
					w = 0
					if c == int(idx[row]) {
						w = val[row]
					}
				}
				if v != w && !(v != v && w != w) {
					t.Fatalf("k=%d offset %d: element %d (row %d, column %d) is %v, want %v", k, o-off, i, row, c, v, w)
				}
			}
		}
	}
}
