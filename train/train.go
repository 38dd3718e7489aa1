package train

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/datasets"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/nn"
	"github.com/ecl-go/ecl/optim"
	"github.com/ecl-go/ecl/tensor"
)

// Stage is one training stage's schedule: Adam at rate LR, multiplied by 0.1
// at each milestone epoch.
type Stage struct {
	Epochs     int
	LR         float64
	Milestones []int
	// OnEpoch, when set, is called after each epoch with its number
	// (from 1) and the mean loss of its batches.
	OnEpoch func(epoch int, loss float64)
	// Checkpoint, when set, is called after each epoch (after OnEpoch)
	// with the stage's state; an error stops the stage. Resume, when set,
	// is such a state to continue from: the stage runs the epochs after
	// Resume.Epoch and ends as if it had not stopped, bit for bit, when
	// the caller has restored the trained parameters (and buffers) and
	// the random stream to what they were at that checkpoint.
	Checkpoint func(StageState) error `json:"-"`
	Resume     *StageState            `json:"-"`
}

// StageState is a training stage's state between epochs that is not in
// the model or the random stream: the epochs done, the optimiser's state
// and the first batch's loss (for DivergedError).
type StageState struct {
	Epoch int
	First float64
	Adam  optim.AdamState
	// Loss is the state the stage's loss keeps between steps (a
	// fine-tuning stage's: the adaptive weight's sums, then the ECL
	// caches).
	Loss []float64 `json:",omitempty"`
}

// lossState is the state a fine-tuning term keeps between steps (the ECL
// caches), which the stage's checkpoints save and restore.
type lossState struct {
	save    func() []float64
	restore func([]float64) error
}

// Recipe is the whole training procedure.
type Recipe struct {
	Name           string
	Base, Aux, ECL Stage
	// Batch is the mini-batch size of every stage.
	Batch int
	// Adaptive weighs the ECL term by λ = β^γ (paper); otherwise the loss is
	// LambdaCE·CE + ECL (reference code).
	Adaptive bool
	Gamma    float64
	LambdaCE float64
	// AuxSoftECE adds Soft-ECE on the source to the top-label auxiliary
	// head's loss, as the reference notebook does.
	AuxSoftECE bool
	// NonTrainable replaces the mini-batch scheme by the soft-binned
	// estimator computed directly on each pair of batches (the ablation).
	NonTrainable bool
	// Loss holds the ECL settings other than paradigm and classes.
	Loss ecl.Config
	// WholeNetwork makes the ECL stage, the control and FineTune train
	// the backbone with the main head (the paper does not say which; the
	// reference code trains the main head alone). The auxiliary head then
	// reads the changing backbone's features.
	WholeNetwork bool
	// Trace, when set, receives each epoch of the ECL stage and of
	// FineTune with a Term (two more backward passes per batch).
	Trace func(EpochTrace)
}

// EpochTrace is one epoch of a fine-tuning stage with an added term: the
// means over its batches of the source cross-entropy, of the term (ECL or
// a baseline's), of the term's weight λ (1 under λ_ce·CE + term) and of
// GradRatio, the norm of the weighted term's gradient over the trained
// parameters divided by that of the weighted cross-entropy, over the
// batches where the latter is not zero (GradRatio is 0 when there is none:
// a saturated softmax, λ_ce = 0).
type EpochTrace struct {
	Epoch                       int
	CE, Term, Lambda, GradRatio float64
}

// batches splits a random permutation of [0, n) into batches of size b (the
// last one smaller), as a shuffling data loader without drop_last.
func batches(rng *rand.Rand, n, b int) [][]int {
	perm := rng.Perm(n)
	var out [][]int
	for lo := 0; lo < n; lo += b {
		out = append(out, perm[lo:min(lo+b, n)])
	}
	return out
}

// fit runs a stage: for each epoch, for each batch of the source (paired
// with a target batch when ntgt > 0, stopping at the shorter loader), it
// zeroes the gradients of params, calls step with the batches' row indices
// (ti nil without a target), which backpropagates the batch's loss and
// returns its value, and takes an Adam step. The tensors of a step
// (batches, graph, gradients) live in an arena that the next step reuses:
// step must keep no tensor made during a step for a later one.
//
// An epoch whose mean loss is not finite ends the stage with a
// *DivergedError naming it.
func fit[T tensor.Float](rng *rand.Rand, stage string, st Stage, batch int, params []*autograd.Var[T], nsrc, ntgt int, step func(si, ti []int) float64) error {
	opt := optim.NewAdam(params, st.LR, 0)
	sched := optim.MultiStep{Base: st.LR, Milestones: st.Milestones, Gamma: 0.1}
	var arena tensor.Arena[T]
	first := -1.0 // the first batch's loss, once known
	from := 0
	if r := st.Resume; r != nil {
		if r.Epoch < 0 || r.Epoch > st.Epochs {
			return fmt.Errorf("train: the %s stage resumed after epoch %d of %d", stage, r.Epoch, st.Epochs)
		}
		if err := opt.SetState(r.Adam); err != nil {
			return fmt.Errorf("train: resuming the %s stage: %w", stage, err)
		}
		from, first = r.Epoch, r.First
	}
	for epoch := from; epoch < st.Epochs; epoch++ {
		sched.Apply(opt, epoch)
		sb := batches(rng, nsrc, batch)
		var tb [][]int
		if ntgt > 0 {
			tb = batches(rng, ntgt, batch)
			sb = sb[:min(len(sb), len(tb))]
		}
		var sum float64
		for i, si := range sb {
			for _, p := range params {
				p.ZeroGrad()
			}
			arena.Do(func() {
				var ti []int
				if tb != nil {
					ti = tb[i]
				}
				l := step(si, ti)
				if first < 0 {
					first = math.Abs(l)
				}
				sum += l
			})
			opt.Step()
		}
		mean := sum / float64(max(len(sb), 1))
		if math.IsNaN(mean) || math.IsInf(mean, 0) {
			return &DivergedError{Stage: stage, Epoch: epoch + 1, Loss: mean, First: first}
		}
		if st.OnEpoch != nil {
			st.OnEpoch(epoch+1, mean)
		}
		if st.Checkpoint != nil {
			if err := st.Checkpoint(StageState{Epoch: epoch + 1, First: first, Adam: opt.State()}); err != nil {
				return fmt.Errorf("train: checkpoint of the %s stage after epoch %d: %w", stage, epoch+1, err)
			}
		}
	}
	return nil
}

// backprop is the step of fit that backpropagates the whole of loss.
func backprop[T tensor.Float](loss func(si, ti []int) *autograd.Var[T]) func(si, ti []int) float64 {
	return func(si, ti []int) float64 {
		l := loss(si, ti)
		l.Backward()
		return float64(l.Value.Item())
	}
}

// DivergedError is a training stage stopped because an epoch's mean loss
// was not finite (a learning rate too large, say).
type DivergedError struct {
	Stage string
	Epoch int
	Loss  float64
	First float64 // the stage's first batch loss
}

func (e *DivergedError) Error() string {
	return fmt.Sprintf("train: the %s stage diverged: mean loss %v in epoch %d (first batch %.4g)", e.Stage, e.Loss, e.Epoch, e.First)
}

// Base trains the backbone and main head with cross-entropy on the source:
// the uncalibrated model.
func Base[T tensor.Float](rng *rand.Rand, r Recipe, m *ecl.Classifier[T], src datasets.Split[T]) error {
	if err := check("base", src); err != nil {
		return err
	}
	return fit(rng, "base", r.Base, r.Batch, m.Params(), src.Len(), 0, backprop(func(si, _ []int) *autograd.Var[T] {
		s := src.Rows(si)
		return nn.CrossEntropy(m.Forward(autograd.Const(s.X)), s.Y)
	}))
}

// Correct is 1 where the main head's prediction on x is y, else 0.
func Correct[T tensor.Float](m *ecl.Classifier[T], d datasets.Split[T]) []int {
	pred := tensor.Ints(tensor.ArgMax(nn.Predict[T](m, d.X), 1, false))
	out := make([]int, len(pred))
	for i, p := range pred {
		if p == d.Y[i] {
			out[i] = 1
		}
	}
	return out
}

// Aux trains the auxiliary head on the frozen backbone: to predict the label
// (class-wise, canonical) or whether the main head is right (top-label).
func Aux[T tensor.Float](rng *rand.Rand, r Recipe, p ecl.Paradigm, m *ecl.Classifier[T], src datasets.Split[T]) error {
	return AuxWeighted(rng, r, p, m, src, nil)
}

// AuxWeighted is Aux with each source sample's loss weighted by w (nil: 1):
// the cross-entropy and, with r.AuxSoftECE, the Soft-ECE term of a batch
// are its samples' weighted means (nn.WeightedCrossEntropy,
// ecl.WeightedSoftECE). With importance weights p_t/p_s it fits the head
// for the target's distribution of inputs (Shimodaira, 2000); a batch whose
// weights are all 0 adds nothing.
func AuxWeighted[T tensor.Float](rng *rand.Rand, r Recipe, p ecl.Paradigm, m *ecl.Classifier[T], src datasets.Split[T], w []float64) error {
	if err := check("auxiliary head", src); err != nil {
		return err
	}
	if w != nil && len(w) != src.Len() {
		return fmt.Errorf("train: the auxiliary head stage: %d weights for the %d samples of %q", len(w), src.Len(), src.Name)
	}
	for i, v := range w {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("train: the auxiliary head stage: weight %v of sample %d of %q, want a finite value ≥ 0", v, i, src.Name)
		}
	}
	target := src
	if p == ecl.TopLabel {
		target = datasets.Split[T]{Name: src.Name, X: src.X, Y: Correct(m, src)}
	}
	return fit(rng, "auxiliary head", r.Aux, r.Batch, m.Aux.Params(), src.Len(), 0, func(si, _ []int) float64 {
		var ws []float64
		if w != nil {
			ws = make([]float64, len(si))
			sum := 0.0
			for i, j := range si {
				ws[i] = w[j]
				sum += w[j]
			}
			if sum == 0 {
				return 0
			}
		}
		s := target.Rows(si)
		out := m.AuxForward(autograd.Const(s.X))
		loss := nn.CrossEntropy(out, s.Y)
		if ws != nil {
			loss = nn.WeightedCrossEntropy(out, s.Y, ws)
		}
		if p == ecl.TopLabel && r.AuxSoftECE {
			correct := make([]T, len(s.Y))
			for i, y := range s.Y {
				correct[i] = T(y)
			}
			loss = autograd.Add(loss, ecl.WeightedSoftECE(ecl.CorrectnessProb(out), tensor.To(tensor.FromSlice(correct), out.Value.Device()), ws, 15))
		}
		loss.Backward()
		return float64(loss.Value.Item())
	})
}

// AuxEstimate is the auxiliary head's estimate on x with its logits
// divided by the temperature t (1: the head as fitted): P(correct) [N] for
// top-label, P(Y|X) [N, K] otherwise.
func AuxEstimate[T tensor.Float](p ecl.Paradigm, m *ecl.Classifier[T], x *tensor.Tensor[T], t float64) *tensor.Tensor[T] {
	var out *autograd.Var[T]
	autograd.NoGrad(func() {
		logits := m.AuxForward(autograd.Const(x))
		if t != 1 {
			logits = autograd.Scale(logits, T(1/t))
		}
		if p == ecl.TopLabel {
			out = ecl.CorrectnessProb(logits)
		} else {
			out = autograd.Softmax(logits, 1)
		}
	})
	return out.Value
}

// CrossFitAux fits the auxiliary head by cross-fitting: src is split into
// folds parts at random, a head is fitted (Aux, r's schedule, no
// checkpoints) on each part's complement, and each sample's estimate comes
// from the head that did not see it, so that the estimates on src are
// out-of-sample as on any other data (the cross-fitting of Chernozhukov et
// al., 2018). newModel makes each head's model (the trained backbone and
// main head, a fresh auxiliary head); head j and the split draw from
// streams of seed. It returns the estimates on src, rows as AuxEstimate.
func CrossFitAux[T tensor.Float](seed uint64, r Recipe, p ecl.Paradigm, newModel func() (*ecl.Classifier[T], error), src datasets.Split[T], folds int) (*tensor.Tensor[T], error) {
	n := src.Len()
	if folds < 2 || folds > n {
		return nil, fmt.Errorf("train: cross-fitting %d samples of %q in %d folds (want 2 to %d)", n, src.Name, folds, n)
	}
	r.Aux.Checkpoint, r.Aux.Resume = nil, nil
	perm := rand.New(rand.NewPCG(seed, 0xcf)).Perm(n)
	var order []int // the samples in the order of the parts' estimates
	var parts []*tensor.Tensor[T]
	for j := range folds {
		var in, out []int
		for pos, i := range perm {
			if pos%folds == j {
				out = append(out, i)
			} else {
				in = append(in, i)
			}
		}
		m, err := newModel()
		if err != nil {
			return nil, err
		}
		if err := Aux(rand.New(rand.NewPCG(seed, 0xcf+1+uint64(j))), r, p, m, src.Rows(in)); err != nil {
			return nil, fmt.Errorf("train: cross-fitting, fold %d: %w", j+1, err)
		}
		parts = append(parts, AuxEstimate(p, m, src.Rows(out).X, 1))
		order = append(order, out...)
	}
	back := make([]int, n)
	for pos, i := range order {
		back[i] = pos
	}
	return tensor.IndexSelect(tensor.Concat(0, parts...), 0, back), nil
}

// Estimates are fixed auxiliary estimates on the ECL stage's source and
// target samples (rows as AuxEstimate), for a head other than the model's
// own: cross-fitted (CrossFitAux), or recalibrated on the target.
type Estimates[T tensor.Float] struct {
	Src, Tgt *tensor.Tensor[T]
}

// ECL fine-tunes the main head with the ECL of paradigm p on paired source
// and (unlabelled) target batches. The auxiliary head is fixed, and so is
// the backbone unless r.WholeNetwork: the head's estimates are then
// computed once for each domain. aux, when not nil, holds the estimates to
// use instead of the head's (not with r.WholeNetwork, whose features
// change).
func ECL[T tensor.Float](rng *rand.Rand, r Recipe, p ecl.Paradigm, m *ecl.Classifier[T], src, tgt datasets.Split[T], classes int, aux *Estimates[T]) error {
	if err := check("ECL-"+p.String(), src, tgt); err != nil {
		return err
	}
	if aux != nil {
		if r.WholeNetwork {
			return fmt.Errorf("train.ECL: fixed auxiliary estimates with the whole network trained")
		}
		if aux.Src.Dim(0) != src.Len() || aux.Tgt.Dim(0) != tgt.Len() {
			return fmt.Errorf("train.ECL: auxiliary estimates of %d and %d rows for %d source and %d target samples", aux.Src.Dim(0), aux.Tgt.Dim(0), src.Len(), tgt.Len())
		}
	}
	cfg := r.Loss
	cfg.Paradigm, cfg.Classes = p, classes
	mb, err := ecl.NewMiniBatch(cfg)
	if err != nil {
		return fmt.Errorf("train.ECL: %w", err)
	}
	sb, err := ecl.NewSoftBinned(cfg, ecl.L1, 0)
	if err != nil {
		return fmt.Errorf("train.ECL: %w", err)
	}
	estimate := func(d datasets.Split[T], fixed *tensor.Tensor[T]) func(idx []int) *autograd.Var[T] {
		if r.WholeNetwork {
			return func(idx []int) *autograd.Var[T] {
				return autograd.Const(AuxEstimate(p, m, tensor.IndexSelect(d.X, 0, idx), 1))
			}
		}
		all := fixed
		if all == nil {
			all = AuxEstimate(p, m, d.X, 1)
		}
		return func(idx []int) *autograd.Var[T] { return autograd.Const(tensor.IndexSelect(all, 0, idx)) }
	}
	if aux == nil {
		aux = &Estimates[T]{}
	}
	srcAux, tgtAux := estimate(src, aux.Src), estimate(tgt, aux.Tgt)
	caches := &lossState{
		save: func() []float64 {
			us, ut := mb.Cache()
			return append(us, ut...)
		},
		restore: func(v []float64) error {
			us, _ := mb.Cache()
			if len(v) < len(us) {
				return fmt.Errorf("train.ECL: a checkpoint of %d cache values", len(v))
			}
			return mb.SetCache(v[:len(us)], v[len(us):])
		},
	}
	return finetune(rng, "ECL-"+p.String(), r, m, src, tgt, caches, nil, func(ps, pt *autograd.Var[T], _, _ datasets.Split[T], si, ti []int) *autograd.Var[T] {
		as, at := srcAux(si), tgtAux(ti)
		if r.NonTrainable {
			return ecl.SoftBinnedLoss(sb, ps, pt, as, at)
		}
		return ecl.MiniBatchLoss(mb, ps, pt, as, at)
	})
}

// AuxCheck compares the auxiliary estimate est on d (rows as AuxEstimate;
// nil: the model's head's) with the truth: for top-label, the mean
// P(correct) with the main head's accuracy (one value each); otherwise, per
// class k, the mean P(Y = k | x) with the frequency of label k. A head whose
// estimate is far from the truth on the target gives ECL a wrong
// expectation to match.
func AuxCheck[T tensor.Float](p ecl.Paradigm, m *ecl.Classifier[T], d datasets.Split[T], est *tensor.Tensor[T], classes int) (estimate, actual []float64) {
	n := float64(max(d.Len(), 1))
	if est == nil {
		est = AuxEstimate(p, m, d.X, 1)
	}
	v := tensor.Convert[float64](est).Data()
	if p == ecl.TopLabel {
		var e, a float64
		for i, c := range Correct(m, d) {
			e += v[i]
			a += float64(c)
		}
		return []float64{e / n}, []float64{a / n}
	}
	estimate, actual = make([]float64, classes), make([]float64, classes)
	for i, y := range d.Y {
		for k := range classes {
			estimate[k] += v[i*classes+k] / n
		}
		actual[y] += 1 / n
	}
	return estimate, actual
}

// DRL fine-tunes the main head in the distributionally robust predictive
// form of Wang et al. (IJCAI 2023), P(y|x) ∝ exp(r(x)·logit_y(x)), with
// ratio[i] = r the density ratio p_s/p_t of source sample i: the
// cross-entropy of the scaled logits on the ECL stage's schedule. Predict
// then with the target's own r (ScaledProbs).
func DRL[T tensor.Float](rng *rand.Rand, r Recipe, m *ecl.Classifier[T], src datasets.Split[T], ratio []float64) error {
	if err := check("DRL", src); err != nil {
		return err
	}
	if len(ratio) != src.Len() {
		return fmt.Errorf("train: the DRL stage: %d density ratios for the %d samples of %q", len(ratio), src.Len(), src.Name)
	}
	return fit(rng, "DRL", r.ECL, r.Batch, m.Main.Params(), src.Len(), 0, backprop(func(si, _ []int) *autograd.Var[T] {
		s := src.Rows(si)
		rs := make([]float64, len(si))
		for i, j := range si {
			rs[i] = ratio[j]
		}
		return nn.CrossEntropy(scaled(m, s.X, rs), s.Y)
	}))
}

// scaled is the main head's logits on x multiplied row-wise by ratio.
func scaled[T tensor.Float](m *ecl.Classifier[T], x *tensor.Tensor[T], ratio []float64) *autograd.Var[T] {
	var f *autograd.Var[T]
	autograd.NoGrad(func() { f = m.Backbone.Forward(autograd.Const(x)) }) // DRL trains the main head only
	logits := m.Main.Forward(f)
	return autograd.Mul(logits, autograd.Const(tensor.To(tensor.Convert[T](tensor.FromSlice(ratio, len(ratio), 1)), logits.Value.Device())))
}

// ScaledProbs is softmax(r(x)·logits(x)) on the inputs x, with ratio the
// density ratios r of their rows.
func ScaledProbs[T tensor.Float](m *ecl.Classifier[T], x *tensor.Tensor[T], ratio []float64) []float64 {
	var p *tensor.Tensor[T]
	autograd.NoGrad(func() { p = tensor.Softmax(scaled(m, x, ratio).Value, 1) })
	return tensor.Convert[float64](p).Data()
}

// check returns the first error of the splits' Check, naming the stage.
func check[T tensor.Float](stage string, splits ...datasets.Split[T]) error {
	for _, s := range splits {
		if err := s.Check(); err != nil {
			return fmt.Errorf("train: the %s stage: %w", stage, err)
		}
	}
	return nil
}
