package digits

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ecl-go/ecl/datasets"
	"github.com/ecl-go/ecl/tensor"
)

// Domains lists the digit domains: MNIST, USPS and SVHN as the paper uses
// them, and synth, the rendered colour digits that stand in for SVHN where
// its files are absent (see Synth).
var Domains = []string{"mnist", "usps", "svhn", "synth"}

// Grey lists the grey data sets in MNIST's IDX files that ReadGrey and
// Load read besides the digit domains: Fashion-MNIST (Xiao et al. 2017,
// ten classes of clothing), for the graded-shift study.
var Grey = []string{"mnist", "fashion"}

// InputSize is the side of the network input: every domain becomes
// 3×28×28 (docs/method.md, "Data").
const InputSize = 28

// files names each domain's train and test files inside its folder of the
// data directory, as ecl data fetch lays them out (images, then labels).
var files = map[string]map[string][]string{
	"mnist":   {"train": {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"}, "test": {"t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"}},
	"fashion": {"train": {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"}, "test": {"t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"}},
	"usps":    {"train": {"zip.train.gz"}, "test": {"zip.test.gz"}},
	"svhn":    {"train": {"train_32x32.mat"}, "test": {"test_32x32.mat"}},
}

// synthSizes are the sizes of synth's splits, SVHN's own.
var synthSizes = map[string]int{"train": 73257, "test": 26032}

// Available reports whether domain's files are in dir (synth always is).
func Available(dir, domain string) bool {
	if domain == "synth" {
		return true
	}
	for _, split := range files[domain] {
		for _, f := range split {
			if _, err := os.Stat(filepath.Join(dir, domain, f)); err != nil {
				return false
			}
		}
	}
	return len(files[domain]) > 0
}

// Load reads the split ("train" or "test") of domain from dir/domain/ as
// network input, named "<domain> <split>": X [N, 3, InputSize, InputSize]
// normalised to [−1, 1] ((v − 0.5)/0.5 per channel) and labels 0–9. It
// keeps at most limit samples (0: all), a random subset drawn from seed;
// synth renders its samples from seed instead, a different stream per
// split.
func Load(dir, domain, split string, limit int, seed uint64) (datasets.Split[float32], error) {
	var none datasets.Split[float32]
	if split != "train" && split != "test" {
		return none, fmt.Errorf("digits.Load: split %q (want train or test)", split)
	}
	if limit < 0 {
		return none, fmt.Errorf("digits.Load: limit %d", limit)
	}
	rng := rand.New(rand.NewPCG(seed, map[string]uint64{"train": 1, "test": 2}[split]))
	var x *tensor.Tensor[float32]
	var y []int
	var err error
	switch domain {
	case "mnist", "usps", "fashion":
		var im *Images
		if domain == "usps" {
			im, err = ReadUSPS(filepath.Join(dir, domain, files[domain][split][0]))
		} else {
			im, err = ReadGrey(dir, domain, split)
		}
		if err != nil {
			return none, err
		}
		im = im.Subset(sample(rng, im.N, limit))
		x, err = Input(im, InputSize)
		y = im.Labels
	case "svhn", "synth":
		var im *ColorImages
		if domain == "svhn" {
			im, err = ReadSVHN(filepath.Join(dir, domain, files[domain][split][0]))
			if err == nil {
				im = im.subset(sample(rng, im.N, limit))
			}
		} else {
			n := synthSizes[split]
			if limit > 0 {
				n = min(n, limit)
			}
			im, err = Synth(n, rng)
		}
		if err != nil {
			return none, err
		}
		x, err = ColorInput(im, InputSize)
		y = im.Labels
	default:
		return none, fmt.Errorf("digits.Load: unknown domain %q (want one of %v)", domain, Domains)
	}
	if err != nil {
		return none, err
	}
	return datasets.Split[float32]{Name: domain + " " + split, X: tensor.Affine(x, 2, -1), Y: y}, nil
}

// ReadGrey reads the split ("train" or "test") of the grey IDX data set
// domain (one of Grey) from dir/domain/, as ecl data fetch lays it out.
func ReadGrey(dir, domain, split string) (*Images, error) {
	if !slices.Contains(Grey, domain) {
		return nil, fmt.Errorf("digits.ReadGrey: data set %q (want one of %v)", domain, Grey)
	}
	f, ok := files[domain][split]
	if !ok {
		return nil, fmt.Errorf("digits.ReadGrey: split %q (want train or test)", split)
	}
	return ReadMNIST(filepath.Join(dir, domain, f[0]), filepath.Join(dir, domain, f[1]))
}

// HoldOut splits s at random (from seed) into a training part and a
// held-out part of the fraction frac (in (0, 1)) of its rows, at least
// one, leaving at least one for training.
func HoldOut(s datasets.Split[float32], frac float64, seed uint64) (train, heldOut datasets.Split[float32], err error) {
	if !(frac > 0 && frac < 1) {
		return train, heldOut, fmt.Errorf("digits: validation fraction %v (want in (0, 1))", frac)
	}
	perm := rand.New(rand.NewPCG(seed, 0x5eed)).Perm(s.Len())
	nVal := max(1, int(frac*float64(s.Len())))
	if nVal >= s.Len() {
		return train, heldOut, fmt.Errorf("digits: %d source samples leave none for training after a validation split of %v", s.Len(), frac)
	}
	return s.Rows(perm[nVal:]), s.Rows(perm[:nVal]), nil
}

// sample is a random subset of [0, n) of size limit in increasing order,
// or nil (all) when limit is 0 or at least n.
func sample(rng *rand.Rand, n, limit int) []int {
	if limit == 0 || limit >= n {
		return nil
	}
	idx := rng.Perm(n)[:limit]
	slices.Sort(idx)
	return idx
}

// Subset keeps the images idx (all for nil).
func (im *Images) Subset(idx []int) *Images {
	if idx == nil {
		return im
	}
	plane := im.H * im.W
	out := &Images{N: len(idx), H: im.H, W: im.W, Pixels: make([]uint8, len(idx)*plane), Labels: make([]int, len(idx))}
	for i, j := range idx {
		copy(out.Pixels[i*plane:(i+1)*plane], im.Pixels[j*plane:(j+1)*plane])
		out.Labels[i] = im.Labels[j]
	}
	return out
}

// subset keeps the images idx (all for nil).
func (im *ColorImages) subset(idx []int) *ColorImages {
	if idx == nil {
		return im
	}
	size := 3 * im.H * im.W
	out := &ColorImages{N: len(idx), H: im.H, W: im.W, Pixels: make([]uint8, len(idx)*size), Labels: make([]int, len(idx))}
	for i, j := range idx {
		copy(out.Pixels[i*size:(i+1)*size], im.Pixels[j*size:(j+1)*size])
		out.Labels[i] = im.Labels[j]
	}
	return out
}

// TaskOptions configures a domain-shift task. Zero limits keep every sample.
type TaskOptions struct {
	Target string
	// Sources are merged into the source domain; nil means every other
	// domain available in the data directory.
	Sources []string
	// MaxSource caps each source domain's training split, MaxTarget the
	// target's (unlabelled) training split and MaxTest its test split.
	MaxSource, MaxTarget, MaxTest int
	// ValFraction of the merged source is held out to fit post-hoc methods
	// (0.1 when zero).
	ValFraction float64
	Seed        uint64
}

// Task is the paper's digit task: one target domain, the other domains
// merged as the labelled source.
type Task struct {
	Target  string
	Sources []string
	// Source trains and Val (held-out source) fits post-hoc methods;
	// Unlabelled is the target's training split, whose labels training must
	// not use; Test is the target's test split, on which methods are scored.
	Source, Val, Unlabelled, Test datasets.Split[float32]
}

// NewTask loads the task o describes from dir. Source and Val are named
// "<sources> train" and "<sources> held-out" ("usps+synth train"),
// Unlabelled and Test as Load names them.
func NewTask(dir string, o TaskOptions) (*Task, error) {
	if !slices.Contains(Domains, o.Target) {
		return nil, fmt.Errorf("digits: unknown target domain %q (want one of %v)", o.Target, Domains)
	}
	if !Available(dir, o.Target) {
		return nil, fmt.Errorf("digits: target %s: files not found in %s (run ecl data fetch)", o.Target, filepath.Join(dir, o.Target))
	}
	sources := o.Sources
	if sources == nil {
		for _, d := range Domains {
			if d != o.Target && Available(dir, d) {
				sources = append(sources, d)
			}
		}
	}
	if len(sources) == 0 {
		return nil, errors.New("digits: no source domain")
	}
	frac := o.ValFraction
	if frac == 0 {
		frac = 0.1
	}
	sp := &Task{Target: o.Target, Sources: sources}
	var parts []datasets.Split[float32]
	for i, d := range sources {
		if d == o.Target || !slices.Contains(Domains, d) {
			return nil, fmt.Errorf("digits: source domain %q (want domains other than the target %s, from %v)", d, o.Target, Domains)
		}
		s, err := Load(dir, d, "train", o.MaxSource, o.Seed+uint64(i)+1)
		if err != nil {
			return nil, err
		}
		parts = append(parts, s)
	}
	name := strings.Join(sources, "+")
	merged := datasets.Concat(name+" train", parts...)
	var err error
	if sp.Source, sp.Val, err = HoldOut(merged, frac, o.Seed); err != nil {
		return nil, err
	}
	sp.Val.Name = name + " held-out"
	if sp.Unlabelled, err = Load(dir, o.Target, "train", o.MaxTarget, o.Seed); err != nil {
		return nil, err
	}
	if sp.Test, err = Load(dir, o.Target, "test", o.MaxTest, o.Seed); err != nil {
		return nil, err
	}
	return sp, nil
}
