package ecl_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/nn"
	"github.com/ecl-go/ecl/optim"
	"github.com/ecl-go/ecl/tensor"
)

// blobs draws n points around three centres on the unit circle, shifted by
// shift along the first axis, with their class labels.
func blobs(rng *rand.Rand, n int, shift float64) (*tensor.Tensor[float64], []int) {
	x, y := make([]float64, 2*n), make([]int, n)
	for i := range n {
		y[i] = i % 3
		a := 2 * math.Pi * float64(y[i]) / 3
		x[2*i] = math.Cos(a) + 0.35*rng.NormFloat64() + shift
		x[2*i+1] = math.Sin(a) + 0.35*rng.NormFloat64()
	}
	return tensor.FromSlice(x, n, 2), y
}

// The ECL as one more term of your own training loop. A classifier with
// an auxiliary head: the main head learns from labelled source data by
// cross-entropy, the auxiliary head estimates P(Y|X) from the same
// features, and the class-wise ECL between the source and the unlabelled,
// shifted target ties the main head's confidence to those estimates on
// both domains. Every step runs inside a tensor.Arena, so that a step
// reuses the previous step's buffers instead of allocating new ones.
func Example_trainingLoop() {
	rng := rand.New(rand.NewPCG(1, 2))
	const k = 3
	xs, ys := blobs(rng, 300, 0)  // labelled source
	xt, yt := blobs(rng, 300, .5) // target: its labels only to measure
	m := ecl.NewMLPClassifier[float64](rng, 2, 16, k, k)
	mb, err := ecl.NewMiniBatch(ecl.Config{Paradigm: ecl.ClassWise, Classes: k})
	if err != nil {
		panic(err)
	}
	// Params holds the backbone and the main head; the auxiliary head's
	// parameters are apart.
	params := append(m.Params(), m.Aux.Params()...)
	opt := optim.NewAdam(params, 0.02, 0)
	var arena tensor.Arena[float64]
	var first, last float64
	for step := range 150 {
		for _, p := range params {
			p.ZeroGrad() // gradients of the previous step are gone with it
		}
		arena.Do(func() {
			src, tgt := autograd.Const(xs), autograd.Const(xt)
			ls := m.Forward(src)
			// The auxiliary head learns P(Y|X) on the source; the ECL
			// reads its estimates as constants.
			auxLogits := m.AuxForward(src)
			var as, at *autograd.Var[float64]
			autograd.NoGrad(func() {
				as = autograd.Const(autograd.Softmax(auxLogits, 1).Value)
				at = autograd.Const(autograd.Softmax(m.AuxForward(tgt), 1).Value)
			})
			term := ecl.MiniBatchLoss(mb, autograd.Softmax(ls, 1), autograd.Softmax(m.Forward(tgt), 1), as, at)
			ce := nn.CrossEntropy(ls, ys)
			loss := autograd.Add(autograd.Add(ce, nn.CrossEntropy(auxLogits, ys)), autograd.Scale(term, 0.01))
			loss.Backward()
			if step == 0 {
				first = ce.Value.Item()
			}
			last = ce.Value.Item()
		})
		opt.Step()
	}
	acc := func(x *tensor.Tensor[float64], y []int) float64 {
		p := nn.Predict[float64](m, x).Data()
		right := 0
		for i := range y {
			if metrics.Argmax(p[i*k:(i+1)*k]) == y[i] {
				right++
			}
		}
		return float64(right) / float64(len(y))
	}
	fmt.Printf("source cross-entropy fell below a third of its start: %v\n", last < first/3)
	fmt.Printf("accuracy above 80%% on source and target: %v\n", acc(xs, ys) > 0.8 && acc(xt, yt) > 0.8)
	// Output:
	// source cross-entropy fell below a third of its start: true
	// accuracy above 80% on source and target: true
}
