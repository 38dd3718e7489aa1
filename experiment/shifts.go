package experiment

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ecl-go/ecl/datasets"
	"github.com/ecl-go/ecl/datasets/corrupt"
	"github.com/ecl-go/ecl/datasets/digits"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/tensor"
	"github.com/ecl-go/ecl/train"
)

// ShiftsConfig configures the graded-shift study (docs/shifts.md): a
// source data set (MNIST or Fashion-MNIST, its training split) and target
// domains made from its test split by a transform at graded levels
// (package corrupt). A run is one seed on one target; the base network of
// a seed is trained once on the source and reused for every target
// (Training.BaseCache).
type ShiftsConfig struct {
	Study
	// Dir is the data directory (digits.ReadGrey); the run records hold
	// its files' checksums instead.
	Dir     string `json:"-"`
	Arch    string
	Dataset string
	// Transforms lists the transforms (corrupt.Names); Angles the
	// rotation's levels and Severities the corruptions' (nil: all of
	// corrupt.Angles, corrupt.Severities).
	Transforms         []string
	Angles, Severities []int
	// MaxSource caps the source (training split; ValFraction of it, 0 for
	// 0.1, held out); MaxTarget and MaxTest are the sizes of the target's
	// unlabelled and scored parts, disjoint draws from the test split.
	MaxSource, MaxTarget, MaxTest int
	ValFraction                   float64
	// TargetCache is the directory of transformed target sets
	// (corrupt.Cached); empty: Store.Dir/targets, none without a Store.
	TargetCache string `json:"-"`
	Training
}

// ShiftTarget is one target domain of the study: a transform at a level.
type ShiftTarget struct {
	Transform string
	Level     int
}

// String is the target's name, "<transform>:<level>" ("rotate:30"), the
// results' shift (→rotate:30).
func (t ShiftTarget) String() string { return t.Transform + ":" + strconv.Itoa(t.Level) }

// ParseShiftTarget reads a target's name back (String).
func ParseShiftTarget(s string) (ShiftTarget, error) {
	name, level, ok := strings.Cut(strings.TrimPrefix(s, "→"), ":")
	n, err := strconv.Atoi(level)
	if !ok || err != nil {
		return ShiftTarget{}, fmt.Errorf("experiment: shift target %q (want <transform>:<level>)", s)
	}
	return ShiftTarget{name, n}, corrupt.Check(name, n)
}

// Targets lists the study's targets, transform by transform in the
// order of Transforms, each at its levels in increasing order.
func (c ShiftsConfig) Targets() []ShiftTarget {
	var out []ShiftTarget
	for _, t := range c.Transforms {
		levels := c.Severities
		if t == corrupt.Rotate {
			levels = c.Angles
		}
		if levels == nil {
			levels, _ = corrupt.Levels(t)
		}
		for _, l := range levels {
			out = append(out, ShiftTarget{t, l})
		}
	}
	return out
}

// recipe is the paper's: Adam at LR in every stage, once c is valid.
func (c ShiftsConfig) recipe() (train.Recipe, error) {
	if err := c.Validate(); err != nil {
		return train.Recipe{}, err
	}
	return recipe(c.Study, c.Training)
}

// Validate checks every setting before any work.
func (c ShiftsConfig) Validate() error {
	if err := c.validate(); err != nil {
		return err
	}
	settings := append(c.Training.settings(c.AuxFit),
		oneOf("Arch", c.Arch, Archs),
		oneOf("Dataset", c.Dataset, digits.Grey),
		atLeast("MaxSource", c.MaxSource, 0, false),
		atLeast("MaxTarget", c.MaxTarget, 1, false),
		atLeast("MaxTest", c.MaxTest, 1, false),
	)
	if v := c.ValFraction; v != 0 && !(v > 0 && v < 1) {
		settings = append(settings, &SettingError{"ValFraction", v, "a number in (0, 1) (0: 0.1)"})
	}
	if len(c.Transforms) == 0 {
		settings = append(settings, &SettingError{"Transforms", c.Transforms, "at least one of " + strings.Join(corrupt.Names, ", ")})
	}
	for i, t := range c.Transforms {
		settings = append(settings, oneOf("Transforms", t, corrupt.Names))
		if slices.Contains(c.Transforms[:i], t) {
			settings = append(settings, &SettingError{"Transforms", t, "each transform once"})
		}
	}
	for _, l := range c.Angles {
		if corrupt.Check(corrupt.Rotate, l) != nil {
			settings = append(settings, &SettingError{"Angles", l, fmt.Sprint("levels of ", corrupt.Angles)})
		}
	}
	for _, l := range c.Severities {
		if !slices.Contains(corrupt.Severities, l) {
			settings = append(settings, &SettingError{"Severities", l, fmt.Sprint("levels of ", corrupt.Severities)})
		}
	}
	return check(settings...)
}

// RunShifts trains, for each seed, the base network on the source (once:
// later targets load it from BaseCache, Store.Dir/base when empty) and
// every method on top of it for each target, evaluated on the target's
// scored part. The runs are seed by seed, target by target; with
// Store.Dir set each goes to its own file, keyed by the configuration
// without the study's lists (its transform and level instead), and a run
// whose file is there is reused (Store.Resume).
func RunShifts(c ShiftsConfig) ([]Result, error) {
	c, r, sums, specs, err := c.plan()
	if err != nil {
		return nil, err
	}
	return runSpecs(c.Study, c.Training, "shifts", specs, func(i int) ([]Result, error) { return c.run(r, specs[i], sums) })
}

// plan is what RunShifts and RunOne start from: c with its caches set,
// the training recipe, the data files' checksums and the runs in order.
func (c ShiftsConfig) plan() (ShiftsConfig, train.Recipe, map[string]string, []runSpec, error) {
	r, err := c.recipe()
	if err != nil {
		return c, r, nil, nil, err
	}
	c = c.cached()
	sums, err := dataChecksums(c.Dir, digits.TaskOptions{Target: c.Dataset, Sources: []string{}})
	if err != nil {
		return c, r, nil, nil, err
	}
	return c, r, sums, c.specs(sums), nil
}

// RunOne computes run i of RunShifts's order in this process, without
// the Store: what a worker process serving the study's runs (Exec) calls.
func (c ShiftsConfig) RunOne(i int) ([]Result, error) {
	c, r, sums, specs, err := c.plan()
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= len(specs) {
		return nil, fmt.Errorf("experiment: run %d of %d", i, len(specs))
	}
	return c.run(r, specs[i], sums)
}

// Total is the number of runs: seeds times targets.
func (c ShiftsConfig) Total() int { return c.Runs * len(c.Targets()) }

// cached is c with the caches' default directories under Store.Dir.
func (c ShiftsConfig) cached() ShiftsConfig {
	if c.Store.Dir != "" {
		if c.BaseCache == "" {
			c.BaseCache = filepath.Join(c.Store.Dir, "base")
		}
		if c.TargetCache == "" {
			c.TargetCache = filepath.Join(c.Store.Dir, "targets")
		}
	}
	return c
}

// shiftRun is what one run's results depend on besides its seed and data:
// the configuration without the study's seeds and lists, its target and
// the transform's parameter at its level (corrupt.Params; the angle).
type shiftRun struct {
	Config ShiftsConfig
	Target ShiftTarget
	Param  float64
}

// specs are the study's runs, seed by seed, target by target.
func (c ShiftsConfig) specs(sums map[string]string) []runSpec {
	rc := c
	rc.Runs, rc.Seed, rc.Log, rc.Progress = 0, 0, nil, nil
	rc.Transforms, rc.Angles, rc.Severities = nil, nil, nil
	var specs []runSpec
	for run := range c.Runs {
		seed := c.Seed + uint64(run)
		for _, t := range c.Targets() {
			param := float64(t.Level)
			if t.Transform != corrupt.Rotate {
				param = corrupt.Params[t.Transform][t.Level-1]
			}
			specs = append(specs, runSpec{study: "shifts", label: fmt.Sprintf("%s %s %d %s seed %d", c.Dataset, t.Transform, t.Level, c.Arch, seed), seed: seed,
				config: shiftRun{rc, t, param}, data: sums, dataDir: c.Dir})
		}
	}
	return specs
}

// run trains (or loads) the base network of spec's seed and evaluates
// every method on spec's target (without their reliability diagrams); sums are the data files' checksums.
func (c ShiftsConfig) run(r train.Recipe, spec runSpec, sums map[string]string) ([]Result, error) {
	target := spec.config.(shiftRun).Target
	seed := spec.seed
	src, err := digits.Load(c.Dir, c.Dataset, "train", c.MaxSource, seed+1)
	if err != nil {
		return nil, err
	}
	frac := c.ValFraction
	if frac == 0 {
		frac = 0.1
	}
	source, val, err := digits.HoldOut(src, frac, seed)
	if err != nil {
		return nil, err
	}
	val.Name = c.Dataset + " held-out"
	unlabelled, test, err := c.target(target, seed, sums)
	if err != nil {
		return nil, err
	}
	task := domainTask{source: source, val: val, unlabelled: unlabelled, test: test, target: target.String(), classes: DigitClasses,
		setup: fmt.Sprintf("%s %s→%s n=%d/%d/%d", c.Arch, c.Dataset, target, source.Len(), unlabelled.Len(), test.Len()),
		net: func(rng *rand.Rand, auxOut int) (*ecl.Classifier[float32], error) {
			return NewDigitNet(c.Arch, rng, auxOut)
		}}
	if task.ck, err = c.checkpoint(c.Store, spec); err != nil {
		return nil, err
	}
	split := struct {
		Dataset     string
		MaxSource   int
		ValFraction float64
		Seed        uint64
	}{c.Dataset, c.MaxSource, frac, seed}
	if task.cached, err = c.basePath(c.Arch, c.Dataset, seed, split, sums); err != nil {
		return nil, err
	}
	out, err := runDomain(c.Study, c.Training, r, seed, task)
	// The run files keep no reliability diagrams (270 KB a run): the
	// study's figures are drawn from the scores and diagnostics.
	for i := range out {
		out[i].Diagram = nil
	}
	return out, err
}

// target makes the unlabelled and scored parts of target for seed:
// disjoint random draws of MaxTarget and MaxTest images from the data
// set's test split, transformed (from seed) and cached in TargetCache
// under a key naming the data set, transform, level, seed and sizes.
func (c ShiftsConfig) target(t ShiftTarget, seed uint64, sums map[string]string) (unlabelled, test datasets.Split[float32], err error) {
	files, err := hashOf(sums)
	if err != nil {
		return unlabelled, test, err
	}
	key := fmt.Sprintf("%s-%s-%d-seed%d-n%d+%d-%s", c.Dataset, t.Transform, t.Level, seed, c.MaxTarget, c.MaxTest, files[:8])
	im, err := corrupt.Cached(c.TargetCache, key, func() (*digits.Images, error) {
		all, err := digits.ReadGrey(c.Dir, c.Dataset, "test")
		if err != nil {
			return nil, err
		}
		n := c.MaxTarget + c.MaxTest
		if n > all.N {
			return nil, fmt.Errorf("experiment: %d unlabelled and %d scored target images from the %d of the %s test split", c.MaxTarget, c.MaxTest, all.N, c.Dataset)
		}
		return corrupt.Apply(all.Subset(rand.New(rand.NewPCG(seed, 0x7a59e7)).Perm(all.N)[:n]), t.Transform, t.Level, seed)
	})
	if err != nil {
		return unlabelled, test, err
	}
	x, err := digits.Input(im, digits.InputSize)
	if err != nil {
		return unlabelled, test, err
	}
	all := datasets.Split[float32]{Name: fmt.Sprintf("%s test %s", c.Dataset, t), X: tensor.Affine(x, 2, -1), Y: im.Labels}
	idx := make([]int, all.Len())
	for i := range idx {
		idx[i] = i
	}
	return all.Rows(idx[:c.MaxTarget]), all.Rows(idx[c.MaxTarget:]), nil
}
