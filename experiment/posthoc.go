package experiment

import (
	"math/rand/v2"

	"github.com/ecl-go/ecl/datasets"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/ecl/baselines"
	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/nn"
	"github.com/ecl-go/ecl/tensor"
	"gonum.org/v1/gonum/stat"
)

// The post-hoc family (registry): temperature scaling fitted on the
// held-out source (fitTS), importance-weighted temperature with the Brier
// score (fitCPCS), TransCal and PseudoCal, a temperature fitted on mixed-up
// target inputs with pseudo-labels; each recalibrates the base model's
// logits.

// float64s copies t's elements to float64, row-major.
func float64s[T tensor.Float](t *tensor.Tensor[T]) []float64 {
	return tensor.Convert[float64](t).Data()
}

// predictChunk bounds the rows m sees at once in logits.
const predictChunk = 1000

// logits is m's evaluation-mode output on x, in float64.
func logits[T tensor.Float](m nn.Module[T], x *tensor.Tensor[T]) []float64 {
	return float64s(featureTensor(m, x))
}

// ratioClip bounds the importance weights of CPCS.
const ratioClip = 20

// baseLogits are the base model's logits on the held-out source, the
// evaluated source and the evaluated target, computed once per arm.
func (a *arm[T]) baseLogits() (val, src, tgt []float64) {
	if a.logits == nil {
		a.logits = [][]float64{logits(a.base, a.val.X), logits(a.base, a.evalSrc.X), logits(a.base, a.evalTgt.X)}
	}
	return a.logits[0], a.logits[1], a.logits[2]
}

// temperature fits a temperature on fitLogits and labels (weighted, with
// the objective obj) and applies it to the base model's evaluated source
// and target logits.
func (a *arm[T]) temperature(fitLogits []float64, labels []int, weights []float64, obj baselines.Objective) (src, tgt []float64, err error) {
	_, ls, lt := a.baseLogits()
	t, err := baselines.FitTemperature(fitLogits, a.classes, labels, weights, obj)
	if err != nil {
		return nil, nil, err
	}
	return baselines.Scale(ls, a.classes, t), baselines.Scale(lt, a.classes, t), nil
}

func fitTS[T tensor.Float](a *arm[T], _ *rand.Rand) (src, tgt []float64, err error) {
	lv, _, _ := a.baseLogits()
	return a.temperature(lv, a.val.Y, nil, baselines.NLL)
}

func fitCPCS[T tensor.Float](a *arm[T], _ *rand.Rand) (src, tgt []float64, err error) {
	lv, _, _ := a.baseLogits()
	weights, err := a.domainWeights(nil)
	if err != nil {
		return nil, nil, err
	}
	return a.temperature(lv, a.val.Y, weights, baselines.Brier)
}

// fitTransCal: the temperature of TransCal from the held-out source's
// errors under temperature scaling, weighted by the balanced domain
// classifier's ratios.
func fitTransCal[T tensor.Float](a *arm[T], rng *rand.Rand) (src, tgt []float64, err error) {
	k := a.classes
	lv, ls, lt := a.baseLogits()
	w, err := a.domainWeights(rng)
	if err != nil {
		return nil, nil, err
	}
	ts, err := baselines.FitTemperature(lv, k, a.val.Y, nil, baselines.NLL)
	if err != nil {
		return nil, nil, err
	}
	confs, correct := metrics.TopLabel(baselines.Scale(lv, k, ts), k, a.val.Y)
	errs := make([]float64, len(correct))
	for i, c := range correct {
		errs[i] = 1 - c
	}
	t, err := baselines.TransCal(lt, k, w, errs, stat.Mean(confs, nil))
	if err != nil {
		return nil, nil, err
	}
	return baselines.Scale(ls, k, t), baselines.Scale(lt, k, t), nil
}

// fitPseudoCal: a temperature fitted on the whole network's logits of
// mixed-up target inputs, labelled by the pseudo-labels of the mix.
func fitPseudoCal[T tensor.Float](a *arm[T], rng *rand.Rand) (src, tgt []float64, err error) {
	k, x := a.classes, a.inputs
	n := x.Dim(0)
	d := x.Len() / max(n, 1)
	probs := tensor.Softmax(tensor.FromSlice(logits(a.full, x), n, k), 1).Data()
	mixed, labels, err := baselines.PseudoMixup(x.Data(), d, probs, k, a.recipe.Batch, 0.65, false, rng)
	if err != nil {
		return nil, nil, err
	}
	if len(labels) == 0 {
		return nil, nil, &UnfitError{"PseudoCal found no target pair with different predictions"}
	}
	return a.temperature(logits(a.full, tensor.FromSliceOn(x.Device(), mixed, append([]int{len(labels)}, x.Shape()[1:]...)...)), labels, nil, baselines.NLL)
}

// domainModel is a logistic domain classifier on the base model's backbone
// features.
type domainModel[T tensor.Float] struct {
	dom  *baselines.Domain
	base *ecl.Classifier[T]
}

// fitDomainModel fits it on the training source against the target; with
// rng, the smaller domain is first resampled to the size of the larger
// (TransCal's balancing). The unbalanced fit is made once per arm.
func (a *arm[T]) fitDomainModel(rng *rand.Rand) (domainModel[T], error) {
	if rng == nil && a.domain != nil {
		return *a.domain, nil
	}
	fs, ft := features(a.base, a.src), features(a.base, a.tgt)
	d := len(fs) / a.src.Len()
	rows := baselines.DomainRows{Source: fs, Target: ft, D: d}
	if rng != nil {
		rows.Balance(rng)
	}
	dom, err := rows.Fit(1e-3)
	m := domainModel[T]{dom, a.base}
	if err == nil && rng == nil {
		a.domain = &m
	}
	return m, err
}

// features is the base model's backbone output on d, row-major.
func features[T tensor.Float](base *ecl.Classifier[T], d datasets.Split[T]) []float64 {
	return logits(base.Backbone, d.X)
}

// ratios maps each sample of d to f(clipped p_t/p_s).
func (m domainModel[T]) ratios(d datasets.Split[T], lo float64, f func(float64) float64) []float64 {
	x := features(m.base, d)
	k := len(x) / d.Len()
	out := make([]float64, d.Len())
	for i := range out {
		out[i] = f(m.dom.Ratio(x[i*k:(i+1)*k], lo, ratioClip))
	}
	return out
}

// domainWeights are the importance weights p_t/p_s of the validation
// samples, clipped at ratioClip.
func (a *arm[T]) domainWeights(rng *rand.Rand) ([]float64, error) {
	m, err := a.fitDomainModel(rng)
	if err != nil {
		return nil, err
	}
	return m.ratios(a.val, 0, func(w float64) float64 { return w }), nil
}

// densityRatios returns DRL's p_s/p_t for the training source, the
// evaluated source and the evaluated target, clipped to [1/ratioClip,
// ratioClip].
func (a *arm[T]) densityRatios() (rs, es, et []float64, err error) {
	m, err := a.fitDomainModel(nil)
	if err != nil {
		return nil, nil, nil, err
	}
	inv := func(w float64) float64 { return 1 / w }
	return m.ratios(a.src, 1/ratioClip, inv), m.ratios(a.evalSrc, 1/ratioClip, inv), m.ratios(a.evalTgt, 1/ratioClip, inv), nil
}
