package experiment

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/datasets/arrays"
	"github.com/ecl-go/ecl/datasets/images"
	"github.com/ecl-go/ecl/internal/atomicfile"
	"github.com/ecl-go/ecl/nn"
	"github.com/ecl-go/ecl/tensor"
)

// Network is a classifier split at its penultimate layer: Features maps
// images [N, 3, H, W] to the pooled features [N, D], and Head (nil for a
// network without one) maps those to the logits.
type Network struct {
	Module   nn.Module[float32]
	Features func(*autograd.Var[float32]) *autograd.Var[float32]
	Head     *nn.Linear[float32]
}

// Arch is a torchvision network that Extract runs over images.
type Arch struct {
	// Build makes the network in vb with classes outputs (0: no head).
	Build func(vb nn.Vars[float32], rng *rand.Rand, classes int) Network
	// Head is the state name of the classifier ("fc", "classifier",
	// "heads.head"): the rows of its weight in a weights file give the
	// number of classes.
	Head string
	// Rename, if set, maps a torch.save file's names to the network's
	// (nn.TorchvisionDenseNetName for the published DenseNet files).
	Rename func(string) string
	// Resize and Crop are torchvision's evaluation transform for the
	// network's ImageNet weights.
	Resize, Crop int
	// Side, when not 0, is the only image side the network takes (the
	// ViTs' 224).
	Side int
}

// ResNetArch is a torchvision bottleneck ResNet of config cfg (other
// configurations than FeatureArchs' make tests' tiny networks).
func ResNetArch(cfg func(int) nn.ResNetConfig) Arch {
	return Arch{Head: "fc", Resize: 256, Crop: 224, Build: func(vb nn.Vars[float32], rng *rand.Rand, classes int) Network {
		m := nn.NewResNet(vb, rng, cfg(classes))
		return Network{Module: m, Features: m.Features, Head: m.FC}
	}}
}

// DenseNetArch is a torchvision DenseNet of config cfg.
func DenseNetArch(cfg func(int) nn.DenseNetConfig) Arch {
	return Arch{Head: "classifier", Rename: nn.TorchvisionDenseNetName, Resize: 256, Crop: 224, Build: func(vb nn.Vars[float32], rng *rand.Rand, classes int) Network {
		m := nn.NewDenseNet(vb, rng, cfg(classes))
		return Network{Module: m, Features: m.Features, Head: m.Classifier}
	}}
}

// ViTArch is a torchvision ViT of config cfg, evaluated at resize and
// crop.
func ViTArch(cfg func(int) nn.ViTConfig, resize, crop int) Arch {
	return Arch{Head: "heads.head", Resize: resize, Crop: crop, Side: cfg(0).Image, Build: func(vb nn.Vars[float32], rng *rand.Rand, classes int) Network {
		m := nn.NewViT(vb, rng, cfg(classes))
		return Network{Module: m, Features: m.Features, Head: m.Head}
	}}
}

// FeatureArchs are the networks "ecl features -arch" runs, by torchvision's
// names, each with its IMAGENET1K_V1 evaluation transform.
var FeatureArchs = map[string]Arch{
	"resnet50":        ResNetArch(nn.ResNet50Config),
	"resnet152":       ResNetArch(nn.ResNet152Config),
	"wide_resnet50_2": ResNetArch(nn.WideResNet50x2Config),
	"densenet121":     DenseNetArch(nn.DenseNet121Config),
	"densenet161":     DenseNetArch(nn.DenseNet161Config),
	"vit_b_16":        ViTArch(nn.ViTB16Config, 256, 224),
	"vit_l_16":        ViTArch(nn.ViTL16Config, 242, 224),
}

// TinyArchs are the torchvision networks at the tiny widths of nn's test
// fixtures (nn/testdata/resnet_tiny.pth, wide_tiny.pth, densenet_tiny.pth
// and vit_tiny.pth, 5 classes), with a transform of resize 20, crop 16
// (the ViT's image side): for tests and examples. They are not in
// FeatureArchs; a test adds them.
var TinyArchs = map[string]Arch{
	"resnet_tiny": tiny(ResNetArch(func(c int) nn.ResNetConfig {
		return nn.ResNetConfig{Blocks: [4]int{2, 1, 1, 1}, Stem: 2, WidthPerGroup: 64, Classes: c}
	})),
	"densenet_tiny": tiny(DenseNetArch(func(c int) nn.DenseNetConfig {
		return nn.DenseNetConfig{Growth: 4, Blocks: []int{2, 2, 2, 2}, Init: 8, BNSize: 2, Classes: c}
	})),
	"vit_tiny": ViTArch(func(c int) nn.ViTConfig {
		return nn.ViTConfig{Image: 16, Patch: 4, Layers: 2, Heads: 2, Hidden: 8, MLP: 16, Classes: c}
	}, 20, 16),
}

// tiny is a with TinyArchs' transform.
func tiny(a Arch) Arch {
	a.Resize, a.Crop = 20, 16
	return a
}

// FeatureArchNames are the names of FeatureArchs, sorted.
func FeatureArchNames() []string {
	names := make([]string, 0, len(FeatureArchs))
	for n := range FeatureArchs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// LoadNetwork builds a and loads the weights file (.safetensors, or a
// torch.save file), with as many classes as the file's head has (none
// when the file has no head).
func LoadNetwork(a Arch, weights string) (Network, int, error) {
	var opt *nn.PyTorchOptions
	if a.Rename != nil {
		opt = &nn.PyTorchOptions{Rename: a.Rename}
	}
	names, shapes, err := nn.WeightShapes(weights, opt)
	if err != nil {
		return Network{}, 0, err
	}
	classes := 0
	if i := slices.Index(names, a.Head+".weight"); i >= 0 {
		if len(shapes[i]) != 2 || shapes[i][0] < 1 {
			return Network{}, 0, fmt.Errorf("%s: the head %s.weight has shape %v, want [classes, features]", weights, a.Head, shapes[i])
		}
		classes = shapes[i][0]
	}
	net := a.Build(nn.NewVars[float32](), rand.New(rand.NewPCG(0, 0)), classes)
	if err := nn.LoadWeights(weights, net.Module, opt); err != nil {
		return Network{}, 0, err
	}
	net.Module.SetTraining(false)
	return net, classes, nil
}

// Layouts of Extract's image folder.
const (
	LayoutAuto    = "auto"    // Classes when the folder has only subfolders, else Flat
	LayoutClasses = "classes" // torchvision's ImageFolder: labels from the subfolders
	LayoutFlat    = "flat"    // every image under the folder, no labels
)

// FeaturesConfig is a run of Extract.
type FeaturesConfig struct {
	Arch    string // a key of FeatureArchs
	Weights string // the network's weights, .pth or .safetensors
	Data    string // the image folder
	Layout  string // LayoutAuto (""), LayoutClasses or LayoutFlat
	// Dataset, when set, is the images, listed already (Data and Layout
	// are then not read).
	Dataset *images.Dataset
	Out     string // the .npz file written
	Batch   int    // images per forward pass and per resumable chunk
	// Resize and Crop override the architecture's transform when not 0.
	Resize, Crop int
	Workers      int   // image decoders (GOMAXPROCS when 0)
	MaxPixels    int64 // the largest image accepted (images.DefaultMaxPixels when 0)
	// Skip leaves out the images that cannot be read, instead of stopping.
	Skip bool
	// Device runs the network (nil: the CPU).
	Device tensor.Device[float32]
	// Log, if set, receives the run's notes; Progress, if set, the number
	// of images done (read or resumed) before the first batch and after
	// each.
	Log      func(format string, a ...any)
	Progress func(done, total int)
}

// FeaturesResult says what Extract wrote.
type FeaturesResult struct {
	Images  int      // rows written
	Skipped []string // the images left out (with Skip), and why
	Resumed int      // images whose batches a killed run had written
	Classes []string // the class folders, by label (nil for a flat folder)
	K, D    int      // logits' and features' columns (K = 0: no head)
	Resize  int
	Crop    int
}

// MaxBatch bounds FeaturesConfig.Batch.
const MaxBatch = 4096

// Extract runs the network cfg.Arch with cfg.Weights over the images of
// cfg.Data, each transformed as torchvision's evaluation transform does
// (images.Transform), and writes cfg.Out, a .npz with
//
//	logits    float32 [N, K]   (absent when the weights have no head)
//	features  float32 [N, D]   the penultimate features
//	paths     strings [N]      each image's path under cfg.Data
//	labels    int64 [N]        the class indices (class folders only)
//	classes   strings [K']     the class folders' names (class folders only)
//
// Each batch's rows go to a file of their own in cfg.Out + ".partial"
// (atomically), under a key of the settings, the weights file and the
// list of images: a run killed at any moment and started again with the
// same settings continues after the last batch written. The folder is
// removed once cfg.Out is written; one holding a run of other settings
// or images is an error, not overwritten.
func Extract(cfg FeaturesConfig) (*FeaturesResult, error) {
	logf := cfg.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	a, ok := FeatureArchs[cfg.Arch]
	switch {
	case !ok:
		return nil, fmt.Errorf("features: architecture %q, want one of %s", cfg.Arch, strings.Join(FeatureArchNames(), ", "))
	case cfg.Batch < 1 || cfg.Batch > MaxBatch:
		return nil, fmt.Errorf("features: batch %d, want 1 to %d", cfg.Batch, MaxBatch)
	case cfg.Out == "":
		return nil, errors.New("features: no output file")
	}
	res := &FeaturesResult{Resize: a.Resize, Crop: a.Crop}
	if cfg.Resize != 0 {
		res.Resize = cfg.Resize
	}
	if cfg.Crop != 0 {
		res.Crop = cfg.Crop
	}
	tr := images.EvalTransform(res.Resize, res.Crop)
	if err := tr.Check(); err != nil {
		return nil, fmt.Errorf("features: %w", err)
	}
	if a.Side != 0 && res.Crop != a.Side {
		return nil, fmt.Errorf("features: crop %d: %s takes %d×%d images", res.Crop, cfg.Arch, a.Side, a.Side)
	}
	d := cfg.Dataset
	if d == nil {
		var err error
		if d, err = listImages(cfg.Data, cfg.Layout); err != nil {
			return nil, err
		}
	}
	res.Classes = d.Classes
	var err error
	if res.Skipped, err = unreadable(d, cfg.Skip); err != nil {
		return nil, fmt.Errorf("features: %w", err)
	}
	if d.Len() == 0 {
		return nil, fmt.Errorf("features: no JPEG or PNG image under %s", d.Root)
	}
	net, k, err := LoadNetwork(a, cfg.Weights)
	if err != nil {
		return nil, err
	}
	res.K = k
	if cfg.Device != nil {
		nn.ToDevice(net.Module, cfg.Device)
	}
	fi, err := os.Stat(cfg.Weights)
	if err != nil {
		return nil, err
	}
	key, err := hashOf("ecl-features/1", cfg.Arch, fi.Size(), fi.ModTime().UnixNano(), res.Resize, res.Crop, cfg.Batch, cfg.Skip, cfg.MaxPixels, d.Paths, d.Labels)
	if err != nil {
		return nil, err
	}
	parts := cfg.Out + ".partial"
	if err := openParts(parts, key); err != nil {
		return nil, err
	}
	n := d.Len()
	chunks := (n + cfg.Batch - 1) / cfg.Batch
	logf("%d images in %s (%s), %d batches of %d; %s with %d classes, resize %d, crop %d", n, cfg.Data, layoutName(d), chunks, cfg.Batch, cfg.Arch, k, res.Resize, res.Crop)
	var todo []int
	for c := range chunks {
		if _, err := os.Stat(chunkPath(parts, c)); err == nil {
			res.Resumed += min((c+1)*cfg.Batch, n) - c*cfg.Batch
		} else {
			todo = append(todo, c)
		}
	}
	if res.Resumed > 0 {
		logf("resumed %d of %d images from %s", res.Resumed, n, parts)
	}
	done := res.Resumed
	if cfg.Progress != nil {
		cfg.Progress(done, n)
	}
	// The next batch is decoded while the network runs on this one.
	type loaded struct {
		c, lo int
		b     *images.Batch
		err   error
	}
	next := make(chan loaded, 1)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(next)
		for _, c := range todo {
			lo, hi := c*cfg.Batch, min((c+1)*cfg.Batch, n)
			files := make([]string, hi-lo)
			for i := range files {
				files[i] = d.File(lo + i)
			}
			b, err := images.Load(files, tr, images.Options{Workers: cfg.Workers, MaxPixels: cfg.MaxPixels, Skip: cfg.Skip})
			select {
			case next <- loaded{c, lo, b, err}:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	for l := range next {
		if l.err != nil {
			return nil, fmt.Errorf("features: %w", l.err)
		}
		if err := runChunk(cfg.Device, net, tr.Crop, l.b, l.lo, chunkPath(parts, l.c)); err != nil {
			return nil, err
		}
		done += min(l.lo+cfg.Batch, n) - l.lo
		if cfg.Progress != nil {
			cfg.Progress(done, n)
		}
	}
	if err := assemble(cfg.Out, parts, chunks, d, res); err != nil {
		return nil, err
	}
	if err := os.RemoveAll(parts); err != nil {
		return nil, err
	}
	return res, nil
}

// listImages lists root in layout.
func listImages(root, layout string) (*images.Dataset, error) {
	switch layout {
	case "", LayoutAuto:
		classes, err := images.HasClasses(root)
		if err != nil {
			return nil, err
		}
		if classes {
			return images.Folder(root)
		}
		return images.Flat(root)
	case LayoutClasses:
		return images.Folder(root)
	case LayoutFlat:
		return images.Flat(root)
	}
	return nil, fmt.Errorf("features: layout %q, want auto, classes or flat", layout)
}

// layoutName describes d's layout.
func layoutName(d *images.Dataset) string {
	if d.Classes == nil {
		return "flat, no labels"
	}
	return fmt.Sprintf("%d class folders", len(d.Classes))
}

// keyFile is the name of the partial folder's key file.
const keyFile = "key"

// openParts makes the partial folder for key, or checks that the one
// there is for key.
func openParts(dir, key string) error {
	b, err := os.ReadFile(filepath.Join(dir, keyFile))
	switch {
	case err == nil && strings.TrimSpace(string(b)) == key:
		return nil
	case err == nil:
		return fmt.Errorf("features: %s holds a killed run of other settings, weights or images (key %s, this run's %s): run it again as it was, or delete the folder", dir, strings.TrimSpace(string(b)), key)
	case !os.IsNotExist(err):
		return fmt.Errorf("features: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("features: %w", err)
	}
	return atomicfile.Write(filepath.Join(dir, keyFile), func(w io.Writer) error {
		_, err := io.WriteString(w, key+"\n")
		return err
	})
}

// chunkPath is batch c's file in the partial folder.
func chunkPath(dir string, c int) string { return filepath.Join(dir, fmt.Sprintf("batch-%07d.npz", c)) }

// runChunk runs the network on the images b read (of crop×crop pixels,
// the first of them image lo) and writes their rows to path.
func runChunk(dev tensor.Device[float32], net Network, crop int, b *images.Batch, lo int, path string) error {
	index := make([]int64, len(b.Index))
	for i, j := range b.Index {
		index[i] = int64(lo + j)
	}
	skipped := make([]string, len(b.Skipped))
	for i, e := range b.Skipped {
		skipped[i] = e.Error()
	}
	var feats, logits []float32
	if m := len(b.Index); m > 0 {
		x := tensor.FromSlice(b.X, m, 3, crop, crop)
		if dev != nil {
			x = tensor.To(x, dev)
		}
		autograd.NoGrad(func() {
			f := net.Features(autograd.Const(x))
			feats = f.Value.Data()
			if net.Head != nil {
				logits = net.Head.Forward(f).Value.Data()
			}
		})
	}
	return arrays.WriteNPZ(path,
		arrays.Int64s("index", index),
		arrays.Float32s("features", feats),
		arrays.Float32s("logits", logits),
		arrays.Strings("skipped", skipped))
}

// assemble joins the partial folder's batches into out.
func assemble(out, parts string, chunks int, d *images.Dataset, res *FeaturesResult) error {
	var feats, logits []float32
	var paths []string
	var labels []int64
	for c := range chunks {
		path := chunkPath(parts, c)
		idx, _, err := arrays.ReadNPZ(path, "index")
		if err != nil {
			return fmt.Errorf("features: batch file %w (delete it to compute the batch again)", err)
		}
		f, _, err := arrays.ReadNPZ(path, "features")
		if err != nil {
			return fmt.Errorf("features: batch file %w", err)
		}
		l, _, err := arrays.ReadNPZ(path, "logits")
		if err != nil {
			return fmt.Errorf("features: batch file %w", err)
		}
		skipped, err := arrays.ReadNPZStrings(path, "skipped")
		if err != nil {
			return fmt.Errorf("features: batch file %w", err)
		}
		res.Skipped = append(res.Skipped, skipped...)
		if len(idx) > 0 {
			dc := len(f) / len(idx)
			if res.D == 0 {
				res.D = dc
			}
			if dc != res.D || len(f) != len(idx)*dc || len(l) != len(idx)*res.K {
				return fmt.Errorf("features: batch file %s: %d rows of %d features and %d logits, want %d features and %d logits each", path, len(idx), len(f), len(l), res.D, res.K)
			}
		}
		for i, v := range idx {
			j := int(v)
			if j < 0 || j >= d.Len() || float64(j) != v {
				return fmt.Errorf("features: batch file %s: row %d is image %v, of %d", path, i, v, d.Len())
			}
			paths = append(paths, d.Paths[j])
			if d.Labels != nil {
				labels = append(labels, int64(d.Labels[j]))
			}
		}
		feats = appendFloat32(feats, f)
		logits = appendFloat32(logits, l)
	}
	res.Images = len(paths)
	if res.Images == 0 {
		return fmt.Errorf("features: no image of %s could be read (%d skipped)", d.Root, len(res.Skipped))
	}
	list := []arrays.Array{}
	if res.K > 0 {
		list = append(list, arrays.Float32s("logits", logits, res.Images, res.K))
	}
	list = append(list, arrays.Float32s("features", feats, res.Images, res.D), arrays.Strings("paths", paths))
	if d.Labels != nil {
		list = append(list, arrays.Int64s("labels", labels), arrays.Strings("classes", d.Classes))
	}
	return arrays.WriteNPZ(out, list...)
}

// appendFloat32 appends v, float32 values read as float64, to dst.
func appendFloat32(dst []float32, v []float64) []float32 {
	for _, x := range v {
		dst = append(dst, float32(x))
	}
	return dst
}
