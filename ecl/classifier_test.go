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

// A Classifier's state holds both heads: Save and Load, SaveSafetensors and
// LoadSafetensors carry the auxiliary head with the rest, and Params leaves
// it out.
func TestClassifierState(t *testing.T) {
	for _, f := range []struct {
		ext  string
		save func(string, nn.Module[float32]) error
		load func(string, nn.Module[float32]) error
	}{
		{"ecl", nn.Save[float32], nn.Load[float32]},
		{"safetensors", func(p string, m nn.Module[float32]) error { return nn.SaveSafetensors(p, m, nil) }, nn.LoadSafetensors[float32]},
	} {
		for _, arch := range []func(nn.Vars[float32], *rand.Rand) (nn.Sequential[float32], int){nn.LeNet5[float32], nn.ResNet20[float32]} {
			r := rand.New(rand.NewPCG(1, 1))
			m := NewClassifier(r, arch, 10, 3)
			x := tensor.RandUniform[float32](r, 0, 1, 2, 3, 28, 28)
			// A training pass moves the running statistics off their initial 0 and 1.
			autograd.NoGrad(func() { m.Forward(autograd.Const(x)) })
			path := filepath.Join(t.TempDir(), "model."+f.ext)
			if err := f.save(path, m); err != nil {
				t.Fatal(err)
			}
			got := NewClassifier(rand.New(rand.NewPCG(2, 2)), arch, 10, 3)
			if err := f.load(path, got); err != nil {
				t.Fatal(err)
			}
			st := m.State()
			if n := len(st); st[n-1].Name != "aux.bias" || st[n-3].Name != "main.bias" || slices.Contains(m.Params(), m.Aux.Params()[0]) {
				t.Errorf("%s: state ends with %s, %s; auxiliary head among the parameters %v", f.ext, st[n-3].Name, st[n-1].Name, slices.Contains(m.Params(), m.Aux.Params()[0]))
			}
			eval := func(c *Classifier[float32], f func(*autograd.Var[float32]) *autograd.Var[float32]) []float32 {
				c.SetTraining(false)
				defer c.SetTraining(true)
				return f(autograd.Const(x)).Value.Data()
			}
			if a, b := eval(m, m.Forward), eval(got, got.Forward); !slices.Equal(a, b) {
				t.Errorf("%s: main head after loading %v, saved model %v", f.ext, b, a)
			}
			if a, b := eval(m, m.AuxForward), eval(got, got.AuxForward); !slices.Equal(a, b) {
				t.Errorf("%s: auxiliary head after loading %v, saved model %v", f.ext, b, a)
			}
		}
	}
}
