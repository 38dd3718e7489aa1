package nn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// denseBlock is layers dense layers of growth g on c channels and, with
// transition, the transition after them, with random parameters; inputs is
// x [n, c, h, w] and the parameters' values.
func denseBlock(r *rand.Rand, n, c, g, layers, h, w int, transition bool) (Sequential[float64], []T64) {
	var s Sequential[float64]
	for i := range layers {
		s = append(s, NewDenseLayer(NewVars[float64](), r, c+i*g, g))
	}
	if transition {
		s = append(s, NewTransition(NewVars[float64](), r, c+layers*g))
	}
	inputs := []T64{tensor.RandNormal[float64](r, 0, 1, n, c, h, w)}
	for _, p := range s.Params() {
		inputs = append(inputs, tensor.RandNormal[float64](r, 0.5, 1, p.Value.Shape()...))
	}
	return s, inputs
}

// withParams is s with its parameters replaced by xs[1:], in order.
func withParams(s Sequential[float64], xs []V) Sequential[float64] {
	var out Sequential[float64]
	for i, m := range s {
		bn := bnOver(xs[1+3*i], xs[2+3*i])
		switch m := m.(type) {
		case *DenseLayer[float64]:
			c := *m.Conv
			c.W = xs[3+3*i]
			out = append(out, &DenseLayer[float64]{BN: bn, Conv: &c})
		case *Transition[float64]:
			c := *m.Conv
			c.W = xs[3+3*i]
			out = append(out, &Transition[float64]{BN: bn, Conv: &c})
		}
	}
	return out
}

// TestDenseBlockGradients checks the gradients of dense layers and a
// transition run as one block (autograd.DenseBlock, as a Sequential runs
// them in training on the CPU), odd sizes included.
func TestDenseBlockGradients(t *testing.T) {
	for _, c := range []struct {
		h, w       int
		transition bool
	}{{4, 4, true}, {5, 3, true}, {3, 4, false}} {
		s, inputs := denseBlock(rand.New(rand.NewPCG(8, uint64(c.h))), 2, 3, 2, 2, c.h, c.w, c.transition)
		check(t, "DenseBlock", 1e-4, func(xs []V) V { return withParams(s, xs).Forward(xs[0]) }, inputs...)
	}
}

// TestDenseBlockMatchesLayers compares the fused block with the layers
// applied one by one (concatenating, batch norm and ReLU stored): outputs,
// every gradient and the running statistics; the larger block splits over
// cores.
func TestDenseBlockMatchesLayers(t *testing.T) {
	for _, c := range []struct {
		n, c, g, layers, h, w int
		transition            bool
	}{{2, 3, 2, 2, 6, 5, true}, {2, 3, 2, 2, 6, 5, false}, {5, 8, 4, 3, 10, 9, true}} {
		transition := c.transition
		s, inputs := denseBlock(rand.New(rand.NewPCG(9, 9)), c.n, c.c, c.g, c.layers, c.h, c.w, transition)
		run := func(fused bool) (out [][]float64) {
			vars := make([]V, len(inputs))
			for i, x := range inputs {
				vars[i] = autograd.Param(x)
			}
			m := withParams(s, vars)
			y := vars[0]
			if fused {
				y = m.Forward(y)
			} else {
				for _, l := range m {
					y = l.Forward(y)
				}
			}
			g := tensor.RandNormal[float64](rand.New(rand.NewPCG(1, 1)), 0, 1, y.Shape()...)
			y.BackwardWith(g)
			out = append(out, y.Value.Data())
			for _, v := range vars {
				out = append(out, v.Grad.Data())
			}
			for _, l := range m { // the layers are literals: their batch normalisations hold the state
				var bn *BatchNorm2d[float64]
				switch l := l.(type) {
				case *DenseLayer[float64]:
					bn = l.BN
				case *Transition[float64]:
					bn = l.BN
				}
				for _, st := range bn.State() {
					out = append(out, st.Value().Data())
				}
			}
			return out
		}
		want, got := run(false), run(true)
		if len(want) != len(got) {
			t.Fatalf("transition %v: %d tensors, want %d", transition, len(got), len(want))
		}
		for i := range want {
			if len(want[i]) != len(got[i]) {
				t.Fatalf("transition %v, tensor %d: %d values, want %d", transition, i, len(got[i]), len(want[i]))
			}
			for j := range want[i] {
				if d := math.Abs(got[i][j] - want[i][j]); d > 1e-12*(1+math.Abs(want[i][j])) {
					t.Errorf("transition %v, tensor %d [%d]: %v, want %v", transition, i, j, got[i][j], want[i][j])
					break
				}
			}
		}
	}
}

func TestDenseNet40(t *testing.T) {
	m := withHead(rand.New(rand.NewPCG(3, 3)), DenseNet40[float32], 10)
	// Huang et al. (2017), Table 2: 1.0M. Channels 16 + 12·12 per block; a
	// layer on c channels has 2c + 108c values, a transition 2c + c²:
	// 432 + 110·(984 + 2712 + 4440) + (320 + 160²) + (608 + 304²) + 2·448
	// + 448·10 + 10.
	if n := paramCount[float32](m); n != 1019722 {
		t.Errorf("%d parameters, want 1,019,722", n)
	}
	// 39 batch normalisations (36 layers, 2 transitions, the last) add two
	// buffers each.
	if n := len(m.State()); n != len(m.Params())+2*39 {
		t.Errorf("%d state tensors for %d parameters", n, len(m.Params()))
	}
	m.SetTraining(false)
	x := tensor.RandUniform[float32](rand.New(rand.NewPCG(4, 4)), 0, 1, 2, 3, 28, 28)
	layers, head := blockShapes[*DenseLayer[float32]](m, x)
	var want [][]int
	for block, hw := range []int{28, 14, 7} {
		for i := range 12 {
			want = append(want, []int{2, 16 + 144*block + 12*(i+1), hw, hw})
		}
	}
	if !slices.EqualFunc(layers, want, slices.Equal) || !slices.Equal(head, []int{2, 10}) {
		t.Errorf("layer outputs %v, head %v", layers, head)
	}
}

func TestDenseNet40Modes(t *testing.T) {
	checkModes(t, withHead(rand.New(rand.NewPCG(6, 6)), DenseNet40[float32], 10))
}
