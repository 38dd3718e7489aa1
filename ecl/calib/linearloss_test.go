package calib

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLinearLossMatchesRows compares the GEMM form of the affine loss with
// the row-at-a-time reference, value and gradient, for the diagonal and the
// full map, with penalties, on more rows than the blocks.
func TestLinearLossMatchesRows(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, c := range []struct {
		n, d, k int
		diag    bool
	}{{1, 3, 3, false}, {1, 3, 3, true}, {301, 7, 5, false}, {301, 5, 5, true}, {1000, 4, 9, false}, {2*linearRows + 77, 3, 4, false}, {linearRows + 1, 4, 4, true},
		{130, 6, blockSoftmaxClasses, false}, {301, blockSoftmaxClasses + 3, blockSoftmaxClasses + 3, true}} {
		x, y := make([]float64, c.n*c.d), make([]int, c.n)
		for i := range x {
			x[i] = 2 * r.NormFloat64()
		}
		for i := range y {
			y[i] = r.IntN(c.k)
		}
		nw := c.k * c.d
		if c.diag {
			nw = c.k
		}
		theta := make([]float64, nw+c.k)
		for i := range theta {
			theta[i] = r.NormFloat64()
		}
		pen := func(i, j int) float64 { return 0.01 * float64(i+2*j) }
		g1, g2 := make([]float64, len(theta)), make([]float64, len(theta))
		f1 := linearLoss(rows{x: x, d: c.d}, c.k, y, c.diag, pen, 0.3, nil, nil)(theta, g1)
		f2 := linearLossRows(x, c.d, c.k, y, c.diag, pen, 0.3)(theta, g2)
		if math.Abs(f1-f2) > 1e-12*math.Abs(f2) {
			t.Errorf("%+v: loss %v, rows %v", c, f1, f2)
		}
		for i := range g1 {
			if math.Abs(g1[i]-g2[i]) > 1e-12*(1+math.Abs(g2[i])) {
				t.Fatalf("%+v: gradient %d is %v, rows %v", c, i, g1[i], g2[i])
			}
		}
	}
}

// With mean and scale the full map reads the rows as standardised: the
// same value and gradient as on standardised copies, in the standardised
// weights, over more rows than the blocks.
func TestLinearLossStandardisesInPlace(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	const n, d, k = 700, 6, 5
	x, y := make([]float64, n*d), make([]int, n)
	for i := range x {
		x[i] = 3 + float64(i%d+1)*r.NormFloat64()
	}
	for i := range y {
		y[i] = r.IntN(k)
	}
	mean, scale := pooledMeanScale(x[:n/2*d], x[n/2*d:], d)
	std := make([]float64, len(x))
	for i, v := range x {
		std[i] = (v - mean[i%d]) / scale[i%d]
	}
	theta := make([]float64, k*d+k)
	for i := range theta {
		theta[i] = r.NormFloat64() / 2
	}
	pen := func(i, j int) float64 { return 0.02 }
	g1, g2 := make([]float64, len(theta)), make([]float64, len(theta))
	f1 := linearLoss(rows{x: x, d: d}, k, y, false, pen, 0.1, mean, scale)(theta, g1)
	f2 := linearLoss(rows{x: std, d: d}, k, y, false, pen, 0.1, nil, nil)(theta, g2)
	if math.Abs(f1-f2) > 1e-12*math.Abs(f2) {
		t.Errorf("loss %v in place, %v on standardised copies", f1, f2)
	}
	for i := range g1 {
		if math.Abs(g1[i]-g2[i]) > 1e-10*(1+math.Abs(g2[i])) {
			t.Fatalf("gradient %d is %v in place, %v on standardised copies", i, g1[i], g2[i])
		}
	}
}

// TestAffineApplyMatchesRows compares the GEMM forms of an affine map's
// probabilities (Affine.Apply) and held-out NLL (Affine.nll) with the
// row-at-a-time reference, diagonal and full, logits and log-probabilities,
// no rows, one, and more than the GEMM's blocks.
func TestAffineApplyMatchesRows(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, m := range []string{"vs", "ms", "dirichlet"} {
		for _, c := range []struct{ n, k int }{{0, 3}, {1, 3}, {301, 7}, {64, 33}} {
			a := affineMap(m)
			nw := a.nparams(c.k)
			theta := make([]float64, nw+c.k)
			for i := range theta {
				theta[i] = r.NormFloat64() / 2
			}
			a.W, a.B = theta[:nw], theta[nw:]
			logits, y := make([]float64, c.n*c.k), make([]int, c.n)
			for i := range logits {
				logits[i] = 3 * r.NormFloat64()
			}
			for i := range y {
				y[i] = r.IntN(c.k)
			}
			x := logits // the reference's inputs
			if a.Space == "logprobs" {
				x = logSoftmax(logits, c.k)
			}
			got, err := a.Apply(logits, c.k)
			if c.n == 0 { // Apply wants rows; the held-out NLL of none is 0
				if err == nil || a.nll(theta, a.inputs(logits, c.k), c.k, y) != 0 {
					t.Errorf("%s: no rows: Apply error %v, nll %v", m, err, a.nll(theta, a.inputs(logits, c.k), c.k, y))
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			z, p := make([]float64, c.k), make([]float64, c.k)
			nll := 0.0
			for s := range c.n {
				affineRow(z, a.W, a.B, x[s*c.k:(s+1)*c.k], a.Diagonal)
				nll += softmaxRow(p, z) - z[y[s]]
				for i, v := range p {
					if g := got[s*c.k+i]; math.Abs(g-v) > 1e-13 {
						t.Fatalf("%s %+v: row %d class %d: %v, rows %v", m, c, s, i, g, v)
					}
				}
			}
			if len(got) != c.n*c.k {
				t.Fatalf("%s %+v: %d probabilities, want %d", m, c, len(got), c.n*c.k)
			}
			if g := a.nll(theta, a.inputs(logits, c.k), c.k, y); math.Abs(g-nll) > 1e-12*math.Max(1, math.Abs(nll)) {
				t.Errorf("%s %+v: nll %v, rows %v", m, c, g, nll)
			}
		}
	}
}
