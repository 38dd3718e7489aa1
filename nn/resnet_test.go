package nn

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// bnOver is a batch normalisation with the given γ and β.
func bnOver(gamma, beta V) *BatchNorm2d[float64] {
	b := NewBatchNorm2d(NewVars[float64](), gamma.Value.Len())
	b.Gamma, b.Beta = gamma, beta
	return b
}

func TestBasicBlockGradients(t *testing.T) {
	for _, c := range []struct{ in, out, stride int }{
		{2, 2, 1}, // identity shortcut
		{2, 5, 2}, // subsampled, padded with 1 and 2 zero channels
	} {
		r := rand.New(rand.NewPCG(7, uint64(c.out)))
		b := NewBasicBlock(NewVars[float64](), r, c.in, c.out, c.stride)
		x := tensor.RandNormal[float64](r, 0, 1, 2, c.in, 5, 5)
		inputs := []T64{x}
		for _, p := range b.Params() {
			inputs = append(inputs, tensor.RandNormal[float64](r, 0, 1, p.Value.Shape()...))
		}
		// Batch normalisation in training mode, as in NewBasicBlock.
		check(t, fmt.Sprintf("BasicBlock %+v", c), 1e-5, func(xs []V) V {
			c1, c2 := *b.Conv1, *b.Conv2
			c1.W, c2.W = xs[1], xs[4]
			blk := &BasicBlock[float64]{Conv1: &c1, BN1: bnOver(xs[2], xs[3]), Conv2: &c2, BN2: bnOver(xs[5], xs[6])}
			return blk.Forward(xs[0])
		}, inputs...)
	}
}

// The option-A shortcut keeps x in the middle channels, subsampled, and pads
// zeros around it.
func TestBasicBlockShortcut(t *testing.T) {
	b := NewBasicBlock(NewVars[float64](), rand.New(rand.NewPCG(1, 1)), 2, 6, 2)
	x := tensor.RandNormal[float64](rand.New(rand.NewPCG(2, 2)), 0, 1, 1, 2, 4, 4)
	s := b.shortcut(autograd.Const(x)).Value
	if got := s.Shape(); !slices.Equal(got, []int{1, 6, 2, 2}) {
		t.Fatalf("shortcut shape %v", got)
	}
	for c := range 6 {
		for i := range 2 {
			for j := range 2 {
				want := 0.0
				if c == 2 || c == 3 {
					want = x.At(0, c-2, 2*i, 2*j)
				}
				if got := s.At(0, c, i, j); got != want {
					t.Errorf("shortcut[0 %d %d %d] = %v, want %v", c, i, j, got, want)
				}
			}
		}
	}
}

// paramCount is the number of trainable values of m.
func paramCount[T tensor.Float](m Module[T]) int {
	n := 0
	for _, p := range m.Params() {
		n += p.Value.Len()
	}
	return n
}

// withHead is the feature extractor made by arch with a linear head of
// the given classes.
func withHead[T tensor.Float](rng *rand.Rand, arch func(Vars[T], *rand.Rand) (Sequential[T], int), classes int) Sequential[T] {
	vb := NewVars[T]()
	b, features := arch(vb, rng)
	return Sequential[T]{b, NewLinear(vb.Sub("main"), rng, features, classes)}
}

// blockShapes runs m, a withHead model, on x without a graph and returns
// the output shape of every layer of type L, then the head's.
func blockShapes[L any](m Sequential[float32], x *tensor.Tensor[float32]) (blocks [][]int, head []int) {
	autograd.NoGrad(func() {
		h := autograd.Const(x)
		for _, l := range m[0].(Sequential[float32]) {
			h = l.Forward(h)
			if _, ok := l.(L); ok {
				blocks = append(blocks, h.Shape())
			}
		}
		head = m[1].Forward(h).Shape()
	})
	return blocks, head
}

func TestResNet20(t *testing.T) {
	m := withHead(rand.New(rand.NewPCG(3, 3)), ResNet20[float32], 10)
	// He et al. (2016), Table 6: 0.27M. Option A: 3·16·9 + 16·2 (stem)
	// + 3·(2·16·16·9 + 2·16·2) + (16·32·9 + 32·32·9 + 2·32·2) + 2·(2·32·32·9 + 2·32·2)
	// + (32·64·9 + 64·64·9 + 2·64·2) + 2·(2·64·64·9 + 2·64·2) + 64·10 + 10.
	if n := paramCount[float32](m); n != 269722 {
		t.Errorf("%d parameters, want 269,722", n)
	}
	m.SetTraining(false)
	x := tensor.RandUniform[float32](rand.New(rand.NewPCG(4, 4)), 0, 1, 2, 3, 28, 28)
	blocks, head := blockShapes[*BasicBlock[float32]](m, x)
	var want [][]int
	for _, s := range [][]int{{2, 16, 28, 28}, {2, 32, 14, 14}, {2, 64, 7, 7}} {
		want = append(want, s, s, s)
	}
	if !slices.EqualFunc(blocks, want, slices.Equal) || !slices.Equal(head, []int{2, 10}) {
		t.Errorf("block outputs %v, head %v", blocks, head)
	}
}

// checkModes shows that SetTraining reaches every batch normalisation of m:
// in evaluation an image's output does not depend on the rest of the batch
// and the running statistics stay put; in training both change.
func checkModes(t *testing.T, m Module[float32]) {
	t.Helper()
	r := rand.New(rand.NewPCG(5, 5))
	a := tensor.RandUniform[float32](r, 0, 1, 2, 3, 8, 8)
	b := tensor.Concat(0, tensor.Narrow(a, 0, 0, 1), tensor.RandUniform[float32](r, 0, 1, 1, 3, 8, 8))
	row0 := func(x *tensor.Tensor[float32]) []float32 {
		var out []float32
		autograd.NoGrad(func() { out = tensor.Narrow(m.Forward(autograd.Const(x)).Value, 0, 0, 1).Data() })
		return out
	}
	for _, training := range []bool{false, true} {
		m.SetTraining(training)
		before := snapshot(m.State())
		ya, yb := row0(a), row0(b)
		moved := !slices.EqualFunc(before, snapshot(m.State()), slices.Equal)
		if slices.Equal(ya, yb) == training || moved != training {
			t.Errorf("training %v: output independent of the batch %v, running statistics moved %v", training, slices.Equal(ya, yb), moved)
		}
	}
}

// snapshot copies the values of a state.
func snapshot[T tensor.Float](st []Named[T]) [][]T {
	out := make([][]T, len(st))
	for i, n := range st {
		out[i] = n.Value().Data()
	}
	return out
}

func TestResNet20Modes(t *testing.T) {
	checkModes(t, withHead(rand.New(rand.NewPCG(6, 6)), ResNet20[float32], 10))
}
