package nn

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/tensor"
)

func names[T tensor.Float](st []Named[T]) []string {
	out := make([]string, len(st))
	for i, n := range st {
		out[i] = n.Name
	}
	return out
}

// A view covers what was created under its path and nothing else: fc1 is
// not a prefix of fc10's tensors, and a mode set below the root stays there.
func TestVarsViews(t *testing.T) {
	vb := NewVars[float64]()
	r := rand.New(rand.NewPCG(1, 1))
	fc1 := NewLinear(vb.Sub("fc1"), r, 2, 3)
	fc10 := NewLinear(vb.Sub("fc10"), r, 3, 1)
	bn := NewBatchNorm2d(vb.Sub("block.0.bn"), 3)
	block := vb.Sub("block")
	if got := names(fc1.State()); !slices.Equal(got, []string{"fc1.weight", "fc1.bias"}) {
		t.Errorf("fc1 state %v", got)
	}
	if got := names(block.State()); !slices.Equal(got, []string{"block.0.bn.weight", "block.0.bn.bias", "block.0.bn.running_mean", "block.0.bn.running_var"}) {
		t.Errorf("block state %v", got)
	}
	if ps := vb.Params(); len(ps) != 6 || ps[0] != fc1.W || ps[3] != fc10.B || ps[5] != bn.Beta {
		t.Errorf("root params %v", ps)
	}
	if len(fc10.Params()) != 2 || fc10.Params()[0] != fc10.W {
		t.Errorf("fc10 params %v", fc10.Params())
	}
	fc1.SetTraining(false)
	if !*bn.training {
		t.Error("SetTraining on fc1 reached block.0.bn")
	}
	block.SetTraining(false)
	if *bn.training {
		t.Error("SetTraining on block missed block.0.bn")
	}
	vb.SetTraining(true)
	if !*bn.training {
		t.Error("SetTraining on the root missed block.0.bn")
	}
	if vb.Sub("a.b").Path() != "a.b" || vb.Sub("a").Sub("b").Sub("c").Path() != "a.b.c" {
		t.Error("Sub paths")
	}
}

func TestVarsMisuse(t *testing.T) {
	vb := NewVars[float32]()
	vb.Sub("x").Param("weight", tensor.Ones[float32](1))
	for _, c := range []struct {
		name string
		f    func()
		want string
	}{
		{"twice", func() { vb.Sub("x").Buffer("weight", tensor.Ones[float32](1)) }, `"x.weight" created twice`},
		{"empty", func() { vb.Sub("") }, `name "" under "" has an empty part`},
		{"empty part", func() { vb.Sub("x").Sub("a..b") }, `name "a..b" under "x" has an empty part`},
	} {
		func() {
			defer func() {
				r := recover()
				if err, _ := r.(error); !errors.Is(err, tensor.ErrArgument) || !strings.Contains(err.Error(), c.want) {
					t.Errorf("%s: panic %v, want a *tensor.ArgumentError %q", c.name, r, c.want)
				}
			}()
			c.f()
		}()
	}
}

// The architectures have the state_dict names of bench/peer/train.py's
// PyTorch definitions.
func TestArchitectureNames(t *testing.T) {
	for _, c := range []struct {
		arch func(Vars[float32], *rand.Rand) (Sequential[float32], int)
		want []string // some of the names, in order
		n    int
	}{
		{LeNet5[float32], []string{"conv1.weight", "conv1.bias", "conv2.weight", "conv2.bias", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias", "main.weight", "main.bias"}, 10},
		{ResNet20[float32], []string{"backbone.0.weight", "backbone.1.weight", "backbone.1.bias", "backbone.1.running_mean", "backbone.1.running_var", "backbone.3.conv1.weight", "backbone.3.bn1.weight", "backbone.11.bn2.running_var", "main.weight"}, 1 + 4 + 9*10 + 2},
		{DenseNet40[float32], []string{"backbone.0.weight", "backbone.1.bn.weight", "backbone.1.conv.weight", "backbone.13.bn.running_var", "backbone.13.conv.weight", "backbone.39.running_var", "main.bias"}, 1 + 36*5 + 2*5 + 4 + 2},
	} {
		st := names(withHead(rand.New(rand.NewPCG(1, 1)), c.arch, 10).State())
		at := 0
		for _, w := range c.want {
			i := slices.Index(st[at:], w)
			if i < 0 {
				t.Errorf("%s…: no %s after %s", st[0], w, st[at])
				break
			}
			at += i
		}
		if len(st) != c.n {
			t.Errorf("%s…: %d tensors, want %d", st[0], len(st), c.n)
		}
	}
}
