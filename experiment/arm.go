package experiment

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ecl-go/ecl/datasets"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/ecl/baselines"
	"github.com/ecl-go/ecl/ecl/calib"
	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/nn"
	"github.com/ecl-go/ecl/tensor"
	"github.com/ecl-go/ecl/train"
)

// arm is one trained base model with the data its calibration methods are
// fitted on and evaluated with: what a study repeats over seeds and setups.
// Every method that trains does so on the main head of a fresh copy of the
// base model (models.copy), so that rows compare.
type arm[T tensor.Float] struct {
	recipe  train.Recipe
	classes int
	seed    uint64
	// base is the uncalibrated model; models makes copies of it.
	base   *ecl.Classifier[T]
	models modelFactory[T]
	// src trains, val (held-out source) fits the post-hoc methods, tgt is
	// the target the training-time methods see (its labels only the
	// oracle's); evalSrc and evalTgt are evaluated.
	src, val, tgt, evalSrc, evalTgt datasets.Split[T]
	// full is the whole network and inputs the target inputs it takes, for
	// PseudoCal's input-space mixup (the base model may work on features).
	full   *ecl.Classifier[T]
	inputs *tensor.Tensor[T]
	// auxData names the source samples each ECL row's auxiliary head is
	// trained on, as held by auxSets (nil: one row, its head on src).
	auxData []string
	auxSets map[string]datasets.Split[T]
	// auxFits are the ways the auxiliary head is fitted (Study.AuxFit;
	// nil: plain), auxFolds the folds of "crossfit" (0: 5); embed maps
	// inputs to the copies' inputs (the backbone's features when the
	// copies work on them; nil: the inputs themselves).
	auxFits  []string
	auxFolds int
	embed    func(x *tensor.Tensor[T]) *tensor.Tensor[T]
	// logits caches the base model's logits (baseLogits).
	logits [][]float64
	// domain is the unbalanced domain classifier, fitted once for CPCS and
	// DRL (fitDomainModel).
	domain *domainModel[T]
	// postHoc is the random stream the post-hoc steps share (made by
	// steps).
	postHoc *rand.PCG
	// done are the rows of the first steps, from a checkpoint: results
	// does not run those steps again. afterStep, when set, is called with
	// the rows made so far after each step that results runs.
	done      []Result
	afterStep func(done []Result) error
	// ck, when set, keeps the checkpoints of the training steps
	// (training); step is the step results is running, and stepStream
	// the random stream of a train-time baseline's step.
	ck         *runCheckpoint
	step       int
	stepStream *rand.PCG
}

// modelFactory makes copies of a trained base model: a network built by
// build (from the same seed each time, on dev when set) with base's
// backbone and main head copied in and a new auxiliary head.
type modelFactory[T tensor.Float] struct {
	build func(rng *rand.Rand, auxOut int) (*ecl.Classifier[T], error)
	base  *ecl.Classifier[T]
	seed  uint64
	dev   tensor.Device[T]
}

// copy is a copy of the base model with an auxiliary head of auxOut
// outputs.
func (f modelFactory[T]) copy(auxOut int) (*ecl.Classifier[T], error) {
	m, err := f.build(rand.New(rand.NewPCG(f.seed, 3)), auxOut)
	if err != nil {
		return nil, err
	}
	if f.dev != nil {
		nn.ToDevice[T](m, f.dev)
	}
	return m, copyBase(m, f.base)
}

// row is one model's predictions, what a study step returns: its
// probabilities on the arm's evaluated source and target, with an ECL
// row's diagnostics.
type row struct {
	method   MethodID
	src, tgt []float64
	diag     *Diagnostics
}

// step is one model of a run: it trains or fits it and returns its row.
// A run's steps run in order (the post-hoc ones share a random stream).
type step func() (row, error)

// probs is m's softmax output on d, of k classes.
func probs[T tensor.Float](m *ecl.Classifier[T], d datasets.Split[T], k int) []float64 {
	return tensor.Softmax(tensor.FromSlice(logits(m, d.X), d.Len(), k), 1).Data()
}

// predict is the row of m as the given method.
func (a *arm[T]) predict(method MethodID, m *ecl.Classifier[T]) row {
	return row{method: method, src: probs(m, a.evalSrc, a.classes), tgt: probs(m, a.evalTgt, a.classes)}
}

// steps lists a run's models in table order: the base model (Uncal), the
// named methods (the post-hoc ones first, sharing one random stream, then
// the others, each from its own), with control the CE-finetune row, and
// ECL in each of the paradigms.
func (a *arm[T]) steps(methods []string, control bool, paradigms []ecl.Paradigm) ([]step, error) {
	steps := []step{func() (row, error) { return a.predict(Uncal, a.base), nil }}
	var ms []fitter[T]
	for _, key := range methods {
		m, ok := lookupMethod[T](key)
		if !ok {
			return nil, fmt.Errorf("experiment: unknown method %q (want one of %v)", key, Methods)
		}
		ms = append(ms, m)
	}
	a.postHoc = rand.NewPCG(a.seed, 5)
	postHoc := rand.New(a.postHoc)
	for _, pass := range []bool{true, false} {
		for _, m := range ms {
			if m.PostHoc != pass {
				continue
			}
			steps = append(steps, func() (row, error) {
				rng := postHoc
				a.stepStream = nil
				if !m.PostHoc {
					rng, a.stepStream = a.stream(4)
				}
				src, tgt, err := m.fit(a, rng)
				return row{method: Baseline(m.Name), src: src, tgt: tgt}, err
			})
		}
	}
	if control {
		steps = append(steps, a.control)
	}
	splits, fits := a.auxData, a.auxFits
	if len(splits) == 0 {
		splits = []string{""}
	}
	if len(fits) == 0 {
		fits = []string{"plain"}
	}
	for _, p := range paradigms {
		for _, split := range splits {
			for _, fit := range fits {
				id := ECLIn(p, "")
				if len(splits)*len(fits) > 1 {
					id.AuxData = auxLabel(split, fit)
				}
				steps = append(steps, func() (row, error) {
					r, err := a.ecl(id, split, fit)
					r.method = id // an unfit row keeps its name
					return r, err
				})
			}
		}
	}
	return steps, nil
}

// auxLabel names an ECL row's auxiliary head by its data and fit:
// "heldout", "heldout-iw", "iw" (a study with one sample), "" for the plain
// fit of a study with one sample.
func auxLabel(split, fit string) string {
	if fit == "plain" {
		return split
	}
	if split == "" {
		return fit
	}
	return split + "-" + fit
}

// control is the CE-finetune row: the ECL stage's schedule on a copy of
// the base model with the cross-entropy term only.
func (a *arm[T]) control() (row, error) {
	m, err := a.models.copy(a.classes)
	if err != nil {
		return row{}, err
	}
	rng, pcg := a.stream(4)
	r, _, err := a.training(a.recipe, m, pcg, nil)
	if err != nil {
		return row{}, err
	}
	if err := train.Control(rng, r, m, a.src, a.tgt); err != nil {
		return row{}, err
	}
	return a.predict(Control, m), nil
}

// results runs the steps in order and scores each row on the arm's
// evaluated source and target under o (a step that fails with an
// UnfitError gives a row marked unfit); log, when set, receives each
// result as it is made.
func (a *arm[T]) results(steps []step, o metrics.Options, log func(Result)) ([]Result, error) {
	var out []Result
	for i, s := range steps {
		a.step = i
		if i < len(a.done) {
			if log != nil {
				log(a.done[i])
			}
			out = append(out, a.done[i])
			continue
		}
		r, err := s()
		var res Result
		var unfit *UnfitError
		switch {
		case errors.As(err, &unfit):
			res.Unfit = unfit.Reason
		case err != nil:
			return nil, err
		default:
			if res, err = evaluateBoth(o, a.classes, r.src, a.evalSrc.Y, r.tgt, a.evalTgt.Y); err != nil {
				return nil, err
			}
		}
		res.Method, res.Diag = r.method, r.diag
		if log != nil {
			log(res)
		}
		out = append(out, res)
		if a.afterStep != nil {
			if err := a.afterStep(out); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// Diagnostics explain an ECL row: the source samples its auxiliary head
// was trained on and how (Study.AuxFit), that head's estimate against the
// truth on each domain (train.AuxCheck) and the ECL stage epoch by epoch;
// for an importance-weighted head the shift's diagnostics (the weights'
// effective sample size among them), for a PseudoCal- or ATC-calibrated
// one the temperature of its target estimates, for an ATC-fitted
// top-label one the shift of its logit of being correct on the target
// instead, with ATC's estimate of the target accuracy it was made to match.
type Diagnostics struct {
	AuxData     string
	AuxFit      string                  `json:",omitempty"`
	Shift       *calib.ShiftDiagnostics `json:",omitempty"`
	Temperature float64                 `json:",omitempty"`
	LogitShift  float64                 `json:",omitempty"`
	ATC         float64                 `json:",omitempty"`
	Aux         []AuxCheck
	Epochs      []train.EpochTrace
}

// AuxCheck is the auxiliary head's estimate and the truth on one domain:
// mean P(correct) and accuracy for top-label, per class otherwise.
type AuxCheck struct {
	Domain           string
	Estimate, Actual []float64
}

// auxEstimates are an ECL row's auxiliary estimates on a split: the
// model's head's, except on the samples cross-fitted heads were fitted on
// (fitted, whose estimates are oof) and on the target, where the head's
// logits are divided by targetT (0: 1) and, for top-label, targetShift is
// added to its logit of being correct.
type auxEstimates[T tensor.Float] struct {
	p           ecl.Paradigm
	m           *ecl.Classifier[T]
	fitted      *tensor.Tensor[T]
	oof         *tensor.Tensor[T]
	targetT     float64
	targetShift float64
}

// on is the estimate on d, a target split or not.
func (e auxEstimates[T]) on(d datasets.Split[T], target bool) *tensor.Tensor[T] {
	if e.oof != nil && d.X == e.fitted {
		return e.oof
	}
	if target && e.targetShift != 0 {
		g := correctLogits(e.m, d.X)
		for i := range g {
			g[i] = 1 / (1 + math.Exp(-(g[i] + e.targetShift)))
		}
		return tensor.To(tensor.Convert[T](tensor.FromSlice(g, len(g))), d.X.Device())
	}
	t := 1.0
	if target && e.targetT > 0 {
		t = e.targetT
	}
	return train.AuxEstimate(e.p, e.m, d.X, t)
}

// correctLogits are the logits z₁ − z₀ of being correct of m's top-label
// auxiliary head on x.
func correctLogits[T tensor.Float](m *ecl.Classifier[T], x *tensor.Tensor[T]) []float64 {
	z := logits(nn.Sequential[T]{m.Backbone, m.Aux}, x)
	g := make([]float64, len(z)/2)
	for i := range g {
		g[i] = z[2*i+1] - z[2*i]
	}
	return g
}

// ecl trains the auxiliary head of id's paradigm on the source samples
// split (a.src for "") as fit says (Study.AuxFit) and the ECL stage on a
// copy of the base model, and returns its row with its diagnostics.
func (a *arm[T]) ecl(id MethodID, split, fit string) (row, error) {
	p := id.Paradigm
	auxOut := a.classes
	if p == ecl.TopLabel {
		auxOut = 2
	}
	auxSrc := a.src
	if split != "" {
		auxSrc = a.auxSets[split]
	}
	m, err := a.models.copy(auxOut)
	if err != nil {
		return row{}, err
	}
	rng, pcg := a.stream(4 + uint64(p))
	d := &Diagnostics{AuxData: split}
	if fit != "plain" {
		d.AuxFit = fit
	}
	r, resumed, err := a.training(a.recipe, m, pcg, &d.Epochs)
	if err != nil {
		return row{}, err
	}
	var w []float64
	if fit == "iw" {
		var shift calib.ShiftDiagnostics
		if w, shift, err = a.importanceWeights(auxSrc); err != nil {
			return row{}, err
		}
		d.Shift = &shift
	}
	// A step resumed in its fine-tuning stage has its auxiliary head.
	if resumed != "fine-tune" {
		if err := train.AuxWeighted(rng, r, p, m, auxSrc, w); err != nil {
			return row{}, err
		}
	}
	est := auxEstimates[T]{p: p, m: m}
	switch fit {
	case "crossfit":
		folds := a.auxFolds
		if folds == 0 {
			folds = 5
		}
		est.fitted = auxSrc.X
		if est.oof, err = train.CrossFitAux(a.seed, a.recipe, p, func() (*ecl.Classifier[T], error) { return a.models.copy(auxOut) }, auxSrc, folds); err != nil {
			return row{}, err
		}
	case "pseudocal":
		if est.targetT, err = a.pseudoCalAux(p, m); err != nil {
			return row{}, err
		}
		d.Temperature = est.targetT
	case "atc":
		if est.targetT, est.targetShift, d.ATC, err = a.atcAux(p, m); err != nil {
			return row{}, err
		}
		d.Temperature, d.LogitShift = est.targetT, est.targetShift
	}
	for _, dom := range []struct {
		name   string
		data   datasets.Split[T]
		target bool
	}{{"source train", a.src, false}, {"source held-out", a.val, false}, {"target unlabelled", a.tgt, true}, {"target test", a.evalTgt, true}} {
		e, act := train.AuxCheck(p, m, dom.data, est.on(dom.data, dom.target), a.classes)
		d.Aux = append(d.Aux, AuxCheck{dom.name, e, act})
	}
	var fixed *train.Estimates[T]
	if fit != "plain" {
		fixed = &train.Estimates[T]{Src: est.on(a.src, false), Tgt: est.on(a.tgt, true)}
	}
	r.Trace = func(e train.EpochTrace) { d.Epochs = append(d.Epochs, e) }
	if err := train.ECL(rng, r, p, m, a.src, a.tgt, a.classes, fixed); err != nil {
		return row{}, err
	}
	out := a.predict(id, m)
	out.diag = d
	return out, nil
}

// importanceWeights are the clipped importance weights p_t/p_s of the
// samples of d from a logistic domain classifier fitted on d against the
// target's unlabelled split, on the base model's backbone features
// (calib.DomainWeights, its default clip), with the shift's diagnostics.
func (a *arm[T]) importanceWeights(d datasets.Split[T]) ([]float64, calib.ShiftDiagnostics, error) {
	fs, ft := features(a.base, d), features(a.base, a.tgt)
	w, shift, err := calib.DomainWeights(fs, ft, len(fs)/d.Len(), calib.DomainOptions{Seed: a.seed})
	if err != nil {
		return nil, shift, fmt.Errorf("experiment: importance weights of the auxiliary head: %w", err)
	}
	return w, shift, nil
}

// pseudoCalAux is the temperature that makes m's auxiliary head calibrated
// on PseudoCal's pseudo-target (Hu et al., 2024): the target inputs mixed
// in pairs (λ = 0.65, baselines.PseudoMixup) with the pseudo-label of the
// mix, the head's logits on them fitted by NLL against the pseudo-labels
// (class paradigms) or against whether the base model predicts them
// (top-label). Its random stream is its own, so that a resumed step
// draws it again.
func (a *arm[T]) pseudoCalAux(p ecl.Paradigm, m *ecl.Classifier[T]) (float64, error) {
	k, x := a.classes, a.inputs
	n := x.Dim(0)
	probs := tensor.Softmax(tensor.FromSlice(logits(a.full, x), n, k), 1).Data()
	mixed, labels, err := baselines.PseudoMixup(x.Data(), x.Len()/max(n, 1), probs, k, a.recipe.Batch, 0.65, false, rand.New(rand.NewPCG(a.seed, 0x9ca1)))
	if err != nil {
		return 0, err
	}
	if len(labels) == 0 {
		return 0, &UnfitError{"the PseudoCal head found no target pair with different predictions"}
	}
	in := tensor.FromSliceOn(x.Device(), mixed, append([]int{len(labels)}, x.Shape()[1:]...)...)
	if a.embed != nil {
		in = a.embed(in)
	}
	aux := logits(nn.Sequential[T]{m.Backbone, m.Aux}, in)
	out := k
	if p == ecl.TopLabel {
		out = 2
		pred := logits(a.base, in)
		for i, y := range labels {
			labels[i] = 0
			if metrics.Argmax(pred[i*k:(i+1)*k]) == y {
				labels[i] = 1
			}
		}
	}
	return baselines.FitTemperature(aux, out, labels, nil, baselines.NLL)
}

// summary is a one-line account of d for the progress log: the auxiliary
// head's estimate against the truth on the target's test split (mean
// absolute difference per class for the class paradigms) and the last
// epoch's ECL term, λ and gradient ratio; empty for a nil d.
func (d *Diagnostics) summary() string {
	if d == nil {
		return ""
	}
	s := ""
	for _, c := range d.Aux {
		if c.Domain != "target test" {
			continue
		}
		if len(c.Estimate) == 1 {
			s += fmt.Sprintf("; aux P(correct) %.3f vs ACC %.3f", c.Estimate[0], c.Actual[0])
		} else {
			s += fmt.Sprintf("; aux class-frequency error %.3f", meanAbsDiff(c.Estimate, c.Actual))
		}
	}
	if n := len(d.Epochs); n > 0 {
		e := d.Epochs[n-1]
		s += fmt.Sprintf("; last epoch ECL %.4g, λ %.3g, |∇ECL|/|∇CE| %.3g", e.Term, e.Lambda, e.GradRatio)
	}
	return s
}

// meanAbsDiff is the mean of |a_i − b_i|.
func meanAbsDiff(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += math.Abs(a[i] - b[i])
	}
	return s / float64(max(len(a), 1))
}

// atcAux fits m's auxiliary head to the base model's target accuracy
// that ATC estimates (baselines.ATC on negative-entropy scores, its
// threshold from the held-out source): for top-label the shift of its
// logit of being correct, otherwise the temperature of its logits, under
// which its mean estimate on the target's unlabelled split, P(correct) or
// the largest class probability, equals that accuracy. It returns ATC's
// estimate too.
func (a *arm[T]) atcAux(p ecl.Paradigm, m *ecl.Classifier[T]) (temp, shift, acc float64, err error) {
	k := a.classes
	valLogits, _, _ := a.baseLogits()
	val, tgt := tensor.Softmax(tensor.FromSlice(valLogits, a.val.Len(), k), 1).Data(), probs(a.base, a.tgt, k)
	correct := make([]bool, a.val.Len())
	for i, y := range a.val.Y {
		correct[i] = metrics.Argmax(val[i*k:(i+1)*k]) == y
	}
	if acc, _, err = baselines.ATC(baselines.NegEntropy(val, k), correct, baselines.NegEntropy(tgt, k)); err != nil {
		return 0, 0, 0, fmt.Errorf("experiment: the ATC head: %w", err)
	}
	if p == ecl.TopLabel {
		shift, err = baselines.ShiftForMean(correctLogits(m, a.tgt.X), acc)
	} else {
		temp, err = baselines.TemperatureForMean(logits(nn.Sequential[T]{m.Backbone, m.Aux}, a.tgt.X), k, acc)
	}
	if err != nil {
		return 0, 0, acc, &UnfitError{fmt.Sprintf("the ATC head cannot match ATC's target accuracy %.4f: %v", acc, err)}
	}
	return temp, shift, acc, nil
}
