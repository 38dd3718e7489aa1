package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ecl-go/ecl/datasets/images"
	"github.com/ecl-go/ecl/experiment"
)

// runFeatures is "ecl features": a torchvision network's logits and
// penultimate features over a folder of images, into a .npz.
func runFeatures(args []string) error {
	fs := flag.NewFlagSet("features", flag.ContinueOnError)
	var c experiment.FeaturesConfig
	fs.StringVar(&c.Arch, "arch", "", "the network: "+strings.Join(experiment.FeatureArchNames(), ", ")+" (required)")
	fs.StringVar(&c.Weights, "weights", "", "its weights: a torch.save .pth file (torchvision's, or a state_dict of one's own) or .safetensors; the head's rows give the classes (required)")
	fs.StringVar(&c.Data, "data", "", "the image folder (JPEG, PNG): one subfolder per class as torchvision's ImageFolder (labels written), or any images under it (required)")
	fs.StringVar(&c.Layout, "layout", "auto", "the folder's layout: auto (classes when it holds only folders), classes, or flat (every image under it, no labels)")
	fs.StringVar(&c.Out, "out", "", "the .npz written: logits, features, paths (and labels, classes) (required); a killed run's batches wait in OUT.partial")
	fs.IntVar(&c.Batch, "batch", 32, fmt.Sprintf("images per forward pass and per resumable batch file, 1 to %d", experiment.MaxBatch))
	fs.IntVar(&c.Resize, "resize", 0, "the shorter side after the bilinear resize (0: the network's, 256; 242 for vit_l_16)")
	fs.IntVar(&c.Crop, "crop", 0, "the side of the centre crop, at most -resize (0: the network's, 224)")
	fs.IntVar(&c.Workers, "workers", 0, "images decoded at once (0: one per core)")
	fs.Int64Var(&c.MaxPixels, "max-pixels", images.DefaultMaxPixels, "the largest image accepted, in pixels (checked from its header before decoding)")
	fs.BoolVar(&c.Skip, "skip", false, "leave out images that cannot be read (counted, and listed on stderr) instead of stopping")
	device := fs.String("device", "cpu", "where the network runs: cpu, or cuda (GPU 0; needs a build with -tags cuda)")
	quiet := fs.Bool("quiet", false, "no progress lines (on stderr: a bar on a terminal, else a line at most every 10 s)")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if err := checkFeatures(c); err != nil {
		return err
	}
	var err error
	if _, c.Device, err = openDevice[float32](*device); err != nil {
		return err
	}
	start := time.Now()
	if !*quiet {
		featuresProgress(&c)
	}
	res, err := experiment.Extract(c)
	if err != nil {
		return err
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(os.Stderr, "ecl features: skipped %s\n", s)
	}
	what := fmt.Sprintf("logits [%d, %d], features [%d, %d]", res.Images, res.K, res.Images, res.D)
	if res.K == 0 {
		what = fmt.Sprintf("features [%d, %d] (the weights have no head: no logits)", res.Images, res.D)
	}
	if res.Classes != nil {
		what += fmt.Sprintf(", labels of %d classes", len(res.Classes))
	}
	fmt.Printf("%s: %s, paths; %s, resize %d, crop %d; %d skipped, %d resumed; %s\n", c.Out, what, c.Arch, res.Resize, res.Crop, len(res.Skipped), res.Resumed, time.Since(start).Round(time.Millisecond))
	return nil
}

// checkFeatures checks the settings of ecl features' flags.
func checkFeatures(c experiment.FeaturesConfig) error {
	a, known := experiment.FeatureArchs[c.Arch]
	switch {
	case c.Arch == "" || c.Weights == "" || c.Data == "" || c.Out == "":
		return errors.New("-arch, -weights, -data and -out are required")
	case !known:
		return fmt.Errorf("-arch %s: want one of %s", c.Arch, strings.Join(experiment.FeatureArchNames(), ", "))
	case c.Batch < 1 || c.Batch > experiment.MaxBatch:
		return fmt.Errorf("-batch %d: want 1 to %d", c.Batch, experiment.MaxBatch)
	case c.Resize < 0 || c.Resize > images.MaxSide:
		return fmt.Errorf("-resize %d: want 1 to %d, or 0 for the network's", c.Resize, images.MaxSide)
	case c.Crop < 0 || orDefault(c.Crop, a.Crop) > orDefault(c.Resize, a.Resize):
		return fmt.Errorf("-crop %d: want 1 to the resize, %d, or 0 for the network's (%d)", c.Crop, orDefault(c.Resize, a.Resize), a.Crop)
	case a.Side != 0 && orDefault(c.Crop, a.Crop) != a.Side:
		return fmt.Errorf("-crop %d: %s takes %d×%d images", c.Crop, c.Arch, a.Side, a.Side)
	case c.Workers < 0 || c.Workers > 1024:
		return fmt.Errorf("-workers %d: want 0 to 1024", c.Workers)
	case c.MaxPixels < 1:
		return fmt.Errorf("-max-pixels %d: want at least 1", c.MaxPixels)
	case c.Layout != experiment.LayoutAuto && c.Layout != experiment.LayoutClasses && c.Layout != experiment.LayoutFlat:
		return fmt.Errorf("-layout %s: want auto, classes or flat", c.Layout)
	}
	return nil
}

// featuresProgress sets c's log and progress to lines on standard error
// (the progress a bar on a terminal).
func featuresProgress(c *experiment.FeaturesConfig) {
	c.Log = func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "ecl features: %s\n", fmt.Sprintf(format, args...))
	}
	p := newProgress(os.Stderr, "ecl features", "images", isTerminal(os.Stderr))
	began := false
	c.Progress = func(done, total int) {
		if !began {
			p.begin(total)
			began = true
		}
		p.update(done, total)
	}
}

// orDefault is v, or def when v is 0.
func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}
