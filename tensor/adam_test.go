package tensor

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestAdamSpanFloat32(t *testing.T) { checkAdamSpan[float32](t) }

func TestAdamSpanFloat64(t *testing.T) { checkAdamSpan[float64](t) }

// checkAdamSpan compares AdamSpan, whose vectors the assembly takes where
// it can, with the update written out one value at a time, bit for bit:
// lengths around the vector widths, with and without decay, early and
// late steps, values spanning many magnitudes, zeros of both signs and
// moments that are zero.
func checkAdamSpan[T Float](t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	value := func() T {
		switch r.IntN(8) {
		case 0:
			return 0
		case 1:
			return T(math.Copysign(0, -1))
		}
		return T(r.NormFloat64() * math.Pow(10, float64(r.IntN(13)-6)))
	}
	for _, n := range []int{0, 1, 3, 4, 7, 8, 9, 16, 33, 1001} {
		for _, h := range []AdamUpdate{
			{LR: 1e-3, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, Step: 1},
			{LR: 3e-2, Beta1: 0.8, Beta2: 0.99, Eps: 1e-6, Decay: 1e-2, Step: 7},
		} {
			c := AdamConstants[T](h)
			p, g, m, v := make([]T, n), make([]T, n), make([]T, n), make([]T, n)
			for i := range n {
				p[i], g[i], m[i], v[i] = value(), value(), value(), T(math.Abs(float64(value())))
			}
			wp, wm, wv := slices.Clone(p), slices.Clone(m), slices.Clone(v)
			for i := range n {
				grad := g[i]
				if c.Decay != 0 {
					grad = grad + T(c.Decay*wp[i])
				}
				wm[i] = T(c.B1*wm[i]) + T(c.C1*grad)
				sq := T(grad * grad)
				wv[i] = T(c.B2*wv[i]) + T(c.C2*sq)
				root := T(math.Sqrt(float64(wv[i])))
				step := T(c.Rate * T(wm[i]/(T(c.VScale*root)+c.Eps)))
				wp[i] = wp[i] - step
			}
			AdamSpan(p, g, m, v, c)
			same := func(a, b []T) bool {
				for i := range a {
					if math.Float64bits(float64(a[i])) != math.Float64bits(float64(b[i])) && !(a[i] != a[i] && b[i] != b[i]) {
						return false
					}
				}
				return true
			}
			if !same(p, wp) || !same(m, wm) || !same(v, wv) {
				t.Errorf("%s, %d values, decay %v: differs from the update one value at a time", DType[T](), n, h.Decay)
			}
		}
	}
}
