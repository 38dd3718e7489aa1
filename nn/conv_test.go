package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

type T64 = *tensor.Tensor[float64]

func check(t *testing.T, name string, step float64, f func(xs []V) V, inputs ...T64) {
	t.Helper()
	rep, err := autograd.Check(name, f, inputs, autograd.CheckOptions{Step: step})
	if err != nil {
		t.Error(err)
	}
	t.Log(rep)
}

func TestConvLayersGradients(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	conv := NewConv2d(NewVars[float64](), r, 2, 3, 3, tensor.ConvOptions{PadH: 1, PadW: 1}, true)
	x := tensor.RandNormal[float64](r, 0, 1, 2, 2, 5, 5)
	check(t, "Conv2d+pools", 0, func(xs []V) V {
		c := &Conv2d[float64]{W: xs[1], B: xs[2], Opt: conv.Opt}
		h := Sequential[float64]{c, ReLU[float64](), MaxPool2d[float64](2, 2)}.Forward(xs[0])
		a := AvgPool2d[float64](2, 1).Forward(c.Forward(xs[0]))
		return autograd.Concat(1, Flatten[float64]().Forward(h), GlobalAvgPool[float64]().Forward(a))
	}, x, conv.W.Value, conv.B.Value)
}

func TestBatchNorm2d(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	x := tensor.RandNormal[float64](r, 1, 2, 4, 3, 2, 2)
	bn := NewBatchNorm2d(NewVars[float64](), 3)
	gamma := tensor.RandUniform[float64](r, 0.5, 1.5, 3)
	beta := tensor.RandNormal[float64](r, 0, 1, 3)
	// A larger step: normalisation amplifies the rounding of the
	// differences at the default 1e-6.
	check(t, "BatchNorm2d", 1e-5, func(xs []V) V {
		b := NewBatchNorm2d(NewVars[float64](), 3)
		b.Gamma, b.Beta = xs[1], xs[2]
		return b.Forward(xs[0])
	}, x, gamma, beta)
	// Training output: every channel has mean β = 0 and variance ≈ 1 (γ = 1).
	y := bn.Forward(autograd.Const(x)).Value
	for c := range 3 {
		ch := tensor.Narrow(y, 1, c, 1).Data()
		m, v := 0.0, 0.0
		for _, e := range ch {
			m += e / float64(len(ch))
		}
		for _, e := range ch {
			v += (e - m) * (e - m) / float64(len(ch))
		}
		if math.Abs(m) > 1e-12 || math.Abs(v-1) > 1e-3 {
			t.Errorf("channel %d: mean %v, variance %v", c, m, v)
		}
	}
	// Running mean moved 10% of the way to the batch mean; evaluation uses it.
	xm := tensor.Narrow(x, 1, 0, 1).Data()
	bm := 0.0
	for _, e := range xm {
		bm += e / float64(len(xm))
	}
	if got := bn.RunMean.Value.Data()[0]; math.Abs(got-0.1*bm) > 1e-12 {
		t.Errorf("running mean %v, want %v", got, 0.1*bm)
	}
	bn.SetTraining(false)
	e := bn.Forward(autograd.Const(x)).Value.At(0, 0, 0, 0)
	want := (x.At(0, 0, 0, 0) - bn.RunMean.Value.Data()[0]) / math.Sqrt(bn.RunVar.Value.Data()[0]+1e-5)
	if math.Abs(e-want) > 1e-12 {
		t.Errorf("evaluation output %v, want %v", e, want)
	}
}

func TestLeNet5(t *testing.T) {
	m := withHead(rand.New(rand.NewPCG(3, 3)), LeNet5[float32], 10)
	x := tensor.RandUniform[float32](rand.New(rand.NewPCG(4, 4)), 0, 1, 2, 3, 28, 28)
	y := Predict[float32](m, x)
	if s := y.Shape(); s[0] != 2 || s[1] != 10 {
		t.Fatalf("output shape %v", s)
	}
	n := 0
	for _, p := range m.Params() {
		n += p.Value.Len()
	}
	// (3·6·25+6) + (6·16·25+16) + (400·120+120) + (120·84+84) + (84·10+10)
	if n != 62006 {
		t.Errorf("%d parameters, want 62006", n)
	}
}
