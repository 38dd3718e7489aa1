package experiment

import (
	"fmt"
	"math"
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
	// auxData names the source samples each ECL row's auxiliary head is
	// trained on, as held by auxSets (nil: one row, its head on src).
	auxData []string
	auxSets map[string]train.Data[T]
	// record stores one method's probabilities on evalSrc and evalTgt,
	// with the ECL rows' diagnostics.
	record func(method string, src, tgt []float64, d *Diagnostics) error
	// logits caches the base model's logits (baseLogits).
	logits [][]float64
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
	return a.record(method, probs(m, a.evalSrc, a.classes), probs(m, a.evalTgt, a.classes), nil)
}

// baselines records the base model (Uncal), the named methods (the
// post-hoc ones first, sharing one random stream, then the others, each
// from its own) and, with control, the CE-finetune row.
func (a *arm[T]) baselines(methods []string, control bool) error {
	seed := a.seed
	if err := a.eval("Uncal", a.base); err != nil {
		return err
	}
	var ms []Method
	for _, key := range methods {
		m, ok := lookupMethod(key)
		if !ok {
			return fmt.Errorf("experiment: unknown method %q (want one of %v)", key, Methods)
		}
		ms = append(ms, m)
	}
	postHoc := rand.New(rand.NewPCG(seed, 5))
	for _, pass := range []bool{true, false} {
		for _, m := range ms {
			if m.PostHoc != pass {
				continue
			}
			rng := postHoc
			if !m.PostHoc {
				rng = rand.New(rand.NewPCG(seed, 4))
			}
			src, tgt, err := fitMethod(m, a, rng)
			if err != nil {
				return err
			}
			if err := a.record(m.Name, src, tgt, nil); err != nil {
				return err
			}
		}
	}
	if !control {
		return nil
	}
	m, err := a.clone(a.classes)
	if err != nil {
		return err
	}
	if err := train.Control(rand.New(rand.NewPCG(seed, 4)), a.recipe, m, a.src, a.tgt); err != nil {
		return err
	}
	return a.eval("CE-finetune", m)
}

// Diagnostics explain an ECL row: the source samples its auxiliary head
// was trained on, that head's estimate against the truth on each domain
// (train.AuxCheck) and the ECL stage epoch by epoch.
type Diagnostics struct {
	AuxData string
	Aux     []AuxCheck
	Epochs  []train.EpochTrace
}

// AuxCheck is the auxiliary head's estimate and the truth on one domain:
// mean P(correct) and accuracy for top-label, per class otherwise.
type AuxCheck struct {
	Domain           string
	Estimate, Actual []float64
}

// ecl trains, for each of a.auxData, the auxiliary head and the ECL stage
// of paradigm p on a copy of the base model and records it with its
// diagnostics.
func (a *arm[T]) ecl(p ecl.Paradigm) error {
	auxOut := a.classes
	if p == ecl.TopLabel {
		auxOut = 2
	}
	splits := a.auxData
	if len(splits) == 0 {
		splits = []string{""}
	}
	for _, split := range splits {
		auxSrc, name := a.src, "ECL-"+p.String()
		if split != "" {
			auxSrc = a.auxSets[split]
			if len(splits) > 1 {
				name += "-" + split
			}
		}
		m, err := a.clone(auxOut)
		if err != nil {
			return err
		}
		rng := rand.New(rand.NewPCG(a.seed, 4+uint64(p)))
		if err := train.Aux(rng, a.recipe, p, m, auxSrc); err != nil {
			return err
		}
		d := &Diagnostics{AuxData: split}
		for _, dom := range []struct {
			name string
			data train.Data[T]
		}{{"source train", a.src}, {"source held-out", a.val}, {"target unlabelled", a.tgt}, {"target test", a.evalTgt}} {
			est, act := train.AuxCheck(p, m, dom.data, a.classes)
			d.Aux = append(d.Aux, AuxCheck{dom.name, est, act})
		}
		r := a.recipe
		r.Trace = func(e train.EpochTrace) { d.Epochs = append(d.Epochs, e) }
		if err := train.ECL(rng, r, p, m, a.src, a.tgt, a.classes); err != nil {
			return err
		}
		if err := a.record(name, probs(m, a.evalSrc, a.classes), probs(m, a.evalTgt, a.classes), d); err != nil {
			return err
		}
	}
	return nil
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
