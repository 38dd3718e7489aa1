package metrics

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ulps is the distance between a and b in units in the last place of b.
func ulps(a, b float64) float64 {
	return math.Abs(a-b) / (math.Nextafter(b, math.Inf(1)) - b)
}

// expPoly is e^x within 2 ulp down to the floor, where it clamps.
func TestExpPolyAccuracy(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	xs := []float64{0, -1e-300, -0.5 * math.Ln2, -math.Ln2, -1, -20, -700, expFloor}
	for range 100000 {
		xs = append(xs, expFloor*rng.Float64(), -rng.ExpFloat64())
	}
	for _, x := range xs {
		if got, want := expPoly(x), math.Exp(x); ulps(got, want) > 2 {
			t.Fatalf("expPoly(%v) = %v, math.Exp %v: %.1f ulp", x, got, want, ulps(got, want))
		}
	}
	if got, want := expPoly(math.Inf(-1)), math.Exp(expFloor); ulps(got, want) > 2 {
		t.Errorf("expPoly(−∞) = %v, want e^%d = %v", got, expFloor, want)
	}
}

// The vector kernels compute what their Go versions do, bit for bit, also
// where a small bandwidth leaves whole groups of terms out of the sum.
func TestVectorKernelsMatchGo(t *testing.T) {
	if !vectorKernels {
		t.Skip("no vector kernels in this build or on this CPU")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		n     int
		small bool
	}{{0, false}, {4, false}, {8, false}, {12, false}, {16, false}, {400, false}, {400, true}} {
		n := c.n
		x, lb := make([]float64, n), make([]float64, n)
		out, want := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i], lb[i] = -3*rng.Float64(), 10*rng.NormFloat64()
		}
		if n > 0 {
			x[n/2] = math.Inf(-1)
		}
		h := 0.01 + rng.Float64()
		if c.small {
			h = 1e-3 // terms e^−3000 and below next to 1: most groups left out
		}
		m, wantM := scaleMaxVec(x, lb, out, h), scaleMaxGo(x, lb, want, h)
		if m != wantM {
			t.Fatalf("n=%d: max %v, want %v", n, m, wantM)
		}
		for i := range out {
			if out[i] != want[i] {
				t.Fatalf("n=%d: out[%d] = %v, want %v", n, i, out[i], want[i])
			}
		}
		if math.IsInf(m, -1) {
			continue
		}
		a := out[:n&^7] // the sum kernels take whole rounds of eight
		sum := sumExpGo(a, m)
		if got := sumExpVec(a, m); got != sum {
			t.Fatalf("n=%d: sum %v, want %v", n, got, sum)
		}
		if got := sumExpAsm(a, m); got != sum { // sumExp512 with AVX-512
			t.Fatalf("n=%d: sum %v (the CPU's best kernel), want %v", n, got, sum)
		}
	}
}

// logSumExp agrees with the textbook two-pass form within rounding, for
// any length (vector body and scalar tail) and with left-out (−∞) terms.
func TestLogSumExp(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for n := 1; n <= 40; n++ {
		x, lb, buf := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range x {
			x[i], lb[i] = -2*rng.Float64(), rng.NormFloat64()
		}
		x[rng.IntN(n)] = math.Inf(-1)
		for _, h := range BandwidthGrid() {
			m := math.Inf(-1)
			for i := range x {
				m = max(m, x[i]/h-lb[i])
			}
			want := m
			if !math.IsInf(m, -1) {
				s := 0.0
				for i := range x {
					s += math.Exp(x[i]/h - lb[i] - m)
				}
				want = m + math.Log(s)
			}
			got := logSumExp(x, lb, buf, h)
			if got != want && math.Abs(got-want) > 1e-13*math.Max(1, math.Abs(want)) {
				t.Fatalf("n=%d h=%v: %v, want %v", n, h, got, want)
			}
		}
	}
}
