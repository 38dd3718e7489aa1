package train

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/datasets"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/nn"
	"github.com/ecl-go/ecl/tensor"
)

// Loss is a fine-tuning loss: the scalar to minimise on a pair of source
// and target batches s, t given the main head's logits ls, lt on them.
type Loss[T tensor.Float] func(ls, lt *autograd.Var[T], s, t datasets.Split[T]) *autograd.Var[T]

// Term is a term added to the source cross-entropy: a scalar of the main
// head's softmax probabilities ps, pt on a pair of batches s, t.
type Term[T tensor.Float] func(ps, pt *autograd.Var[T], s, t datasets.Split[T]) *autograd.Var[T]

// Objective is what FineTune minimises. Set one field: Loss replaces the
// cross-entropy (focal loss, say); Term is added to it, CE(source) + Term
// (the regularised form of Soft-ECE, DECE, ECE^KDE, the oracle), and only
// this form is traced (Recipe.Trace), the cross-entropy and the term apart.
type Objective[T tensor.Float] struct {
	Loss Loss[T]
	Term Term[T]
}

// FineTune fine-tunes the main head (and the backbone with r.WholeNetwork)
// with obj on the ECL stage's schedule (r.ECL, r.Batch) and its pairs of
// source and target batches, so that a train-time method's row compares
// with ECL's and CE-finetune's: the same batches in the same order. The
// target's labels are there for the methods that use them (the oracle).
func FineTune[T tensor.Float](rng *rand.Rand, r Recipe, m *ecl.Classifier[T], src, tgt datasets.Split[T], obj Objective[T]) error {
	if (obj.Loss == nil) == (obj.Term == nil) {
		return fmt.Errorf("train.FineTune: an objective with both a loss and a term, or neither; want one")
	}
	if err := check("fine-tuning", src, tgt); err != nil {
		return err
	}
	if obj.Loss != nil {
		return finetune(rng, "fine-tuning", r, m, src, tgt, nil, obj.Loss, nil)
	}
	r.Adaptive, r.LambdaCE = false, 1
	return finetune(rng, "fine-tuning", r, m, src, tgt, nil, nil, func(ps, pt *autograd.Var[T], s, t datasets.Split[T], _, _ []int) *autograd.Var[T] {
		return obj.Term(ps, pt, s, t)
	})
}

// Control is the ECL stage without ECL: the main head fine-tuned with the
// same schedule, batches and cross-entropy weight (λ_ce, 1 with
// r.Adaptive), so that a comparison can tell the effect of ECL from that
// of further training.
func Control[T tensor.Float](rng *rand.Rand, r Recipe, m *ecl.Classifier[T], src, tgt datasets.Split[T]) error {
	if err := check("CE-finetune", src, tgt); err != nil {
		return err
	}
	return finetune(rng, "CE-finetune", r, m, src, tgt, nil, func(ls, _ *autograd.Var[T], s, _ datasets.Split[T]) *autograd.Var[T] {
		ce := nn.CrossEntropy(ls, s.Y)
		if !r.Adaptive {
			ce = autograd.Scale(ce, T(r.LambdaCE))
		}
		return ce
	}, nil)
}

// finetune runs stage 3 on the main head (and the backbone with
// r.WholeNetwork). The loss of a step is loss(logits) when extra is nil;
// otherwise CE plus the weighted term extra(source probs, target probs,
// batches, their rows), weighted as r says (λ_ce·CE + term, or CE +
// β^γ·term with r.Adaptive). state, when set, is the state extra keeps,
// saved and restored with the stage's checkpoints (r.ECL.Checkpoint,
// Resume) beside the adaptive weight. With r.Trace and extra, the term and
// the cross-entropy are backpropagated apart to the logits, for their
// gradient norms, and their sum's gradient is assembled there (bit for bit
// as the backward pass of the sum makes it) and backpropagated through the
// head: the term's backward pass runs once per step, not twice.
func finetune[T tensor.Float](rng *rand.Rand, stage string, r Recipe, m *ecl.Classifier[T], src, tgt datasets.Split[T], state *lossState, loss Loss[T], extra func(ps, pt *autograd.Var[T], s, t datasets.Split[T], si, ti []int) *autograd.Var[T]) error {
	var weight ecl.AdaptiveWeight
	weight.Gamma = r.Gamma
	params := m.Main.Params()
	if r.WholeNetwork {
		params = m.Params()
	}
	st := r.ECL
	// A checkpoint keeps the adaptive weight's sums and the term's state.
	if res := st.Resume; res != nil && len(res.Loss) > 0 {
		if len(res.Loss) < 2 {
			return fmt.Errorf("train: resuming the %s stage: %d values of loss state", stage, len(res.Loss))
		}
		weight.SetState([2]float64(res.Loss[:2]))
		if state != nil {
			if err := state.restore(res.Loss[2:]); err != nil {
				return err
			}
		}
	}
	if save := st.Checkpoint; save != nil {
		st.Checkpoint = func(s StageState) error {
			w := weight.State()
			s.Loss = w[:]
			if state != nil {
				s.Loss = append(s.Loss, state.save()...)
			}
			return save(s)
		}
	}
	var sum EpochTrace
	var steps, ratios int
	trace := r.Trace != nil && extra != nil
	if trace {
		st.OnEpoch = func(epoch int, mean float64) {
			if r.ECL.OnEpoch != nil {
				r.ECL.OnEpoch(epoch, mean)
			}
			n := float64(max(steps, 1))
			r.Trace(EpochTrace{Epoch: epoch, CE: sum.CE / n, Term: sum.Term / n, Lambda: sum.Lambda / n, GradRatio: sum.GradRatio / float64(max(ratios, 1))})
			sum, steps, ratios = EpochTrace{}, 0, 0
		}
	}
	return fit(rng, stage, st, r.Batch, params, src.Len(), tgt.Len(), func(si, ti []int) float64 {
		s, t := src.Rows(si), tgt.Rows(ti)
		features := func() (*autograd.Var[T], *autograd.Var[T]) {
			return m.Backbone.Forward(autograd.Const(s.X)), m.Backbone.Forward(autograd.Const(t.X))
		}
		var fs, ft *autograd.Var[T]
		if r.WholeNetwork {
			fs, ft = features()
		} else {
			autograd.NoGrad(func() { fs, ft = features() })
		}
		ls, lt := m.Main.Forward(fs), m.Main.Forward(ft)
		if extra == nil {
			l := loss(ls, lt, s, t)
			l.Backward()
			return float64(l.Value.Item())
		}
		// With a trace, the loss is built on leaves holding the logits.
		hs, ht := ls, lt
		if trace {
			hs, ht = autograd.Param(ls.Value), autograd.Param(lt.Value)
		}
		ce := nn.CrossEntropy(hs, s.Y)
		added := extra(autograd.Softmax(hs, 1), autograd.Softmax(ht, 1), s, t, si, ti)
		wce, wterm := r.LambdaCE, 1.0
		if r.Adaptive {
			weight.Observe(float64(ce.Value.Item()), float64(added.Value.Item()))
			wce, wterm = 1, weight.Lambda()
		}
		var total *autograd.Var[T]
		if r.Adaptive {
			total = autograd.Add(ce, autograd.Scale(added, T(wterm)))
		} else {
			total = autograd.Add(autograd.Scale(ce, T(r.LambdaCE)), added)
		}
		if !trace {
			total.Backward()
			return float64(total.Value.Item())
		}
		// The sum's backward pass seeds each term with its weight; the
		// weighted term's gradient norm is wterm·|∇term| up to rounding
		// (exactly so for the fixed weight 1).
		ts, tt := seeded(added, T(wterm), hs, ht)
		cs, _ := seeded(ce, T(wce), hs, ht)
		unit := cs
		if wce != 1 {
			unit, _ = seeded(ce, 1, hs, ht)
		}
		term := headNorm(params, ls, lt, ts, tt)
		if den := wce * headNorm(params, ls, lt, unit, nil); den != 0 {
			sum.GradRatio += term / den
			ratios++
		}
		sum.CE, sum.Term, sum.Lambda = sum.CE+float64(ce.Value.Item()), sum.Term+float64(added.Value.Item()), sum.Lambda+wterm
		steps++
		// ls collects both terms' gradients, lt the term's alone.
		if ts != nil {
			cs = tensor.Add(ts, cs)
		}
		backwardTo(ls, lt, cs, tt)
		return float64(total.Value.Item())
	})
}

// seeded backpropagates v, seeded with w, to the leaves hs and ht, and
// returns and clears their gradients (nil where v does not reach).
func seeded[T tensor.Float](v *autograd.Var[T], w T, hs, ht *autograd.Var[T]) (gs, gt *tensor.Tensor[T]) {
	v.BackwardWith(tensor.FullOn(v.Value.Device(), w, v.Shape()...))
	gs, gt = hs.Grad, ht.Grad
	hs.ZeroGrad()
	ht.ZeroGrad()
	return gs, gt
}

// backwardTo propagates the gradients gs and gt (nil: none) of the logits
// ls and lt back through the graph.
func backwardTo[T tensor.Float](ls, lt *autograd.Var[T], gs, gt *tensor.Tensor[T]) {
	if gs != nil {
		ls.BackwardWith(gs)
	}
	if gt != nil {
		lt.BackwardWith(gt)
	}
}

// headNorm is the Euclidean norm of the gradient with respect to params of
// a function whose gradients at the logits ls and lt are gs and gt (nil:
// none), which it leaves without gradients.
func headNorm[T tensor.Float](params []*autograd.Var[T], ls, lt *autograd.Var[T], gs, gt *tensor.Tensor[T]) float64 {
	for _, p := range params {
		p.ZeroGrad()
	}
	backwardTo(ls, lt, gs, gt)
	var sq float64
	for _, p := range params {
		if p.Grad != nil {
			for _, g := range tensor.Convert[float64](p.Grad).Data() {
				sq += g * g
			}
		}
		p.ZeroGrad()
	}
	return math.Sqrt(sq)
}
