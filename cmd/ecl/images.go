package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ecl-go/ecl/datasets/images"
	"github.com/ecl-go/ecl/experiment"
)

func runImages(args []string) error { return imagesStudy(args, false) }

// imagesStudy is ecl images; with check, it parses and validates args and
// returns without running anything (ecl sweep's check of its jobs).
func imagesStudy(args []string, check bool) error {
	fs := flag.NewFlagSet("images", flag.ContinueOnError)
	var c experiment.ImagesConfig
	parseStudy := studyFlags(fs, &c.Study, studyDefaults{paradigms: "toplabel,classwise,canonical", methods: strings.Join(experiment.PaperMethods, ","), runs: 3, lambdaCE: "0: 1", jobs: 1})
	fs.StringVar(&c.Dir, "data", "", "the dataset root: one folder per domain (PACS: art_painting, cartoon, photo, sketch; ImageNet-Sketch: imagenet, sketch), each with the same class folders (required)")
	fs.StringVar(&c.Split.Target, "target", "", "the target domain, a folder of -data (required)")
	sources := fs.String("sources", "", "comma list of source domains (default: every other domain)")
	fs.StringVar(&c.Arch, "arch", "resnet20", "network: lenet5, resnet20 or densenet40 (trained from scratch on 28×28 images), or a torchvision network whose backbone is frozen ("+strings.Join(experiment.FeatureArchNames(), ", ")+"; needs -weights)")
	fs.StringVar(&c.Weights, "weights", "", "the torchvision network's weights (a torch.save .pth file or .safetensors; ImageNet's, e.g. resnet50-0676ba61.pth)")
	fs.IntVar(&c.Split.MaxSource, "max-source", 0, "training images kept per source domain (0: all)")
	fs.IntVar(&c.Split.MaxTarget, "max-target", 0, "unlabelled target images kept (0: all)")
	fs.IntVar(&c.Split.MaxTest, "max-test", 0, "target test images kept (0: all)")
	fs.Float64Var(&c.Split.ValFraction, "val", 0.1, "fraction of the source held out for the post-hoc methods (without split lists)")
	fs.Float64Var(&c.Split.TestFraction, "test", 0.5, "fraction of the target scored, the rest its unlabelled split (without split lists)")
	fs.StringVar(&c.Lists, "lists", "", "folder of PACS's split lists <domain>_{train,crossval,test}_kfold.txt (default: -data, used when there)")
	fs.StringVar(&c.Manifest, "manifest", "", "the manifest of the images' sizes and SHA-256, written on the first run and checked after (default: -data/"+images.ManifestName+")")
	fs.BoolVar(&c.NoManifest, "no-manifest", false, "neither write nor check the manifest")
	fs.BoolVar(&c.Skip, "skip-bad", false, "leave out the images that cannot be read and the split lists' entries naming no image (counted in the log) instead of stopping")
	fs.Int64Var(&c.MaxPixels, "max-pixels", images.DefaultMaxPixels, "the largest image decoded, in pixels (checked from its header before decoding)")
	fs.IntVar(&c.Workers, "workers", 0, "images decoded at once (0: one per core)")
	fs.IntVar(&c.FeatureBatch, "feature-batch", 32, fmt.Sprintf("images per forward pass of a frozen backbone, 1 to %d", experiment.MaxBatch))
	fs.StringVar(&c.Cache, "cache", "", "folder of decoded images for the small networks (lenet5, resnet20, densenet40): each domain's images decoded once into shard files, reused by later runs and rebuilt when the images change; the same results as without it (empty: none; a frozen backbone reads -feature-cache instead)")
	fs.BoolVar(&c.Augment, "augment", false, "train a small network's base stage on torchvision's training transform (RandomResizedCrop to 28 of each image bounded to a shorter side of 115, flip with probability 0.5), drawn again each epoch from the seed; the held-out and target images and the later stages keep the evaluation transform. Not for a frozen backbone, whose features are computed once with the evaluation transform (default: off, the evaluation transform throughout)")
	fs.BoolVar(&c.PretrainedHead, "pretrained-head", false, "with a frozen backbone, the base network is the -weights file's own classifier (ImageNet's for ImageNet->Sketch: the wnid folders sort into ImageNet-1k's order) instead of a new head trained on the source; the file's head must have one output per class (default: a new head)")
	cache := fs.String("feature-cache", "", "folder of a frozen backbone's features, one .npz per domain, reused by later runs (default: -out/features; a temporary folder without -out)")
	f := addDomainFlags(fs, &c.Training, "images")
	if err := parseFlags(fs, args, check); err != nil {
		return err
	}
	if err := f.parsed(check); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	case c.Dir == "" || c.Split.Target == "":
		return fmt.Errorf("-data and -target are required")
	case c.FeatureBatch < 1 || c.FeatureBatch > experiment.MaxBatch:
		return fmt.Errorf("-feature-batch %d: want 1 to %d", c.FeatureBatch, experiment.MaxBatch)
	case c.MaxPixels < 1:
		return fmt.Errorf("-max-pixels %d: want at least 1", c.MaxPixels)
	}
	if *sources != "" {
		c.Split.Sources = strings.Split(*sources, ",")
	}
	c.FeatureCache = *cache
	if c.FeatureCache == "" && *f.out != "" {
		c.FeatureCache = filepath.Join(*f.out, "features")
	}
	if err := parseStudy(*f.out, args); err != nil {
		return err
	}
	if err := c.Validate(); err != nil || check {
		return flagError(err)
	}
	f.logs()
	return f.run(&c.Study, args, func() ([]experiment.Result, error) { return experiment.RunImages(c) }, c.RunOne,
		fmt.Sprintf("images %s, %s", "→"+c.Split.Target, c.Arch))
}
