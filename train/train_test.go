package train

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/datasets"
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

// shiftedPair is 20 labelled 2-D source points and 20 target points
// shifted by 1.
func shiftedPair(r *rand.Rand) (src, tgt datasets.Split[float64]) {
	src = datasets.Split[float64]{X: tensor.RandNormal[float64](r, 0, 1, 20, 2), Y: make([]int, 20)}
	tgt = datasets.Split[float64]{X: tensor.RandNormal[float64](r, 1, 1, 20, 2), Y: make([]int, 20)}
	for i := range src.Y {
		src.Y[i] = i % 3
	}
	return src, tgt
}

// The ECL stage changes only the main head; the backbone and the auxiliary
// head keep their values. With WholeNetwork it trains the backbone too.
func TestECLStageTouchesOnlyTheMainHead(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	m := ecl.NewMLPClassifier[float64](r, 2, 6, 3, 3)
	src, tgt := shiftedPair(r)
	snapshot := func(mod nn.Module[float64]) [][]float64 {
		var out [][]float64
		for _, p := range mod.Params() {
			out = append(out, p.Value.Data())
		}
		return out
	}
	back, aux, main := snapshot(m.Backbone), snapshot(m.Aux), snapshot(m.Main)
	rec := Recipe{ECL: Stage{Epochs: 2, LR: 0.01}, Batch: 5, LambdaCE: 1}
	if err := ECL(r, rec, ecl.ClassWise, m, src, tgt, 3, nil); err != nil {
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
	ratio := make([]float64, src.Len())
	for i := range ratio {
		ratio[i] = 0.5 + float64(i%3)
	}
	if err := DRL(r, rec, m, src, ratio); err != nil {
		t.Fatal(err)
	}
	if !same(back, snapshot(m.Backbone)) {
		t.Error("DRL changed the backbone")
	}
	for _, p := range m.Backbone.Params() {
		if p.Grad != nil {
			t.Errorf("DRL left a gradient of shape %v on the backbone", p.Grad.Shape())
		}
	}
	rec.WholeNetwork = true
	back, main = snapshot(m.Backbone), snapshot(m.Main)
	if err := ECL(r, rec, ecl.ClassWise, m, src, tgt, 3, nil); err != nil {
		t.Fatal(err)
	}
	if same(back, snapshot(m.Backbone)) || same(main, snapshot(m.Main)) || !same(aux, snapshot(m.Aux)) {
		t.Error("with WholeNetwork, the ECL stage did not train the backbone and main head, or changed the auxiliary head")
	}
}

// In the DRL form, r → 0 (a sample the source never sees) gives the uniform
// prediction, and r = 1 the model's own.
func TestScaledProbsLimits(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	m := ecl.NewMLPClassifier[float64](r, 2, 5, 3, 3)
	x := tensor.RandNormal[float64](r, 0, 1, 4, 2)
	uniform := ScaledProbs(m, x, make([]float64, 4))
	for _, p := range uniform {
		if math.Abs(p-1.0/3) > 1e-15 {
			t.Fatalf("r = 0 gives %v", uniform)
		}
	}
	own := ScaledProbs(m, x, []float64{1, 1, 1, 1})
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
	src := datasets.Split[float64]{X: tensor.RandNormal[float64](r, 0, 1, 6, 2), Y: []int{0, 1, 2, 0, 1, 2}}
	var kept *autograd.Var[float64]
	defer func() {
		if err, _ := recover().(error); !errors.Is(err, tensor.ErrArgument) || !strings.Contains(err.Error(), "after the Arena step") {
			t.Errorf("using a tensor of an ended step: recovered %v", err)
		}
	}()
	_ = fit(r, "test", Stage{Epochs: 2, LR: 0.01}, 6, m.Params(), src.Len(), 0, backprop(func(si, _ []int) *autograd.Var[float64] {
		s := src.Rows(si)
		loss := nn.CrossEntropy(m.Forward(autograd.Const(s.X)), s.Y)
		if kept != nil {
			loss = autograd.Add(loss, kept)
		}
		kept = loss.Detach()
		return loss
	}))
	t.Error("fit reused a tensor of an ended step without panicking")
}

// memorised is a fixture where the main head has memorised its training
// split: 3 classes, labels from a linear rule with 40% of them replaced
// at random, 40 non-negative features (|N(0, 1)|, as after a ReLU; the
// identity backbone) and 60 training samples.
// It returns the trained model and three fresh splits of n samples.
func memorised(t *testing.T, n int) (m *ecl.Classifier[float64], trainSet datasets.Split[float64], fresh [3]datasets.Split[float64]) {
	r := rand.New(rand.NewPCG(7, 7))
	const d, k = 40, 3
	w := tensor.RandNormal[float64](r, 0, 1, d, k).Data()

	draw := func(n int) datasets.Split[float64] {
		xd := tensor.RandNormal[float64](r, 0, 1, n, d).Data()
		for i, v := range xd {
			xd[i] = math.Abs(v)
		}
		x := tensor.FromSlice(xd, n, d)
		y := make([]int, n)
		for i := range y {
			best := math.Inf(-1)
			for c := range k {
				var s float64
				for j := range d {
					s += xd[i*d+j] * w[j*k+c]
				}
				if s > best {
					best, y[i] = s, c
				}
			}
			if r.Float64() < 0.4 {
				y[i] = r.IntN(k)
			}
		}
		return datasets.Split[float64]{X: x, Y: y}
	}
	vb := nn.NewVars[float64]()
	m = &ecl.Classifier[float64]{Backbone: nn.Sequential[float64]{}, Main: nn.NewLinear(vb.Sub("main"), r, d, k), Aux: nn.NewLinear(vb.Sub("aux"), r, d, 2)}
	trainSet = draw(60)
	if err := Base(r, Recipe{Base: Stage{Epochs: 400, LR: 0.05}, Batch: 60}, m, trainSet); err != nil {
		t.Fatal(err)
	}
	for i := range fresh {
		fresh[i] = draw(n)
	}
	return m, trainSet, fresh
}

// meanCorrect is the main head's accuracy on d.
func meanCorrect(m *ecl.Classifier[float64], d datasets.Split[float64]) float64 {
	var s float64
	for _, c := range Correct(m, d) {
		s += float64(c)
	}
	return s / float64(d.Len())
}

// A top-label auxiliary head trained where the main head has memorised its
// data says P(correct) ≈ 1 on fresh data; trained on held-out data (with
// the paper's Soft-ECE term), its mean P(correct) on other fresh data is
// near the accuracy there.
func TestHeldOutAuxHeadEstimatesAccuracy(t *testing.T) {
	m, trainSet, fresh := memorised(t, 600)
	heldOut, eval := fresh[0], fresh[1]
	if a := meanCorrect(m, trainSet); a != 1 {
		t.Fatalf("fixture: training accuracy %v, want 1 (memorised)", a)
	}
	acc := meanCorrect(m, eval)
	if acc > 0.8 || acc < 0.4 {
		t.Fatalf("fixture: accuracy %v on fresh data, want well below 1", acc)
	}
	r := Recipe{Aux: Stage{Epochs: 200, LR: 0.02}, Batch: 100, AuxSoftECE: true}
	aux := func(src datasets.Split[float64]) float64 {
		m.Aux = nn.NewLinear(nn.NewVars[float64]().Sub("aux"), rand.New(rand.NewPCG(8, 8)), 40, 2)
		if err := Aux(rand.New(rand.NewPCG(9, 9)), r, ecl.TopLabel, m, src); err != nil {
			t.Fatal(err)
		}
		est, actual := AuxCheck(ecl.TopLabel, m, eval, nil, 3)
		if actual[0] != acc {
			t.Errorf("AuxCheck's accuracy %v, want %v", actual[0], acc)
		}
		return est[0]
	}
	if p := aux(trainSet); p < 0.9 {
		t.Errorf("head on the memorised split: mean P(correct) %v, want near 1", p)
	}
	if p := aux(heldOut); math.Abs(p-acc) > 0.08 {
		t.Errorf("held-out head: mean P(correct) %v, accuracy %v", p, acc)
	}
}

// For the class paradigms AuxCheck sets the mean P(Y = k) beside the
// frequency of each label.
func TestAuxCheckClassFrequencies(t *testing.T) {
	m, _, fresh := memorised(t, 50)
	m.Aux = nn.NewLinear(nn.NewVars[float64]().Sub("aux"), rand.New(rand.NewPCG(1, 2)), 40, 3)
	est, act := AuxCheck(ecl.ClassWise, m, fresh[0], nil, 3)
	var se, sa float64
	count := make([]float64, 3)
	for _, y := range fresh[0].Y {
		count[y]++
	}
	for k := range 3 {
		se, sa = se+est[k], sa+act[k]
		if math.Abs(act[k]-count[k]/50) > 1e-12 || est[k] <= 0 {
			t.Errorf("class %d: estimate %v, frequency %v, want %v", k, est[k], act[k], count[k]/50)
		}
	}
	if math.Abs(se-1) > 1e-9 || math.Abs(sa-1) > 1e-9 {
		t.Errorf("estimates sum to %v and frequencies to %v, want 1", se, sa)
	}
}

// Tracing the ECL stage leaves its training unchanged bit for bit (the
// traced step assembles the sum's gradient at the logits from the terms'
// own backward passes), whatever the weights, and the gradient ratio it
// reports is that of the weighted terms: doubling λ_ce halves it.
func TestTraceRecordsWithoutChangingTraining(t *testing.T) {
	run := func(lambdaCE float64, adaptive, trace bool) ([]float64, []EpochTrace) {
		r := rand.New(rand.NewPCG(3, 3))
		m := ecl.NewMLPClassifier[float64](r, 2, 6, 3, 2)
		src, tgt := shiftedPair(r)
		rec := Recipe{ECL: Stage{Epochs: 3, LR: 0.01}, Batch: 20, LambdaCE: lambdaCE, Adaptive: adaptive, Gamma: 1}
		var es []EpochTrace
		if trace {
			rec.Trace = func(e EpochTrace) { es = append(es, e) }
		}
		if err := ECL(r, rec, ecl.TopLabel, m, src, tgt, 3, nil); err != nil {
			t.Fatal(err)
		}
		var w []float64
		for _, p := range m.Main.Params() {
			w = append(w, p.Value.Data()...)
		}
		return w, es
	}
	for _, c := range []struct {
		lambdaCE float64
		adaptive bool
	}{{1, false}, {0.5, false}, {10, false}, {1, true}} {
		plain, _ := run(c.lambdaCE, c.adaptive, false)
		traced, _ := run(c.lambdaCE, c.adaptive, true)
		for i := range plain {
			if plain[i] != traced[i] {
				t.Fatalf("λ_ce %v, adaptive %v: tracing changed weight %d: %v vs %v", c.lambdaCE, c.adaptive, i, traced[i], plain[i])
			}
		}
	}
	_, es := run(1, false, true)
	if len(es) != 3 || es[0].Epoch != 1 || es[0].Lambda != 1 || !(es[0].GradRatio > 0) || !(es[0].CE > 0) || !(es[0].Term > 0) {
		t.Fatalf("trace %+v", es)
	}
	_, es2 := run(2, false, true)
	if got := es[0].GradRatio / es2[0].GradRatio; math.Abs(got-2) > 1e-9 {
		t.Errorf("gradient ratio at λ_ce = 1 over λ_ce = 2: %v, want 2", got)
	}
}

// A traced FineTune with a Term trains as an untraced one, also with a term
// that reaches only one domain's logits (here the target's, as the oracle
// does) or only the source's.
func TestTraceOfOneDomainTerm(t *testing.T) {
	for _, target := range []bool{true, false} {
		run := func(trace bool) []float64 {
			r := rand.New(rand.NewPCG(8, 8))
			m := ecl.NewMLPClassifier[float64](r, 2, 6, 3, 3)
			src, tgt := shiftedPair(r)
			rec := Recipe{ECL: Stage{Epochs: 2, LR: 0.01}, Batch: 10}
			var epochs int
			if trace {
				rec.Trace = func(e EpochTrace) {
					if !(e.GradRatio > 0) {
						t.Errorf("target term %v: epoch %d gradient ratio %v", target, e.Epoch, e.GradRatio)
					}
					epochs++
				}
			}
			term := func(ps, pt *autograd.Var[float64], _, _ datasets.Split[float64]) *autograd.Var[float64] {
				p := ps
				if target {
					p = pt
				}
				return autograd.MeanAll(autograd.Mul(p, p))
			}
			if err := FineTune(r, rec, m, src, tgt, Objective[float64]{Term: term}); err != nil {
				t.Fatal(err)
			}
			if trace && epochs != 2 {
				t.Errorf("target term %v: %d epochs traced, want 2", target, epochs)
			}
			var w []float64
			for _, p := range m.Main.Params() {
				w = append(w, p.Value.Data()...)
			}
			return w
		}
		plain, traced := run(false), run(true)
		for i := range plain {
			if plain[i] != traced[i] {
				t.Fatalf("target term %v: tracing changed weight %d: %v vs %v", target, i, traced[i], plain[i])
			}
		}
	}
}

// TestTraceWithoutCrossEntropyGradient: with λ_ce = 0 the weighted
// cross-entropy has no gradient, so no batch has a gradient ratio: the
// trace says 0, a finite value that a result file can hold (it was +Inf,
// and a saturated softmax made it NaN: "json: unsupported value: NaN"
// when ecl sim -ecl-lr 1e6 wrote its run).
func TestTraceWithoutCrossEntropyGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	m := ecl.NewMLPClassifier[float64](r, 2, 6, 3, 2)
	src, tgt := shiftedPair(r)
	var es []EpochTrace
	rec := Recipe{ECL: Stage{Epochs: 2, LR: 0.01}, Batch: 10, LambdaCE: 0, Trace: func(e EpochTrace) { es = append(es, e) }}
	if err := ECL(r, rec, ecl.TopLabel, m, src, tgt, 3, nil); err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 {
		t.Fatalf("%d epochs traced, want 2", len(es))
	}
	for _, e := range es {
		if e.GradRatio != 0 || !(e.CE > 0) || !(e.Term > 0) {
			t.Errorf("epoch %d: %+v, want gradient ratio 0 and positive CE and term", e.Epoch, e)
		}
	}
}

// TestDivergenceStopsTheStage: a learning rate that sends the loss to
// infinity ends the stage with a DivergedError naming it and the epoch.
func TestDivergenceStopsTheStage(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	m := ecl.NewMLPClassifier[float64](r, 2, 8, 3, 3)
	src := datasets.Split[float64]{X: tensor.RandNormal[float64](r, 0, 1, 30, 2), Y: make([]int, 30)}
	for i := range src.Y {
		src.Y[i] = i % 3
	}
	err := Base(r, Recipe{Base: Stage{Epochs: 5, LR: 1e300}, Batch: 10}, m, src)
	var d *DivergedError
	if !errors.As(err, &d) || d.Stage != "base" || d.Epoch < 1 || d.Epoch > 5 {
		t.Fatalf("error %v, want a DivergedError of the base stage", err)
	}
	if !strings.Contains(err.Error(), "base stage diverged") {
		t.Errorf("message %q", err)
	}
	if err := Base(r, Recipe{Base: Stage{Epochs: 2, LR: 1e-3}, Batch: 10}, ecl.NewMLPClassifier[float64](r, 2, 8, 3, 3), src); err != nil {
		t.Errorf("a sane rate: %v", err)
	}
}

// A split whose inputs and labels disagree, or DRL ratios of another
// length, end the stage before any training with an error naming it.
func TestStagesCheckTheirData(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	m := ecl.NewMLPClassifier[float64](r, 2, 4, 3, 3)
	good, _ := shiftedPair(r)
	bad := datasets.Split[float64]{Name: "short", X: tensor.Zeros[float64](5, 2), Y: make([]int, 4)}
	rec := Recipe{Base: Stage{Epochs: 1, LR: 1e-3}, Aux: Stage{Epochs: 1, LR: 1e-3}, ECL: Stage{Epochs: 1, LR: 1e-3}, Batch: 5, LambdaCE: 1}
	for _, c := range []struct {
		stage string
		run   func() error
	}{
		{"base", func() error { return Base(r, rec, m, bad) }},
		{"auxiliary head", func() error { return Aux(r, rec, ecl.ClassWise, m, bad) }},
		{"ECL-classwise", func() error { return ECL(r, rec, ecl.ClassWise, m, good, bad, 3, nil) }},
		{"CE-finetune", func() error { return Control(r, rec, m, bad, good) }},
		{"fine-tuning", func() error {
			return FineTune(r, rec, m, good, bad, Objective[float64]{Loss: func(ls, _ *autograd.Var[float64], s, _ datasets.Split[float64]) *autograd.Var[float64] {
				return nn.CrossEntropy(ls, s.Y)
			}})
		}},
		{"DRL", func() error { return DRL(r, rec, m, bad, make([]float64, 4)) }},
	} {
		err := c.run()
		var se *datasets.SplitError
		if !errors.As(err, &se) || se.Split != "short" || !strings.Contains(err.Error(), "the "+c.stage+" stage") {
			t.Errorf("%s: error %v, want a SplitError of split short naming the stage", c.stage, err)
		}
	}
	if err := DRL(r, rec, m, good, make([]float64, 3)); err == nil || !strings.Contains(err.Error(), "3 density ratios for the 20 samples") {
		t.Errorf("DRL with 3 ratios for 20 samples: error %v", err)
	}
}

// A stage stopped after a checkpoint and resumed from it, in a new model
// with the checkpoint's parameters and random stream, ends with the
// weights of the uninterrupted stage, bit for bit: the base stage, and the
// ECL stage with the adaptive weight, its caches and a trace.
func TestStagesResumeBitForBit(t *testing.T) {
	base := Recipe{Base: Stage{Epochs: 5, LR: 0.05, Milestones: []int{3}}, Batch: 6}
	checkStageResumes(t, "base", base, func(r *Recipe) *Stage { return &r.Base }, func(rng *rand.Rand, r Recipe, m *ecl.Classifier[float64], src, _ datasets.Split[float64]) error {
		return Base(rng, r, m, src)
	})
	fine := Recipe{ECL: Stage{Epochs: 5, LR: 0.05}, Batch: 6, Adaptive: true, Gamma: 1, Trace: func(EpochTrace) {}}
	checkStageResumes(t, "ECL", fine, func(r *Recipe) *Stage { return &r.ECL }, func(rng *rand.Rand, r Recipe, m *ecl.Classifier[float64], src, tgt datasets.Split[float64]) error {
		return ECL(rng, r, ecl.ClassWise, m, src, tgt, 3, nil)
	})
}

// checkStageResumes trains a stage (stage of rec) uninterrupted, keeping
// its checkpoint after epoch 2, then trains it again from that checkpoint
// and compares the weights; run trains the stage.
func checkStageResumes(t *testing.T, name string, rec Recipe, stage func(*Recipe) *Stage, run func(*rand.Rand, Recipe, *ecl.Classifier[float64], datasets.Split[float64], datasets.Split[float64]) error) {
	t.Helper()
	setup := func() (*rand.PCG, *ecl.Classifier[float64], datasets.Split[float64], datasets.Split[float64]) {
		r := rand.New(rand.NewPCG(4, 4))
		m := ecl.NewMLPClassifier[float64](r, 2, 6, 3, 3)
		src, tgt := shiftedPair(r)
		return rand.NewPCG(5, 5), m, src, tgt
	}
	weights := func(m *ecl.Classifier[float64]) []float64 {
		var w []float64
		for _, p := range m.Params() {
			w = append(w, p.Value.Data()...)
		}
		return w
	}
	pcg, m, src, tgt := setup()
	var saved *StageState
	var savedW []float64
	var savedRNG []byte
	stage(&rec).Checkpoint = func(s StageState) error {
		if s.Epoch == 2 {
			saved, savedW = &s, weights(m)
			savedRNG, _ = pcg.MarshalBinary()
		}
		return nil
	}
	if err := run(rand.New(pcg), rec, m, src, tgt); err != nil {
		t.Fatal(err)
	}
	want := weights(m)
	if saved == nil || saved.Epoch != 2 || len(saved.Adam.T) == 0 || saved.Adam.T[len(saved.Adam.T)-1] != 2*4 {
		t.Fatalf("%s: checkpoint after epoch 2: %+v", name, saved)
	}
	pcg2, m2, src, tgt := setup()
	for _, p := range m2.Params() {
		n := p.Value.Len()
		tensor.CopyInto(p.Value, tensor.FromSlice(savedW[:n], p.Value.Shape()...))
		savedW = savedW[n:]
	}
	if err := pcg2.UnmarshalBinary(savedRNG); err != nil {
		t.Fatal(err)
	}
	st := stage(&rec)
	st.Checkpoint, st.Resume = nil, saved
	epochs := 0
	st.OnEpoch = func(int, float64) { epochs++ }
	if err := run(rand.New(pcg2), rec, m2, src, tgt); err != nil {
		t.Fatal(err)
	}
	if got := weights(m2); !slices.Equal(got, want) || epochs != 3 {
		t.Errorf("%s: the resumed stage ran %d epochs to weights %v, want 3 epochs to %v", name, epochs, got, want)
	}
	st.Resume = &StageState{Epoch: 6}
	if err := run(rand.New(pcg2), rec, m2, src, tgt); err == nil {
		t.Errorf("%s: a checkpoint past the stage's end accepted", name)
	}
}

// linearHeads is a model on d raw features with linear main and auxiliary
// heads of k outputs, the auxiliary head initialised from seed.
func linearHeads(d, k int, seed uint64) *ecl.Classifier[float64] {
	vb := nn.NewVars[float64]()
	r := rand.New(rand.NewPCG(seed, 1))
	return &ecl.Classifier[float64]{Backbone: nn.Sequential[float64]{}, Main: nn.NewLinear(vb.Sub("main"), r, d, k), Aux: nn.NewLinear(vb.Sub("aux"), r, d, k)}
}

// noise is n rows of d standard normal features with labels from label.
func noise(r *rand.Rand, n, d int, label func(x []float64) int) datasets.Split[float64] {
	x := tensor.RandNormal[float64](r, 0, 1, n, d)
	y := make([]int, n)
	for i := range y {
		y[i] = label(x.Data()[i*d : (i+1)*d])
	}
	return datasets.Split[float64]{Name: "noise", X: x, Y: y}
}

// At the optimum of the weighted cross-entropy a head with an intercept
// satisfies Σ_i w_i (p_ik − y_ik) = 0: its weighted mean P(Y = k) is the
// weighted frequency of k. Weights 5 on class 0 and 1 elsewhere move that
// frequency from about 1/3 to about 5/7; the unweighted head keeps the
// plain frequency.
func TestAuxWeightedMatchesWeightedFrequency(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	src := noise(r, 300, 4, func([]float64) int { return r.IntN(3) })
	w := make([]float64, src.Len())
	var plain, weighted, total float64
	for i, y := range src.Y {
		w[i] = 1
		if y == 0 {
			w[i] = 5
			plain++
			weighted += 5
		}
		total += w[i]
	}
	plain, weighted = plain/float64(src.Len()), weighted/total
	rec := Recipe{Aux: Stage{Epochs: 300, LR: 0.05}, Batch: 300}
	for _, c := range []struct {
		w    []float64
		want float64
	}{{nil, plain}, {w, weighted}} {
		m := linearHeads(4, 3, 1)
		if err := AuxWeighted(rand.New(rand.NewPCG(1, 1)), rec, ecl.ClassWise, m, src, c.w); err != nil {
			t.Fatal(err)
		}
		est := AuxEstimate(ecl.ClassWise, m, src.X, 1).Data()
		var num float64
		for i := range src.Len() {
			wi := 1.0
			if c.w != nil {
				wi = c.w[i]
			}
			num += wi * est[i*3]
		}
		den := float64(src.Len())
		if c.w != nil {
			den = total
		}
		if got := num / den; math.Abs(got-c.want) > 0.01 {
			t.Errorf("weights %v…: weighted mean P(Y = 0) %.4f, want the weighted frequency %.4f", c.w != nil, got, c.want)
		}
	}
	if weighted-plain < 0.3 {
		t.Fatalf("fixture: frequencies %v and %v too close", plain, weighted)
	}
	for _, bad := range [][]float64{w[:10], append([]float64{-1}, w[1:]...), append([]float64{math.Inf(1)}, w[1:]...)} {
		if err := AuxWeighted(rand.New(rand.NewPCG(1, 1)), rec, ecl.ClassWise, linearHeads(4, 3, 1), src, bad); err == nil {
			t.Errorf("weights of length %d starting %v accepted", len(bad), bad[0])
		}
	}
}

// A head that memorises random labels (40 samples, 30 features) says the
// label with P ≈ 1 on the samples it saw, though the true P(Y = y | x) is
// 1/3; the cross-fitted estimates, each from the head that did not see the
// sample, are near 1/3 or below. With labels a function of one of two
// features (200 samples), the cross-fitted estimates find them (each row
// set where its sample is).
func TestCrossFitAuxIsOutOfSample(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	const n, d = 40, 30
	rec := Recipe{Aux: Stage{Epochs: 300, LR: 0.05}, Batch: n}
	newModel := func() (*ecl.Classifier[float64], error) { return linearHeads(d, 3, 2), nil }
	meanTrue := func(est *tensor.Tensor[float64], y []int) float64 {
		var s float64
		for i, c := range y {
			s += est.Data()[i*3+c]
		}
		return s / float64(len(y))
	}
	random := noise(r, n, d, func([]float64) int { return r.IntN(3) })
	m, _ := newModel()
	if err := Aux(rand.New(rand.NewPCG(1, 1)), rec, ecl.ClassWise, m, random); err != nil {
		t.Fatal(err)
	}
	if p := meanTrue(AuxEstimate(ecl.ClassWise, m, random.X, 1), random.Y); p < 0.9 {
		t.Fatalf("fixture: the head fitted on all samples gives their labels P %.3f, want ≥ 0.9 (memorised)", p)
	}
	cf, err := CrossFitAux(3, rec, ecl.ClassWise, newModel, random, 5)
	if err != nil {
		t.Fatal(err)
	}
	if p := meanTrue(cf, random.Y); p > 0.45 {
		t.Errorf("random labels: cross-fitted P(label) %.3f, want ≤ 0.45 (the truth is 1/3)", p)
	}
	linear := noise(r, 200, 2, func(x []float64) int {
		switch {
		case x[0] > 0.5:
			return 0
		case x[0] < -0.5:
			return 1
		}
		return 2
	})
	small := func() (*ecl.Classifier[float64], error) { return linearHeads(2, 3, 2), nil }
	rec.Batch = 200
	cf, err = CrossFitAux(3, rec, ecl.ClassWise, small, linear, 5)
	if err != nil {
		t.Fatal(err)
	}
	if p := meanTrue(cf, linear.Y); p < 0.6 {
		t.Errorf("labels from the features: cross-fitted P(label) %.3f, want ≥ 0.6", p)
	}
	if _, err := CrossFitAux(3, rec, ecl.ClassWise, small, linear, 1); err == nil {
		t.Error("one fold accepted")
	}
}
