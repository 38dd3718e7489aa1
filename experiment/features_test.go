package experiment

import (
	"errors"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/datasets/arrays"
	"github.com/ecl-go/ecl/datasets/images"
	"github.com/ecl-go/ecl/datasets/images/imagestest"
	"github.com/ecl-go/ecl/nn"
	"github.com/ecl-go/ecl/tensor"
)

func init() { maps.Copy(FeatureArchs, TinyArchs) }

// readNPZ reads the float array name of the .npz path.
func readNPZ(t *testing.T, path, name string) ([]float64, []int) {
	t.Helper()
	d, s, err := arrays.ReadNPZ(path, name)
	if err != nil {
		t.Fatal(err)
	}
	return d, s
}

// Extract writes, for each image of a class tree in torchvision's order,
// its path and label, and the logits and features the network gives the
// image transformed alone; the logits are the head applied to the
// features.
func TestExtractClassTree(t *testing.T) {
	data := t.TempDir()
	classes := []string{"ant", "bee", "cow"}
	paths, err := imagestest.Tree(data, classes, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ arch, weights string }{
		{"resnet_tiny", "../nn/testdata/resnet_tiny.pth"},
		{"densenet_tiny", "../nn/testdata/densenet_tiny.pth"},
		{"vit_tiny", "../nn/testdata/vit_tiny.pth"},
	} {
		out := filepath.Join(t.TempDir(), "f.npz")
		res, err := Extract(FeaturesConfig{Arch: c.arch, Weights: c.weights, Data: data, Out: out, Batch: 4, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if res.Images != 9 || res.K != 5 || !slices.Equal(res.Classes, classes) || res.Resumed != 0 {
			t.Errorf("%s: result %+v", c.arch, res)
		}
		got, err := arrays.ReadNPZStrings(out, "paths")
		if err != nil || !slices.Equal(got, paths) {
			t.Errorf("%s: paths %q %v, want %q", c.arch, got, err, paths)
		}
		if names, err := arrays.ReadNPZStrings(out, "classes"); err != nil || !slices.Equal(names, classes) {
			t.Errorf("%s: classes %q %v", c.arch, names, err)
		}
		labels, _ := readNPZ(t, out, "labels")
		if !slices.Equal(labels, []float64{0, 0, 0, 1, 1, 1, 2, 2, 2}) {
			t.Errorf("%s: labels %v", c.arch, labels)
		}
		logits, ls := readNPZ(t, out, "logits")
		feats, fs := readNPZ(t, out, "features")
		if !slices.Equal(ls, []int{9, 5}) || fs[0] != 9 {
			t.Fatalf("%s: logits %v, features %v", c.arch, ls, fs)
		}
		// The same network, loaded by nn, on each image alone.
		vb := nn.NewVars[float32]()
		net := TinyArchs[c.arch].Build(vb, rand.New(rand.NewPCG(1, 1)), 5)
		if err := nn.LoadPyTorch(c.weights, net.Module, nil); err != nil {
			t.Fatal(err)
		}
		for i, p := range paths {
			b, err := images.Load([]string{filepath.Join(data, p)}, images.EvalTransform(20, 16), images.Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := nn.Predict(net.Module, tensor.FromSlice(b.X, 1, 3, 16, 16)).Data()
			if e := maxRelDiff(logits[i*5:(i+1)*5], want); e > 1e-5 {
				t.Errorf("%s: image %d: logits %v, the network alone %v", c.arch, i, logits[i*5:(i+1)*5], want)
			}
			row := make([]float32, fs[1])
			for j := range row {
				row[j] = float32(feats[i*fs[1]+j])
			}
			var head []float32
			autograd.NoGrad(func() { head = net.Head.Forward(autograd.Const(tensor.FromSlice(row, 1, fs[1]))).Value.Data() })
			if e := maxRelDiff(logits[i*5:(i+1)*5], head); e > 1e-5 {
				t.Errorf("%s: image %d: logits %v, the head on the features %v", c.arch, i, logits[i*5:(i+1)*5], head)
			}
		}
		if _, err := os.Stat(out + ".partial"); !os.IsNotExist(err) {
			t.Errorf("%s: the partial folder is left: %v", c.arch, err)
		}
	}
}

// maxRelDiff is max |a − b| over max |b|.
func maxRelDiff(a []float64, b []float32) float64 {
	var d, s float64
	for i := range b {
		d = max(d, math.Abs(a[i]-float64(b[i])))
		s = max(s, math.Abs(float64(b[i])))
	}
	return d / s
}

// A run stopped by an unreadable image resumes after the batches it
// wrote and ends with the file of an uninterrupted run, byte for byte; a
// flat folder has no labels; Skip leaves the bad image out; a partial
// folder of other settings is refused.
func TestExtractResumesAndSkips(t *testing.T) {
	data := t.TempDir()
	paths, err := imagestest.Tree(data, []string{"a", "b"}, 6, 2)
	if err != nil {
		t.Fatal(err)
	}
	cfg := FeaturesConfig{Arch: "resnet_tiny", Weights: "../nn/testdata/resnet_tiny.pth", Data: data, Layout: LayoutFlat, Batch: 3, Workers: 2}
	cfg.Out = filepath.Join(t.TempDir(), "ref.npz")
	if _, err := Extract(cfg); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(cfg.Out)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := arrays.ReadNPZ(cfg.Out, "labels"); err == nil {
		t.Error("a flat folder's file has labels")
	}
	// Break image 7 (of batch 2): the run stops there, after batches 0, 1.
	bad := filepath.Join(data, filepath.FromSlash(paths[7]))
	good, err := os.ReadFile(bad)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, good[:len(good)/3], 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.Out = filepath.Join(t.TempDir(), "f.npz")
	var ie *images.Error
	if _, err := Extract(cfg); !errors.As(err, &ie) || ie.Path != bad {
		t.Fatalf("broken image: error %v, want an *images.Error naming %s", err, bad)
	}
	batches, _ := filepath.Glob(filepath.Join(cfg.Out+".partial", "batch-*.npz"))
	if len(batches) != 2 {
		t.Fatalf("%d batch files after the failure, want 2", len(batches))
	}
	// Other settings are refused while the partial folder is there.
	other := cfg
	other.Batch = 4
	if _, err := Extract(other); err == nil || !strings.Contains(err.Error(), "other settings") {
		t.Errorf("other batch size: error %v", err)
	}
	// With Skip (another setting, so another partial folder) the bad image
	// is left out.
	skip := cfg
	skip.Skip, skip.Out = true, filepath.Join(t.TempDir(), "skip.npz")
	res, err := Extract(skip)
	if err != nil {
		t.Fatal(err)
	}
	if res.Images != 11 || len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0], bad) {
		t.Errorf("skip: %d images, skipped %q", res.Images, res.Skipped)
	}
	if got, _ := arrays.ReadNPZStrings(skip.Out, "paths"); slices.Contains(got, paths[7]) || len(got) != 11 {
		t.Errorf("skip: paths %q", got)
	}
	// Repaired, the first run resumes and ends as the uninterrupted one.
	if err := os.WriteFile(bad, good, 0o644); err != nil {
		t.Fatal(err)
	}
	var notes []string
	cfg.Log = func(format string, a ...any) { notes = append(notes, format) }
	res, err = Extract(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Resumed != 6 {
		t.Errorf("resumed %d images, want the 6 of the 2 batches written", res.Resumed)
	}
	got, err := os.ReadFile(cfg.Out)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Error("the resumed run's file differs from the uninterrupted run's")
	}
}

// A format torchvision reads and Go does not stops the run, naming the
// file, or with Skip is listed among the skipped.
func TestExtractUnreadableFormat(t *testing.T) {
	data := t.TempDir()
	if _, err := imagestest.Tree(data, []string{"a", "b"}, 2, 4); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "b", "x.webp"), []byte("RIFF"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := FeaturesConfig{Arch: "resnet_tiny", Weights: "../nn/testdata/resnet_tiny.pth", Data: data, Out: filepath.Join(t.TempDir(), "o.npz"), Batch: 4}
	if _, err := Extract(cfg); err == nil || !strings.Contains(err.Error(), filepath.Join(data, "b", "x.webp")+" and 0 more") {
		t.Errorf("webp: error %v", err)
	}
	cfg.Skip = true
	res, err := Extract(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Images != 4 || len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0], "x.webp: not JPEG or PNG") {
		t.Errorf("skip: %d images, skipped %q", res.Images, res.Skipped)
	}
}

func TestExtractBadConfig(t *testing.T) {
	data := t.TempDir()
	if _, err := imagestest.Tree(data, []string{"a"}, 1, 3); err != nil {
		t.Fatal(err)
	}
	base := FeaturesConfig{Arch: "vit_tiny", Weights: "../nn/testdata/vit_tiny.pth", Data: data, Out: filepath.Join(t.TempDir(), "o.npz"), Batch: 2}
	for _, c := range []struct {
		change func(*FeaturesConfig)
		want   string
	}{
		{func(c *FeaturesConfig) { c.Arch = "alexnet" }, `architecture "alexnet", want one of`},
		{func(c *FeaturesConfig) { c.Batch = 0 }, "batch 0"},
		{func(c *FeaturesConfig) { c.Crop = 24 }, "crop 24"},
		{func(c *FeaturesConfig) { c.Resize, c.Crop = 24, 20 }, "crop 20: vit_tiny takes 16×16 images"},
		{func(c *FeaturesConfig) { c.Layout = "grid" }, `layout "grid"`},
		{func(c *FeaturesConfig) { c.Weights = "../nn/testdata/resnet_tiny.pth" }, "resnet_tiny.pth"},
		{func(c *FeaturesConfig) { c.Data = filepath.Join(data, "none") }, "none"},
	} {
		cfg := base
		c.change(&cfg)
		if _, err := Extract(cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one with %q", err, c.want)
		}
	}
}
