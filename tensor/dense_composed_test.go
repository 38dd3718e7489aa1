package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDenseBlockMatchesComposed: DenseBlockKernel's and
// DenseBlockBackwardKernel's CPU bodies against the composed reference
// (the layers one by one: BatchNormRelu or ChannelAffine, Conv2D, AvgPool2D,
// Concat, and their gradients), in float64: output, batch statistics, dx
// and every parameter's gradient, in training and evaluation mode, for
// plain units, bottlenecks and a transition, on one image and several, odd
// sizes and x a view (a narrowed channel range). (kernels/cuda's
// TestGradientsOnDevice runs the composed block on a device.)
func TestDenseBlockMatchesComposed(t *testing.T) {
	cases := []struct {
		name            string
		n, c, h, w      int
		neck, pool, fix bool
	}{
		{"one image", 1, 1, 1, 1, false, false, false},
		{"odd", 3, 2, 5, 3, false, false, false},
		{"bottleneck", 2, 3, 4, 5, true, false, false},
		{"transition", 2, 2, 5, 4, false, true, false},
		{"bottleneck transition", 3, 2, 4, 4, true, true, false},
		{"evaluation", 2, 3, 5, 5, true, true, true},
	}
	for i, tc := range cases {
		r := rand.New(rand.NewPCG(uint64(i), 11))
		units := denseTestUnits(r, tc.c, tc.neck, tc.pool, tc.fix)
		x := Narrow(RandNormal[float64](r, 0, 1, tc.n, tc.c+1, tc.h, tc.w), 1, 1, tc.c)
		y, st := DenseBlock(x, units, 1e-5)
		g := RandNormal[float64](r, 0, 1, y.Shape()...)
		// The features' and bottlenecks' gradient buffers come from the
		// scratch pools: NaN there shows a sum that does not start afresh.
		n, total, hw := st.dims()
		poisonScratch[float64](n*total*hw, n*3*hw)
		dx, grads := DenseBlockBackward(g, st)
		wantY, runs := denseBlockComposed(x, units, 1e-5)
		wantDx, wantGrads := denseBlockBackwardComposed(g, x, units, 1e-5)
		check := func(what string, got, want *Tensor[float64]) {
			t.Helper()
			if !slices.Equal(got.Shape(), want.Shape()) || maxRelDiff(HostData(Contiguous(got)), HostData(Contiguous(want))) > 1e-10 {
				t.Errorf("%s: %s differs from the composed reference", tc.name, what)
			}
		}
		check("output", y, wantY)
		check("dx", dx, wantDx)
		means, variances := st.Stats()
		k := 0
		for u, stages := range runs {
			for _, s := range stages {
				check(fmt.Sprintf("unit %d mean", u), means[k], s.mean)
				check(fmt.Sprintf("unit %d variance", u), variances[k], s.vari)
				k++
			}
			for j, p := range grads[u].Params() {
				check(fmt.Sprintf("unit %d gradient %d", u, j), p, wantGrads[u][j])
			}
		}
	}
}

// poisonScratch gives the scratch pools a NaN-filled buffer of each size.
func poisonScratch[T Float](sizes ...int) {
	for _, n := range sizes {
		b := getScratch[T](n)
		for i := range *b {
			(*b)[i] = T(math.NaN())
		}
		putScratch(b)
	}
}

// denseTestUnits are two units on c channels (growth 2), with
// bottlenecks of 3 channels where neck, the second a transition where
// pool, with running statistics where fix.
func denseTestUnits(r *rand.Rand, c int, neck, pool, fix bool) []DenseUnit[float64] {
	norm := func(c int) (g, b, m, v *Tensor[float64]) {
		g, b = RandNormal[float64](r, 1, 0.3, c), RandNormal[float64](r, 0, 0.3, c)
		if fix {
			m, v = RandNormal[float64](r, 0, 0.3, c), RandUniform[float64](r, 0.5, 1.5, c)
		}
		return g, b, m, v
	}
	var units []DenseUnit[float64]
	for i := range 2 {
		u := DenseUnit[float64]{}
		u.Gamma, u.Beta, u.Mean, u.Var = norm(c)
		in := c
		if neck && !(pool && i == 1) {
			b := &DenseBottleneck[float64]{W: RandNormal[float64](r, 0, 0.4, 3, c, 1, 1)}
			b.Gamma, b.Beta, b.Mean, b.Var = norm(3)
			u.Bottleneck, in = b, 3
		}
		u.W = RandNormal[float64](r, 0, 0.4, 2, in, 3, 3)
		if pool && i == 1 {
			u.W, u.Pool = RandNormal[float64](r, 0, 0.4, 2, in, 1, 1), true
		}
		units = append(units, u)
		c += 2
	}
	return units
}
