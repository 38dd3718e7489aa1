package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ecl-go/ecl/datasets"
	"github.com/ecl-go/ecl/datasets/digits"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/nn"
	"github.com/ecl-go/ecl/tensor"
	"github.com/ecl-go/ecl/train"
)

// DigitClasses is the number of classes of the digit domains.
const DigitClasses = 10

// Archs lists the digit networks.
var Archs = []string{"lenet5", "resnet20", "densenet40"}

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
	// Epochs of the base model; AuxEpochs and ECLEpochs of the auxiliary
	// head and of the fine-tuning stages (Epochs when zero).
	Epochs, AuxEpochs, ECLEpochs int
	Batch                        int
	LR                           float64
	// Device names where the base model trains (the CPU when empty); Dev
	// is that device, set by the caller. The heads and fine-tuning stages
	// train on the CPU.
	Device string                 `json:",omitempty"`
	Dev    tensor.Device[float32] `json:"-"`
	// AuxData lists the source samples the auxiliary head is trained on,
	// one ECL row each ("ECL-<paradigm>-<data>" when more than one):
	// "heldout", the held-out source split that the backbone never saw
	// (the default: a head fitted where the backbone is nearly always
	// right cannot estimate P(correct) elsewhere), "train", the
	// backbone's training split, or "oracle", the target's unlabelled
	// split with its labels, or "oracle-both", that and the held-out
	// source (diagnostics, not methods: the oracle heads tell whether ECL
	// lowers the target error when the head's estimates are right on the
	// target, or on both domains).
	AuxData []string
	// AuxCE trains the top-label auxiliary head with cross-entropy alone,
	// without the Soft-ECE term the paper calibrates it with.
	AuxCE bool
	// WholeNetwork fine-tunes the backbone with the main head in the ECL
	// stage and the fine-tuning baselines, on the images (slow), instead of
	// the main head alone on the frozen backbone's features.
	WholeNetwork bool
	// NonTrainable uses the soft-binned estimator on each pair of
	// mini-batches instead of Algorithm 1 (the paper's Table 7).
	NonTrainable bool
	// BaseCache, when set, is a directory of trained base networks: a run
	// whose base network (same architecture, data, split, seed and base
	// schedule) is there loads it instead of training it, and one that
	// trains it saves it there. Results are the same either way.
	BaseCache string `json:"-"`
	// Log, when set, receives progress messages.
	Log func(format string, args ...any) `json:"-"`
	// CheckpointEvery is the training stages' checkpoint interval in
	// epochs (with Store.Dir; 0 for 1): a killed run resumes from its last
	// checkpoint.
	CheckpointEvery int `json:"-"`
	// Progress, when set, is called after each run with the runs done and
	// in all.
	Progress func(done, total int) `json:"-"`
}

// recipe is the paper's: Adam at LR in every stage, with the
// configuration's epochs and batch, once c is valid.
func (c DigitsConfig) recipe() (train.Recipe, error) {
	aux, fine := c.AuxEpochs, c.ECLEpochs
	if aux == 0 {
		aux = c.Epochs
	}
	if fine == 0 {
		fine = c.Epochs
	}
	r := train.Recipe{
		Name: "paper", Batch: c.Batch,
		Base: train.Stage{Epochs: c.Epochs, LR: c.LR}, Aux: train.Stage{Epochs: aux, LR: c.LR}, ECL: train.Stage{Epochs: fine, LR: c.LR},
		AuxSoftECE: !c.AuxCE, NonTrainable: c.NonTrainable, WholeNetwork: c.WholeNetwork, LambdaCE: c.LambdaCE, Gamma: c.Gamma, Loss: c.Loss,
	}
	if r.LambdaCE == 0 {
		r.LambdaCE = 1
	}
	if err := c.Validate(); err != nil {
		return r, err
	}
	var err error
	r.Adaptive, err = c.adaptive()
	return r, err
}

// Validate checks every setting before any work: the study's, the
// architecture, the domains and subset sizes, the auxiliary head's data,
// and the epochs, batch and learning rate (AuxEpochs and ECLEpochs 0 for
// Epochs, ValFraction 0 for 0.1, a limit 0 for every sample).
func (c DigitsConfig) Validate() error {
	if err := c.validate(); err != nil {
		return err
	}
	oneOf := func(field, v string, in []string) *SettingError {
		if slices.Contains(in, v) {
			return nil
		}
		return &SettingError{field, v, "one of " + strings.Join(in, ", ")}
	}
	settings := []*SettingError{
		oneOf("Arch", c.Arch, Archs),
		oneOf("Split.Target", c.Split.Target, digits.Domains),
		atLeast("Epochs", c.Epochs, 1, false),
		atLeast("AuxEpochs", c.AuxEpochs, 1, true),
		atLeast("ECLEpochs", c.ECLEpochs, 1, true),
		atLeast("Batch", c.Batch, 1, false),
		atLeast("CheckpointEvery", c.CheckpointEvery, 1, true),
		atLeast("Split.MaxSource", c.Split.MaxSource, 0, false),
		atLeast("Split.MaxTarget", c.Split.MaxTarget, 0, false),
		atLeast("Split.MaxTest", c.Split.MaxTest, 0, false),
	}
	if !(c.LR > 0 && c.LR <= maxLR) {
		settings = append(settings, &SettingError{"LR", c.LR, fmt.Sprintf("a number in (0, %g]", float64(maxLR))})
	}
	if v := c.Split.ValFraction; v != 0 && !(v > 0 && v < 1) {
		settings = append(settings, &SettingError{"Split.ValFraction", v, "a number in (0, 1) (0: 0.1)"})
	}
	for _, d := range c.Split.Sources {
		if d == c.Split.Target {
			settings = append(settings, &SettingError{"Split.Sources", d, "domains other than the target " + c.Split.Target})
		}
		settings = append(settings, oneOf("Split.Sources", d, digits.Domains))
	}
	for _, d := range c.AuxData {
		settings = append(settings, oneOf("AuxData", d, AuxData))
	}
	for _, f := range c.AuxFit {
		if c.WholeNetwork && f != "plain" {
			settings = append(settings, &SettingError{"AuxFit", f, "plain when the whole network is fine-tuned (its features change under the fixed estimates)"})
		}
	}
	return check(settings...)
}

// AuxData lists the auxiliary head's training sets DigitsConfig.AuxData
// accepts.
var AuxData = []string{"heldout", "train", "oracle", "oracle-both"}

// auxSets maps each of AuxData to its data: the source training split
// src, the held-out source val and the labelled target training split tgt.
func auxSets[T tensor.Float](src, val, tgt datasets.Split[T]) map[string]datasets.Split[T] {
	both := datasets.Concat(val.Name+" + "+tgt.Name, val, tgt)
	return map[string]datasets.Split[T]{"train": src, "heldout": val, "oracle": tgt, "oracle-both": both}
}

// NewDigitNet makes the network arch for 3×28×28 digits with an auxiliary
// head of auxOut outputs.
func NewDigitNet(arch string, rng *rand.Rand, auxOut int) (*ecl.Classifier[float32], error) {
	switch arch {
	case "lenet5":
		return ecl.NewClassifier(rng, nn.LeNet5[float32], DigitClasses, auxOut), nil
	case "resnet20":
		return ecl.NewClassifier(rng, nn.ResNet20[float32], DigitClasses, auxOut), nil
	case "densenet40":
		return ecl.NewClassifier(rng, nn.DenseNet40[float32], DigitClasses, auxOut), nil
	}
	return nil, fmt.Errorf("experiment: unknown architecture %q (want one of %v)", arch, Archs)
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
	if err := c.Store.writePlan("digits", c.Args, specs); err != nil {
		return nil, err
	}
	done := 0
	rows, err := c.runAll(specs, func(i int) ([]Result, error) { return c.run(r, specs[i].seed, sums) }, func(int) {
		done++
		if c.Progress != nil {
			c.Progress(done, len(specs))
		}
	})
	if err != nil {
		return nil, err
	}
	// Every record is written: the runs' checkpoints are not needed.
	if err := c.Store.removeCheckpoints(specs); err != nil {
		return nil, err
	}
	return slices.Concat(rows...), nil
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
	logf := c.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	o := c.Split
	o.Seed = seed
	sp, err := digits.NewTask(c.Dir, o)
	if err != nil {
		return nil, err
	}
	setup := fmt.Sprintf("%s %s→%s n=%d/%d/%d", c.Arch, strings.Join(sp.Sources, "+"), sp.Target, sp.Source.Len(), sp.Unlabelled.Len(), sp.Test.Len())
	logf("seed %d: %s (source %d train + %d validation, target %d unlabelled + %d test)", seed, setup, sp.Source.Len(), sp.Val.Len(), sp.Unlabelled.Len(), sp.Test.Len())
	ck, err := c.checkpoint(seed, sums)
	if err != nil {
		return nil, err
	}
	model, err := NewDigitNet(c.Arch, rand.New(ck.init), DigitClasses)
	if err != nil {
		return nil, err
	}
	cached, err := c.basePath(o, sums)
	if err != nil {
		return nil, err
	}
	resume, baseDone, err := ck.loadBase(model)
	if err != nil {
		return nil, err
	}
	switch _, statErr := os.Stat(cached); {
	case cached != "" && statErr == nil:
		if err := nn.Load(cached, nn.Module[float32](model)); err != nil {
			return nil, err
		}
		logf("seed %d: base network from %s", seed, cached)
	case baseDone:
		logf("seed %d: base network from the checkpoint in %s", seed, ck.dir)
	default:
		base := r
		base.Base.OnEpoch = func(epoch int, loss float64) {
			logf("seed %d: base epoch %d/%d, loss %.4f", seed, epoch, r.Base.Epochs, loss)
		}
		if resume != nil {
			logf("seed %d: base stage resumed after epoch %d/%d from the checkpoint in %s", seed, resume.Epoch, r.Base.Epochs, ck.dir)
			base.Base.Resume = resume
		}
		base.Base.Checkpoint = func(s train.StageState) error { return ck.saveBase(model, s, r.Base.Epochs) }
		if err := c.onDevice(func(dev tensor.Device[float32]) error {
			nn.ToDevice[float32](model, dev)
			return train.Base(rand.New(ck.train), base, model, sp.Source.To(dev))
		}); err != nil {
			return nil, err
		}
	}
	var src, val, tgt, test datasets.Split[float32]
	if err := c.onDevice(func(dev tensor.Device[float32]) error {
		nn.ToDevice[float32](model, dev)
		// The backbone's features of s, on the CPU.
		feat := func(s datasets.Split[float32]) datasets.Split[float32] {
			s.X = tensor.To(featureTensor(model.Backbone, tensor.To(s.X, dev)), tensor.CPU[float32]{})
			return s
		}
		src, val, tgt, test = feat(sp.Source), feat(sp.Val), feat(sp.Unlabelled), feat(sp.Test)
		nn.ToDevice[float32](model, tensor.CPU[float32]{})
		return nil
	}); err != nil {
		return nil, err
	}
	if cached != "" {
		if _, statErr := os.Stat(cached); statErr != nil {
			if err := os.MkdirAll(c.BaseCache, 0o755); err != nil {
				return nil, err
			}
			if err := nn.Save(cached, nn.Module[float32](model)); err != nil {
				return nil, err
			}
		}
	}
	dim := src.X.Dim(1)
	auxData := c.AuxData
	if len(auxData) == 0 {
		auxData = []string{"heldout"}
	}
	heads := func(rng *rand.Rand, auxOut int) (*ecl.Classifier[float32], error) {
		vb := nn.NewVars[float32]()
		return &ecl.Classifier[float32]{Backbone: nn.Sequential[float32]{}, Main: nn.NewLinear(vb.Sub("main"), rng, dim, DigitClasses), Aux: nn.NewLinear(vb.Sub("aux"), rng, dim, auxOut)}, nil
	}
	a := &arm[float32]{
		recipe: r, classes: DigitClasses, seed: seed,
		base: &ecl.Classifier[float32]{Backbone: nn.Sequential[float32]{}, Main: model.Main, Aux: model.Aux},
		src:  src, val: val, tgt: tgt, evalSrc: val, evalTgt: test,
		full: model, inputs: sp.Unlabelled.X,
		auxData: auxData, auxSets: auxSets(src, val, tgt),
		auxFits: c.AuxFit, auxFolds: c.AuxFolds,
		embed: func(x *tensor.Tensor[float32]) *tensor.Tensor[float32] { return featureTensor(model.Backbone, x) },
	}
	a.models = modelFactory[float32]{build: heads, base: a.base, seed: seed}
	if c.WholeNetwork {
		a.base = model
		a.models = modelFactory[float32]{build: func(rng *rand.Rand, auxOut int) (*ecl.Classifier[float32], error) {
			return NewDigitNet(c.Arch, rng, auxOut)
		}, base: model, seed: seed}
		a.src, a.val, a.tgt, a.evalSrc, a.evalTgt = sp.Source, sp.Val, sp.Unlabelled, sp.Val, sp.Test
		a.auxSets, a.embed = auxSets(a.src, a.val, a.tgt), nil
	}
	steps, err := a.steps(c.Methods, c.Control, c.Paradigms)
	if err != nil {
		return nil, err
	}
	if a.done, err = ck.loadSteps(a.postHoc, len(steps)); err != nil {
		return nil, err
	}
	if len(a.done) > 0 {
		logf("seed %d: %d of %d rows from the checkpoint in %s", seed, len(a.done), len(steps), ck.dir)
	}
	a.ck = ck
	ck.logf = func(format string, args ...any) { logf("seed %d: "+format, append([]any{seed}, args...)...) }
	a.afterStep = func(done []Result) error {
		if err := ck.saveSteps(a.postHoc, done); err != nil {
			return err
		}
		return ck.removeStep(len(done) - 1)
	}
	out, err := a.results(steps, c.Metrics, func(res Result) {
		logf("seed %d: %-14s target ACC %.2f ECE %.2f CwECE %.2f%s", seed, res.Method, 100*res.Target.ACC, 100*res.Target.ECE, 100*res.Target.CwECE, res.Diag.summary())
	})
	for i := range out {
		out[i].Shift, out[i].Setup, out[i].Seed = DigitsShift(sp.Target), setup, seed
	}
	return out, err
}

// checkpoint is the run of seed's checkpoint directory (none without
// Store.Dir; emptied first with Store.Resume off), with the random
// streams of its network's initialisation and base stage.
func (c DigitsConfig) checkpoint(seed uint64, sums map[string]string) (*runCheckpoint, error) {
	ck := &runCheckpoint{every: max(c.CheckpointEvery, 1), init: rand.NewPCG(seed, 1), train: rand.NewPCG(seed, 2)}
	dir, err := c.Store.checkpointDir(c.spec(seed, sums))
	if err != nil || dir == "" {
		return ck, err
	}
	ck.dir = dir
	if !c.Store.Resume {
		// Start afresh, and checkpoint this run.
		if err := os.RemoveAll(dir); err != nil {
			return nil, err
		}
	}
	return ck, nil
}

// onDevice runs f with the configuration's device, turning the device's
// panics (a kernel that failed, memory exhausted) into an error.
func (c DigitsConfig) onDevice(f func(dev tensor.Device[float32]) error) (err error) {
	dev, err := device(c.Device, c.Dev)
	if err != nil {
		return err
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("experiment: on %s: %v", dev, p)
		}
	}()
	return f(dev)
}

// device is the device a study's Device and Dev name: the CPU for "", else
// dev, which the caller must have opened.
func device[T tensor.Float](name string, dev tensor.Device[T]) (tensor.Device[T], error) {
	if name == "" {
		return tensor.CPU[T]{}, nil
	}
	if dev == nil {
		return nil, fmt.Errorf("experiment: device %q requested but not opened", name)
	}
	return dev, nil
}

// basePath is the file of BaseCache holding the base network trained on
// split o (its seed set) of the data with checksums sums ("" without a
// cache): named by a hash of everything the base training depends on.
func (c DigitsConfig) basePath(o digits.TaskOptions, sums map[string]string) (string, error) {
	if c.BaseCache == "" {
		return "", nil
	}
	key, err := json.Marshal(struct {
		Arch   string
		Split  digits.TaskOptions
		Epochs int
		Batch  int
		LR     float64
		Data   map[string]string
		Device string `json:",omitempty"`
	}{c.Arch, o, c.Epochs, c.Batch, c.LR, sums, c.Device})
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(key)
	return filepath.Join(c.BaseCache, fmt.Sprintf("%s-%s-seed%d-%s.state", c.Arch, o.Target, o.Seed, hex.EncodeToString(h[:8]))), nil
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

// featureTensor is m's evaluation-mode output on x, computed in chunks.
func featureTensor[T tensor.Float](m nn.Module[T], x *tensor.Tensor[T]) *tensor.Tensor[T] {
	n := x.Dim(0)
	var parts []*tensor.Tensor[T]
	for lo := 0; lo < n; lo += predictChunk {
		parts = append(parts, nn.Predict(m, tensor.Narrow(x, 0, lo, min(predictChunk, n-lo))))
	}
	return tensor.Concat(0, parts...)
}
