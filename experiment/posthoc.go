package experiment

import (
	"fmt"
	"math/rand/v2"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/ecl/baselines"
	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/nn"
	"github.com/ecl-go/ecl/tensor"
	"github.com/ecl-go/ecl/train"
	"gonum.org/v1/gonum/stat"
)

// Methods lists the baselines RunSim knows: post-hoc "ts" (temperature
// scaling), "cpcs" (importance-weighted temperature), "transcal" and
// "pseudocal"
// (temperature fitted on mixed-up target inputs with pseudo-labels), and
// train-time
// "softece", "dece", "kde", "drl" (the robust predictive form with density
// ratios) and "oracle" (Soft-ECE with target labels).
var Methods = []string{"ts", "cpcs", "transcal", "pseudocal", "softece", "dece", "kde", "drl", "oracle"}

// methodNames are the table's names of the baselines.
var methodNames = map[string]string{"ts": "TS", "cpcs": "CPCS", "transcal": "TransCal", "pseudocal": "PseudoCal", "softece": "Soft-ECE", "dece": "DECE", "kde": "KDE", "drl": "DRL", "oracle": "Oracle"}

// isPostHoc reports a method applied to the uncalibrated model's outputs.
func isPostHoc(m string) bool {
	return m == "ts" || m == "cpcs" || m == "transcal" || m == "pseudocal"
}

// trainTime returns the regulariser of a train-time baseline for k
// classes, added to the source cross-entropy: 1·Soft-ECE on the source
// (Karandikar et al.), 0.5·DECE (Bohdal et al.), 1·ECE^KDE (Popordanoska et
// al.; canonical, p = 1, bandwidth chosen on each batch; the weight is our
// choice, the papers leave it to tuning), or 1·Soft-ECE on the labelled
// target (oracle).
func trainTime[T tensor.Float](method string, k int) (func(ps, pt *autograd.Var[T], s, t train.Data[T]) *autograd.Var[T], error) {
	softECE := func(p *autograd.Var[T], labels []int) *autograd.Var[T] {
		_, correct := metrics.TopLabel(host(p.Value), k, labels)
		return ecl.SoftECE(ecl.TopConfidence(p), tensor.To(tensor.Convert[T](tensor.FromSlice(correct)), p.Value.Device()), 15)
	}
	switch method {
	case "softece":
		return func(ps, _ *autograd.Var[T], s, _ train.Data[T]) *autograd.Var[T] { return softECE(ps, s.Y) }, nil
	case "dece":
		return func(ps, _ *autograd.Var[T], s, _ train.Data[T]) *autograd.Var[T] {
			return autograd.Scale(baselines.DECE(ps, s.Y, 15), 0.5)
		}, nil
	case "kde":
		return func(ps, _ *autograd.Var[T], s, _ train.Data[T]) *autograd.Var[T] {
			h, err := metrics.KDEBandwidth(host(ps.Value), k)
			if err != nil {
				panic(fmt.Sprintf("experiment: KDE loss on a batch of %d: %v", len(s.Y), err))
			}
			return baselines.KDELoss(ps, s.Y, h)
		}, nil
	case "oracle":
		return func(_, pt *autograd.Var[T], _, t train.Data[T]) *autograd.Var[T] { return softECE(pt, t.Y) }, nil
	}
	return nil, fmt.Errorf("experiment: unknown method %q (want one of %v)", method, Methods)
}

// host is t's elements in float64, row-major.
func host[T tensor.Float](t *tensor.Tensor[T]) []float64 { return tensor.Convert[float64](t).Data() }

// predictChunk bounds the rows m sees at once in logits.
const predictChunk = 1000

// logits is m's evaluation-mode output on x, in float64.
func logits[T tensor.Float](m nn.Module[T], x *tensor.Tensor[T]) []float64 {
	return host(featureTensor(m, x))
}

// fitted is a post-hoc method's predictions on both domains.
type fitted struct {
	method   string
	src, tgt []float64
}

// ratioClip bounds the importance weights of CPCS.
const ratioClip = 20

// postHoc fits each named method on the base model's held-out source
// predictions (a.val), or for PseudoCal on mixed-up target inputs, and
// applies it to the evaluated source and target.
func (a *arm[T]) postHoc(methods []string, rng *rand.Rand) ([]fitted, error) {
	k := a.classes
	lv, ls, lt := logits(a.base, a.val.X), logits(a.base, a.evalSrc.X), logits(a.base, a.evalTgt.X)
	var out []fitted
	for _, m := range methods {
		if !isPostHoc(m) {
			continue
		}
		var weights []float64
		obj := baselines.NLL
		fitLogits, fitLabels := lv, a.val.Y
		switch m {
		case "pseudocal":
			x := a.inputs
			n := x.Dim(0)
			d := x.Len() / max(n, 1)
			probs := tensor.Softmax(tensor.FromSlice(logits(a.full, x), n, k), 1).Data()
			mixed, labels, err := baselines.PseudoMixup(x.Data(), d, probs, k, a.recipe.Batch, 0.65, false, rng)
			if err != nil {
				return nil, err
			}
			if len(labels) == 0 {
				return nil, fmt.Errorf("experiment: PseudoCal found no target pair with different predictions")
			}
			fitLogits = logits(a.full, tensor.FromSliceOn(x.Device(), mixed, append([]int{len(labels)}, x.Shape()[1:]...)...))
			fitLabels = labels
		case "ts":
		case "cpcs":
			var err error
			if weights, err = a.domainWeights(nil); err != nil {
				return nil, err
			}
			obj = baselines.Brier
		case "transcal":
			w, err := a.domainWeights(rng)
			if err != nil {
				return nil, err
			}
			ts, err := baselines.FitTemperature(lv, k, a.val.Y, nil, baselines.NLL)
			if err != nil {
				return nil, err
			}
			confs, correct := metrics.TopLabel(baselines.Scale(lv, k, ts), k, a.val.Y)
			errs := make([]float64, len(correct))
			for i, c := range correct {
				errs[i] = 1 - c
			}
			t, err := baselines.TransCal(lt, k, w, errs, stat.Mean(confs, nil))
			if err != nil {
				return nil, err
			}
			out = append(out, fitted{method: methodNames[m], src: baselines.Scale(ls, k, t), tgt: baselines.Scale(lt, k, t)})
			continue
		}
		t, err := baselines.FitTemperature(fitLogits, k, fitLabels, weights, obj)
		if err != nil {
			return nil, err
		}
		out = append(out, fitted{method: methodNames[m], src: baselines.Scale(ls, k, t), tgt: baselines.Scale(lt, k, t)})
	}
	return out, nil
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
	if rng != nil {
		fs, ft = baselines.Balance(fs, ft, d, rng)
	}
	dom, err := baselines.FitDomain(fs, ft, d, 1e-3)
	m := domainModel[T]{dom, a.base}
	if err == nil && rng == nil {
		a.domain = &m
	}
	return m, err
}

// features is the base model's backbone output on d, row-major.
func features[T tensor.Float](base *ecl.Classifier[T], d train.Data[T]) []float64 {
	return logits(base.Backbone, d.X)
}

// ratios maps each sample of d to f(clipped p_t/p_s).
func (m domainModel[T]) ratios(d train.Data[T], lo float64, f func(float64) float64) []float64 {
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
