package tensor

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// gemmImpl is one way of computing gemm, for comparison.
type gemmImpl[T Float] struct {
	name string
	run  func(ta, tb bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int)
}

func gemmImpls[T Float](t *testing.T) []gemmImpl[T] {
	with := func(mk microKernel[T], workers int) func(ta, tb bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
		return func(ta, tb bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
			gemmWith(mk, workers, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		}
	}
	// packed packs op(a) whole first (packWhole), as the convolutions do.
	packed := func(mk microKernel[T], workers int) func(ta, tb bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
		return func(ta, tb bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
			A := operand[T]{data: a, ld: lda, trans: ta, packed: make([]T, roundUp(m, mk.mr)*k)}
			packWhole(mk, A, m, k, alpha, A.packed)
			gemmOperands(mk, workers, m, n, k, alpha, A, operand[T]{data: b, ld: ldb, trans: tb}, beta, c, ldc)
		}
	}
	impls := []gemmImpl[T]{{"gonum", gonumGemm[T]}, {"gemm", gemm[T]}}
	for _, l := range isaLevels(t) {
		mk := kernelAt[T](l)
		impls = append(impls, gemmImpl[T]{l.String(), with(mk, 1)}, gemmImpl[T]{l.String() + "/3 workers", with(mk, 3)},
			gemmImpl[T]{l.String() + "/packed a", packed(mk, 1)}, gemmImpl[T]{l.String() + "/packed a/3 workers", packed(mk, 3)})
	}
	return impls
}

// isaLevels are the micro-kernel levels this CPU and build run: every level
// up to cpuISA.
func isaLevels(t *testing.T) []isa {
	var ls []isa
	for l := isaGo; l <= cpuISA; l++ {
		ls = append(ls, l)
	}
	if cpuISA < isaAVX512 {
		t.Logf("micro-kernels up to %v only on this CPU or build", cpuISA)
	}
	return ls
}

// atLevels runs f as a subtest at each of levels with gemmISA set to it,
// then restores gemmISA.
func atLevels(t *testing.T, levels []isa, f func(t *testing.T)) {
	defer func(l isa) { gemmISA = l }(gemmISA)
	for _, l := range levels {
		gemmISA = l
		t.Run(l.String(), f)
	}
}

// TestGemmAVX512MatchesAVX2: both assembly levels sum each element of c in
// the same order (one FMA chain over each kc block, the blocks added to c),
// so their products agree bit for bit, whatever the tiles, stripes and
// edges: results do not depend on which of the two a CPU has.
func TestGemmAVX512MatchesAVX2(t *testing.T) {
	if cpuISA < isaAVX512 {
		t.Skip("no AVX-512 on this CPU or build")
	}
	testGemmLevelsAgree[float32](t)
	testGemmLevelsAgree[float64](t)
}

func testGemmLevelsAgree[T Float](t *testing.T) {
	r := newRNG(17)
	for _, s := range [][3]int{{200, 300, 150}, {16, 784, 150}, {150, 100, 16}, {33, 65, 600}, {7, 5, 3}} {
		m, n, k := s[0], s[1], s[2]
		for _, tr := range [][2]bool{{false, false}, {true, true}} {
			a, b := randSlice[T](r, m*k), randSlice[T](r, k*n)
			lda, ldb := k, n
			if tr[0] {
				lda = m
			}
			if tr[1] {
				ldb = k
			}
			c2, c5 := make([]T, m*n), make([]T, m*n)
			gemmWith(kernelAt[T](isaAVX2), 1, tr[0], tr[1], m, n, k, 0.5, a, lda, b, ldb, 0, c2, n)
			gemmWith(kernelAt[T](isaAVX512), 3, tr[0], tr[1], m, n, k, 0.5, a, lda, b, ldb, 0, c5, n)
			for i := range c2 {
				if c2[i] != c5[i] {
					t.Errorf("%s %dx%dx%d trans %v: (%d,%d) AVX2 %v, AVX-512 %v", DType[T](), m, n, k, tr, i/n, i%n, c2[i], c5[i])
					break
				}
			}
		}
	}
}

// TestMatMulEveryISA runs the MatMul tests (batches, broadcasting,
// transposed and narrowed views, empty dimensions) with the micro-kernels of
// each level below the best, which TestMatMulFloat32/64 use.
func TestMatMulEveryISA(t *testing.T) {
	if cpuISA == isaGo {
		t.Skip("no level below portable Go")
	}
	atLevels(t, isaLevels(t)[:cpuISA], func(t *testing.T) {
		testMatMul[float32](t, 1e-5)
		testMatMul[float64](t, 1e-13)
	})
}

func gonumGemm[T Float](ta, tb bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	tr := func(t bool) blas.Transpose {
		if t {
			return blas.Trans
		}
		return blas.NoTrans
	}
	switch cs := any(c).(type) {
	case []float32:
		gonum.Implementation{}.Sgemm(tr(ta), tr(tb), m, n, k, float32(alpha), any(a).([]float32), lda, any(b).([]float32), ldb, float32(beta), cs, ldc)
	case []float64:
		gonum.Implementation{}.Dgemm(tr(ta), tr(tb), m, n, k, float64(alpha), any(a).([]float64), lda, any(b).([]float64), ldb, float64(beta), cs, ldc)
	}
}

// TestGemm compares every implementation (the micro-kernels of each level
// this CPU runs: portable Go, AVX2, AVX-512; one or 3 workers; packing a
// block by block or whole beforehand; gonum) with a float64 triple loop over shapes around the tile and
// block sizes (0, 1, odd, past kc = 256 and mc = 144 or 240),
// transposed operands, leading dimensions past the row length, and alpha,
// beta (0 included); c starts as NaN where beta = 0, which must overwrite it.
func TestGemm(t *testing.T) {
	testGemm[float32](t, 1e-5)
	testGemm[float64](t, 1e-13)
}

func testGemm[T Float](t *testing.T, tol float64) {
	r := newRNG(11)
	shapes := [][3]int{
		{0, 0, 0}, {0, 3, 2}, {3, 0, 2}, {3, 2, 0}, {1, 1, 1}, {1, 17, 1}, {7, 1, 9}, {6, 16, 1}, {6, 8, 4},
		{5, 15, 3}, {7, 17, 5}, {13, 33, 300}, {37, 29, 257}, {250, 35, 20}, {6, 784, 75}, {16, 100, 150}, {150, 100, 16}, {150, 5, 520}, {61, 300, 40},
	}
	for _, s := range shapes {
		m, n, k := s[0], s[1], s[2]
		for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			ta, tb := tr[0], tr[1]
			for _, ab := range [][2]T{{1, 0}, {-0.5, 1}, {2, 0.25}, {0, 0}, {0, 0.5}} {
				alpha, beta := ab[0], ab[1]
				// Stored matrices with padded leading dimensions.
				ar, ac := m, k
				if ta {
					ar, ac = k, m
				}
				br, bc := k, n
				if tb {
					br, bc = n, k
				}
				lda, ldb, ldc := ac+3, bc+1, n+2
				a := randSlice[T](r, ar*lda)
				b := randSlice[T](r, br*ldb)
				c0 := randSlice[T](r, m*ldc)
				if beta == 0 {
					for i := range c0 {
						c0[i] = T(math.NaN())
					}
				}
				at := func(i, p int) float64 {
					if ta {
						return float64(a[p*lda+i])
					}
					return float64(a[i*lda+p])
				}
				bt := func(p, j int) float64 {
					if tb {
						return float64(b[j*ldb+p])
					}
					return float64(b[p*ldb+j])
				}
				want, bound := refGemm(m, n, k, float64(alpha), float64(beta), at, bt, c0, ldc)
				for _, impl := range gemmImpls[T](t) {
					c := append([]T(nil), c0...)
					impl.run(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
					label := fmt.Sprintf("%s %s %dx%dx%d ta=%v tb=%v alpha=%v beta=%v", DType[T](), impl.name, m, n, k, ta, tb, alpha, beta)
					checkGemm(t, label, c, c0, want, bound, ldc, n, tol)
				}
			}
		}
	}
}

// refGemm is alpha·Σ_p a(i,p)·b(p,j) + beta·c0 in float64, with the bound
// |alpha|·Σ|a·b| + |beta·c0| on its rounding error, laid out like c0.
func refGemm[T Float](m, n, k int, alpha, beta float64, a, b func(int, int) float64, c0 []T, ldc int) (want, bound []float64) {
	want, bound = make([]float64, m*ldc), make([]float64, m*ldc)
	for i := range m {
		for j := range n {
			var s, mag float64
			for p := range k {
				v := a(i, p) * b(p, j)
				s += v
				mag += math.Abs(v)
			}
			want[i*ldc+j], bound[i*ldc+j] = alpha*s, math.Abs(alpha)*mag
			if beta != 0 {
				want[i*ldc+j] += beta * float64(c0[i*ldc+j])
				bound[i*ldc+j] += math.Abs(beta * float64(c0[i*ldc+j]))
			}
		}
	}
	return want, bound
}

func randSlice[T Float](r interface{ NormFloat64() float64 }, n int) []T {
	s := make([]T, n)
	for i := range s {
		s[i] = T(r.NormFloat64())
	}
	return s
}

// checkGemm compares c with want within tol·bound, and checks that the
// padding columns past n keep their values from c0.
func checkGemm[T Float](t *testing.T, label string, c, c0 []T, want, bound []float64, ldc, n int, tol float64) {
	t.Helper()
	for i, v := range c {
		got := float64(v)
		if i%ldc >= n {
			if old := float64(c0[i]); got != old && !(math.IsNaN(got) && math.IsNaN(old)) {
				t.Errorf("%s: padding (%d,%d) changed from %v to %v", label, i/ldc, i%ldc, old, got)
				return
			}
			continue
		}
		if math.IsNaN(got) || math.Abs(got-want[i]) > tol*bound[i]+1e-30 {
			t.Errorf("%s: (%d,%d) = %v, want %v", label, i/ldc, i%ldc, got, want[i])
			return
		}
	}
}

// TestGemmNT compares gemmNT (c += a·bᵀ, operands read along k) with the
// float64 triple loop, at every level this CPU runs, on shapes around its
// 3×4 tile and vector lengths and one large enough for the packed GEMM,
// with padded leading dimensions.
func TestGemmNT(t *testing.T) {
	atLevels(t, isaLevels(t), func(t *testing.T) {
		testGemmNT[float32](t, 1e-5)
		testGemmNT[float64](t, 1e-13)
	})
}

func testGemmNT[T Float](t *testing.T, tol float64) {
	r := newRNG(13)
	for _, s := range [][3]int{{0, 4, 8}, {3, 0, 8}, {1, 1, 1}, {3, 4, 8}, {3, 4, 7}, {2, 3, 9}, {6, 75, 784}, {16, 150, 64}, {16, 150, 100}, {7, 13, 37}, {5, 9, 3}, {4, 5, 16}, {3, 4, 40}, {32, 20, 50}, {40, 9, 30}, {130, 129, 70}, {33, 40, 7000}} {
		m, n, k := s[0], s[1], s[2]
		lda, ldb, ldc := k+5, k+1, n+3
		a, b, c0 := randSlice[T](r, m*lda), randSlice[T](r, n*ldb), randSlice[T](r, m*ldc)
		want, bound := refGemm(m, n, k, 1, 1,
			func(i, p int) float64 { return float64(a[i*lda+p]) },
			func(p, j int) float64 { return float64(b[j*ldb+p]) }, c0, ldc)
		c := append([]T(nil), c0...)
		gemmNT(m, n, k, a, lda, b, ldb, c, ldc)
		checkGemm(t, fmt.Sprintf("%s gemmNT %dx%dx%d", DType[T](), m, n, k), c, c0, want, bound, ldc, n, tol)
	}
}

// TestInterleave compares interleave at each level this CPU runs (in
// assembly from AVX2 on) with the definition, bit for bit: the
// packing of op(a) and of a transposed op(b).
func TestInterleave(t *testing.T) {
	atLevels(t, isaLevels(t), func(t *testing.T) {
		testInterleave[float32](t)
		testInterleave[float64](t)
	})
}

func testInterleave[T Float](t *testing.T) {
	r := newRNG(19)
	for _, s := range [][4]int{{4, 8, 12, 9}, {12, 256, 12, 300}, {7, 21, 32, 21}, {3, 16, 6, 20}, {32, 37, 32, 40}, {5, 7, 8, 7}, {6, 19, 6, 25}} {
		rows, kb, w, ld := s[0], s[1], s[2], s[3]
		src := randSlice[T](r, rows*ld)
		dst := randSlice[T](r, kb*w)
		want := append([]T(nil), dst...)
		alpha := T(-1.5)
		for i := range rows {
			for p := range kb {
				want[p*w+i] = alpha * src[i*ld+p]
			}
		}
		interleave(dst, w, rows, src, ld, kb, alpha)
		for i := range dst {
			if dst[i] != want[i] {
				t.Errorf("%s interleave rows %d kb %d w %d ld %d: element %d = %v, want %v", DType[T](), rows, kb, w, ld, i, dst[i], want[i])
				break
			}
		}
	}
}

// gemm's transposed path for a narrow op(b) with one operand transposed
// (cᵀ = op(b)ᵀ·op(a)ᵀ) gives what the general one does, bit for bit, at
// every level this CPU runs, and is not taken where it would not (k past
// one block, alpha ≠ 1, beta ≠ 0: still the general path's bits).
func TestGemmTransposedNarrow(t *testing.T) {
	atLevels(t, isaLevels(t), func(t *testing.T) {
		testGemmTransposed[float32](t)
		testGemmTransposed[float64](t)
	})
}

func testGemmTransposed[T Float](t *testing.T) {
	r := newRNG(17)
	mk := kernelFor[T]()
	for _, s := range [][3]int{{100, 3, 100}, {100, 2, 100}, {13, 1, 7}, {40, mk.nr - 1, 33}, {25, 5, mk.kc}, {30, 3, mk.kc + 9}} {
		m, n, k := s[0], s[1], s[2]
		for _, ta := range []bool{true, false} {
			for _, ab := range [][2]T{{1, 0}, {0.5, 0}, {1, 1}} {
				lda, ldb, ldc := k+3, k+2, n+1 // op(a) = a: m×k; op(b) = bᵀ: b is n×k
				if ta {
					lda, ldb = m+3, n+2 // a is k×m, b is k×n
				}
				a, b, c0 := randSlice[T](r, max(m, k)*lda), randSlice[T](r, max(n, k)*ldb), randSlice[T](r, m*ldc)
				got, want := append([]T(nil), c0...), append([]T(nil), c0...)
				gemm(ta, !ta, m, n, k, ab[0], a, lda, b, ldb, ab[1], got, ldc)
				gemmWith(mk, 1, ta, !ta, m, n, k, ab[0], a, lda, b, ldb, ab[1], want, ldc)
				for i, v := range want {
					if got[i] != v {
						t.Fatalf("%s %dx%dx%d transA %v alpha %v beta %v: c[%d] = %v, want %v", DType[T](), m, n, k, ta, ab[0], ab[1], i, got[i], v)
					}
				}
			}
		}
	}
}
