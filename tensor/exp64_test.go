package tensor

import (
	"math"
	"math/big"
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

// expFuncs are ExpScaled64 and each assembly kernel this CPU runs, by name.
func expFuncs() map[string]func(dst, src []float64, shift, t float64) float64 {
	fs := map[string]func(dst, src []float64, shift, t float64) float64{"ExpScaled64": ExpScaled64}
	for _, k := range expKernels {
		fs[k.name] = func(dst, src []float64, shift, t float64) float64 {
			if len(src) == 0 {
				return 0
			}
			return k.run(dst[:len(src)], src, shift, t)
		}
	}
	return fs
}

// TestExpScaled64 checks ExpScaled64 and each assembly kernel against
// math.Exp of the same argument, (x − shift)/t rounded as Go rounds it:
// within 2 ulp where e^x is normal, within 2^−1074 where it is subnormal,
// equal where it is 0, 1, ±∞ or NaN; with the sum of what it wrote, src
// untouched and dst's elements past len(src) left alone, for lengths
// around the vector widths of 4 and 8.
func TestExpScaled64(t *testing.T) {
	for name, exp := range expFuncs() {
		t.Run(name, func(t *testing.T) { testExpScaled64(t, exp) })
	}
}

func testExpScaled64(t *testing.T, exp func(dst, src []float64, shift, t float64) float64) {
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
		sum := exp(dst, src, shift, temp)
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
	for _, n := range []int{0, 1, 3, 4, 5, 7, 8, 9, 12, 15, 17, 1000} {
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

// bigExp returns e^x correctly rounded to float64 (x finite, e^x normal):
// 2^n·e^r with n = round(x/ln 2), r = x − n·ln 2, ln 2 = Σ 1/(j·2^j) and
// e^r by its Taylor series, all on 300 bits.
func bigExp(x float64) float64 {
	const prec = 300
	num := func(v float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(v) }
	ln2, term := num(0), num(0)
	for j := 1; j < 320; j++ {
		ln2.Add(ln2, term.Quo(num(1), num(float64(j)).SetMantExp(num(float64(j)), j)))
	}
	n := math.Round(x / math.Ln2)
	r := num(x)
	r.Sub(r, term.Mul(ln2, num(n)))
	sum := num(1)
	term = num(1)
	for j := 1; j < 60; j++ {
		term.Quo(term.Mul(term, r), num(float64(j)))
		sum.Add(sum, term)
	}
	f, _ := sum.SetMantExp(sum, int(n)).Float64()
	return f
}

// TestExpScaled64Exact checks each assembly kernel against e^x correctly
// rounded (bigExp): within 1 ulp on 4000 arguments in [−708, 0], half of
// them in [−40, 0]. (The fallback, math.Exp, is up to 2 ulp off on amd64.)
func TestExpScaled64Exact(t *testing.T) {
	if len(expKernels) == 0 {
		t.Skip("no assembly kernel on this CPU or build")
	}
	for _, k := range expKernels {
		t.Run(k.name, func(t *testing.T) { testExpScaled64Exact(t, k.run) })
	}
}

func testExpScaled64Exact(t *testing.T, exp func(dst, src []float64, shift, t float64) float64) {
	r := newRNG(65)
	xs := make([]float64, 4000)
	for i := range xs {
		xs[i] = -708 * r.Float64()
		if i%2 == 1 {
			xs[i] = -40 * r.Float64()
		}
	}
	got := make([]float64, len(xs))
	exp(got, xs, 0, 1)
	for i, x := range xs {
		if want := bigExp(x); ulps(got[i], want) > 1 {
			t.Fatalf("e^%v = %v, want %v (correctly rounded)", x, got[i], want)
		}
	}
}

// exp64Model is the assembly kernels' e^x written in Go, operation for
// operation: the clamp (NaN kept), n = round(x·log2 e) to even, r by two
// fused steps, Horner's rule by fused multiply-adds, and p·2^n rounded
// once (math.Ldexp).
func exp64Model(x float64) float64 {
	c := exp64C
	if x != x {
		return x
	}
	x = math.Min(math.Max(x, c.lo), c.hi)
	n := math.RoundToEven(x * c.log2e)
	r := math.FMA(-n, c.ln2Hi, x)
	r = math.FMA(-n, c.ln2Lo, r)
	p := c.c[0]
	for _, cj := range c.c[1:] {
		p = math.FMA(r, p, cj)
	}
	p = math.FMA(r*r, p, r) + c.one
	return math.Ldexp(p, int(n))
}

// TestExpScaled64Model checks each assembly kernel against exp64Model bit
// for bit, and its sum against the model's elements added in 8 lanes
// (element i in lane i mod 8) and then across them as the kernels add
// them, on every length up to 40 and on expArgs.
func TestExpScaled64Model(t *testing.T) {
	if len(expKernels) == 0 {
		t.Skip("no assembly kernel on this CPU or build")
	}
	r := newRNG(66)
	for n := 1; n <= 40; n++ {
		src := expArgs(r, n)
		for i := range src {
			if math.IsNaN(src[i]) {
				src[i] = 0 // a NaN's payload is not the model's to match
			}
		}
		shift, temp := 3*r.NormFloat64(), 0.5+2*r.Float64()
		var lane [8]float64
		want := make([]float64, n)
		for i, v := range src {
			want[i] = exp64Model((v - shift) / temp)
			lane[i%8] += want[i]
		}
		wantSum := ((lane[0] + lane[4]) + (lane[2] + lane[6])) + ((lane[1] + lane[5]) + (lane[3] + lane[7]))
		for _, k := range expKernels {
			got := make([]float64, n)
			sum := k.run(got, src, shift, temp)
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("n=%d: %s gives e^%v = %v, the model %v", n, k.name, (src[i]-shift)/temp, got[i], want[i])
				}
			}
			if math.Float64bits(sum) != math.Float64bits(wantSum) {
				t.Fatalf("n=%d: %s sums to %v, the model to %v", n, k.name, sum, wantSum)
			}
		}
	}
}
