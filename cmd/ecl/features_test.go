package main

import (
	"bytes"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ecl-go/ecl/datasets/arrays"
	"github.com/ecl-go/ecl/datasets/images/imagestest"
	"github.com/ecl-go/ecl/experiment"
	"github.com/ecl-go/ecl/nn"
	"github.com/ecl-go/ecl/tensor"
)

// tinyWeights is the torchvision fixture of nn's tests that resnet_tiny
// loads.
const tinyWeights = "../../nn/testdata/resnet_tiny.pth"

// featuresCmd is this test binary run as the ecl command with the tiny
// networks (TestMain), in dir.
func featuresCmd(dir string, args ...string) *exec.Cmd {
	c := exec.Command(os.Args[0], append([]string{"features"}, args...)...)
	c.Env = append(os.Environ(), "ECL_TEST_MAIN=1")
	c.Dir = dir
	return c
}

// withTinyArchs adds experiment.TinyArchs to ecl features's -arch for the
// rest of the test.
func withTinyArchs(t *testing.T) {
	maps.Copy(experiment.FeatureArchs, experiment.TinyArchs)
	t.Cleanup(func() {
		for n := range experiment.TinyArchs {
			delete(experiment.FeatureArchs, n)
		}
	})
}

// centredWeights writes path: resnet_tiny with random weights and a head
// whose logits are W(f − f̄), f̄ the mean of the features of the images
// under data (from a run of ecl features on the headless network), so
// that its predictions vary from image to image.
func centredWeights(t *testing.T, data, path string) {
	t.Helper()
	withTinyArchs(t)
	build := func(classes int) experiment.Network {
		return experiment.TinyArchs["resnet_tiny"].Build(nn.NewVars[float32](), rand.New(rand.NewPCG(4, 4)), classes)
	}
	headless := filepath.Join(t.TempDir(), "headless.safetensors")
	if err := nn.SaveSafetensors(headless, build(0).Module, nil); err != nil {
		t.Fatal(err)
	}
	h := filepath.Join(t.TempDir(), "h.npz")
	if err := runFeatures([]string{"-arch", "resnet_tiny", "-weights", headless, "-data", data, "-layout", "flat", "-out", h, "-quiet"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := arrays.ReadNPZ(h, "logits"); err == nil {
		t.Error("the headless network's file has logits")
	}
	f, shape, err := arrays.ReadNPZ(h, "features")
	if err != nil {
		t.Fatal(err)
	}
	n, d := shape[0], shape[1]
	net := build(5)
	rng := rand.New(rand.NewPCG(5, 5))
	w, b := make([]float32, 5*d), make([]float32, 5)
	for k := range 5 {
		for j := range d {
			w[k*d+j] = float32(rng.NormFloat64() * 30)
			var mean float64
			for i := range n {
				mean += f[i*d+j] / float64(n)
			}
			b[k] -= w[k*d+j] * float32(mean)
		}
	}
	tensor.CopyInto(net.Head.W.Value, tensor.FromSlice(w, 5, d))
	tensor.CopyInto(net.Head.B.Value, tensor.FromSlice(b, 5))
	if err := nn.SaveSafetensors(path, net.Module, nil); err != nil {
		t.Fatal(err)
	}
}

// ecl features writes files that ecl eval and ecl calibrate read: the
// logits and labels of a class tree, evaluated on all its images, and,
// as an unlabelled target, the logits and features of a flat folder.
func TestFeaturesThenEvalAndCalibrate(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if _, err := imagestest.Tree(data, []string{"a", "b", "c", "d", "e"}, 4, 5); err != nil {
		t.Fatal(err)
	}
	weights := filepath.Join(dir, "tiny.safetensors")
	centredWeights(t, data, weights)
	c := featuresCmd(dir, "-arch", "resnet_tiny", "-weights", weights, "-data", "data", "-out", "f.npz", "-batch", "6")
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Fatalf("ecl features: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(string(out), "f.npz: logits [20, 5], features [20, 64], labels of 5 classes") {
		t.Errorf("ecl features printed %q", out)
	}
	if log := stderr.String(); !strings.Contains(log, "ecl features: done, 20/20 images") || !strings.Contains(log, "20 images in data (5 class folders)") {
		t.Errorf("progress lines:\n%s", log)
	}
	bin := buildECL(t)
	ev := exec.Command(bin, "eval", "-probs", "f.npz:logits", "-labels", "f.npz:labels", "-json")
	ev.Dir = dir
	got, err := ev.CombinedOutput()
	if err != nil {
		t.Fatalf("ecl eval of the features file: %v\n%s", err, got)
	}
	if g := string(got); !strings.Contains(g, `"n": 20,`) || !strings.Contains(g, `"k": 5,`) || !strings.Contains(g, `"input": "logits"`) {
		t.Errorf("ecl eval printed:\n%s", got)
	}
	if out, err := featuresCmd(dir, "-arch", "resnet_tiny", "-weights", weights, "-data", "data", "-layout", "flat", "-out", "t.npz", "-quiet").CombinedOutput(); err != nil {
		t.Fatalf("ecl features of a flat folder: %v\n%s", err, out)
	}
	cal := exec.Command(bin, "calibrate", "-source", "f.npz:logits", "-source-labels", "f.npz:labels", "-target", "t.npz:logits",
		"-source-features", "f.npz:features", "-target-features", "t.npz:features", "-method", "ts,iwts", "-bootstrap", "0", "-no-diagrams", "-out", "cal")
	cal.Dir = dir
	if got, err := cal.CombinedOutput(); err != nil {
		t.Fatalf("ecl calibrate of the features files: %v\n%s", err, got)
	}
	if _, err := os.Stat(filepath.Join(dir, "cal", "params_iwts.json")); err != nil {
		t.Errorf("ecl calibrate wrote no iwts parameters: %v", err)
	}
}

// ecl features killed with SIGKILL at random moments and run again ends
// with the file of an uninterrupted run, byte for byte, its batches
// resumed, and no partial folder or temporary file left.
func TestFeaturesKilledAndResumedMatchesUninterrupted(t *testing.T) {
	data := t.TempDir()
	if _, err := imagestest.Tree(data, []string{"x", "y"}, 12, 6); err != nil {
		t.Fatal(err)
	}
	weights, err := filepath.Abs(tinyWeights)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"-arch", "resnet_tiny", "-weights", weights, "-data", data, "-out", "f.npz", "-batch", "2", "-workers", "2"}
	ref := t.TempDir()
	start := time.Now()
	if out, err := featuresCmd(ref, args...).CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted run: %v\n%s", err, out)
	}
	took := time.Since(start)
	want, err := os.ReadFile(filepath.Join(ref, "f.npz"))
	if err != nil {
		t.Fatal(err)
	}
	rng := killMoments(t, took)
	resumed := 0
	for trial := range 5 {
		dir := t.TempDir()
		for attempt := 0; trial == 4; attempt++ {
			// Killed once 3 of the 12 batch files are written (tried
			// again should a busy machine let the run end first).
			c := featuresCmd(dir, args...)
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
				if b, _ := filepath.Glob(filepath.Join(dir, "f.npz.partial", "batch-*.npz")); len(b) >= 3 {
					break
				}
			}
			c.Process.Kill()
			if c.Wait() != nil {
				break
			}
			if attempt == 4 {
				t.Fatal("5 runs ended before they were killed")
			}
			os.Remove(filepath.Join(dir, "f.npz"))
		}
		for range 2 {
			if trial < 4 {
				killAtRandom(t, featuresCmd(dir, args...), rng, took, trial)
			}
		}
		c := featuresCmd(dir, args...)
		var stderr bytes.Buffer
		c.Stderr = &stderr
		if err := c.Run(); err != nil {
			t.Fatalf("trial %d: resumed run: %v\n%s", trial, err, stderr.String())
		}
		if strings.Contains(stderr.String(), "ecl features: resumed") {
			resumed++
		} else if trial == 4 {
			t.Errorf("killed after 3 batches, the run did not resume them:\n%s", stderr.String())
		}
		got, err := os.ReadFile(filepath.Join(dir, "f.npz"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("trial %d: the file differs from the uninterrupted run's", trial)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 1 {
			t.Errorf("trial %d: left %q", trial, left)
		}
	}
	t.Logf("%d of 5 runs resumed a killed run's batches", resumed)
}

// ecl features checks its flags before reading anything, naming the flag.
func TestFeaturesSettingsRejected(t *testing.T) {
	withTinyArchs(t)
	dir := t.TempDir()
	base := []string{"-arch", "resnet_tiny", "-weights", filepath.Join(dir, "absent.pth"), "-data", filepath.Join(dir, "absent"), "-out", filepath.Join(dir, "o.npz"), "-quiet"}
	for _, c := range []struct{ args, want string }{
		{"-arch alexnet", "-arch alexnet: want one of densenet121, densenet161, densenet_tiny, resnet152"},
		{"-batch 0", "-batch 0: want 1 to 4096"},
		{"-resize -1", "-resize -1: want 1 to"},
		{"-crop 30", "-crop 30: want 1 to the resize, 20"},
		{"-resize 10", "-crop 0: want 1 to the resize, 10"},
		{"-arch vit_tiny -crop 12", "-crop 12: vit_tiny takes 16×16 images"},
		{"-workers -1", "-workers -1"},
		{"-max-pixels 0", "-max-pixels 0"},
		{"-layout grid", "-layout grid: want auto, classes or flat"},
		{"-device tpu", "tpu"},
		{"", "absent"},
	} {
		err := runFeatures(append(base, strings.Fields(c.args)...))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ecl features %s: error %v, want %q", c.args, err, c.want)
		}
	}
	if err := runFeatures([]string{"-arch", "resnet50"}); err == nil || !strings.Contains(err.Error(), "are required") {
		t.Errorf("missing flags: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("refused runs wrote %d entries", len(entries))
	}
}

// TestFullSizeFeatures runs ecl features with the random full-size
// models of nn/testdata/make_fullsize.py over the image fixtures and
// compares the logits and features with torchvision's
// (datasets/images/testdata/fullsize_features.py), from
// $ECL_FULLSIZE_DIR; skipped without it. The PNG images' rows agree to
// float32 rounding; the JPEG images' differ by what the decoders' ±2
// grey levels make of them.
func TestFullSizeFeatures(t *testing.T) {
	dir := os.Getenv("ECL_FULLSIZE_DIR")
	if dir == "" {
		t.Skip("ECL_FULLSIZE_DIR is not set (see datasets/images/testdata/fullsize_features.py)")
	}
	ran := 0
	for _, name := range experiment.FeatureArchNames() {
		want := filepath.Join(dir, name+"_images.npz")
		if _, err := os.Stat(want); err != nil {
			continue
		}
		ran++
		out := filepath.Join(t.TempDir(), "f.npz")
		if err := runFeatures([]string{"-arch", name, "-weights", filepath.Join(dir, name+".pth"), "-data", "../../datasets/images/testdata/img", "-layout", "flat", "-out", out, "-batch", "5", "-quiet"}); err != nil {
			t.Fatal(err)
		}
		paths, err := arrays.ReadNPZStrings(out, "paths")
		if err != nil {
			t.Fatal(err)
		}
		if wantPaths, err := arrays.ReadNPZStrings(want, "paths"); err != nil || !slices.Equal(paths, wantPaths) {
			t.Fatalf("%s: paths %q, torchvision's %q (%v)", name, paths, wantPaths, err)
		}
		for _, array := range []string{"logits", "features"} {
			got, shape, err := arrays.ReadNPZ(out, array)
			if err != nil {
				t.Fatal(err)
			}
			ref, refShape, err := arrays.ReadNPZ(want, array)
			if err != nil || !slices.Equal(shape, refShape) {
				t.Fatalf("%s %s: shape %v, torchvision's %v (%v)", name, array, shape, refShape, err)
			}
			cols := shape[1]
			for i, p := range paths {
				var d, s float64
				for j := range cols {
					d = max(d, math.Abs(got[i*cols+j]-ref[i*cols+j]))
					s = max(s, math.Abs(ref[i*cols+j]))
				}
				lim := 1e-5
				if strings.HasSuffix(p, ".jpg") {
					lim = 5e-3
				}
				t.Logf("%s %s %-10s max |Go − torchvision| / max |torchvision| %.1e", name, array, p, d/s)
				if d > lim*s {
					t.Errorf("%s %s of %s: relative difference %.1e, want ≤ %.0e", name, array, p, d/s, lim)
				}
			}
		}
	}
	if ran == 0 {
		t.Errorf("no NAME_images.npz in %s", dir)
	}
}
