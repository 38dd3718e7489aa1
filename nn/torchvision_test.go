package nn

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// tinyInput is make_fixtures.py's input: x[n, c, h, w] = ((7n + 5c + 3h +
// 11w) mod 17 − 8) / 8, n < 2, of size×size pixels.
func tinyInput[T tensor.Float](size int) *tensor.Tensor[T] {
	d := make([]T, 2*3*size*size)
	for i := range d {
		n, c, h, w := i/(3*size*size), i/(size*size)%3, i/size%size, i%size
		d[i] = T(((7*n+5*c+3*h+11*w)%17 - 8)) / 8
	}
	return tensor.FromSlice(d, 2, 3, size, size)
}

// tinyLogits is the entry of tiny_logits.json for a fixture: torchvision's
// logits, computed in float64, on tinyInput.
func tinyLogits(t testing.TB, name string) (size int, logits [][]float64) {
	b, err := os.ReadFile("testdata/tiny_logits.json")
	if err != nil {
		t.Fatal(err)
	}
	var all map[string]struct {
		Input  []int
		Logits [][]float64
	}
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatal(err)
	}
	e, ok := all[name]
	if !ok {
		t.Fatalf("no logits for %s", name)
	}
	return e.Input[2], e.Logits
}

// logitsError is max |got − want| / max |want|.
func logitsError[T tensor.Float](got *tensor.Tensor[T], want [][]float64) float64 {
	g := got.Data()
	var diff, scale float64
	for i, row := range want {
		for k, w := range row {
			diff = max(diff, math.Abs(float64(g[i*len(row)+k])-w))
			scale = max(scale, math.Abs(w))
		}
	}
	return diff / scale
}

// matchTorchvision loads the fixture name.pth into the model build makes,
// in float64 and float32, and compares its evaluation-mode logits with
// torchvision's: within tol64 and 1e-4 of the largest logit.
func matchTorchvision(t *testing.T, name string, tol64 float64, build64 func() Module[float64], build32 func() Module[float32]) {
	size, want := tinyLogits(t, name)
	m64, m32 := build64(), build32()
	for _, err := range []error{LoadPyTorch("testdata/"+name+".pth", m64, nil), LoadPyTorch("testdata/"+name+".pth", m32, nil)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	e64 := logitsError(Predict(m64, tinyInput[float64](size)), want)
	e32 := logitsError(Predict(m32, tinyInput[float32](size)), want)
	t.Logf("%s: relative error %.2e in float64, %.2e in float32", name, e64, e32)
	if e64 > tol64 || e32 > 1e-4 {
		t.Errorf("%s: relative error %.2e in float64 (want ≤ %.0e), %.2e in float32 (want ≤ 1e-4)", name, e64, tol64, e32)
	}
}

// The tiny bottleneck ResNets of make_fixtures.py (torchvision's ResNet
// and Bottleneck at 1/32 of the width, layer1 of two blocks, one of them
// without downsample; width_per_group 64 and 128) give torchvision's
// logits: resnet_tiny.pth holds float64 weights, so the float64 model
// agrees to rounding; wide_tiny.pth float32 weights, whose float64 logits
// the float64 model also reproduces.
func TestResNetMatchesTorchvision(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  ResNetConfig
	}{
		{"resnet_tiny", ResNetConfig{Blocks: [4]int{2, 1, 1, 1}, Stem: 2, WidthPerGroup: 64, Classes: 5}},
		{"wide_tiny", ResNetConfig{Blocks: [4]int{1, 1, 1, 1}, Stem: 2, WidthPerGroup: 128, Classes: 5}},
	} {
		rng := rand.New(rand.NewPCG(1, 2))
		matchTorchvision(t, c.name, 1e-10,
			func() Module[float64] { return NewResNet(NewVars[float64](), rng, c.cfg) },
			func() Module[float32] { return NewResNet(NewVars[float32](), rng, c.cfg) })
	}
}

// torchvisionNames is torchvision_names.json.gz: each model's state_dict
// names and shapes, in order.
func torchvisionNames(t testing.TB) map[string][][2]any {
	f, err := os.Open("testdata/torchvision_names.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string][][2]any
	if err := json.NewDecoder(zr).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// sameState checks that st has the names and shapes of torchvision's
// state_dict want, in order, num_batches_tracked aside.
func sameState[T tensor.Float](t *testing.T, model string, st []Named[T], want [][2]any) {
	var w []string
	for _, e := range want {
		if name := e[0].(string); !strings.HasSuffix(name, ".num_batches_tracked") {
			w = append(w, fmt.Sprint(name, e[1]))
		}
	}
	g := make([]string, len(st))
	for i, n := range st {
		g[i] = fmt.Sprint(n.Name, n.Value().Shape())
	}
	if slices.Equal(g, w) {
		return
	}
	for i := range max(len(g), len(w)) {
		if i >= len(g) || i >= len(w) || g[i] != w[i] {
			t.Errorf("%s: %d tensors, torchvision %d; first difference at %d: %q, torchvision %q", model, len(g), len(w), i, at(g, i), at(w, i))
			return
		}
	}
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(none)"
}

// ResNet50, ResNet152 and WideResNet50x2 have torchvision's state_dict
// names and shapes, in its order, so that its ImageNet .pth files load.
func TestResNetNamesMatchTorchvision(t *testing.T) {
	names := torchvisionNames(t)
	rng := rand.New(rand.NewPCG(1, 3))
	for name, build := range map[string]func(Vars[float32], *rand.Rand, int) *ResNet[float32]{
		"resnet50": ResNet50[float32], "resnet152": ResNet152[float32], "wide_resnet50_2": WideResNet50x2[float32],
	} {
		sameState(t, name, build(NewVars[float32](), rng, 1000).State(), names[name])
	}
}

// The tiny DenseNet of make_fixtures.py (torchvision's DenseNet, growth
// 4, blocks (2, 2, 2, 2), 8 initial features, bn_size 2) gives
// torchvision's logits.
func TestDenseNetMatchesTorchvision(t *testing.T) {
	cfg := DenseNetConfig{Growth: 4, Blocks: []int{2, 2, 2, 2}, Init: 8, BNSize: 2, Classes: 5}
	rng := rand.New(rand.NewPCG(1, 4))
	matchTorchvision(t, "densenet_tiny", 1e-10,
		func() Module[float64] { return NewDenseNet(NewVars[float64](), rng, cfg) },
		func() Module[float32] { return NewDenseNet(NewVars[float32](), rng, cfg) })
}

// DenseNet121 and DenseNet161 have torchvision's state_dict names and
// shapes, in its order.
func TestDenseNetNamesMatchTorchvision(t *testing.T) {
	names := torchvisionNames(t)
	rng := rand.New(rand.NewPCG(1, 5))
	for name, build := range map[string]func(Vars[float32], *rand.Rand, int) *DenseNet[float32]{
		"densenet121": DenseNet121[float32], "densenet161": DenseNet161[float32],
	} {
		sameState(t, name, build(NewVars[float32](), rng, 1000).State(), names[name])
	}
}

// The tiny ViT of make_fixtures.py (torchvision's VisionTransformer,
// image 16, patch 4, 2 layers, 2 heads, width 8, MLP 16) gives
// torchvision's logits.
func TestViTMatchesTorchvision(t *testing.T) {
	cfg := ViTConfig{Image: 16, Patch: 4, Layers: 2, Heads: 2, Hidden: 8, MLP: 16, Classes: 5}
	rng := rand.New(rand.NewPCG(1, 6))
	matchTorchvision(t, "vit_tiny", 1e-10,
		func() Module[float64] { return NewViT(NewVars[float64](), rng, cfg) },
		func() Module[float32] { return NewViT(NewVars[float32](), rng, cfg) })
}

// ViTB16 has torchvision's vit_b_16 state_dict names and shapes, in its
// order; a narrow ViT of ViT-L/16's depth and heads has vit_l_16's names
// (its full size, 304M parameters, is too large to build in a test).
func TestViTNamesMatchTorchvision(t *testing.T) {
	names := torchvisionNames(t)
	rng := rand.New(rand.NewPCG(1, 7))
	sameState(t, "vit_b_16", ViTB16[float32](NewVars[float32](), rng, 1000).State(), names["vit_b_16"])
	cfg := ViTL16Config(1000)
	cfg.Hidden, cfg.MLP, cfg.Image = 16, 4, 32
	var got, want []string
	for _, n := range NewViT(NewVars[float32](), rng, cfg).State() {
		got = append(got, n.Name)
	}
	for _, e := range names["vit_l_16"] {
		want = append(want, e[0].(string))
	}
	if !slices.Equal(got, want) {
		t.Errorf("vit_l_16: names differ: %d, torchvision %d", len(got), len(want))
	}
}

// In training mode (batch statistics in the ResNet's and DenseNet's batch
// norms), the gradient of the cross-entropy with respect to all the
// parameters of the tiny models agrees with a float64 central difference
// along a random direction: the layers' gradients compose.
func TestTorchvisionModelsTrain(t *testing.T) {
	for _, c := range []struct {
		name  string
		size  int
		build func(*rand.Rand) Module[float64]
	}{
		{"resnet", 36, func(r *rand.Rand) Module[float64] {
			return NewResNet(NewVars[float64](), r, ResNetConfig{Blocks: [4]int{2, 1, 1, 1}, Stem: 2, WidthPerGroup: 64, Classes: 5})
		}},
		{"densenet", 36, func(r *rand.Rand) Module[float64] {
			return NewDenseNet(NewVars[float64](), r, DenseNetConfig{Growth: 4, Blocks: []int{2, 2}, Init: 8, BNSize: 2, Classes: 5})
		}},
		{"vit", 16, func(r *rand.Rand) Module[float64] {
			v := NewViT(NewVars[float64](), r, ViTConfig{Image: 16, Patch: 4, Layers: 2, Heads: 2, Hidden: 8, MLP: 16, Classes: 5})
			for _, p := range v.Params() { // away from the zero head and class token
				tensor.CopyInto(p.Value, tensor.Add(p.Value, tensor.RandUniform(r, -0.3, 0.3, p.Value.Shape()...)))
			}
			return v
		}},
	} {
		r := rand.New(rand.NewPCG(9, 9))
		m := c.build(r)
		x := autograd.Const(tinyInput[float64](c.size))
		loss := func() float64 { return CrossEntropy(m.Forward(x), []int{1, 3}).Value.Item() }
		ZeroGrad(m)
		l := CrossEntropy(m.Forward(x), []int{1, 3})
		l.Backward()
		var analytic float64
		dirs := make([]*tensor.Tensor[float64], len(m.Params()))
		for i, p := range m.Params() {
			dirs[i] = tensor.RandUniform[float64](r, -1, 1, p.Value.Shape()...)
			if p.Grad == nil {
				t.Fatalf("%s: parameter %d has no gradient", c.name, i)
			}
			analytic += tensor.SumAll(tensor.Mul(p.Grad, dirs[i])).Item()
		}
		const eps = 1e-5
		move := func(s float64) {
			for i, p := range m.Params() {
				tensor.CopyInto(p.Value, tensor.Add(p.Value, tensor.Scale(dirs[i], s)))
			}
		}
		move(eps)
		up := loss()
		move(-2 * eps)
		down := loss()
		move(eps)
		numeric := (up - down) / (2 * eps)
		t.Logf("%s: directional derivative %.10g, central difference %.10g", c.name, analytic, numeric)
		if math.Abs(numeric-analytic) > 1e-6*max(1, math.Abs(numeric)) {
			t.Errorf("%s: directional derivative %.10g, central difference %.10g", c.name, analytic, numeric)
		}
	}
}

// TestFullSizeTorchvision loads the full-size models that
// testdata/make_fullsize.py wrote to $ECL_FULLSIZE_DIR (too large to
// commit; the test is skipped without it) and compares their float32
// logits with torchvision's, within 1e-5 of the largest.
func TestFullSizeTorchvision(t *testing.T) {
	dir := os.Getenv("ECL_FULLSIZE_DIR")
	if dir == "" {
		t.Skip("ECL_FULLSIZE_DIR is not set (see testdata/make_fullsize.py)")
	}
	b, err := os.ReadFile(dir + "/logits.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string][]float64
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 8))
	build := map[string]func() Module[float32]{
		"resnet50":        func() Module[float32] { return ResNet50[float32](NewVars[float32](), rng, 1000) },
		"resnet152":       func() Module[float32] { return ResNet152[float32](NewVars[float32](), rng, 1000) },
		"wide_resnet50_2": func() Module[float32] { return WideResNet50x2[float32](NewVars[float32](), rng, 1000) },
		"densenet121":     func() Module[float32] { return DenseNet121[float32](NewVars[float32](), rng, 1000) },
		"densenet161":     func() Module[float32] { return DenseNet161[float32](NewVars[float32](), rng, 1000) },
		"vit_b_16":        func() Module[float32] { return ViTB16[float32](NewVars[float32](), rng, 1000) },
		"vit_l_16":        func() Module[float32] { return ViTL16[float32](NewVars[float32](), rng, 1000) },
	}
	x := tensor.Narrow(tinyInput[float32](224), 0, 0, 1)
	for name, logits := range want {
		m := build[name]()
		var opt *PyTorchOptions
		if strings.HasPrefix(name, "densenet") {
			opt = &PyTorchOptions{Rename: TorchvisionDenseNetName}
		}
		if err := LoadPyTorch(dir+"/"+name+".pth", m, opt); err != nil {
			t.Fatal(err)
		}
		e := logitsError(Predict(m, tensor.Contiguous(x)), [][]float64{logits})
		t.Logf("%s: relative error %.2e in float32", name, e)
		if e > 1e-5 {
			t.Errorf("%s: relative error %.2e, want ≤ 1e-5", name, e)
		}
	}
}
