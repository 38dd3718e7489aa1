package experiment

import (
	"fmt"
	"math/rand/v2"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/datasets"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/ecl/baselines"
	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/tensor"
	"github.com/ecl-go/ecl/train"
)

// The train-time family (registry): a copy of the base model fine-tuned
// on the ECL stage's schedule (train.FineTune) with the source
// cross-entropy plus a regulariser (regularised) — 1·Soft-ECE on the
// source (Karandikar et al.), 0.5·DECE (Bohdal et al.), 1·ECE^KDE
// (Popordanoska et al.; canonical, p = 1, bandwidth chosen on each batch;
// the weights are our choice, the papers leave them to tuning) or 1·Soft-ECE
// on the labelled target (the oracle) — or with a loss in place of the
// cross-entropy (fineTuned: focal.go); and DRL, the robust predictive form
// trained and evaluated with density ratios.

// term is a regulariser of the source and target probabilities ps, pt of
// a pair of batches s, t, for k classes.
type term[T tensor.Float] func(k int, ps, pt *autograd.Var[T], s, t datasets.Split[T]) *autograd.Var[T]

// regularised is the fit of a method fine-tuned with CE + r.
func regularised[T tensor.Float](r term[T]) func(a *arm[T], rng *rand.Rand) (src, tgt []float64, err error) {
	return func(a *arm[T], rng *rand.Rand) (src, tgt []float64, err error) {
		k := a.classes
		return a.fineTune(rng, train.Objective[T]{Term: func(ps, pt *autograd.Var[T], s, t datasets.Split[T]) *autograd.Var[T] {
			return r(k, ps, pt, s, t)
		}})
	}
}

// fineTuned is the fit of a method fine-tuned with loss in place of the
// cross-entropy.
func fineTuned[T tensor.Float](loss train.Loss[T]) func(a *arm[T], rng *rand.Rand) (src, tgt []float64, err error) {
	return func(a *arm[T], rng *rand.Rand) (src, tgt []float64, err error) {
		return a.fineTune(rng, train.Objective[T]{Loss: loss})
	}
}

// fineTune trains a copy of the base model with obj (train.FineTune) and
// returns its probabilities on the evaluated source and target.
func (a *arm[T]) fineTune(rng *rand.Rand, obj train.Objective[T]) (src, tgt []float64, err error) {
	m, err := a.models.copy(a.classes)
	if err != nil {
		return nil, nil, err
	}
	rec, _, err := a.training(a.recipe, m, a.stepStream, nil)
	if err != nil {
		return nil, nil, err
	}
	if err := train.FineTune(rng, rec, m, a.src, a.tgt, obj); err != nil {
		return nil, nil, err
	}
	return probs(m, a.evalSrc, a.classes), probs(m, a.evalTgt, a.classes), nil
}

// softECE is Soft-ECE of probabilities p [N, k] against labels.
func softECE[T tensor.Float](k int, p *autograd.Var[T], labels []int) *autograd.Var[T] {
	_, correct := metrics.TopLabel(float64s(p.Value), k, labels)
	return ecl.SoftECE(ecl.TopConfidence(p), tensor.To(tensor.Convert[T](tensor.FromSlice(correct)), p.Value.Device()), 15)
}

func softECETerm[T tensor.Float](k int, ps, _ *autograd.Var[T], s, _ datasets.Split[T]) *autograd.Var[T] {
	return softECE(k, ps, s.Y)
}

func oracleTerm[T tensor.Float](k int, _, pt *autograd.Var[T], _, t datasets.Split[T]) *autograd.Var[T] {
	return softECE(k, pt, t.Y)
}

func deceTerm[T tensor.Float](_ int, ps, _ *autograd.Var[T], s, _ datasets.Split[T]) *autograd.Var[T] {
	return autograd.Scale(baselines.DECE(ps, s.Y, 15), 0.5)
}

func kdeTerm[T tensor.Float](k int, ps, _ *autograd.Var[T], s, _ datasets.Split[T]) *autograd.Var[T] {
	h, err := metrics.KDEBandwidth(float64s(ps.Value), k)
	if err != nil {
		panic(fmt.Sprintf("experiment: KDE loss on a batch of %d: %v", len(s.Y), err))
	}
	return baselines.KDELoss(ps, s.Y, h)
}

// fitDRL trains a copy of the base model on the source logits scaled by
// the inverse density ratios and predicts with the ratios of the
// evaluated samples (train.DRL, train.ScaledProbs).
func fitDRL[T tensor.Float](a *arm[T], rng *rand.Rand) (src, tgt []float64, err error) {
	m, err := a.models.copy(a.classes)
	if err != nil {
		return nil, nil, err
	}
	rs, es, et, err := a.densityRatios()
	if err != nil {
		return nil, nil, err
	}
	rec, _, err := a.training(a.recipe, m, a.stepStream, nil)
	if err != nil {
		return nil, nil, err
	}
	if err := train.DRL(rng, rec, m, a.src, rs); err != nil {
		return nil, nil, err
	}
	return train.ScaledProbs(m, a.evalSrc.X, es), train.ScaledProbs(m, a.evalTgt.X, et), nil
}
