package experiment

import (
	"math/rand/v2"

	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/tensor"
	"github.com/ecl-go/ecl/train"
)

// arm is one trained base model with the data its calibration methods are
// fitted on and evaluated with: what a study repeats over seeds and setups.
// Every method that trains does so on the main head of a fresh copy of the
// base model, so that rows compare.
type arm[T tensor.Float] struct {
	recipe  train.Recipe
	classes int
	seed    uint64
	// base is the uncalibrated model, clone(auxOut) a copy of its backbone
	// and main head with a new auxiliary head of auxOut outputs.
	base  *ecl.Classifier[T]
	clone func(auxOut int) (*ecl.Classifier[T], error)
	// src trains, val (held-out source) fits the post-hoc methods, tgt is
	// the target the training-time methods see (its labels only the
	// oracle's); evalSrc and evalTgt are evaluated.
	src, val, tgt, evalSrc, evalTgt train.Data[T]
	// full is the whole network and inputs the target inputs it takes, for
	// PseudoCal's input-space mixup (the base model may work on features).
	full   *ecl.Classifier[T]
	inputs *tensor.Tensor[T]
	// record stores one method's probabilities on evalSrc and evalTgt.
	record func(method string, src, tgt []float64) error
	// domain is the unbalanced domain classifier, fitted once for CPCS and
	// DRL (fitDomainModel).
	domain *domainModel[T]
}

// probs is m's softmax output on d, of k classes.
func probs[T tensor.Float](m *ecl.Classifier[T], d train.Data[T], k int) []float64 {
	return tensor.Softmax(tensor.FromSlice(logits(m, d.X), d.Len(), k), 1).Data()
}

// eval records m's predictions under the method's name.
func (a *arm[T]) eval(method string, m *ecl.Classifier[T]) error {
	return a.record(method, probs(m, a.evalSrc, a.classes), probs(m, a.evalTgt, a.classes))
}

// baselines records the base model (Uncal), the named methods and, with
// control, the CE-finetune row.
func (a *arm[T]) baselines(methods []string, control bool) error {
	seed := a.seed
	if err := a.eval("Uncal", a.base); err != nil {
		return err
	}
	fits, err := a.postHoc(methods, rand.New(rand.NewPCG(seed, 5)))
	if err != nil {
		return err
	}
	for _, f := range fits {
		if err := a.record(f.method, f.src, f.tgt); err != nil {
			return err
		}
	}
	for _, name := range methods {
		if isPostHoc(name) {
			continue
		}
		m, err := a.clone(a.classes)
		if err != nil {
			return err
		}
		rng := rand.New(rand.NewPCG(seed, 4))
		if name == "drl" {
			rs, es, et, err := a.densityRatios()
			if err != nil {
				return err
			}
			src, evalSrc, evalTgt := a.src, a.evalSrc, a.evalTgt
			src.Scale, evalSrc.Scale, evalTgt.Scale = rs, es, et
			train.DRL(rng, a.recipe, m, src)
			if err := a.record(methodNames[name], train.ScaledProbs(m, evalSrc), train.ScaledProbs(m, evalTgt)); err != nil {
				return err
			}
			continue
		}
		term, err := trainTime[T](name, a.classes)
		if err != nil {
			return err
		}
		train.Regularised(rng, a.recipe, m, a.src, a.tgt, term)
		if err := a.eval(methodNames[name], m); err != nil {
			return err
		}
	}
	if !control {
		return nil
	}
	m, err := a.clone(a.classes)
	if err != nil {
		return err
	}
	train.Control(rand.New(rand.NewPCG(seed, 4)), a.recipe, m, a.src, a.tgt)
	return a.eval("CE-finetune", m)
}

// ecl trains the auxiliary head and the ECL stage of paradigm p on a copy
// of the base model and records it.
func (a *arm[T]) ecl(p ecl.Paradigm) error {
	auxOut := a.classes
	if p == ecl.TopLabel {
		auxOut = 2
	}
	m, err := a.clone(auxOut)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(a.seed, 4+uint64(p)))
	train.Aux(rng, a.recipe, p, m, a.src)
	if err := train.ECL(rng, a.recipe, p, m, a.src, a.tgt, a.classes); err != nil {
		return err
	}
	return a.eval("ECL-"+p.String(), m)
}
