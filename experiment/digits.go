package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/ecl-go/ecl/datasets/digits"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/train"
)

// DigitClasses is the number of classes of the digit domains.
const DigitClasses = 10

// Archs lists the digit networks.
var Archs = SmallArchs

// DigitsConfig configures the digit domain-shift study (docs/method.md, "Data"): one
// target domain, the other domains merged as the source. The paper's
// protocol is Epochs = 100, Batch = 100, LR = 1e-3 and 10 runs; smaller
// settings make a CPU run practical.
type DigitsConfig struct {
	Study
	// Dir is the data directory (see digits.Load); the run records hold
	// its files' checksums instead.
	Dir  string `json:"-"`
	Arch string
	// Split chooses the task's domains and subsets (digits.NewTask); its
	// Seed is set per run.
	Split digits.TaskOptions
	Training
}

// recipe is the paper's: Adam at LR in every stage, with the
// configuration's epochs and batch, once c is valid.
func (c DigitsConfig) recipe() (train.Recipe, error) {
	if err := c.Validate(); err != nil {
		return train.Recipe{}, err
	}
	return recipe(c.Study, c.Training)
}

// Validate checks every setting before any work: the study's, the
// architecture, the domains and subset sizes, the auxiliary head's data,
// and the epochs, batch and learning rate (AuxEpochs and ECLEpochs 0 for
// Epochs, ValFraction 0 for 0.1, a limit 0 for every sample).
func (c DigitsConfig) Validate() error {
	if err := c.validate(); err != nil {
		return err
	}
	settings := append(c.Training.settings(c.AuxFit),
		oneOf("Arch", c.Arch, Archs),
		oneOf("Split.Target", c.Split.Target, digits.Domains),
		atLeast("Split.MaxSource", c.Split.MaxSource, 0, false),
		atLeast("Split.MaxTarget", c.Split.MaxTarget, 0, false),
		atLeast("Split.MaxTest", c.Split.MaxTest, 0, false),
	)
	if v := c.Split.ValFraction; v != 0 && !(v > 0 && v < 1) {
		settings = append(settings, &SettingError{"Split.ValFraction", v, "a number in (0, 1) (0: 0.1)"})
	}
	for _, d := range c.Split.Sources {
		if d == c.Split.Target {
			settings = append(settings, &SettingError{"Split.Sources", d, "domains other than the target " + c.Split.Target})
		}
		settings = append(settings, oneOf("Split.Sources", d, digits.Domains))
	}
	return check(settings...)
}

// NewDigitNet makes the network arch for 3×28×28 digits with an auxiliary
// head of auxOut outputs.
func NewDigitNet(arch string, rng *rand.Rand, auxOut int) (*ecl.Classifier[float32], error) {
	return NewSmallNet(arch, rng, DigitClasses, auxOut)
}

// RunDigits trains, for each seed, the base network on the source and
// every method on top of it, and evaluates them on the target's test split
// (and on the held-out source). The backbone is fixed after the base
// training, as in the reference code's ECL stage: the auxiliary head, the
// fine-tuned main heads and the post-hoc methods work on its features,
// which are computed once (evaluation mode). A run is one seed (every
// method shares its base network); with Store.Dir set, its results go to
// their own file as it ends, keyed by the configuration and the data
// files' checksums, and a run whose file is there is skipped
// (Store.Resume).
func RunDigits(c DigitsConfig) ([]Result, error) {
	r, err := c.recipe()
	if err != nil {
		return nil, err
	}
	sums, err := dataChecksums(c.Dir, c.Split)
	if err != nil {
		return nil, err
	}
	var specs []runSpec
	for run := range c.Runs {
		specs = append(specs, c.spec(c.Seed+uint64(run), sums))
	}
	return runSpecs(c.Study, c.Training, "digits", specs, func(i int) ([]Result, error) { return c.run(r, specs[i].seed, sums) })
}

// spec is the run of the given seed; sums are the data files' checksums.
func (c DigitsConfig) spec(seed uint64, sums map[string]string) runSpec {
	// A run's results depend on the configuration without the study's
	// seeds and on the data files (its record's Config and key).
	rc := c
	rc.Runs, rc.Seed, rc.Log, rc.Progress, rc.Split.Seed = 0, 0, nil, nil, 0
	return runSpec{study: "digits", label: fmt.Sprintf("%s %s seed %d", c.Split.Target, c.Arch, seed), seed: seed,
		config: rc, data: sums, dataDir: c.Dir}
}

// RunOne computes run i (seed Seed+i) in this process, without the Store:
// what a worker process serving the study's runs (Exec) calls.
func (c DigitsConfig) RunOne(i int) ([]Result, error) {
	r, err := c.recipe()
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= c.Runs {
		return nil, fmt.Errorf("experiment: run %d of %d", i, c.Runs)
	}
	sums, err := dataChecksums(c.Dir, c.Split)
	if err != nil {
		return nil, err
	}
	return c.run(r, c.Seed+uint64(i), sums)
}

// run trains and evaluates every model of one seed; sums are the data
// files' checksums.
func (c DigitsConfig) run(r train.Recipe, seed uint64, sums map[string]string) ([]Result, error) {
	o := c.Split
	o.Seed = seed
	sp, err := digits.NewTask(c.Dir, o)
	if err != nil {
		return nil, err
	}
	task := domainTask{source: sp.Source, val: sp.Val, unlabelled: sp.Unlabelled, test: sp.Test, target: sp.Target, classes: DigitClasses,
		setup: fmt.Sprintf("%s %s→%s n=%d/%d/%d", c.Arch, strings.Join(sp.Sources, "+"), sp.Target, sp.Source.Len(), sp.Unlabelled.Len(), sp.Test.Len()),
		net: func(rng *rand.Rand, auxOut int) (*ecl.Classifier[float32], error) {
			return NewDigitNet(c.Arch, rng, auxOut)
		}}
	if task.ck, err = c.checkpoint(c.Store, c.spec(seed, sums)); err != nil {
		return nil, err
	}
	if task.cached, err = c.basePath(c.Arch, o.Target, o.Seed, o, sums); err != nil {
		return nil, err
	}
	return runDomain(c.Study, c.Training, r, seed, task)
}

// dataChecksums maps each file of the domains o reads (relative to dir)
// to its SHA-256; synth is rendered, not read.
func dataChecksums(dir string, o digits.TaskOptions) (map[string]string, error) {
	domains := append([]string{o.Target}, o.Sources...)
	if o.Sources == nil {
		domains = digits.Domains
	}
	sums := map[string]string{}
	for _, d := range domains {
		if d == "synth" || !digits.Available(dir, d) {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(dir, d))
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			sum, err := fileSHA256(filepath.Join(dir, d, e.Name()))
			if err != nil {
				return nil, err
			}
			sums[d+"/"+e.Name()] = sum
		}
	}
	return sums, nil
}

// fileSHA256 is the hex SHA-256 of the file at path.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("experiment: checksum of %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
