package tensor

import (
	"errors"
	"math"
	"slices"
	"testing"
)

// closeAll reports the first element of got that differs from want by
// more than rel·max(1, |want|).
func closeAll[T Float](t *testing.T, name string, got, want *Tensor[T], rel float64) {
	t.Helper()
	if !slices.Equal(got.Shape(), want.Shape()) {
		t.Errorf("%s: shape %v, want %v", name, got.Shape(), want.Shape())
		return
	}
	g, w := got.Data(), want.Data()
	for i := range g {
		if !near(float64(g[i]), float64(w[i]), rel) {
			t.Errorf("%s[%d] = %v fused, %v composed", name, i, g[i], w[i])
			return
		}
	}
}

// The CPU layer norm and its gradient agree with the composed tensor ops,
// to rounding in float64 and to float32's precision, on a non-contiguous
// input whose rows are far from zero.
func TestLayerNormFusedMatchesComposed(t *testing.T) {
	r := newRNG(1)
	x := AddScalar(Transpose(RandUniform[float64](r, -1, 1, 2, 7, 5), 1, 2), 3) // [2, 5, 7]
	gamma, beta := RandUniform[float64](r, 0.5, 2, 7), RandUniform[float64](r, -1, 1, 7)
	dy := RandUniform[float64](r, -1, 1, 2, 5, 7)
	y, mu, rs := LayerNorm(x, gamma, beta, 1e-6)
	yc, muc, rsc := layerNormComposed(x, gamma, beta, 1e-6)
	dx, dg, db := LayerNormBackward(dy, x, gamma, mu, rs)
	dxc, dgc, dbc := layerNormBackwardComposed(dy, x, gamma, mu, rs)
	for _, c := range []struct {
		name      string
		got, want *Tensor[float64]
	}{{"y", y, yc}, {"mean", mu, muc}, {"rstd", rs, rsc}, {"dx", dx, dxc}, {"dgamma", dg, dgc}, {"dbeta", db, dbc}} {
		closeAll(t, c.name, c.got, c.want, 1e-12)
	}
	x32, g32, b32, dy32 := Convert[float32](x), Convert[float32](gamma), Convert[float32](beta), Convert[float32](dy)
	y32, mu32, rs32 := LayerNorm(x32, g32, b32, 1e-6)
	dx32, _, _ := LayerNormBackward(dy32, x32, g32, mu32, rs32)
	closeAll(t, "y float32", Convert[float64](y32), y, 1e-5)
	closeAll(t, "dx float32", Convert[float64](dx32), dx, 1e-4)
}

// GELU is x·Φ(x) with the exact normal CDF, and its gradient Φ(x) + x·φ(x).
func TestGELU(t *testing.T) {
	xs := []float64{-6, -2, -1, -0.5, 0, 1e-3, 0.5, 1, 2, 6}
	x := FromSlice(xs, len(xs))
	dy := Full(2.0, len(xs))
	y, dx := GELU(x).Data(), GELUBackward(dy, x).Data()
	for i, v := range xs {
		cdf := (1 + math.Erf(v/math.Sqrt2)) / 2
		if w := v * cdf; !near(y[i], w, 1e-15) {
			t.Errorf("GELU(%v) = %v, want %v", v, y[i], w)
		}
		if w := 2 * (cdf + v*math.Exp(-v*v/2)/math.Sqrt(2*math.Pi)); !near(dx[i], w, 1e-15) {
			t.Errorf("GELU'(%v)·2 = %v, want %v", v, dx[i], w)
		}
	}
	// GELU(1) = Φ(1) = 0.8413447460685429 (PyTorch: 0.8413447141647339 in float32).
	if g := GELU(Scalar[float32](1)).Item(); g != float32(0.8413447460685429) {
		t.Errorf("GELU(1) = %v in float32", g)
	}
}

// The tiled CPU attention and its gradient agree with the composed tensor
// ops (which hold the whole score matrix): few queries against many keys,
// and several query tiles of attnRows ending in a partial one.
func TestAttentionFusedMatchesComposed(t *testing.T) {
	r := newRNG(2)
	for _, c := range []struct{ b, h, n, m, d int }{{2, 3, 5, 7, 4}, {1, 2, 3, 133, 3}, {2, 1, 2*attnRows + 3, 9, 5}} {
		q := Scale(RandUniform[float64](r, -1, 1, c.b, c.h, c.n, c.d), 3)
		k := Transpose(RandUniform[float64](r, -1, 1, c.b, c.h, c.d, c.m), 2, 3)
		v := RandUniform[float64](r, -1, 1, c.b, c.h, c.m, c.d)
		do := RandUniform[float64](r, -1, 1, c.b, c.h, c.n, c.d)
		scale := 1 / math.Sqrt(float64(c.d))
		o, lse := Attention(q, k, v, scale)
		oc, lsec := attentionComposed(q, k, v, scale)
		dq, dk, dv := AttentionBackward(do, q, k, v, o, lse, scale)
		dqc, dkc, dvc := attentionBackwardComposed(do, q, k, v, o, lse, scale)
		for _, e := range []struct {
			name      string
			got, want *Tensor[float64]
		}{{"o", o, oc}, {"lse", lse, lsec}, {"dq", dq, dqc}, {"dk", dk, dkc}, {"dv", dv, dvc}} {
			closeAll(t, e.name, e.got, e.want, 1e-12)
		}
		o32, lse32 := Attention(Convert[float32](q), Convert[float32](k), Convert[float32](v), float32(scale))
		closeAll(t, "o float32", Convert[float64](o32), o, 1e-5)
		dq32, _, _ := AttentionBackward(Convert[float32](do), Convert[float32](q), Convert[float32](k), Convert[float32](v), o32, lse32, float32(scale))
		closeAll(t, "dq float32", Convert[float64](dq32), dq, 1e-4)
	}
}

// Operands that do not fit panic with a *ShapeError naming the op.
func TestTransformerShapeErrors(t *testing.T) {
	for _, c := range []struct {
		op string
		f  func()
	}{
		{"LayerNorm", func() { LayerNorm(Zeros[float64](2, 3), Zeros[float64](4), Zeros[float64](3), 1e-5) }},
		{"Attention", func() { Attention(Zeros[float64](2, 3, 4), Zeros[float64](2, 5, 3), Zeros[float64](2, 5, 3), 1) }},
		{"Attention", func() { Attention(Zeros[float64](2, 3, 4), Zeros[float64](1, 5, 4), Zeros[float64](1, 5, 4), 1) }},
		{"GELUBackward", func() { GELUBackward(Zeros[float64](2), Zeros[float64](3)) }},
	} {
		func() {
			defer func() {
				var se *ShapeError
				if err, _ := recover().(error); !errors.As(err, &se) || se.Op != "tensor."+c.op {
					t.Errorf("%s: recovered %v", c.op, err)
				}
			}()
			c.f()
		}()
	}
}
