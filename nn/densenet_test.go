package nn

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ecl-go/ecl/tensor"
)

func TestDenseLayerTransitionGradients(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	l, tr := NewDenseLayer[float64](r, 3, 2), NewTransition[float64](r, 5)
	x := tensor.RandNormal[float64](r, 0, 1, 2, 3, 4, 4)
	inputs := []T64{x}
	for _, p := range append(l.Params(), tr.Params()...) {
		inputs = append(inputs, tensor.RandNormal[float64](r, 0, 1, p.Value.Shape()...))
	}
	// Batch normalisation in training mode, as built.
	check(t, "DenseLayer+Transition", 1e-5, func(xs []V) V {
		conv, tconv := *l.Conv, *tr[2].(*Conv2d[float64])
		conv.W, tconv.W = xs[3], xs[6]
		dense := &DenseLayer[float64]{BN: bnOver(xs[1], xs[2]), Conv: &conv}
		return Sequential[float64]{dense, bnOver(xs[4], xs[5]), tr[1], &tconv, tr[3]}.Forward(xs[0])
	}, inputs...)
}

func TestDenseNet40(t *testing.T) {
	m := NewDenseNet40[float32](rand.New(rand.NewPCG(3, 3)), 10, 4)
	// Huang et al. (2017), Table 2: 1.0M. Channels 16 + 12·12 per block; a
	// layer on c channels has 2c + 108c values, a transition 2c + c²:
	// 432 + 110·(984 + 2712 + 4440) + (320 + 160²) + (608 + 304²) + 2·448
	// + 448·10 + 10.
	if n := paramCount[float32](m); n != 1019722 {
		t.Errorf("%d parameters, want 1,019,722", n)
	}
	// 39 batch normalisations (36 layers, 2 transitions, the last) add two
	// buffers each; the auxiliary head adds two tensors.
	if n := len(State[float32](m)); n != len(m.Params())+2+2*39 {
		t.Errorf("%d state tensors for %d parameters", n, len(m.Params()))
	}
	m.SetTraining(false)
	x := tensor.RandUniform[float32](rand.New(rand.NewPCG(4, 4)), 0, 1, 2, 3, 28, 28)
	layers, main, aux := blockShapes[*DenseLayer[float32]](m, x)
	var want [][]int
	for block, hw := range []int{28, 14, 7} {
		for i := range 12 {
			want = append(want, []int{2, 16 + 144*block + 12*(i+1), hw, hw})
		}
	}
	if !slices.EqualFunc(layers, want, slices.Equal) || !slices.Equal(main, []int{2, 10}) || !slices.Equal(aux, []int{2, 4}) {
		t.Errorf("layer outputs %v, heads %v and %v", layers, main, aux)
	}
}

func TestDenseNet40Modes(t *testing.T) {
	checkModes(t, NewDenseNet40[float32](rand.New(rand.NewPCG(6, 6)), 10, 10))
}
