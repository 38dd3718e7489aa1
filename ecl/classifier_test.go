package ecl

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/nn"
	"github.com/ecl-go/ecl/tensor"
)

// A Classifier's state holds both heads: Save and Load carry the auxiliary
// head with the rest, and Params leaves it out.
func TestClassifierState(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	m := NewClassifier(r, nn.ResNet20[float32], 10, 3)
	x := tensor.RandUniform[float32](r, 0, 1, 2, 3, 8, 8)
	// A training pass moves the running statistics off their initial 0 and 1.
	autograd.NoGrad(func() { m.Forward(autograd.Const(x)) })
	path := filepath.Join(t.TempDir(), "resnet20.ecl")
	if err := nn.Save(path, m); err != nil {
		t.Fatal(err)
	}
	got := NewClassifier(rand.New(rand.NewPCG(2, 2)), nn.ResNet20[float32], 10, 3)
	if err := nn.Load(path, got); err != nil {
		t.Fatal(err)
	}
	st := m.State()
	if n := len(st); n != len(m.Params())+2+2*19 || st[n-1].Name != "aux.bias" || st[3].Name != "backbone.1.running_mean" {
		t.Errorf("%d state tensors for %d parameters: %s, %s", n, len(m.Params()), st[3].Name, st[n-1].Name)
	}
	eval := func(c *Classifier[float32], f func(*autograd.Var[float32]) *autograd.Var[float32]) []float32 {
		c.SetTraining(false)
		defer c.SetTraining(true)
		return f(autograd.Const(x)).Value.Data()
	}
	if a, b := eval(m, m.Forward), eval(got, got.Forward); !slices.Equal(a, b) {
		t.Errorf("main head after loading %v, saved model %v", b, a)
	}
	if a, b := eval(m, m.AuxForward), eval(got, got.AuxForward); !slices.Equal(a, b) {
		t.Errorf("auxiliary head after loading %v, saved model %v", b, a)
	}
}
