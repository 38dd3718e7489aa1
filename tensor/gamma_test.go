package tensor

import (
	"math"
	"testing"
)

func TestDigammaAndLgamma(t *testing.T) {
	const euler = 0.57721566490153286
	for _, c := range []struct{ x, want float64 }{
		{1, -euler},
		{0.5, -euler - 2*math.Ln2},
		{2, 1 - euler},
		{10, 2.2517525890667211}, // H_9 − γ
		{0.01, -100.56088545786867},
	} {
		if got := Digamma(Scalar(c.x)).Item(); math.Abs(got-c.want) > 1e-12*max(1, math.Abs(c.want)) {
			t.Errorf("ψ(%v) = %.17g, want %.17g", c.x, got, c.want)
		}
	}
	// ψ is the derivative of ln Γ: compare with central differences.
	for _, x := range []float64{0.3, 1.7, 6, 42} {
		h := 1e-5
		num := (Lgamma(Scalar(x+h)).Item() - Lgamma(Scalar(x-h)).Item()) / (2 * h)
		if got := Digamma(Scalar(x)).Item(); math.Abs(got-num) > 1e-8 {
			t.Errorf("ψ(%v) = %v, d lnΓ/dx = %v", x, got, num)
		}
	}
	if v := Lgamma(Scalar(5.0)).Item(); math.Abs(v-math.Log(24)) > 1e-14 {
		t.Errorf("lnΓ(5) = %v", v)
	}
}
