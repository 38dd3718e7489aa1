package ecl

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// crosscheckDir holds the reference code's published outputs (provenance in
// its README.md).
const crosscheckDir = "testdata/crosscheck"

func readCrosscheck(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(crosscheckDir, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

type matrix [][]float64

func (m matrix) tensor() *tensor.Tensor[float64] {
	var flat []float64
	for _, r := range m {
		flat = append(flat, r...)
	}
	return tensor.FromSlice(flat, len(m), len(m[0]))
}

func flatten(v any) []float64 {
	switch x := v.(type) {
	case float64:
		return []float64{x}
	case []any:
		var out []float64
		for _, e := range x {
			out = append(out, flatten(e)...)
		}
		return out
	}
	return nil
}

// close reports |got − ref| ≤ 1e-6 + 1e-4·|ref|, the tolerance the reference
// README gives for a float64 port.
func closeTo(got, ref float64) bool { return math.Abs(got-ref) <= 1e-6+1e-4*math.Abs(ref) }

func compareSlices(t *testing.T, what string, got, ref []float64) {
	t.Helper()
	if len(got) != len(ref) {
		t.Fatalf("%s: %d values, reference has %d", what, len(got), len(ref))
	}
	for i := range ref {
		if !closeTo(got[i], ref[i]) {
			t.Errorf("%s[%d] = %.9g, reference %.9g", what, i, got[i], ref[i])
			return
		}
	}
}

type miniBatchFile struct {
	Paradigm   string `json:"paradigm"`
	NumClasses int    `json:"num_classes"`
	Tau        float64
	Calls      []struct {
		Inputs map[string]matrix `json:"inputs"`
		Loss   float64           `json:"loss"`
		USrc   any               `json:"u_source_after"`
		UTgt   any               `json:"u_target_after"`
		Grad   map[string]matrix `json:"grad"`
		Diag   struct {
			Skipped []any `json:"skipped_bins"`
		} `json:"diagnostics"`
	} `json:"calls"`
}

// TestMiniBatchMatchesReference replays the reference code's three
// successive mini-batch calls per paradigm: loss, caches and gradients with
// respect to the four logit inputs.
func TestMiniBatchMatchesReference(t *testing.T) {
	paradigms := map[string]Paradigm{"TopLabel": TopLabel, "Classwise": ClassWise, "Canonical": Canonical}
	for _, file := range []string{"ecl_minibatch_toplabel_k3.json", "ecl_minibatch_classwise_k3.json", "ecl_minibatch_canonical_k3.json", "ecl_minibatch_canonical_k4.json"} {
		t.Run(file, func(t *testing.T) {
			var f miniBatchFile
			readCrosscheck(t, file, &f)
			p, ok := paradigms[f.Paradigm]
			if !ok {
				t.Fatalf("unknown paradigm %q", f.Paradigm)
			}
			mb, err := NewMiniBatch(Config{Paradigm: p, Classes: f.NumClasses, Input: InputDetect})
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(mb.Tau()-f.Tau) > 1e-15 {
				t.Errorf("tau %v, reference %v", mb.Tau(), f.Tau)
			}
			names := []string{"source_main_logits", "target_main_logits", "source_aux_logits", "target_aux_logits"}
			for c, call := range f.Calls {
				in := make([]*autograd.Var[float64], 4)
				for i, n := range names {
					in[i] = autograd.Param(call.Inputs[n].tensor())
				}
				aux := func(v *autograd.Var[float64]) *autograd.Var[float64] {
					if p == TopLabel {
						return CorrectnessProb(v)
					}
					return autograd.Softmax(v, 1)
				}
				loss := MiniBatchLoss(mb, in[0], in[1], aux(in[2]), aux(in[3]))
				if got := loss.Value.Item(); !closeTo(got, call.Loss) {
					t.Errorf("call %d: loss %.9g, reference %.9g", c, got, call.Loss)
				}
				if mb.Skipped != len(call.Diag.Skipped) {
					t.Errorf("call %d: %d bins skipped, reference %d", c, mb.Skipped, len(call.Diag.Skipped))
				}
				us, ut := mb.Cache()
				compareSlices(t, "u_source", us, flatten(call.USrc))
				compareSlices(t, "u_target", ut, flatten(call.UTgt))
				loss.Backward()
				for i, n := range names {
					ref := call.Grad[n].tensor().Data()
					compareSlices(t, "grad "+n, in[i].Grad.Data(), ref)
				}
			}
		})
	}
}

// TestSoftECEMatchesReference checks value and gradient of Soft-ECE on the
// reference's three input forms.
func TestSoftECEMatchesReference(t *testing.T) {
	var f struct {
		Cases []struct {
			Name        string `json:"name"`
			Predictions any    `json:"predictions"`
			Labels      []float64
			Value       float64
			Grad        any `json:"grad_wrt_predictions"`
		} `json:"cases"`
	}
	readCrosscheck(t, "soft_binning_ece.json", &f)
	for _, c := range f.Cases {
		flat := flatten(c.Predictions)
		n := len(c.Labels)
		var x *autograd.Var[float64]
		var conf *autograd.Var[float64]
		if len(flat) == n {
			x = autograd.Param(tensor.FromSlice(flat, n))
			conf = x
		} else {
			x = autograd.Param(tensor.FromSlice(flat, n, len(flat)/n))
			conf = TopConfidence(Probabilities(InputDetect, x))
		}
		v := SoftECE(conf, tensor.FromSlice(c.Labels), 15)
		if !closeTo(v.Value.Item(), c.Value) {
			t.Errorf("%s: value %.9g, reference %.9g", c.Name, v.Value.Item(), c.Value)
		}
		v.Backward()
		compareSlices(t, c.Name+" grad", x.Grad.Data(), flatten(c.Grad))
	}
}
