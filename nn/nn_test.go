package nn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/optim"
	"github.com/ecl-go/ecl/tensor"
)

type V = *autograd.Var[float64]

func TestCrossEntropyValue(t *testing.T) {
	// Row 0: logits (0, ln 3) → p = (1/4, 3/4), label 1 → −ln 0.75.
	// Row 1: logits (0, 0) → p = 1/2, label 0 → ln 2.
	logits := autograd.Const(tensor.FromSlice([]float64{0, math.Log(3), 0, 0}, 2, 2))
	got := CrossEntropy(logits, []int{1, 0}).Value.Item()
	want := (-math.Log(0.75) + math.Log(2)) / 2
	if math.Abs(got-want) > 1e-15 {
		t.Errorf("cross-entropy %v, want %v", got, want)
	}
}

// The weighted cross-entropy of the two rows above with weights 3 and 1 is
// (3·(−ln 0.75) + ln 2)/4; a zero weight drops a row; bad weights panic.
func TestWeightedCrossEntropyValue(t *testing.T) {
	logits := autograd.Const(tensor.FromSlice([]float64{0, math.Log(3), 0, 0}, 2, 2))
	got := WeightedCrossEntropy(logits, []int{1, 0}, []float64{3, 1}).Value.Item()
	if want := (-3*math.Log(0.75) + math.Log(2)) / 4; math.Abs(got-want) > 1e-15 {
		t.Errorf("weighted cross-entropy %v, want %v", got, want)
	}
	if got := WeightedCrossEntropy(logits, []int{1, 0}, []float64{0, 2}).Value.Item(); math.Abs(got-math.Log(2)) > 1e-15 {
		t.Errorf("row 0 weighted 0: %v, want ln 2", got)
	}
	for _, w := range [][]float64{{1}, {0, 0}, {-1, 2}, {math.NaN(), 1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("weights %v accepted", w)
				}
			}()
			WeightedCrossEntropy(logits, []int{1, 0}, w)
		}()
	}
}

func TestLossGradients(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	labels := []int{2, 0, 1, 2, 2}
	logits := tensor.RandNormal[float64](r, 0, 3, 5, 3)
	for name, f := range map[string]func(xs []V) V{
		"CrossEntropy": func(xs []V) V { return CrossEntropy(xs[0], labels) },
		"NLL":          func(xs []V) V { return NLL(autograd.LogSoftmax(xs[0], 1), labels) },
		"WeightedCrossEntropy": func(xs []V) V {
			return WeightedCrossEntropy(xs[0], labels, []float64{0.5, 2, 0, 1, 3})
		},
	} {
		if _, err := autograd.Check(name, f, []*tensor.Tensor[float64]{logits}, autograd.CheckOptions{}); err != nil {
			t.Error(err)
		}
	}
}

func TestLinearAndMLPGradients(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	mlp := MLP(NewVars[float64](), r, 3, 4, 2)
	x := tensor.RandNormal[float64](r, 0, 1, 6, 3)
	ps := mlp.Params()
	inputs := []*tensor.Tensor[float64]{x}
	for _, p := range ps {
		inputs = append(inputs, p.Value)
	}
	f := func(xs []V) V {
		// Rebuild the model over the checker's variables.
		m := MLP(NewVars[float64](), rand.New(rand.NewPCG(0, 0)), 3, 4, 2)
		m[0].(*Linear[float64]).W, m[0].(*Linear[float64]).B = xs[1], xs[2]
		m[2].(*Linear[float64]).W, m[2].(*Linear[float64]).B = xs[3], xs[4]
		return m.Forward(xs[0])
	}
	if _, err := autograd.Check("MLP", f, inputs, autograd.CheckOptions{}); err != nil {
		t.Error(err)
	}
}

func TestLinearInitBounds(t *testing.T) {
	l := NewLinear(NewVars[float32](), rand.New(rand.NewPCG(1, 1)), 25, 7)
	bound := float32(1 / math.Sqrt(25))
	for _, v := range append(l.W.Value.Data(), l.B.Value.Data()...) {
		if v < -bound || v >= bound {
			t.Fatalf("initial value %v outside ±%v", v, bound)
		}
	}
	if s := l.W.Value.Shape(); s[0] != 7 || s[1] != 25 {
		t.Errorf("weight shape %v, want [7 25]", s)
	}
}

// An MLP trained with Adam separates two Gaussian blobs.
func TestMLPLearns(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	n := 200
	xs := make([]float32, 0, 2*n)
	labels := make([]int, n)
	for i := range n {
		c := i % 2
		labels[i] = c
		xs = append(xs, float32(2*c-1)+float32(r.NormFloat64())*0.7, float32(r.NormFloat64()))
	}
	x := autograd.Const(tensor.FromSlice(xs, n, 2))
	m := MLP(NewVars[float32](), r, 2, 16, 2)
	opt := optim.NewAdam(m.Params(), 0.05, 0)
	var first, last float32
	for step := range 100 {
		ZeroGrad[float32](m)
		loss := CrossEntropy(m.Forward(x), labels)
		loss.Backward()
		opt.Step()
		if step == 0 {
			first = loss.Value.Item()
		}
		last = loss.Value.Item()
	}
	pred := tensor.Ints(tensor.ArgMax(Predict[float32](m, x.Value), 1, false))
	correct := 0
	for i, p := range pred {
		if p == labels[i] {
			correct++
		}
	}
	if last > first/2 || correct < n*85/100 {
		t.Errorf("loss %v → %v, accuracy %d/%d", first, last, correct, n)
	}
}

// CopyState carries parameters and BatchNorm's running statistics, and
// refuses another architecture.
func TestCopyState(t *testing.T) {
	src, dst := withHead(rand.New(rand.NewPCG(1, 1)), ResNet20[float64], 3), withHead(rand.New(rand.NewPCG(2, 2)), ResNet20[float64], 3)
	src.Forward(autograd.Const(tensor.RandNormal[float64](rand.New(rand.NewPCG(3, 3)), 0, 1, 2, 3, 8, 8))) // moves the running statistics
	if err := CopyState[float64](dst, src); err != nil {
		t.Fatal(err)
	}
	s, d := src.State(), dst.State()
	for i := range s {
		if !slices.Equal(s[i].Value().Data(), d[i].Value().Data()) {
			t.Fatalf("%s not copied", d[i].Name)
		}
	}
	if err := CopyState[float64](withHead(rand.New(rand.NewPCG(1, 1)), LeNet5[float64], 3), src); err == nil {
		t.Error("ResNet-20 state copied into LeNet-5")
	}
}
