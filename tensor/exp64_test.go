package tensor

import (
	"math"
	"testing"
)

// ulps is the distance in units in the last place between the
// non-negative, non-NaN a and b (across the subnormals, in units of
// 2^−1074).
func ulps(a, b float64) int64 {
	d := int64(math.Float64bits(a)) - int64(math.Float64bits(b))
	return max(d, -d)
}

// expArgs returns n arguments for e^x: uniform over [−745, 0] and over
// [−40, 0] (a softmax's range that matters), near 0, around the subnormal
// and underflow thresholds, the overflow one, and the special values.
func expArgs(r interface {
	Float64() float64
	IntN(int) int
}, n int) []float64 {
	edges := []float64{0, math.Copysign(0, -1), 1e-300, -1e-300, 0x1p-30, -0x1p-30, -1e-10,
		-708, -708.39, -708.4, -709, -744.4, -745, -745.13, -745.1332, -745.14, -746, -800, -1e300,
		1, 700, 709.4, 710, 1e300, math.Inf(-1), math.Inf(1), math.NaN(), -math.Ln2 / 2, math.Ln2 / 2}
	xs := make([]float64, n)
	for i := range xs {
		switch r.IntN(4) {
		case 0:
			xs[i] = edges[r.IntN(len(edges))]
		case 1:
			xs[i] = -745 * r.Float64()
		case 2:
			xs[i] = -40 * r.Float64()
		default:
			xs[i] = -708.5 - 37*r.Float64() // subnormal results
		}
	}
	return xs
}

// TestExpScaled64 checks ExpScaled64 against math.Exp of the same argument,
// (x − shift)/t rounded as Go rounds it: within 2 ulp where e^x is normal,
// within 2^−1074 where it is subnormal, equal where it is 0, 1, ±∞ or NaN;
// with the sum of what it wrote, src untouched and dst's elements past
// len(src) left alone, for lengths around the vector width of 8.
func TestExpScaled64(t *testing.T) {
	r := newRNG(64)
	var worst, worstSub int64
	worstX := 0.0
	check := func(n int, shift, temp float64, inPlace bool) {
		src := expArgs(r, n)
		for i := range src {
			src[i] = src[i]*temp + shift
		}
		orig := append([]float64(nil), src...)
		dst := make([]float64, n+3)
		for i := range dst {
			dst[i] = -7
		}
		if inPlace {
			dst = src
		}
		sum := ExpScaled64(dst, src, shift, temp)
		if !inPlace {
			for i, v := range src {
				if math.Float64bits(v) != math.Float64bits(orig[i]) {
					t.Fatalf("n=%d: src[%d] changed from %v to %v", n, i, orig[i], v)
				}
			}
			for i := n; i < len(dst); i++ {
				if dst[i] != -7 {
					t.Fatalf("n=%d: dst[%d] past src set to %v", n, i, dst[i])
				}
			}
		}
		wantSum, gotSum := 0.0, 0.0
		for i, v := range orig {
			x := (v - shift) / temp
			want, got := math.Exp(x), dst[i]
			wantSum += want
			gotSum += got
			switch d := ulps(got, want); {
			case math.IsNaN(want):
				if !math.IsNaN(got) {
					t.Fatalf("e^%v = %v, want NaN", x, got)
				}
			case math.IsNaN(got) || got < 0:
				t.Fatalf("e^%v = %v, want %v", x, got, want)
			case want == 0 || want == 1 || math.IsInf(want, 1) || math.IsInf(got, 1):
				if got != want {
					t.Fatalf("e^%v = %v, want %v", x, got, want)
				}
			case want < 0x1p-1022:
				if d > 1 {
					t.Fatalf("e^%v = %v, want %v (subnormal, %d units of 2^−1074 apart)", x, got, want, d)
				}
				worstSub = max(worstSub, d)
			default:
				if d > 2 {
					t.Fatalf("e^%v = %v, want %v (%d ulp apart)", x, got, want, d)
				}
				if d > worst {
					worst, worstX = d, x
				}
			}
		}
		same := sum == gotSum || math.Abs(sum-gotSum) <= 1e-15*float64(n)*gotSum
		if !same && !(math.IsNaN(sum) && math.IsNaN(gotSum)) {
			t.Fatalf("n=%d: sum %v, elements' sum %v (math.Exp's %v)", n, sum, gotSum, wantSum)
		}
	}
	for _, n := range []int{0, 1, 7, 8, 9, 17, 1000} {
		check(n, 0, 1, false)
		check(n, 3*r.NormFloat64(), 0.5+2*r.Float64(), false)
		check(n, 1, 1, true)
	}
	for range 200 {
		check(1000, 10*r.NormFloat64(), math.Exp(2*r.NormFloat64()), false)
	}
	t.Logf("largest difference from math.Exp: %d ulp (at e^%v), %d units of 2^−1074 where subnormal", worst, worstX, worstSub)
}

// TestExpScaled64Short checks that a dst shorter than src is refused with a
// message naming both lengths.
func TestExpScaled64Short(t *testing.T) {
	defer func() {
		if msg, _ := recover().(string); msg != "tensor.ExpScaled64: dst has 2 elements, src 3" {
			t.Fatalf("panic %q", msg)
		}
	}()
	ExpScaled64(make([]float64, 2), make([]float64, 3), 0, 1)
}
