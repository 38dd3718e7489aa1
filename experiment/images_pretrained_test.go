package experiment

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/datasets/images/imagestest"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/tensor"
)

// With PretrainedHead the base network is the weights file's classifier
// as it is: Uncal's target NLL is that of the file's head on the target
// test split's features, computed here from the file apart from the run;
// a file whose head has another number of classes is refused, naming it.
func TestRunImagesPretrainedHead(t *testing.T) {
	classes := []string{"a", "b", "c", "d", "e"} // resnet_tiny.pth's 5 outputs
	dir := t.TempDir()
	if err := imagestest.Domains(dir, []string{"art", "photo", "sketch"}, classes, 4, 0); err != nil {
		t.Fatal(err)
	}
	c := tinyImages(dir)
	c.Arch, c.Weights, c.FeatureCache, c.PretrainedHead = "resnet_tiny", "../nn/testdata/resnet_tiny.pth", t.TempDir(), true
	c.Methods, c.Paradigms = []string{"ts"}, []ecl.Paradigm{ecl.TopLabel}
	var log strings.Builder
	c.Log = func(f string, a ...any) { log.WriteString(strings.TrimSpace(f) + "\n") }
	rs, err := RunImages(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "the pretrained head") || strings.Contains(log.String(), "base epoch") {
		t.Errorf("log does not say the base network is the pretrained head, or trains one:\n%s", log.String())
	}
	data, err := c.open()
	if err != nil {
		t.Fatal(err)
	}
	defer data.close()
	_, _, _, test, _ := c.task(data, c.Seed)
	net, _, err := LoadNetwork(FeatureArchs[c.Arch], c.Weights)
	if err != nil {
		t.Fatal(err)
	}
	var logits []float64
	autograd.NoGrad(func() {
		for _, v := range net.Head.Forward(autograd.Const(test.X)).Value.Data() {
			logits = append(logits, float64(v))
		}
	})
	p := tensor.Softmax(tensor.FromSlice(logits, test.Len(), len(classes)), 1).Data()
	nll := 0.0
	for i, y := range test.Y {
		nll -= math.Log(p[i*len(classes)+y]) / float64(test.Len())
	}
	if rs[0].Method != Uncal || math.Abs(rs[0].Target.NLL-nll) > 1e-5 {
		t.Errorf("%s target NLL %v, the file's head gives %v", rs[0].Method, rs[0].Target.NLL, nll)
	}
	if acc, err := metrics.Accuracy(p, len(classes), test.Y); err != nil || math.Abs(rs[0].Target.ACC-acc) > 1e-12 {
		t.Errorf("Uncal target accuracy %v, the file's head gives %v (%v)", rs[0].Target.ACC, acc, err)
	}

	two := tinyImages(imagestest.TempDomains(t, 4))
	two.Arch, two.Weights, two.FeatureCache, two.PretrainedHead = c.Arch, c.Weights, t.TempDir(), true
	if _, err := RunImages(two); err == nil || !strings.Contains(err.Error(), "resnet_tiny.pth: its head fc has 5 outputs, the domains 2 classes") {
		t.Errorf("a 5-class head on 2 classes: %v", err)
	}
	small := tinyImages(dir)
	small.PretrainedHead = true
	var se *SettingError
	if err := small.Validate(); !errors.As(err, &se) || se.Field != "PretrainedHead" {
		t.Errorf("PretrainedHead with lenet5: %v", err)
	}
}
