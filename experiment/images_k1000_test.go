package experiment

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/ecl-go/ecl/datasets/images/imagestest"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/nn"
)

// ImageNet's scale end to end: a frozen backbone with its own
// 1,000-class head (-pretrained-head, as ImageNet→Sketch) on generated
// domains of 1,000 classes, every method and paradigm of the paper. Every
// row is there with finite scores; temperature scaling keeps Uncal's
// accuracy and, fitted on the held-out source, does not raise its NLL
// there.
func TestImagesPretrainedHeadThousandClasses(t *testing.T) {
	const k = 1000
	classes := make([]string, k)
	for i := range classes {
		classes[i] = fmt.Sprintf("n%08d", i) // ImageNet's wnid folders
	}
	dir := t.TempDir()
	if err := imagestest.Domains(dir, []string{"photo", "sketch"}, classes, 1, 0); err != nil {
		t.Fatal(err)
	}
	net := TinyArchs["resnet_tiny"].Build(nn.NewVars[float32](), rand.New(rand.NewPCG(1, 2)), k)
	weights := filepath.Join(t.TempDir(), "resnet_tiny_1k.safetensors")
	if err := nn.SaveSafetensors(weights, net.Module, nil); err != nil {
		t.Fatal(err)
	}
	c := tinyImages(dir)
	c.Split.Target = "sketch"
	c.Arch, c.Weights, c.FeatureCache, c.PretrainedHead = "resnet_tiny", weights, t.TempDir(), true
	c.Methods, c.Paradigms = PaperMethods, []ecl.Paradigm{ecl.TopLabel, ecl.ClassWise, ecl.Canonical}
	c.Epochs, c.Batch = 1, 100
	rs, err := RunImages(c)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Result{}
	for _, r := range rs {
		got[r.Method.String()] = r
		if r.Unfit != "" {
			t.Logf("%s unfit: %s", r.Method, r.Unfit)
			continue
		}
		for _, s := range []Scores{r.Target, r.Source} {
			for _, v := range []float64{s.ACC, s.ECE, s.CwECE, s.CanECE, s.NLL, s.Brier} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Errorf("%s: scores %+v", r.Method, s)
				}
			}
		}
	}
	want := []string{"Uncal", "TS", "CPCS", "TransCal", "PseudoCal", "Isotonic", "Soft-ECE", "DECE", "KDE", "DRL", "Oracle",
		"CE-finetune", "ECL-toplabel", "ECL-classwise", "ECL-canonical"}
	for _, m := range want {
		if _, ok := got[m]; !ok {
			t.Errorf("no %s row among %d", m, len(rs))
		}
	}
	u, ts := got["Uncal"], got["TS"]
	if ts.Target.ACC != u.Target.ACC || ts.Source.ACC != u.Source.ACC {
		t.Errorf("TS accuracy %v/%v, Uncal's %v/%v", ts.Source.ACC, ts.Target.ACC, u.Source.ACC, u.Target.ACC)
	}
	if ts.Source.NLL > u.Source.NLL*(1+1e-9) {
		t.Errorf("TS held-out source NLL %v above Uncal's %v", ts.Source.NLL, u.Source.NLL)
	}
}
