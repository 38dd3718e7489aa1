package train

import (
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/nn"
	"github.com/ecl-go/ecl/tensor"
)

func TestBatchesCoverEveryIndexOnce(t *testing.T) {
	b := batches(rand.New(rand.NewPCG(1, 1)), 10, 4)
	if len(b) != 3 || len(b[2]) != 2 {
		t.Fatalf("batches %v", b)
	}
	var all []int
	for _, x := range b {
		all = append(all, x...)
	}
	sort.Ints(all)
	for i, v := range all {
		if v != i {
			t.Fatalf("indices %v", all)
		}
	}
}

// The ECL stage changes only the main head; the backbone and the auxiliary
// head keep their values.
func TestECLStageTouchesOnlyTheMainHead(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	m := ecl.NewMLPClassifier[float64](r, 2, 6, 3, 3)
	src := Data[float64]{X: tensor.RandNormal[float64](r, 0, 1, 20, 2), Y: make([]int, 20)}
	tgt := Data[float64]{X: tensor.RandNormal[float64](r, 1, 1, 20, 2), Y: make([]int, 20)}
	for i := range src.Y {
		src.Y[i] = i % 3
	}
	snapshot := func(mod nn.Module[float64]) [][]float64 {
		var out [][]float64
		for _, p := range mod.Params() {
			out = append(out, p.Value.Data())
		}
		return out
	}
	back, aux, main := snapshot(m.Backbone), snapshot(m.Aux), snapshot(m.Main)
	rec := Recipe{ECL: Stage{Epochs: 2, LR: 0.01}, Batch: 5, LambdaCE: 1}
	if err := ECL(r, rec, ecl.ClassWise, m, src, tgt, 3); err != nil {
		t.Fatal(err)
	}
	same := func(a, b [][]float64) bool {
		for i := range a {
			for j := range a[i] {
				if a[i][j] != b[i][j] {
					return false
				}
			}
		}
		return true
	}
	if !same(back, snapshot(m.Backbone)) || !same(aux, snapshot(m.Aux)) {
		t.Error("the ECL stage changed the backbone or the auxiliary head")
	}
	if same(main, snapshot(m.Main)) {
		t.Error("the ECL stage left the main head unchanged")
	}
	// DRL too trains the main head alone, and leaves no gradient on the
	// backbone (one accumulated across steps outlived the step's arena and
	// ended `ecl sim -methods all` in a panic).
	src.Scale = make([]float64, src.Len())
	for i := range src.Scale {
		src.Scale[i] = 0.5 + float64(i%3)
	}
	DRL(r, rec, m, src)
	if !same(back, snapshot(m.Backbone)) {
		t.Error("DRL changed the backbone")
	}
	for _, p := range m.Backbone.Params() {
		if p.Grad != nil {
			t.Errorf("DRL left a gradient of shape %v on the backbone", p.Grad.Shape())
		}
	}
}

// In the DRL form, r → 0 (a sample the source never sees) gives the uniform
// prediction, and r = 1 the model's own.
func TestScaledProbsLimits(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	m := ecl.NewMLPClassifier[float64](r, 2, 5, 3, 3)
	x := tensor.RandNormal[float64](r, 0, 1, 4, 2)
	uniform := ScaledProbs(m, Data[float64]{X: x, Y: make([]int, 4), Scale: make([]float64, 4)})
	for _, p := range uniform {
		if math.Abs(p-1.0/3) > 1e-15 {
			t.Fatalf("r = 0 gives %v", uniform)
		}
	}
	own := ScaledProbs(m, Data[float64]{X: x, Y: make([]int, 4), Scale: []float64{1, 1, 1, 1}})
	want := tensor.Softmax(nn.Predict[float64](m, x), 1).Data()
	for i := range want {
		if math.Abs(own[i]-want[i]) > 1e-15 {
			t.Fatalf("r = 1 gives %v, want %v", own, want)
		}
	}
}

// A loss that keeps a tensor of one step for the next fails loudly: the
// step's arena has taken its memory back.
func TestFitStepTensorsDieWithTheStep(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	m := ecl.NewMLPClassifier[float64](r, 2, 4, 3, 3)
	src := Data[float64]{X: tensor.RandNormal[float64](r, 0, 1, 6, 2), Y: []int{0, 1, 2, 0, 1, 2}}
	var kept *autograd.Var[float64]
	defer func() {
		if p, _ := recover().(string); !strings.Contains(p, "after the Arena step") {
			t.Errorf("using a tensor of an ended step: recovered %q", p)
		}
	}()
	fit(r, Stage{Epochs: 2, LR: 0.01}, 6, m.Params(), src, Data[float64]{}, func(s, _ Data[float64]) *autograd.Var[float64] {
		loss := nn.CrossEntropy(m.Forward(autograd.Const(s.X)), s.Y)
		if kept != nil {
			loss = autograd.Add(loss, kept)
		}
		kept = loss.Detach()
		return loss
	})
	t.Error("fit reused a tensor of an ended step without panicking")
}
