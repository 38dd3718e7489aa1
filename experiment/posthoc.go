package experiment

import (
	"fmt"

	"github.com/ecl-go/ecl/ecl/baselines"
	"github.com/ecl-go/ecl/nn"
	"github.com/ecl-go/ecl/tensor"
	"github.com/ecl-go/ecl/train"
)

// PostHocMethods lists the post-hoc methods RunSim knows.
var PostHocMethods = []string{"ts", "cpcs"}

// fitted is a post-hoc method's predictions on both domains.
type fitted struct {
	method   string
	src, tgt []float64
}

// ratioClip bounds the importance weights of CPCS.
const ratioClip = 20

// postHoc fits each named method on the base model's held-out source
// predictions (val) and applies it to the source and target.
func postHoc(methods []string, base *nn.Classifier[float64], val, src, tgt train.Data) ([]fitted, error) {
	logits := func(d train.Data) []float64 { return nn.Predict[float64](base, d.X).Data() }
	lv, ls, lt := logits(val), logits(src), logits(tgt)
	var out []fitted
	for _, m := range methods {
		var weights []float64
		obj := baselines.NLL
		switch m {
		case "ts":
		case "cpcs":
			feat := func(d train.Data) *tensor.Tensor[float64] { return nn.Predict[float64](base.Backbone, d.X) }
			fs, ft, fv := feat(src), feat(tgt), feat(val)
			d := fs.Dim(1)
			dom, err := baselines.FitDomain(fs.Data(), ft.Data(), d, 1e-3)
			if err != nil {
				return nil, err
			}
			vd := fv.Data()
			weights = make([]float64, val.Len())
			for i := range weights {
				weights[i] = dom.Ratio(vd[i*d:(i+1)*d], 0, ratioClip)
			}
			obj = baselines.Brier
		default:
			return nil, fmt.Errorf("experiment: unknown post-hoc method %q (want one of %v)", m, PostHocMethods)
		}
		t, err := baselines.FitTemperature(lv, Classes, val.Y, weights, obj)
		if err != nil {
			return nil, err
		}
		out = append(out, fitted{method: map[string]string{"ts": "TS", "cpcs": "CPCS"}[m], src: baselines.Scale(ls, Classes, t), tgt: baselines.Scale(lt, Classes, t)})
	}
	return out, nil
}
