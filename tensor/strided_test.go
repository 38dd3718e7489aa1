package tensor

import (
	"math"
	"sync"
	"sync/atomic"
	"testing"
)

// Large non-contiguous operands (≥ 1<<15 elements) take strided's parallel
// path; every element must match the one-at-a-time computation through At.
func TestStridedLargeViewsMatchAt(t *testing.T) {
	withProcs(t, 4)
	r := newRNG(21)
	a := Transpose(RandNormal[float64](r, 0, 1, 500, 300), 0, 1) // [300 500], strides [1 300]
	if a.Len() < grain || a.IsContiguous() {
		t.Fatal("operand too small or dense")
	}
	x4 := RandNormal[float64](r, 0, 1, 6, 40, 30, 20)
	n4 := Narrow(x4, 2, 5, 20) // [6 40 20 20] = 96000 elements, rows of 20
	p4 := Permute(n4, 3, 1, 0, 2)

	// The fast readers are checked against At (every element of n4, every
	// fifth of a).
	ra, rn := reader(a), reader(n4)
	expectEach(t, "reader vs At (transpose)", a, 0, func(i []int) float64 { return ra(i...) })
	for _, idx := range allIndices(n4.Shape()) {
		if n4.At(idx...) != rn(idx...) {
			t.Fatalf("At(%v) = %v, buffer has %v", idx, n4.At(idx...), rn(idx...))
		}
	}
	for k, idx := range allIndices(a.Shape()) {
		if k%5 == 0 && a.At(idx...) != ra(idx...) {
			t.Fatalf("At(%v) = %v, buffer has %v", idx, a.At(idx...), ra(idx...))
		}
	}

	check := func(name string, got *Tensor[float64], ref func(idx []int) float64) {
		t.Helper()
		if !got.IsContiguous() {
			t.Errorf("%s: result not dense", name)
		}
		expectEach(t, name, got, 0, ref)
	}
	check("Contiguous(transpose)", Contiguous(a), func(i []int) float64 { return ra(i...) })
	check("Exp(transpose)", Exp(a), func(i []int) float64 { return math.Exp(ra(i...)) })
	check("Affine(transpose)", Affine(a, 2, 1), func(i []int) float64 { return 2*ra(i...) + 1 })
	col := RandNormal[float64](r, 0, 1, 300, 1)
	check("transpose − column", Sub(a, col), func(i []int) float64 { return ra(i...) - col.At(i[0], 0) })
	check("Mul(transpose, transpose)", Mul(a, a), func(i []int) float64 { v := ra(i...); return v * v })
	rx := reader(x4)
	check("Contiguous(narrow 4-D)", Contiguous(n4), func(i []int) float64 { return rx(i[0], i[1], i[2]+5, i[3]) })
	check("Tanh(narrow 4-D)", Tanh(n4), func(i []int) float64 { return math.Tanh(rn(i...)) })
	q := Narrow(RandNormal[float64](r, 0, 1, 20, 40, 8, 20), 2, 1, 6) // [20 40 6 20]
	rq := reader(q)
	check("Maximum(permuted narrow, narrow)", Maximum(p4, q), func(i []int) float64 {
		return math.Max(rn(i[2], i[1], i[3], i[0]), rq(i...))
	})
	row := Narrow(Reshape(x4, 6, -1), 1, 0, 20) // [6 20], rows 24000 apart
	check("narrow 4-D + row", Add(n4, Narrow(row, 0, 2, 1)), func(i []int) float64 {
		return rn(i...) + row.At(2, i[3])
	})
	check("Permute(narrow 4-D)", Contiguous(p4), func(i []int) float64 { return rn(i[2], i[1], i[3], i[0]) })
	cond := Greater(a, Scalar(0.0))
	check("Where(transpose)", Where(cond, a, Neg(a)), func(i []int) float64 { return math.Abs(ra(i...)) })
	// Copy through a strided destination.
	s := Sigmoid(a)
	dst := Zeros[float64](500, 300)
	CopyInto(Transpose(dst, 0, 1), s)
	rs := reader(s)
	expectEach(t, "CopyInto(transposed dst)", Transpose(dst, 0, 1), 0, func(i []int) float64 { return rs(i...) })
}

// strided itself: each operand's offset for every element, visited exactly
// once, including when rows are split between goroutines mid-dimension.
func TestStridedVisitsEveryElementOnce(t *testing.T) {
	withProcs(t, 3)
	cases := []struct {
		name    string
		shape   []int
		strides []int // of the second operand
		offset  int
	}{
		{"transposed big", []int{300, 500}, []int{1, 300}, 0},
		{"4-D narrowed", []int{7, 33, 5, 41}, []int{33 * 9 * 41, 9 * 41, 41, 1}, 17},
		{"broadcast inner", []int{257, 130}, []int{1, 0}, 3},
		{"broadcast outer", []int{9, 31, 130}, []int{0, 130, 1}, 0},
		{"small", []int{2, 3}, []int{1, 2}, 0},
		{"size-1 dims", []int{1, 5, 1, 7}, []int{99, 7, 99, 1}, 2},
		{"scalar", []int{}, []int{}, 5},
	}
	for _, c := range cases {
		n := numel(c.shape)
		seen := make([]int, n)
		for i := range seen {
			seen[i] = -1
		}
		var mu sync.Mutex
		dup := 0
		strided(c.shape, [][]int{contiguousStrides(c.shape), c.strides}, []int{0, c.offset}, func(offs []int, m int, inner []int) {
			for i := 0; i < m; i++ {
				d := offs[0] + i*inner[0]
				if seen[d] != -1 {
					mu.Lock()
					dup++
					mu.Unlock()
				}
				seen[d] = offs[1] + i*inner[1]
			}
		})
		if dup > 0 {
			t.Errorf("%s: %d elements visited twice", c.name, dup)
		}
		for i, idx := range allIndices(c.shape) {
			want := c.offset
			for d, v := range idx {
				want += v * c.strides[d]
			}
			if seen[i] != want {
				t.Errorf("%s: element %v (%d) has offset %d, want %d", c.name, idx, i, seen[i], want)
				break
			}
		}
	}
	// An empty shape calls nothing.
	strided([]int{3, 0}, [][]int{{0, 1}}, []int{0}, func([]int, int, []int) { t.Error("called for an empty shape") })
}

// parallelFor covers [0, n) exactly once, in chunks, for any worker count.
func TestParallelForCoversRange(t *testing.T) {
	for _, procs := range []int{1, 2, 5, 16} {
		withProcs(t, procs)
		for _, n := range []int{0, 1, 7, 100, 1 << 16} {
			hits := make([]int32, n)
			parallelFor(n, grain, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					hits[i]++
				}
			})
			for i, h := range hits {
				if h != 1 {
					t.Fatalf("procs %d n %d: index %d hit %d times", procs, n, i, h)
				}
			}
		}
	}
}

// parallelFor called from many goroutines at once, and from inside its own
// chunks, still runs every index exactly once (the caller runs whatever no
// worker claims, so a busy pool cannot deadlock).
func TestParallelForNestedAndConcurrent(t *testing.T) {
	withProcs(t, 2)
	const callers, outer, inner = 4, 8, 1 << 12
	var wg sync.WaitGroup
	hits := make([][]int32, callers)
	for c := range callers {
		hits[c] = make([]int32, outer*inner)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				parallelFor(outer, grain, func(lo, hi int) {
					for o := lo; o < hi; o++ {
						parallelFor(inner, grain, func(lo, hi int) {
							for i := lo; i < hi; i++ {
								atomic.AddInt32(&hits[c][o*inner+i], 1)
							}
						})
					}
				})
			}
		}()
	}
	wg.Wait()
	for c := range hits {
		for i, h := range hits[c] {
			if h != 20 {
				t.Fatalf("caller %d: index %d hit %d times, want 20", c, i, h)
			}
		}
	}
}
