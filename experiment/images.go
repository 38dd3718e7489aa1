package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ecl-go/ecl/datasets"
	"github.com/ecl-go/ecl/datasets/arrays"
	"github.com/ecl-go/ecl/datasets/digits"
	"github.com/ecl-go/ecl/datasets/images"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/nn"
	"github.com/ecl-go/ecl/tensor"
	"github.com/ecl-go/ecl/train"
)

// ImagesConfig configures the image domain-shift study (PACS,
// ImageNet-Sketch; docs/images.md): a root of image domains of the same
// classes (images.OpenDomains), one domain the target, the others merged
// as the source, every method of the comparison on top of one base
// network per seed, as in the digits study.
type ImagesConfig struct {
	Study
	// Dir is the root of the domains; the records hold its manifest's
	// per-domain checksums instead.
	Dir string `json:"-"`
	// Arch is one of SmallArchs, trained from scratch on the images
	// resized to 3×28×28 (normalised to [−1, 1] as the digits), or one
	// of FeatureArchs: that torchvision network's backbone, loaded from
	// Weights and frozen, its penultimate features of every image
	// computed once with its evaluation transform (and kept in
	// FeatureCache); the base network is then a new linear head on them.
	Arch    string
	Weights string `json:"-"`
	Split   ImagesSplit
	Training
	// Skip leaves out the images that cannot be read (counted in the
	// log) instead of stopping; MaxPixels is the largest image decoded
	// (images.DefaultMaxPixels when 0).
	Skip      bool
	MaxPixels int64
	// Lists, Manifest and NoManifest are images.DomainOptions's.
	Lists      string `json:"-"`
	Manifest   string `json:"-"`
	NoManifest bool   `json:"-"`
	// Workers decode images at once (GOMAXPROCS when 0); FeatureBatch
	// images go through the backbone at once (32 when 0).
	Workers      int `json:"-"`
	FeatureBatch int `json:"-"`
	// FeatureCache is the folder of the backbones' features, one .npz
	// per domain, named by a hash of the network, its weights and the
	// domain's images (a temporary folder, removed after, when empty).
	FeatureCache string `json:"-"`
	// Augment trains a small network's base stage on torchvision's
	// training transform (images.RandomResizedCrop at 28, flipped with
	// probability 0.5, normalised to [−1, 1]), drawn again for every
	// epoch, each image from its own stream of the seed, epoch and place;
	// the crops are taken from each image bounded to a shorter side of
	// 115 (trainPrep: a larger image is first resized to it, the same
	// with or without Cache). The held-out and target images, and the later
	// stages, use the evaluation transform. Not for FeatureArchs, whose
	// features are computed once.
	Augment bool `json:",omitempty"`
	// Cache is a folder of decoded images (images.OpenCache), one
	// subfolder per domain and preparation, reused by later runs and
	// rebuilt when the images change; empty: none. The results are the
	// same with or without it. Not for FeatureArchs (FeatureCache keeps
	// their features).
	Cache string `json:"-"`
	// PretrainedHead makes the base network the weights file's own
	// classifier on the backbone's features (ImageNet's for
	// ImageNet→Sketch, whose class folders sort into ImageNet-1k's order)
	// instead of a new head trained on the source; the file's head must
	// have one output per class of the domains. Only for FeatureArchs.
	PretrainedHead bool `json:",omitempty"`
}

// ImagesSplit chooses an image task's domains and subsets. With PACS's
// split lists, the sources' train lists train and their crossval lists
// are held out, the target's train list is its unlabelled split and its
// crossval and test lists its test split; without them, ValFraction of
// the merged source is held out and TestFraction of the target is its
// test split, drawn from the run's seed. Zero limits keep every sample.
type ImagesSplit struct {
	Target string
	// Sources are merged into the source domain; nil means every other
	// domain.
	Sources                       []string
	MaxSource, MaxTarget, MaxTest int
	ValFraction, TestFraction     float64 // 0: 0.1 and 0.5
	Seed                          uint64
}

// smallSide is the input side of SmallArchs.
const smallSide = digits.InputSize

// Validate checks every setting before any work.
func (c ImagesConfig) Validate() error {
	if err := c.validate(); err != nil {
		return err
	}
	_, large := FeatureArchs[c.Arch]
	settings := append(c.Training.settings(c.AuxFit),
		oneOf("Arch", c.Arch, slices.Concat(SmallArchs, FeatureArchNames())),
		atLeast("Split.MaxSource", c.Split.MaxSource, 0, false),
		atLeast("Split.MaxTarget", c.Split.MaxTarget, 0, false),
		atLeast("Split.MaxTest", c.Split.MaxTest, 0, false),
		atLeast("Workers", c.Workers, 0, false),
		atLeast("FeatureBatch", c.FeatureBatch, 1, true),
	)
	switch {
	case c.Split.Target == "":
		settings = append(settings, &SettingError{"Split.Target", "", "a domain of " + c.Dir})
	case large && c.Weights == "":
		settings = append(settings, &SettingError{"Weights", "", "a .pth or .safetensors file of " + c.Arch + "'s weights"})
	case !large && c.Weights != "":
		settings = append(settings, &SettingError{"Weights", c.Weights, "none: " + c.Arch + " is trained from scratch"})
	case large && c.WholeNetwork:
		settings = append(settings, &SettingError{"WholeNetwork", true, "false: " + c.Arch + "'s backbone is frozen (fine-tuning it is not done)"})
	case c.MaxPixels < 0:
		settings = append(settings, &SettingError{"MaxPixels", c.MaxPixels, "at least 1 (0: the default)"})
	case large && c.Augment:
		settings = append(settings, &SettingError{"Augment", true, "false: " + c.Arch + "'s features are computed once with the evaluation transform (a frozen backbone's base network is a head on them)"})
	case !large && c.PretrainedHead:
		settings = append(settings, &SettingError{"PretrainedHead", true, "false: " + c.Arch + " is trained from scratch and has no pretrained head"})
	case large && c.Cache != "":
		settings = append(settings, &SettingError{"Cache", c.Cache, "empty: " + c.Arch + "'s features are cached in FeatureCache, which is read instead of the images"})
	}
	for _, f := range []struct {
		field string
		v     float64
	}{{"Split.ValFraction", c.Split.ValFraction}, {"Split.TestFraction", c.Split.TestFraction}} {
		if f.v != 0 && !(f.v > 0 && f.v < 1) {
			settings = append(settings, &SettingError{f.field, f.v, "a number in (0, 1) (0: the default)"})
		}
	}
	for _, d := range c.Split.Sources {
		if d == c.Split.Target {
			settings = append(settings, &SettingError{"Split.Sources", d, "domains other than the target " + c.Split.Target})
		}
	}
	return check(settings...)
}

// imagesData is what the runs of an image study share: the domains, each
// domain's inputs, and the data's checksums.
type imagesData struct {
	ds      *images.Domains
	sources []string
	inputs  map[string]*domainInputs
	sums    map[string]string
	// Skipped lists the images and list entries left out, and why.
	skipped []string
	// train reads each source domain's images for the training
	// transform (with Augment), prepared by trainPrep.
	train map[string]images.Reader
	// caches are the decoded-image caches open.
	caches []*images.Cache
	// head is the weights file's classifier (with PretrainedHead).
	head *nn.Linear[float32]
}

// close closes the caches.
func (data *imagesData) close() {
	for _, c := range data.caches {
		c.Close()
	}
}

// smallTrainTransform is the training transform of SmallArchs (Augment):
// torchvision's RandomResizedCrop at their side and flip, normalised to
// [−1, 1] as their evaluation inputs are.
func smallTrainTransform() images.TrainTransform {
	t := images.RandomResizedCrop(smallSide)
	t.Mean, t.Std = [3]float32{0.5, 0.5, 0.5}, [3]float32{0.5, 0.5, 0.5}
	return t
}

// trainPrep is what is done to an image before the training transform
// crops it: its shorter side bounded to the transform's MinSide (115 for
// 28), the smallest at which its smallest crops are not enlarged.
func trainPrep() images.Prep { return images.Prep{Side: smallTrainTransform().MinSide(), Bound: true} }

// evalTransform is the evaluation transform of SmallArchs: resize and
// centre crop to their side, normalised to [−1, 1].
func evalTransform() images.Transform {
	half := [3]float32{0.5, 0.5, 0.5}
	return images.Transform{Resize: smallSide, Crop: smallSide, Mean: half, Std: half}
}

// reader is the images of domain d prepared by prep: from the files, or
// from a cache in Cache (opened, or built, and kept in data.caches).
func (c ImagesConfig) reader(data *imagesData, d *images.Domain, prep images.Prep) (images.Reader, error) {
	files := make([]string, d.Data.Len())
	for i := range files {
		files[i] = d.Data.File(i)
	}
	if c.Cache == "" {
		return images.Files(files, c.MaxPixels, prep), nil
	}
	root, err := filepath.Abs(c.Dir)
	if err != nil {
		return nil, err
	}
	h := sha256.Sum256([]byte(root))
	dir := filepath.Join(c.Cache, fmt.Sprintf("%s-%s-%s", d.Name, prep, hex.EncodeToString(h[:4])))
	cache, err := images.OpenCache(files, images.CacheConfig{Dir: dir, Prep: prep, Sum: data.ds.Sums[d.Name],
		MaxPixels: c.MaxPixels, Skip: c.Skip, Workers: c.Workers, Log: c.Log})
	if err != nil {
		return nil, fmt.Errorf("experiment: domain %s: %w", d.Name, err)
	}
	data.caches = append(data.caches, cache)
	return cache, nil
}

// domainInputs are one domain's network inputs: x's rows are the images
// read, row[i] is image i's row (−1 when it was skipped).
type domainInputs struct {
	x   *tensor.Tensor[float32]
	row []int
}

// open reads the domains and every input of the task's domains: the
// images, or the backbone's features of them.
func (c ImagesConfig) open() (*imagesData, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	ds, err := images.OpenDomains(c.Dir, images.DomainOptions{Manifest: c.Manifest, NoManifest: c.NoManifest, Lists: c.Lists, Skip: c.Skip, Workers: c.Workers})
	if err != nil {
		return nil, err
	}
	data := &imagesData{ds: ds, sums: map[string]string{}, inputs: map[string]*domainInputs{}}
	data.skipped = slices.Clone(ds.Skipped)
	ok := false
	defer func() {
		if !ok {
			data.close()
		}
	}()
	names := append([]string{c.Split.Target}, c.Split.Sources...)
	if c.Split.Sources == nil {
		for _, d := range ds.Names() {
			if d != c.Split.Target {
				names = append(names, d)
			}
		}
	}
	for _, n := range names {
		if ds.Domain(n) == nil {
			return nil, fmt.Errorf("experiment: no domain %s in %s (its domains: %s)", n, c.Dir, strings.Join(ds.Names(), ", "))
		}
		data.sums[n] = ds.Sums[n]
	}
	data.sources = names[1:]
	if len(data.sources) == 0 {
		return nil, fmt.Errorf("experiment: %s has no domain besides the target %s", c.Dir, c.Split.Target)
	}
	if ds.Domain(names[0]).Splits != nil {
		dir := c.Lists
		if dir == "" {
			dir = c.Dir
		}
		for _, n := range names {
			for _, s := range images.SplitNames {
				name := n + "_" + s + "_kfold.txt"
				if data.sums[name], err = fileSHA256(filepath.Join(dir, name)); err != nil {
					return nil, err
				}
			}
		}
	}
	read := func(d *images.Domain) (*domainInputs, []string, error) { return c.readImages(data, d) }
	if _, large := FeatureArchs[c.Arch]; large {
		if data.sums["weights"], err = fileSHA256(c.Weights); err != nil {
			return nil, err
		}
		if c.PretrainedHead {
			if data.head, err = pretrainedHead(c.Arch, c.Weights, len(ds.Classes)); err != nil {
				return nil, err
			}
		}
		cache := c.FeatureCache
		if cache == "" {
			if cache, err = os.MkdirTemp("", "ecl-features"); err != nil {
				return nil, err
			}
			defer os.RemoveAll(cache)
		}
		read = func(d *images.Domain) (*domainInputs, []string, error) {
			return c.readFeatures(d, cache, data.sums["weights"], ds.Sums[d.Name])
		}
	}
	for _, n := range names {
		in, skipped, err := read(ds.Domain(n))
		if err != nil {
			return nil, err
		}
		data.inputs[n], data.skipped = in, append(data.skipped, skipped...)
	}
	if c.Augment {
		data.train = map[string]images.Reader{}
		for _, n := range data.sources {
			if data.train[n], err = c.reader(data, ds.Domain(n), trainPrep()); err != nil {
				return nil, err
			}
		}
	}
	ok = true
	return data, nil
}

// unreadable is the files of d that Go's standard library cannot decode,
// as skipped images (with skip) or an error naming the first.
func unreadable(d *images.Dataset, skip bool) ([]string, error) {
	u := d.Unreadable
	if len(u) > 0 && !skip {
		return nil, fmt.Errorf("%s and %d more under %s: an image format Go's standard library does not read (only JPEG and PNG): convert them, or skip them", filepath.Join(d.Root, u[0]), len(u)-1, d.Root)
	}
	var out []string
	for _, p := range u {
		out = append(out, filepath.Join(d.Root, p)+": not JPEG or PNG")
	}
	return out, nil
}

// readImages decodes the domain's images at the small networks' side,
// normalised to [−1, 1] (evalTransform), from the files or from a cache
// of them resized to that side, which gives the same tensors.
func (c ImagesConfig) readImages(data *imagesData, d *images.Domain) (*domainInputs, []string, error) {
	skipped, err := unreadable(d.Data, c.Skip)
	if err != nil {
		return nil, nil, fmt.Errorf("experiment: %w", err)
	}
	t := evalTransform()
	var prep images.Prep // the files, decoded
	if c.Cache != "" {
		prep.Side = t.Resize // cached at the transform's resize
	}
	r, err := c.reader(data, d, prep)
	if err != nil {
		return nil, nil, err
	}
	b, err := images.LoadFrom(r, t, images.Options{Workers: c.Workers, MaxPixels: c.MaxPixels, Skip: c.Skip})
	if err != nil {
		return nil, nil, fmt.Errorf("experiment: domain %s: %w", d.Name, err)
	}
	for _, e := range b.Skipped {
		skipped = append(skipped, e.Error())
	}
	in := &domainInputs{x: tensor.FromSlice(b.X, len(b.Index), 3, smallSide, smallSide), row: rows(d.Data.Len(), b.Index)}
	return in, skipped, nil
}

// rows maps each of n images to its place in kept (−1 when absent).
func rows(n int, kept []int) []int {
	row := make([]int, n)
	for i := range row {
		row[i] = -1
	}
	for r, i := range kept {
		row[i] = r
	}
	return row
}

// readFeatures is the backbone's features of the domain's images, read
// from the cache or computed into it (Extract, which resumes a killed
// computation); weights and images are the checksums of the weights and
// of the domain's images.
func (c ImagesConfig) readFeatures(d *images.Domain, cache, weights, imagesSum string) (*domainInputs, []string, error) {
	var what any = imagesSum
	if imagesSum == "" { // no manifest: the list of files
		what = d.Data.Paths
	}
	key, err := hashOf("ecl-images-features/1", c.Arch, weights, what, c.Skip, c.MaxPixels)
	if err != nil {
		return nil, nil, err
	}
	out := filepath.Join(cache, fmt.Sprintf("%s-%s-%s.npz", d.Name, c.Arch, key))
	if _, err := os.Stat(out); err != nil {
		if err := os.MkdirAll(cache, 0o755); err != nil {
			return nil, nil, err
		}
		logf := c.Log
		if logf == nil {
			logf = func(string, ...any) {}
		}
		logf("features of %s (%d images) by %s into %s", d.Name, d.Data.Len(), c.Arch, out)
		batch := c.FeatureBatch
		if batch == 0 {
			batch = 32
		}
		if _, err := Extract(FeaturesConfig{Arch: c.Arch, Weights: c.Weights, Data: d.Data.Root, Dataset: d.Data, Out: out,
			Batch: batch, Workers: c.Workers, MaxPixels: c.MaxPixels, Skip: c.Skip, Device: c.Dev}); err != nil {
			return nil, nil, err
		}
	}
	feats, shape, err := arrays.ReadNPZ(out, "features")
	if err != nil {
		return nil, nil, err
	}
	paths, err := arrays.ReadNPZStrings(out, "paths")
	if err != nil {
		return nil, nil, err
	}
	if len(shape) != 2 || shape[0] != len(paths) {
		return nil, nil, fmt.Errorf("experiment: %s: features %v for %d paths (delete it to compute it again)", out, shape, len(paths))
	}
	index := make(map[string]int, d.Data.Len())
	for i, p := range d.Data.Paths {
		index[p] = i
	}
	kept := make([]int, len(paths))
	for r, p := range paths {
		i, ok := index[p]
		if !ok {
			return nil, nil, fmt.Errorf("experiment: %s: row %d is %s, not an image of domain %s (delete it to compute it again)", out, r, p, d.Name)
		}
		kept[r] = i
	}
	in := &domainInputs{x: tensor.FromSlice(appendFloat32(nil, feats), shape...), row: rows(d.Data.Len(), kept)}
	var skipped []string
	for i, r := range in.row {
		if r < 0 {
			skipped = append(skipped, d.Data.File(i)+": could not be read (skipped by the features' extraction)")
		}
	}
	return in, skipped, nil
}

// pick is a random subset of idx of at most limit (0: all), in idx's
// order.
func pick(rng *rand.Rand, idx []int, limit int) []int {
	if limit == 0 || limit >= len(idx) {
		return idx
	}
	keep := rng.Perm(len(idx))[:limit]
	slices.Sort(keep)
	out := make([]int, limit)
	for i, j := range keep {
		out[i] = idx[j]
	}
	return out
}

// split is the images idx of domain n that were read, as a split named
// name.
func (data *imagesData) split(n, name string, idx []int) datasets.Split[float32] {
	d, in := data.ds.Domain(n), data.inputs[n]
	var r, y []int
	for _, i := range idx {
		if in.row[i] >= 0 {
			r, y = append(r, in.row[i]), append(y, d.Data.Labels[i])
		}
	}
	return datasets.Split[float32]{Name: name, X: tensor.IndexSelect(in.x, 0, r), Y: y}
}

// imageRef is image index of domain.
type imageRef struct {
	domain string
	index  int
}

// refs is the images idx of domain n that were read, in split's order.
func (data *imagesData) refs(n string, idx []int) []imageRef {
	var out []imageRef
	for _, i := range idx {
		if data.inputs[n].row[i] >= 0 {
			out = append(out, imageRef{n, i})
		}
	}
	return out
}

// refReader reads the images refs from each domain's reader.
type refReader struct {
	refs    []imageRef
	readers map[string]images.Reader
}

func (r refReader) Len() int { return len(r.refs) }

func (r refReader) Image(i int) (*images.RGB, error) {
	return r.readers[r.refs[i].domain].Image(r.refs[i].index)
}

// all is the indices of n images.
func all(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// task is the source, held-out, unlabelled and test splits of seed (see
// ImagesSplit), and the images of the source's rows.
func (c ImagesConfig) task(data *imagesData, seed uint64) (source, val, unlabelled, test datasets.Split[float32], sourceImages []imageRef) {
	o := c.Split
	valFrac, testFrac := o.ValFraction, o.TestFraction
	if valFrac == 0 {
		valFrac = 0.1
	}
	if testFrac == 0 {
		testFrac = 0.5
	}
	name := strings.Join(data.sources, "+")
	var train, held []datasets.Split[float32]
	var trainImages []imageRef
	for i, n := range data.sources {
		d := data.ds.Domain(n)
		rng := rand.New(rand.NewPCG(seed+uint64(i)+1, 1))
		idx := all(d.Data.Len())
		if d.Splits != nil {
			idx = d.Splits["train"]
		}
		idx = pick(rng, idx, o.MaxSource)
		if d.Splits != nil {
			train = append(train, data.split(n, n+" train", idx))
			held = append(held, data.split(n, n+" crossval", d.Splits["crossval"]))
		} else {
			train = append(train, data.split(n, n, idx))
		}
		trainImages = append(trainImages, data.refs(n, idx)...)
	}
	merged := datasets.Concat(name+" train", train...)
	if held != nil {
		val = datasets.Concat(name+" held-out", held...)
		source, sourceImages = merged, trainImages
	} else {
		perm := rand.New(rand.NewPCG(seed, 0x5eed)).Perm(merged.Len())
		nVal := max(1, int(valFrac*float64(merged.Len())))
		val, source = merged.Rows(perm[:nVal]), merged.Rows(perm[nVal:])
		val.Name, source.Name = name+" held-out", name+" train"
		for _, r := range perm[nVal:] {
			sourceImages = append(sourceImages, trainImages[r])
		}
	}
	t := data.ds.Domain(o.Target)
	rng := rand.New(rand.NewPCG(seed, 0x7a6))
	var u, te []int
	if t.Splits != nil {
		u, te = t.Splits["train"], slices.Concat(t.Splits["crossval"], t.Splits["test"])
	} else {
		perm := rng.Perm(t.Data.Len())
		nTest := max(1, int(testFrac*float64(len(perm))))
		te, u = perm[:nTest], perm[nTest:]
		slices.Sort(te)
		slices.Sort(u)
	}
	unlabelled = data.split(o.Target, o.Target+" unlabelled", pick(rng, u, o.MaxTarget))
	test = data.split(o.Target, o.Target+" test", pick(rng, te, o.MaxTest))
	return source, val, unlabelled, test, sourceImages
}

// RunImages trains, for each seed, the base network on the source domains
// and every method on top of it, and evaluates them on the target, as
// RunDigits does; the records are keyed by the configuration, the
// manifest's checksums of the domains read, the split lists' and the
// weights'.
func RunImages(c ImagesConfig) ([]Result, error) {
	r, err := c.recipe()
	if err != nil {
		return nil, err
	}
	data, err := c.open()
	if err != nil {
		return nil, err
	}
	defer data.close()
	c.logSkipped(data)
	var specs []runSpec
	for run := range c.Runs {
		specs = append(specs, c.spec(c.Seed+uint64(run), data.sums))
	}
	return runSpecs(c.Study, c.Training, "images", specs, func(i int) ([]Result, error) { return c.run(r, data, specs[i].seed) })
}

// RunOne computes run i (seed Seed+i) in this process, without the Store:
// what a worker process serving the study's runs (Exec) calls.
func (c ImagesConfig) RunOne(i int) ([]Result, error) {
	r, err := c.recipe()
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= c.Runs {
		return nil, fmt.Errorf("experiment: run %d of %d", i, c.Runs)
	}
	data, err := c.open()
	if err != nil {
		return nil, err
	}
	defer data.close()
	return c.run(r, data, c.Seed+uint64(i))
}

// recipe is the paper's, once c is valid.
func (c ImagesConfig) recipe() (train.Recipe, error) {
	if err := c.Validate(); err != nil {
		return train.Recipe{}, err
	}
	return recipe(c.Study, c.Training)
}

// logSkipped logs how many images were left out, and the first few.
func (c ImagesConfig) logSkipped(data *imagesData) {
	if c.Log == nil || len(data.skipped) == 0 {
		return
	}
	c.Log("skipped %d images or list entries that could not be read", len(data.skipped))
	for _, s := range data.skipped[:min(len(data.skipped), 10)] {
		c.Log("skipped %s", s)
	}
}

// spec is the run of the given seed; sums are the data's checksums.
func (c ImagesConfig) spec(seed uint64, sums map[string]string) runSpec {
	rc := c
	rc.Runs, rc.Seed, rc.Log, rc.Progress, rc.Split.Seed = 0, 0, nil, nil, 0
	return runSpec{study: "images", label: fmt.Sprintf("%s %s seed %d", c.Split.Target, c.Arch, seed), seed: seed,
		config: rc, data: sums, dataDir: c.Dir}
}

// run trains and evaluates every model of one seed.
func (c ImagesConfig) run(r train.Recipe, data *imagesData, seed uint64) ([]Result, error) {
	source, val, unlabelled, test, sourceImages := c.task(data, seed)
	for _, s := range []datasets.Split[float32]{source, val, unlabelled, test} {
		if s.Len() == 0 {
			return nil, fmt.Errorf("experiment: seed %d: split %s has no images (too few images read, or limits too small)", seed, s.Name)
		}
	}
	k := len(data.ds.Classes)
	task := domainTask{source: source, val: val, unlabelled: unlabelled, test: test, target: c.Split.Target, classes: k,
		setup: fmt.Sprintf("%s %s→%s n=%d/%d/%d", c.Arch, strings.Join(data.sources, "+"), c.Split.Target, source.Len(), unlabelled.Len(), test.Len())}
	if _, large := FeatureArchs[c.Arch]; large {
		task.net, task.pretrained = heads(source.X.Dim(1), k), data.head
	} else {
		task.net = func(rng *rand.Rand, auxOut int) (*ecl.Classifier[float32], error) {
			return NewSmallNet(c.Arch, rng, k, auxOut)
		}
		if c.Augment {
			task.augment = c.augment(data, sourceImages, seed)
		}
	}
	var err error
	sums := data.sums
	if task.ck, err = c.checkpoint(c.Store, c.spec(seed, sums)); err != nil {
		return nil, err
	}
	o := c.Split
	o.Seed = seed
	if task.pretrained == nil {
		if task.cached, err = c.basePath(c.Arch, o.Target, seed, augmentedSplit{o, c.Augment}, sums); err != nil {
			return nil, err
		}
	}
	return runDomain(c.Study, c.Training, r, seed, task)
}

// pretrainedHead is the classifier of arch's weights file, which must
// have classes outputs.
func pretrainedHead(arch, weights string, classes int) (*nn.Linear[float32], error) {
	a := FeatureArchs[arch]
	net, n, err := LoadNetwork(a, weights)
	if err != nil {
		return nil, err
	}
	if n != classes || net.Head == nil {
		return nil, fmt.Errorf("experiment: %s: its head %s has %d outputs, the domains %d classes (a pretrained head needs one output per class, in the classes' sorted order)", weights, a.Head, n, classes)
	}
	return net.Head, nil
}

// augmentedSplit keys a base network trained with Augment apart from one
// without (the same JSON as the split's without it).
type augmentedSplit struct {
	ImagesSplit
	Augment bool `json:",omitempty"`
}

// augment makes each epoch's source inputs of the run of seed: the
// training transform of the images refs, image i's random choices from
// images.Stream(seed, epoch, i).
func (c ImagesConfig) augment(data *imagesData, refs []imageRef, seed uint64) func(epoch int) (*tensor.Tensor[float32], error) {
	r := refReader{refs, data.train}
	t := smallTrainTransform()
	return func(epoch int) (*tensor.Tensor[float32], error) {
		b, err := images.LoadTrain(r, t, seed, epoch, images.Options{Workers: c.Workers})
		if err != nil {
			return nil, fmt.Errorf("experiment: the training transform's epoch %d: %w", epoch+1, err)
		}
		return tensor.FromSlice(b.X, len(b.Index), 3, smallSide, smallSide), nil
	}
}
