package tensor

import (
	"fmt"
	"math"
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
				msg, _ := recover().(string)
				if !strings.Contains(msg, "tensor.BatchNorm") || !strings.Contains(msg, "[") {
					t.Errorf("panic %q does not name the op and shapes", msg)
				}
			}()
			f()
		}()
	}
}
