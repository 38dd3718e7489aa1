package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
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

// TestDenseBlockMatchesLayers compares the fused block of dense layers
// with the layers applied one by one (concatenating, batch norm and ReLU
// stored): outputs, every gradient and the running statistics; the larger
// block splits over cores.
func TestDenseBlockMatchesLayers(t *testing.T) {
	for _, c := range []struct {
		n, c, g, layers, h, w int
		transition            bool
	}{{2, 3, 2, 2, 6, 5, true}, {2, 3, 2, 2, 6, 5, false}, {5, 8, 4, 3, 10, 9, true}} {
		r := rand.New(rand.NewPCG(9, 9))
		var s Sequential[float64]
		for i := range c.layers {
			s = append(s, NewDenseLayer(NewVars[float64](), r, c.c+i*c.g, c.g))
		}
		if c.transition {
			s = append(s, NewTransition(NewVars[float64](), r, c.c+c.layers*c.g))
		}
		randomParams(r, s)
		fused, layers := fusedAndLayers(t, s, tensor.RandNormal[float64](r, 0, 1, c.n, c.c, c.h, c.w), nil)
		if err := sameRuns(fused, layers, 1e-12); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
}

// bottleneckBlock is layers BottleneckDenseLayers of growth g and
// bottleneck width bn·g on c channels and, with transition, the
// TVTransition after them (c′ → c′/2), with random parameters, and an
// input [n, c, h, w].
func bottleneckBlock[T tensor.Float](seed uint64, n, c, g, bn, layers, h, w int, transition bool) (Sequential[T], *tensor.Tensor[T]) {
	r := rand.New(rand.NewPCG(seed, 10))
	var s Sequential[T]
	for i := range layers {
		s = append(s, NewBottleneckDenseLayer(NewVars[T](), r, c+i*g, g, bn))
	}
	if c += layers * g; transition {
		vb := NewVars[T]()
		s = append(s, &TVTransition[T]{Vars: vb, Norm: NewBatchNorm2d(vb.Sub("norm"), c), Conv: fanInConv(vb.Sub("conv"), r, c, c/2, 1, 1)})
	}
	randomParams(r, s)
	return s, tensor.RandNormal[T](r, 0, 1, n, c-layers*g, h, w)
}

// randomParams sets every parameter of s to normal values of mean 0.5 and
// deviation 1 (γ away from 1 and β from 0, some of either sign).
func randomParams[T tensor.Float](r *rand.Rand, s Sequential[T]) {
	for _, p := range s.Params() {
		tensor.CopyInto(p.Value, tensor.RandNormal[T](r, 0.5, 1, p.Value.Shape()...))
	}
}

// bottleneckCases are the blocks of BottleneckDenseLayers that the fused
// block is compared on: one image, odd sizes, several layers, with and
// without a transition; the last splits over cores.
var bottleneckCases = []struct {
	n, c, g, bn, layers, h, w int
	transition                bool
}{
	{1, 3, 2, 2, 3, 5, 7, true},
	{1, 3, 2, 2, 3, 5, 7, false},
	{2, 4, 3, 2, 2, 3, 3, false},
	{3, 5, 2, 3, 4, 7, 5, true},
	{5, 8, 4, 4, 3, 9, 10, true},
}

// TestBottleneckDenseBlockMatchesLayers compares the fused block of
// BottleneckDenseLayers (and a TVTransition) with the layers applied one by
// one: outputs, every gradient and the running statistics of both batch
// normalisations of each layer, in float64 and float32, to 1e-12 and 2e-5
// of each tensor's largest magnitude.
func TestBottleneckDenseBlockMatchesLayers(t *testing.T) {
	for i, c := range bottleneckCases {
		s, x := bottleneckBlock[float64](uint64(i), c.n, c.c, c.g, c.bn, c.layers, c.h, c.w, c.transition)
		fused, layers := fusedAndLayers(t, s, x, nil)
		if err := sameRuns(fused, layers, 1e-12); err != nil {
			t.Errorf("float64 %+v: %v", c, err)
		}
		s32, x32 := bottleneckBlock[float32](uint64(i), c.n, c.c, c.g, c.bn, c.layers, c.h, c.w, c.transition)
		fused32, layers32 := fusedAndLayers(t, s32, x32, nil)
		if err := sameRuns(fused32, layers32, 2e-5); err != nil {
			t.Errorf("float32 %+v: %v", c, err)
		}
	}
}

// TestBottleneckDenseBlockSensitivity plants bugs in the fused run that
// the comparison must catch: a bottleneck weight off by 1e-6, and a
// bottleneck batch normalisation's running statistics moved with another
// momentum.
func TestBottleneckDenseBlockSensitivity(t *testing.T) {
	c := bottleneckCases[0]
	s, x := bottleneckBlock[float64](0, c.n, c.c, c.g, c.bn, c.layers, c.h, c.w, c.transition)
	last := s[c.layers-1].(*BottleneckDenseLayer[float64])
	for name, plant := range map[string]func() func(){
		"conv1 weight": func() func() {
			w := last.Conv1.W.Value
			w.Set(w.At(0, 1, 0, 0)+1e-6, 0, 1, 0, 0)
			return func() {}
		},
		"norm2 momentum": func() func() {
			last.Norm2.Momentum = 0.2
			return func() { last.Norm2.Momentum = 0.1 }
		},
	} {
		fused, layers := fusedAndLayers(t, s, x, plant)
		if err := sameRuns(fused, layers, 1e-12); err == nil {
			t.Errorf("planted %s: the runs agree", name)
		} else {
			t.Logf("planted %s: %v", name, err)
		}
	}
}

// fusedAndLayers runs the dense layers s (in training) on x twice from the
// same parameters and running statistics: as a Sequential, which must run
// them as one fused dense block, and layer by layer, composed. Each run
// gives its output, the gradients of x and of every parameter for the
// same random output gradient, and the state after the step (parameters
// and running statistics). plant, if not nil, is called just before the
// fused run, and what it returns just after.
func fusedAndLayers[T tensor.Float](t *testing.T, s Sequential[T], x *tensor.Tensor[T], plant func() func()) (fused, layers [][]T) {
	t.Helper()
	initial := snapshot(s.State())
	run := func(fuse bool) (out [][]T) {
		for i, n := range s.State() {
			tensor.CopyInto(n.Value(), tensor.FromSlice(initial[i], n.Value().Shape()...))
		}
		if fuse && plant != nil {
			defer plant()()
		}
		ZeroGrad[T](s)
		xv := autograd.Param(x)
		y := xv
		if fuse {
			y = s.Forward(y)
		} else {
			for _, l := range s {
				y = l.Forward(y)
			}
		}
		if fused := y.Op().String() == "dense_block"; fused != fuse {
			t.Fatalf("run fused %v: output of %s", fuse, y.Op())
		}
		y.BackwardWith(tensor.RandNormal[T](rand.New(rand.NewPCG(1, 1)), 0, 1, y.Shape()...))
		out = append(out, y.Value.Data(), xv.Grad.Data())
		for _, p := range s.Params() {
			out = append(out, p.Grad.Data())
		}
		return append(out, snapshot(s.State())...)
	}
	return run(true), run(false)
}

// sameRuns is nil if got and want agree within tol, relative to the
// largest magnitude of each tensor (at least 1), else the first
// difference.
func sameRuns[T tensor.Float](got, want [][]T, tol float64) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d tensors, want %d", len(got), len(want))
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			return fmt.Errorf("tensor %d: %d values, want %d", i, len(got[i]), len(want[i]))
		}
		scale := 1.0
		for _, v := range want[i] {
			scale = max(scale, math.Abs(float64(v)))
		}
		for j := range want[i] {
			if d := math.Abs(float64(got[i][j] - want[i][j])); d > tol*scale || math.IsNaN(d) {
				return fmt.Errorf("tensor %d [%d]: %v, want %v", i, j, got[i][j], want[i][j])
			}
		}
	}
	return nil
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

// TestDenseBlockEvalMatchesLayers compares, in evaluation mode, the fused
// block (each batch normalisation on its own running statistics, drawn at
// random here) with the layers applied one by one: outputs and every
// gradient, dense layers with a transition and bottleneck layers, float64
// and float32; the running statistics stay put.
func TestDenseBlockEvalMatchesLayers(t *testing.T) {
	eval := func(s Sequential[float64]) {
		r := rand.New(rand.NewPCG(11, 11))
		for _, m := range s.State() {
			if strings.HasSuffix(m.Name, "running_mean") || strings.HasSuffix(m.Name, "running_var") {
				lo := map[bool]float64{true: -1, false: 0.2}[strings.HasSuffix(m.Name, "mean")]
				tensor.CopyInto(m.Value(), tensor.RandUniform[float64](r, lo, lo+1.5, m.Value().Shape()...))
			}
		}
		s.SetTraining(false)
	}
	r := rand.New(rand.NewPCG(9, 9))
	var s Sequential[float64]
	for i := range 3 {
		s = append(s, NewDenseLayer(NewVars[float64](), r, 8+i*4, 4))
	}
	s = append(s, NewTransition(NewVars[float64](), r, 20))
	randomParams(r, s)
	eval(s)
	fused, layers := fusedAndLayers(t, s, tensor.RandNormal[float64](r, 0, 1, 5, 8, 10, 9), nil)
	if err := sameRuns(fused, layers, 1e-12); err != nil {
		t.Errorf("dense layers: %v", err)
	}
	c := bottleneckCases[3]
	sb, x := bottleneckBlock[float64](3, c.n, c.c, c.g, c.bn, c.layers, c.h, c.w, c.transition)
	eval(sb)
	fused, layers = fusedAndLayers(t, sb, x, nil)
	if err := sameRuns(fused, layers, 1e-12); err != nil {
		t.Errorf("bottleneck layers: %v", err)
	}
}
