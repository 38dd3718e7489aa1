//go:build cuda

package cuda_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ecl-go/ecl/tensor"
)

// The device's transformer kernels (src/transformer.cu) against tensor's
// CPU bodies: layer norm, GELU and attention, forward and backward.

// sqrtTol is T's default tolerance scaled by √n, for sums of n terms whose
// order differs from the CPU's.
func sqrtTol[T tensor.Float](n int) (atol, rtol float64) {
	atol, rtol = tol[T]()
	s := math.Sqrt(float64(max(n, 1)))
	return atol * s, rtol * s
}

// TestLayerNorm: y, μ and 1/σ, and dx, dγ, dβ, on no rows, one value, odd
// widths below and above a warp, rows far from zero, a few thousand rows of
// ViT-B's width (many chunks of the backward column sums), leading axes,
// and transposed and narrowed views.
func TestLayerNorm(t *testing.T) { both(t, layerNorm[float32], layerNorm[float64]) }

func layerNorm[T tensor.Float](t *testing.T) {
	dev := gpu[T](t)
	r := rand.New(rand.NewPCG(31, 31))
	cases := []struct {
		l     layout
		s     []int
		shift T
	}{
		{dense, []int{0, 5}, 0}, {dense, []int{1, 1}, 0}, {dense, []int{3, 7}, 0}, {dense, []int{5, 33}, 3},
		{dense, []int{2, 3, 67}, -2}, {transposed, []int{9, 45}, 0}, {narrowed, []int{4, 6, 11}, 1},
		{dense, []int{rows(dev, 3001), 768}, 0.5},
	}
	for _, c := range cases {
		d := c.s[len(c.s)-1]
		x, xg := pair(r, dev, c.l, c.s, c.shift-1, c.shift+1)
		gamma, gg := pair(r, dev, dense, []int{d}, 0.5, 2)
		beta, bg := pair(r, dev, dense, []int{d}, -1, 1)
		dy, dyg := pair(r, dev, c.l, c.s, -1, 1)
		what := fmt.Sprintf("%v %v", c.l, c.s)
		y, m, rs := tensor.LayerNorm(xg, gg, bg, 1e-5)
		wy, wm, wrs := tensor.LayerNorm(x, gamma, beta, 1e-5)
		sameDefault(t, "LayerNorm y "+what, y, wy)
		sameDefault(t, "LayerNorm mean "+what, m, wm)
		sameDefault(t, "LayerNorm rstd "+what, rs, wrs)
		// The backward pass from the CPU's statistics, so that only the
		// kernel differs.
		dx, dgam, dbet := tensor.LayerNormBackward(dyg, xg, gg, tensor.To(wm, dev), tensor.To(wrs, dev))
		wdx, wdg, wdb := tensor.LayerNormBackward(dy, x, gamma, wm, wrs)
		sameDefault(t, "LayerNormBackward dx "+what, dx, wdx)
		atol, rtol := sqrtTol[T](x.Len() / max(d, 1))
		same(t, "LayerNormBackward dgamma "+what, dgam, wdg, atol, rtol)
		same(t, "LayerNormBackward dbeta "+what, dbet, wdb, atol, rtol)
	}
}

// TestGELU: GELU and its gradient elementwise on the shapes of the
// elementwise kernels (a million values on a GPU), a transposed view, and
// the special values (±∞ give the CPU's ∞ and NaN).
func TestGELU(t *testing.T) { both(t, geluTest[float32], geluTest[float64]) }

func geluTest[T tensor.Float](t *testing.T) {
	dev := gpu[T](t)
	r := rand.New(rand.NewPCG(32, 32))
	check := func(what string, x, xg, dy, dyg *tensor.Tensor[T]) {
		t.Helper()
		sameDefault(t, "GELU "+what, tensor.GELU(xg), tensor.GELU(x))
		sameDefault(t, "GELUBackward "+what, tensor.GELUBackward(dyg, xg), tensor.GELUBackward(dy, x))
	}
	for _, s := range [][]int{{0, 3}, {1, 1}, {7, 13}, {3, 5, 9}, {rows(dev, 1031), 1027}} {
		for _, l := range []layout{dense, transposed} {
			x, xg := pair(r, dev, l, s, -6, 6)
			dy, dyg := pair(r, dev, l, s, -1, 1)
			check(fmt.Sprintf("%v %v", l, s), x, xg, dy, dyg)
		}
	}
	inf := T(math.Inf(1))
	x := tensor.FromSlice([]T{-inf, inf, T(math.NaN()), 0, T(math.Copysign(0, -1)), 1e-30, 40, -40, 1, -1}, 10)
	dy := tensor.Full[T](3, 10)
	check("special values", x, tensor.To(x, dev), dy, tensor.To(dy, dev))
}

// TestAttention: o and the log-sum-exp, and dq, dk, dv, against the CPU's
// flash-style loops: one query and key, fewer queries than keys, keys over
// several tiles with a remainder, more queries than a block's tile, a head
// wider than a warp, ViT-like N ≈ 200 with Dh = 64, transposed views of q
// and k, no queries (composed), and heads too large for float64's tiles
// (composed on the device; float32's run with one key a tile).
func TestAttention(t *testing.T) { both(t, attentionTest[float32], attentionTest[float64]) }

func attentionTest[T tensor.Float](t *testing.T) {
	dev := gpu[T](t)
	r := rand.New(rand.NewPCG(33, 33))
	cases := []struct {
		b, h, n, m, dh int
		scale          T
		l              layout
	}{
		{1, 1, 1, 1, 1, 1, dense}, {2, 3, 5, 7, 4, 0.5, dense}, {1, 2, 3, 133, 3, 0.7, dense},
		{1, 1, 70, 5, 33, 0.2, transposed}, {2, 1, 9, 11, 8, 1.5, transposed}, {1, 1, 0, 3, 2, 1, dense},
		{1, 2, 197, 197, 64, 0.125, dense}, {2, 1, 37, 70, 64, 0.3, transposed}, {1, 1, 1, 1, 64, 1, dense},
		{1, 1, 3, 5, 1600, 0.05, dense},
	}
	for _, c := range cases {
		lead := []int{c.b, c.h}
		qs, ks := append(lead, c.n, c.dh), append(lead, c.m, c.dh)
		q, qg := pair(r, dev, c.l, qs, -2, 2)
		k, kg := pair(r, dev, c.l, ks, -2, 2)
		v, vg := pair(r, dev, dense, ks, -1, 1)
		dout, dog := pair(r, dev, c.l, qs, -1, 1)
		what := fmt.Sprintf("%+v", c)
		o, lse := tensor.Attention(qg, kg, vg, c.scale)
		wo, wlse := tensor.Attention(q, k, v, c.scale)
		sameDefault(t, "Attention o "+what, o, wo)
		sameDefault(t, "Attention lse "+what, lse, wlse)
		dq, dk, dv := tensor.AttentionBackward(dog, qg, kg, vg, tensor.To(wo, dev), tensor.To(wlse, dev), c.scale)
		wdq, wdk, wdv := tensor.AttentionBackward(dout, q, k, v, wo, wlse, c.scale)
		atol, rtol := sqrtTol[T](max(c.n, c.m))
		same(t, "AttentionBackward dq "+what, dq, wdq, atol, rtol)
		same(t, "AttentionBackward dk "+what, dk, wdk, atol, rtol)
		same(t, "AttentionBackward dv "+what, dv, wdv, atol, rtol)
	}
}
