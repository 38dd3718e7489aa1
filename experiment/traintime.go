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

// The train-time family: a copy of the base model fine-tuned on the ECL
// stage's schedule with the source cross-entropy plus a regulariser —
// 1·Soft-ECE on the source ("softece", Karandikar et al.), 0.5·DECE
// ("dece", Bohdal et al.), 1·ECE^KDE ("kde", Popordanoska et al.;
// canonical, p = 1, bandwidth chosen on each batch; the weights are our
// choice, the papers leave them to tuning) or 1·Soft-ECE on the labelled
// target ("oracle") — and DRL, the robust predictive form trained and
// evaluated with density ratios ("drl").
func init() {
	register(Method{Key: "softece", Name: "Soft-ECE", fit32: regularised(softECETerm[float32]), fit64: regularised(softECETerm[float64])})
	register(Method{Key: "dece", Name: "DECE", fit32: regularised(deceTerm[float32]), fit64: regularised(deceTerm[float64])})
	register(Method{Key: "kde", Name: "KDE", fit32: regularised(kdeTerm[float32]), fit64: regularised(kdeTerm[float64])})
	register(Method{Key: "drl", Name: "DRL", fit32: fitDRL[float32], fit64: fitDRL[float64]})
	register(Method{Key: "oracle", Name: "Oracle", fit32: regularised(oracleTerm[float32]), fit64: regularised(oracleTerm[float64])})
}

// term is a regulariser of the source and target probabilities ps, pt of
// a pair of batches s, t, for k classes.
type term[T tensor.Float] func(k int, ps, pt *autograd.Var[T], s, t datasets.Split[T]) *autograd.Var[T]

// regularised is the fit of a train-time method with regulariser r: a copy
// of the base model trained by train.Regularised.
func regularised[T tensor.Float](r term[T]) func(a *arm[T], rng *rand.Rand) (src, tgt []float64, err error) {
	return func(a *arm[T], rng *rand.Rand) (src, tgt []float64, err error) {
		m, err := a.models.copy(a.classes)
		if err != nil {
			return nil, nil, err
		}
		k := a.classes
		reg := func(ps, pt *autograd.Var[T], s, t datasets.Split[T]) *autograd.Var[T] { return r(k, ps, pt, s, t) }
		rec, _, err := a.training(a.recipe, m, a.stepStream, nil)
		if err != nil {
			return nil, nil, err
		}
		if err := train.Regularised(rng, rec, m, a.src, a.tgt, reg); err != nil {
			return nil, nil, err
		}
		return probs(m, a.evalSrc, k), probs(m, a.evalTgt, k), nil
	}
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
