package tensor

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// The fused CPU batch norm and its gradient agree with the composed tensor
// ops in both precisions, on 4-D and 2-D inputs, one sample, constant
// channels and a non-contiguous input; the statistics are the batch's.
func TestBatchNormFusedMatchesComposed(t *testing.T) {
	batchNormAgrees[float64](t, 1e-12)
	batchNormAgrees[float32](t, 2e-5)
}

func batchNormAgrees[T Float](t *testing.T, tol float64) {
	r := newRNG(7)
	cases := []struct {
		name string
		x    *Tensor[T]
	}{
		{"4-D", RandNormal[T](r, 1, 2, 5, 3, 4, 6)},
		{"2-D", RandNormal[T](r, -1, 3, 9, 4)},
		{"one sample", RandNormal[T](r, 0, 1, 1, 2, 3, 3)},
		{"constant channel", Full[T](0.25, 3, 2, 2, 2)},
		{"transposed view", Transpose(RandNormal[T](r, 0, 1, 4, 6, 3, 5), 2, 3)},
		{"large", RandNormal[T](r, 0.5, 1, 20, 8, 14, 14)},
	}
	for _, c := range cases {
		ch := c.x.Shape()[1]
		gamma, beta := RandNormal[T](r, 1, 0.5, ch), RandNormal[T](r, 0, 0.5, ch)
		g := RandNormal[T](r, 0, 1, c.x.Shape()...)
		eps := T(1e-5)
		y, mu, va := BatchNorm(c.x, gamma, beta, eps)
		yc, muc, vac := batchNormComposed(c.x, gamma, beta, eps)
		dx, dg, db := BatchNormBackward(g, c.x, gamma, mu, va, eps)
		dxc, dgc, dbc := batchNormBackwardComposed(g, c.x, gamma, mu, va, eps)
		for _, p := range []struct {
			what      string
			got, want *Tensor[T]
		}{{"y", y, yc}, {"mean", mu, muc}, {"variance", va, vac}, {"dx", dx, dxc}, {"dgamma", dg, dgc}, {"dbeta", db, dbc}} {
			name := fmt.Sprintf("%s %s %s", DType[T](), c.name, p.what)
			if !expectShape(t, name, p.got, p.want.Shape()...) {
				continue
			}
			got, want := p.got.Data(), p.want.Data()
			for i := range got {
				if !near(float64(got[i]), float64(want[i]), tol) {
					t.Errorf("%s[%d] = %v fused, %v composed", name, i, got[i], want[i])
					break
				}
			}
		}
	}
}

// The one-pass statistics keep float32 values far from zero (mean 300,
// standard deviation 0.5, so Σx² cancels to 1 part in 10⁶) to float32's
// precision: mean and variance as two passes in float64 compute them.
func TestBatchNormStatsFarFromZero(t *testing.T) {
	x := RandNormal[float32](newRNG(11), 300, 0.5, 6, 3, 5, 5)
	_, mu, va := BatchNorm(x, Ones[float32](3), Zeros[float32](3), 1e-5)
	xs := x.Data()
	for ch := range 3 {
		var vals []float64
		for i := range 6 {
			for _, v := range xs[(i*3+ch)*25 : (i*3+ch+1)*25] {
				vals = append(vals, float64(v))
			}
		}
		m := 0.0
		for _, v := range vals {
			m += v
		}
		m /= float64(len(vals))
		q := 0.0
		for _, v := range vals {
			q += (v - m) * (v - m)
		}
		q /= float64(len(vals))
		if got := float64(mu.At(ch)); math.Abs(got-m) > 1e-7*m {
			t.Errorf("channel %d: mean %v, want %v", ch, got, m)
		}
		if got := float64(va.At(ch)); math.Abs(got-q) > 1e-6*q {
			t.Errorf("channel %d: variance %v, want %v", ch, got, q)
		}
	}
}

// Each channel of the output has mean β and standard deviation γ (up to
// ε), whatever the input's scale.
func TestBatchNormNormalises(t *testing.T) {
	r := newRNG(8)
	x := RandNormal[float64](r, 3, 10, 16, 2, 5, 5)
	y, _, _ := BatchNorm(x, FromSlice([]float64{2, 0.5}), FromSlice([]float64{1, -1}), 1e-5)
	for ch, want := range [][2]float64{{1, 2}, {-1, 0.5}} {
		vals := Narrow(y, 1, ch, 1).Data()
		mean, sq := 0.0, 0.0
		for _, v := range vals {
			mean += v
		}
		mean /= float64(len(vals))
		for _, v := range vals {
			sq += (v - mean) * (v - mean)
		}
		if sd := math.Sqrt(sq / float64(len(vals))); math.Abs(mean-want[0]) > 1e-12 || math.Abs(sd-want[1]) > 1e-6 {
			t.Errorf("channel %d: mean %v sd %v, want %v and %v", ch, mean, sd, want[0], want[1])
		}
	}
}

func TestBatchNormShapeErrors(t *testing.T) {
	x := Zeros[float32](2, 3, 4)
	for _, f := range []func(){
		func() { BatchNorm(x, Zeros[float32](2), Zeros[float32](3), 1e-5) },
		func() { BatchNorm(Zeros[float32](5), Zeros[float32](5), Zeros[float32](5), 1e-5) },
		func() {
			BatchNormBackward(Zeros[float32](2, 3, 5), x, Zeros[float32](3), Zeros[float32](3), Zeros[float32](3), 1e-5)
		},
	} {
		func() {
			defer func() {
				err, _ := recover().(error)
				var se *ShapeError
				if !errors.As(err, &se) || !strings.HasPrefix(se.Op, "tensor.BatchNorm") || len(se.Shapes) == 0 {
					t.Errorf("panic %v is not a *ShapeError naming the op and shapes", err)
				}
			}()
			f()
		}()
	}
}

// The fused batch norm, residual sum and ReLU and its gradient agree with
// the composed ops (BatchNorm, Add, Relu; ReluGrad, BatchNormBackward) in
// both precisions, with and without a residual, on sizes that leave a tail
// to the assembly's vectors.
func TestBatchNormReluMatchesComposed(t *testing.T) {
	batchNormReluAgrees[float64](t, 1e-12)
	batchNormReluAgrees[float32](t, 2e-5)
}

func batchNormReluAgrees[T Float](t *testing.T, tol float64) {
	r := newRNG(9)
	for _, shape := range [][]int{{5, 3, 4, 6}, {9, 4}, {3, 2, 7, 7}, {20, 8, 14, 14}} {
		for _, residual := range []bool{false, true} {
			x := RandNormal[T](r, 0.5, 2, shape...)
			ch := shape[1]
			gamma, beta := RandNormal[T](r, 1, 0.5, ch), RandNormal[T](r, 0, 0.5, ch)
			gy := RandNormal[T](r, 0, 1, shape...)
			var res *Tensor[T]
			if residual {
				res = RandNormal[T](r, 0, 1, shape...)
			}
			eps := T(1e-5)
			y, mu, va := BatchNormRelu(x, gamma, beta, res, eps)
			yc, muc, vac := batchNormReluComposed(x, gamma, beta, res, eps)
			dx, dg, db, dr := BatchNormReluBackward(gy, y, x, gamma, mu, va, eps, residual)
			dxc, dgc, dbc, drc := batchNormReluBackwardComposed(gy, y, x, gamma, mu, va, eps, residual)
			pairs := [][2]*Tensor[T]{{y, yc}, {mu, muc}, {va, vac}, {dx, dxc}, {dg, dgc}, {db, dbc}}
			if residual {
				pairs = append(pairs, [2]*Tensor[T]{dr, drc})
			} else if dr != nil {
				t.Errorf("%s %v: dr without a residual", DType[T](), shape)
			}
			for k, p := range pairs {
				name := fmt.Sprintf("%s %v residual=%v %s", DType[T](), shape, residual, []string{"y", "mean", "variance", "dx", "dgamma", "dbeta", "dr"}[k])
				if !expectShape(t, name, p[0], p[1].Shape()...) {
					continue
				}
				got, want := p[0].Data(), p[1].Data()
				for i := range got {
					if !near(float64(got[i]), float64(want[i]), tol) {
						t.Errorf("%s[%d] = %v fused, %v composed", name, i, got[i], want[i])
						break
					}
				}
			}
		}
	}
}

// The batch norm's assembly kernels agree with their Go loops at every
// length: the affine map, residual sum and ReLU and the input gradient
// (with and without the ReLU's mask) and the masked gradient added to a
// buffer to the bit (up to the sign of a zero, NaN passing), the float64
// sums (also of the masked gradient) to rounding.
func TestBatchNormKernels(t *testing.T) {
	checkBatchNormKernels[float32](t)
	checkBatchNormKernels[float64](t)
}

func checkBatchNormKernels[T Float](t *testing.T) {
	r := newRNG(10)
	a, b, c := T(r.NormFloat64()), T(r.NormFloat64()), r.NormFloat64()
	for n := range 41 {
		d, x, y := make([]T, n), make([]T, n), make([]T, n)
		for i := range d {
			x[i], y[i] = T(r.NormFloat64()), T(r.NormFloat64())
		}
		if n > 11 {
			x[9], x[10], x[11] = T(math.NaN()), 0, T(math.Copysign(0, -1))
		}
		affineAddRelu(d, x, y, a, b)
		for i := range d {
			want := max(x[i]*a+b+y[i], 0)
			if d[i] != want && !(d[i] != d[i] && want != want) {
				t.Fatalf("affineAddRelu %s n=%d: [%d] = %v, want %v", DType[T](), n, i, d[i], want)
			}
		}
		for i := range x { // without the NaN, for the sums
			x[i] = T(r.NormFloat64())
		}
		s, ss := bnSums(x, c)
		sg, sgx := bnDots(y, x, c)
		var ws, wss, wsg, wsgx float64
		for i, v := range x {
			dv := float64(v) - c
			ws, wss, wsg, wsgx = ws+dv, wss+dv*dv, wsg+float64(y[i]), wsgx+float64(y[i])*dv
		}
		// The ReLU's output z decides which g pass: z > 0 only (not 0, −0 or NaN).
		z := make([]T, n)
		for i := range z {
			z[i] = T(r.NormFloat64())
		}
		if n > 11 {
			z[9], z[10], z[11] = T(math.NaN()), 0, T(math.Copysign(0, -1))
		}
		dr, da := make([]T, n), make([]T, n)
		for i := range da {
			da[i] = T(r.NormFloat64())
		}
		d0 := slices.Clone(da)
		rsg, rsgx := bnDotsRelu(dr, y, z, x, c)
		nsg, nsgx := bnDotsRelu(nil, y, z, x, c)
		asg, asgx := bnDotsReluAdd(da, y, z, x, c, a)
		var wrsg, wrsgx float64
		for i, v := range x {
			g := T(0)
			if z[i] > 0 {
				g = y[i]
			}
			if dr[i] != g {
				t.Fatalf("bnDotsRelu %s n=%d: dr[%d] = %v, want %v", DType[T](), n, i, dr[i], g)
			}
			if want := d0[i] + a*g; da[i] != want {
				t.Fatalf("bnDotsReluAdd %s n=%d: d[%d] = %v, want %v", DType[T](), n, i, da[i], want)
			}
			wrsg, wrsgx = wrsg+float64(g), wrsgx+float64(g)*(float64(v)-c)
		}
		for _, p := range [][3]any{{"Σ(x−c)", s, ws}, {"Σ(x−c)²", ss, wss}, {"Σg", sg, wsg}, {"Σg·(x−c)", sgx, wsgx},
			{"Σ relu g", rsg, wrsg}, {"Σ relu g·(x−c)", rsgx, wrsgx}, {"Σ relu g without dr", nsg, wrsg}, {"Σ relu g·(x−c) without dr", nsgx, wrsgx},
			{"Σ relu g adding", asg, wrsg}, {"Σ relu g·(x−c) adding", asgx, wrsgx}} {
			if got, want := p[1].(float64), p[2].(float64); !near(got, want, 1e-13) {
				t.Errorf("%s %s n=%d: %v, want %v", p[0], DType[T](), n, got, want)
			}
		}
		// The input gradient, with and without the mask, to the bit.
		for _, mask := range [][]T{nil, z} {
			bnInputGrad(d, y, mask, x, a, b, T(c))
			for i := range d {
				g := y[i]
				if mask != nil && !(mask[i] > 0) {
					g = 0
				}
				if want := a*g + b*x[i] + T(c); d[i] != want {
					t.Fatalf("bnInputGrad %s n=%d masked=%v: [%d] = %v, want %v", DType[T](), n, mask != nil, i, d[i], want)
				}
			}
		}
	}
}
