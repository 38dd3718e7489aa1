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

// trainTime returns the regulariser of a train-time baseline, added to the
// source cross-entropy: 1·Soft-ECE on the source (Karandikar et al.),
// 0.5·DECE (Bohdal et al.), 1·ECE^KDE (Popordanoska et al.; canonical,
// p = 1, bandwidth chosen on each batch; the weight is our choice, the
// papers leave it to tuning), or 1·Soft-ECE on the labelled target (oracle).
func trainTime(method string) (func(ps, pt *autograd.Var[float64], s, t train.Data[float64]) *autograd.Var[float64], error) {
	softECE := func(p *autograd.Var[float64], labels []int) *autograd.Var[float64] {
		_, correct := metrics.TopLabel(p.Value.Data(), Classes, labels)
		return ecl.SoftECE(ecl.TopConfidence(p), tensor.FromSlice(correct), 15)
	}
	switch method {
	case "softece":
		return func(ps, _ *autograd.Var[float64], s, _ train.Data[float64]) *autograd.Var[float64] {
			return softECE(ps, s.Y)
		}, nil
	case "dece":
		return func(ps, _ *autograd.Var[float64], s, _ train.Data[float64]) *autograd.Var[float64] {
			return autograd.Scale(baselines.DECE(ps, s.Y, 15), 0.5)
		}, nil
	case "kde":
		return func(ps, _ *autograd.Var[float64], s, _ train.Data[float64]) *autograd.Var[float64] {
			h, err := metrics.KDEBandwidth(ps.Value.Data(), Classes)
			if err != nil {
				panic(fmt.Sprintf("experiment: KDE loss on a batch of %d: %v", len(s.Y), err))
			}
			return baselines.KDELoss(ps, s.Y, h)
		}, nil
	case "oracle":
		return func(_, pt *autograd.Var[float64], _, t train.Data[float64]) *autograd.Var[float64] {
			return softECE(pt, t.Y)
		}, nil
	}
	return nil, fmt.Errorf("experiment: unknown method %q (want one of %v)", method, Methods)
}

// fitted is a post-hoc method's predictions on both domains.
type fitted struct {
	method   string
	src, tgt []float64
}

// ratioClip bounds the importance weights of CPCS.
const ratioClip = 20

// postHoc fits each named method on the base model's held-out source
// predictions (val), or for PseudoCal on mixed-up target batches of size
// batch, and applies it to the source and target.
func postHoc(methods []string, base *nn.Classifier[float64], val, src, tgt train.Data[float64], batch int, rng *rand.Rand) ([]fitted, error) {
	logits := func(d train.Data[float64]) []float64 { return nn.Predict[float64](base, d.X).Data() }
	lv, ls, lt := logits(val), logits(src), logits(tgt)
	var out []fitted
	for _, m := range methods {
		if !isPostHoc(m) {
			continue
		}
		var weights []float64
		obj := baselines.NLL
		fitLogits, fitLabels := lv, val.Y
		switch m {
		case "pseudocal":
			d := tgt.X.Dim(1)
			mixed, labels, err := baselines.PseudoMixup(tgt.X.Data(), d, tensor.Softmax(tensor.FromSlice(lt, tgt.Len(), Classes), 1).Data(), Classes, batch, 0.65, false, rng)
			if err != nil {
				return nil, err
			}
			if len(labels) == 0 {
				return nil, fmt.Errorf("experiment: PseudoCal found no target pair with different predictions")
			}
			fitLogits = nn.Predict[float64](base, tensor.FromSlice(mixed, len(labels), d)).Data()
			fitLabels = labels
		case "ts":
		case "cpcs":
			var err error
			if weights, err = domainWeights(base, val, src, tgt, nil); err != nil {
				return nil, err
			}
			obj = baselines.Brier
		case "transcal":
			w, err := domainWeights(base, val, src, tgt, rng)
			if err != nil {
				return nil, err
			}
			ts, err := baselines.FitTemperature(lv, Classes, val.Y, nil, baselines.NLL)
			if err != nil {
				return nil, err
			}
			confs, correct := metrics.TopLabel(baselines.Scale(lv, Classes, ts), Classes, val.Y)
			errs := make([]float64, len(correct))
			for i, c := range correct {
				errs[i] = 1 - c
			}
			t, err := baselines.TransCal(lt, Classes, w, errs, stat.Mean(confs, nil))
			if err != nil {
				return nil, err
			}
			out = append(out, fitted{method: methodNames[m], src: baselines.Scale(ls, Classes, t), tgt: baselines.Scale(lt, Classes, t)})
			continue
		}
		t, err := baselines.FitTemperature(fitLogits, Classes, fitLabels, weights, obj)
		if err != nil {
			return nil, err
		}
		out = append(out, fitted{method: methodNames[m], src: baselines.Scale(ls, Classes, t), tgt: baselines.Scale(lt, Classes, t)})
	}
	return out, nil
}

// domainModel is a logistic domain classifier on the base model's backbone
// features.
type domainModel struct {
	dom  *baselines.Domain
	base *nn.Classifier[float64]
}

// fitDomainModel fits it on source against target; with rng, the smaller
// domain is first resampled to the size of the larger (TransCal's balancing).
func fitDomainModel(base *nn.Classifier[float64], src, tgt train.Data[float64], rng *rand.Rand) (domainModel, error) {
	fs, ft := features(base, src), features(base, tgt)
	d := fs.Dim(1)
	s, t := fs.Data(), ft.Data()
	if rng != nil {
		s, t = baselines.Balance(s, t, d, rng)
	}
	dom, err := baselines.FitDomain(s, t, d, 1e-3)
	return domainModel{dom, base}, err
}

func features(base *nn.Classifier[float64], d train.Data[float64]) *tensor.Tensor[float64] {
	return nn.Predict[float64](base.Backbone, d.X)
}

// ratios maps each sample of d to f(clipped p_t/p_s).
func (m domainModel) ratios(d train.Data[float64], lo float64, f func(float64) float64) []float64 {
	fd := features(m.base, d)
	k, x := fd.Dim(1), fd.Data()
	out := make([]float64, d.Len())
	for i := range out {
		out[i] = f(m.dom.Ratio(x[i*k:(i+1)*k], lo, ratioClip))
	}
	return out
}

// domainWeights are the importance weights p_t/p_s of the validation
// samples, clipped at ratioClip.
func domainWeights(base *nn.Classifier[float64], val, src, tgt train.Data[float64], rng *rand.Rand) ([]float64, error) {
	m, err := fitDomainModel(base, src, tgt, rng)
	if err != nil {
		return nil, err
	}
	return m.ratios(val, 0, func(w float64) float64 { return w }), nil
}

// densityRatios returns DRL's p_s/p_t for the source and target samples,
// clipped to [1/ratioClip, ratioClip].
func densityRatios(base *nn.Classifier[float64], src, tgt train.Data[float64]) (rs, rt []float64, err error) {
	m, err := fitDomainModel(base, src, tgt, nil)
	if err != nil {
		return nil, nil, err
	}
	inv := func(w float64) float64 { return 1 / w }
	return m.ratios(src, 1/ratioClip, inv), m.ratios(tgt, 1/ratioClip, inv), nil
}
