package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ecl-go/ecl/datasets"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/nn"
	"github.com/ecl-go/ecl/tensor"
	"github.com/ecl-go/ecl/train"
)

// Training holds the settings the domain-shift studies (digits, images)
// share: the schedule of the base network, the auxiliary head and the
// fine-tuning stages, where the base network trains, and how a run keeps
// its progress.
type Training struct {
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

// recipe is the paper's: Adam at LR in every stage, with t's epochs and
// batch and s's loss, once both are valid.
func recipe(s Study, t Training) (train.Recipe, error) {
	aux, fine := t.AuxEpochs, t.ECLEpochs
	if aux == 0 {
		aux = t.Epochs
	}
	if fine == 0 {
		fine = t.Epochs
	}
	r := train.Recipe{
		Name: "paper", Batch: t.Batch,
		Base: train.Stage{Epochs: t.Epochs, LR: t.LR}, Aux: train.Stage{Epochs: aux, LR: t.LR}, ECL: train.Stage{Epochs: fine, LR: t.LR},
		AuxSoftECE: !t.AuxCE, NonTrainable: t.NonTrainable, WholeNetwork: t.WholeNetwork, LambdaCE: s.LambdaCE, Gamma: s.Gamma, Loss: s.Loss,
	}
	if r.LambdaCE == 0 {
		r.LambdaCE = 1
	}
	var err error
	r.Adaptive, err = s.adaptive()
	return r, err
}

// settings are t's settings errors (AuxEpochs and ECLEpochs 0 for
// Epochs): the epochs, batch, learning rate, the auxiliary head's data
// and, with WholeNetwork, the ways of fitting the head in auxFit
// (Study.AuxFit) other than plain, which need the frozen backbone.
func (t Training) settings(auxFit []string) []*SettingError {
	s := []*SettingError{
		atLeast("Epochs", t.Epochs, 1, false),
		atLeast("AuxEpochs", t.AuxEpochs, 1, true),
		atLeast("ECLEpochs", t.ECLEpochs, 1, true),
		atLeast("Batch", t.Batch, 1, false),
		atLeast("CheckpointEvery", t.CheckpointEvery, 1, true),
	}
	if !(t.LR > 0 && t.LR <= maxLR) {
		s = append(s, &SettingError{"LR", t.LR, fmt.Sprintf("a number in (0, %g]", float64(maxLR))})
	}
	for _, d := range t.AuxData {
		s = append(s, oneOf("AuxData", d, AuxData))
	}
	for _, f := range auxFit {
		if t.WholeNetwork && f != "plain" {
			s = append(s, &SettingError{"AuxFit", f, "plain when the whole network is fine-tuned (its features change under the fixed estimates)"})
		}
	}
	return s
}

// oneOf is the error of a setting v not in in (nil when it is).
func oneOf(field, v string, in []string) *SettingError {
	if slices.Contains(in, v) {
		return nil
	}
	return &SettingError{field, v, "one of " + strings.Join(in, ", ")}
}

// AuxData lists the auxiliary head's training sets Training.AuxData
// accepts.
var AuxData = []string{"heldout", "train", "oracle", "oracle-both"}

// auxSets maps each of AuxData to its data: the source training split
// src, the held-out source val and the labelled target training split tgt.
func auxSets[T tensor.Float](src, val, tgt datasets.Split[T]) map[string]datasets.Split[T] {
	both := datasets.Concat(val.Name+" + "+tgt.Name, val, tgt)
	return map[string]datasets.Split[T]{"train": src, "heldout": val, "oracle": tgt, "oracle-both": both}
}

// SmallArchs lists the networks trained from scratch on 3×28×28 inputs.
var SmallArchs = []string{"lenet5", "resnet20", "densenet40"}

// NewSmallNet makes the network arch (one of SmallArchs) for 3×28×28
// inputs with classes outputs and an auxiliary head of auxOut outputs.
func NewSmallNet(arch string, rng *rand.Rand, classes, auxOut int) (*ecl.Classifier[float32], error) {
	switch arch {
	case "lenet5":
		return ecl.NewClassifier(rng, nn.LeNet5[float32], classes, auxOut), nil
	case "resnet20":
		return ecl.NewClassifier(rng, nn.ResNet20[float32], classes, auxOut), nil
	case "densenet40":
		return ecl.NewClassifier(rng, nn.DenseNet40[float32], classes, auxOut), nil
	}
	return nil, fmt.Errorf("experiment: unknown architecture %q (want one of %v)", arch, SmallArchs)
}

// domainTask is one run of a domain-shift study: its data and network.
type domainTask struct {
	// source trains and val (held-out source) fits the post-hoc
	// methods; unlabelled is the target the training-time methods see
	// (its labels only the oracles'); test is the target's, scored.
	source, val, unlabelled, test datasets.Split[float32]
	target                        string
	classes                       int
	// setup describes the task in the results ("lenet5 usps→mnist
	// n=…").
	setup string
	// net makes the network (the same from the same stream).
	net func(rng *rand.Rand, auxOut int) (*ecl.Classifier[float32], error)
	ck  *runCheckpoint
	// cached is the base network's file in Training.BaseCache ("": none).
	cached string
	// augment, when set, makes the source's inputs of each epoch of the
	// base stage (from 0), rows in source's order: the training
	// transform's random crops. The later stages see source.X.
	augment func(epoch int) (*tensor.Tensor[float32], error)
	// pretrained, when set, is the base network's main head as it is
	// (a network's own classifier on its features): no base stage.
	pretrained *nn.Linear[float32]
}

// runDomain trains, for one seed, the base network of task on its source
// and every method of s on top of it, and evaluates them on the target's
// test split (and on the held-out source). The backbone is fixed after
// the base training, as in the reference code's ECL stage (unless
// t.WholeNetwork): the auxiliary head, the fine-tuned main heads and the
// post-hoc methods work on its features, which are computed once
// (evaluation mode).
func runDomain(s Study, t Training, r train.Recipe, seed uint64, task domainTask) ([]Result, error) {
	logf := t.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	sp, ck := task, task.ck
	logf("seed %d: %s (source %d train + %d validation, target %d unlabelled + %d test)", seed, task.setup, sp.source.Len(), sp.val.Len(), sp.unlabelled.Len(), sp.test.Len())
	model, err := task.net(rand.New(ck.init), task.classes)
	if err != nil {
		return nil, err
	}
	cached := task.cached
	resume, baseDone, err := ck.loadBase(model)
	if err != nil {
		return nil, err
	}
	switch _, statErr := os.Stat(cached); {
	case task.pretrained != nil:
		if err := copyLinear(model.Main, task.pretrained); err != nil {
			return nil, err
		}
		logf("seed %d: base network: the pretrained head", seed)
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
		base.Base.Checkpoint = func(st train.StageState) error { return ck.saveBase(model, st, r.Base.Epochs) }
		if err := t.onDevice(func(dev tensor.Device[float32]) error {
			nn.ToDevice[float32](model, dev)
			if task.augment != nil {
				return baseAugmented(rand.New(ck.train), base, model, sp.source, task.augment, dev)
			}
			return train.Base(rand.New(ck.train), base, model, sp.source.To(dev))
		}); err != nil {
			return nil, err
		}
	}
	var src, val, tgt, test datasets.Split[float32]
	if err := t.onDevice(func(dev tensor.Device[float32]) error {
		nn.ToDevice[float32](model, dev)
		// The backbone's features of s, on the CPU.
		feat := func(s datasets.Split[float32]) datasets.Split[float32] {
			s.X = tensor.To(featureTensor(model.Backbone, tensor.To(s.X, dev)), tensor.CPU[float32]{})
			return s
		}
		src, val, tgt, test = feat(sp.source), feat(sp.val), feat(sp.unlabelled), feat(sp.test)
		nn.ToDevice[float32](model, tensor.CPU[float32]{})
		return nil
	}); err != nil {
		return nil, err
	}
	if cached != "" {
		if _, statErr := os.Stat(cached); statErr != nil {
			if err := os.MkdirAll(t.BaseCache, 0o755); err != nil {
				return nil, err
			}
			if err := nn.Save(cached, nn.Module[float32](model)); err != nil {
				return nil, err
			}
		}
	}
	dim, k := src.X.Dim(1), task.classes
	auxData := t.AuxData
	if len(auxData) == 0 {
		auxData = []string{"heldout"}
	}
	a := &arm[float32]{
		recipe: r, classes: k, seed: seed,
		base: &ecl.Classifier[float32]{Backbone: nn.Sequential[float32]{}, Main: model.Main, Aux: model.Aux},
		src:  src, val: val, tgt: tgt, evalSrc: val, evalTgt: test,
		full: model, inputs: sp.unlabelled.X,
		auxData: auxData, auxSets: auxSets(src, val, tgt),
		auxFits: s.AuxFit, auxFolds: s.AuxFolds,
		embed: func(x *tensor.Tensor[float32]) *tensor.Tensor[float32] { return featureTensor(model.Backbone, x) },
	}
	a.models = modelFactory[float32]{build: heads(dim, k), base: a.base, seed: seed}
	if t.WholeNetwork {
		a.base = model
		a.models = modelFactory[float32]{build: task.net, base: model, seed: seed}
		a.src, a.val, a.tgt, a.evalSrc, a.evalTgt = sp.source, sp.val, sp.unlabelled, sp.val, sp.test
		a.auxSets, a.embed = auxSets(a.src, a.val, a.tgt), nil
	}
	steps, err := a.steps(s.Methods, s.Control, s.Paradigms)
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
	out, err := a.results(steps, s.Metrics, func(res Result) {
		if res.Unfit != "" {
			logf("seed %d: %-14s not fitted: %s", seed, res.Method, res.Unfit)
			return
		}
		logf("seed %d: %-14s target ACC %.2f ECE %.2f CwECE %.2f%s", seed, res.Method, 100*res.Target.ACC, 100*res.Target.ECE, 100*res.Target.CwECE, res.Diag.summary())
	})
	for i := range out {
		out[i].Shift, out[i].Setup, out[i].Seed = DigitsShift(task.target), task.setup, seed
	}
	return out, err
}

// baseAugmented is train.Base with the source's inputs made again for
// each epoch by augment: the stage run one epoch at a time, each resuming
// from the state the last left (r.Base.Resume for the first), which is
// train.Base's run bit for bit when augment gives the same inputs every
// time. r.Base's Checkpoint is called after every epoch, as by
// train.Base.
func baseAugmented(rng *rand.Rand, r train.Recipe, m *ecl.Classifier[float32], src datasets.Split[float32], augment func(epoch int) (*tensor.Tensor[float32], error), dev tensor.Device[float32]) error {
	state, save := r.Base.Resume, r.Base.Checkpoint
	from := 0
	if state != nil {
		from = state.Epoch
	}
	for epoch := from; epoch < r.Base.Epochs; epoch++ {
		x, err := augment(epoch)
		if err != nil {
			return err
		}
		if x.Dim(0) != src.Len() {
			return fmt.Errorf("experiment: epoch %d's augmented inputs have %d rows for the %d of %s", epoch+1, x.Dim(0), src.Len(), src.Name)
		}
		s := src
		s.X = x
		one := r
		one.Base.Epochs, one.Base.Resume = epoch+1, state
		one.Base.Checkpoint = func(st train.StageState) error {
			state = &st
			if save != nil {
				return save(st)
			}
			return nil
		}
		if err := train.Base(rng, one, m, s.To(dev)); err != nil {
			return err
		}
	}
	return nil
}

// heads makes a network of a main head of k outputs and an auxiliary
// head on dim features, with no backbone.
func heads(dim, k int) func(rng *rand.Rand, auxOut int) (*ecl.Classifier[float32], error) {
	return func(rng *rand.Rand, auxOut int) (*ecl.Classifier[float32], error) {
		vb := nn.NewVars[float32]()
		return &ecl.Classifier[float32]{Backbone: nn.Sequential[float32]{}, Main: nn.NewLinear(vb.Sub("main"), rng, dim, k), Aux: nn.NewLinear(vb.Sub("aux"), rng, dim, auxOut)}, nil
	}
}

// copyLinear copies the weights of the linear layer from into to.
func copyLinear(to nn.Module[float32], from *nn.Linear[float32]) error {
	l, ok := to.(*nn.Linear[float32])
	if !ok || !slices.Equal(l.W.Shape(), from.W.Shape()) {
		return fmt.Errorf("experiment: a pretrained head %v into a main head %T", from.W.Shape(), to)
	}
	tensor.CopyInto(l.W.Value, from.W.Value)
	tensor.CopyInto(l.B.Value, from.B.Value)
	return nil
}

// runSpecs computes the runs specs of study (run i by run(i)), writes
// the plan first and removes the runs' checkpoints once every record is
// written.
func runSpecs(s Study, t Training, study string, specs []runSpec, run func(i int) ([]Result, error)) ([]Result, error) {
	if err := s.Store.writePlan(study, s.Args, specs); err != nil {
		return nil, err
	}
	done := 0
	rows, err := s.runAll(specs, run, func(int) {
		done++
		if t.Progress != nil {
			t.Progress(done, len(specs))
		}
	})
	if err != nil {
		return nil, err
	}
	if err := s.Store.removeCheckpoints(specs); err != nil {
		return nil, err
	}
	return slices.Concat(rows...), nil
}

// checkpoint is run spec's checkpoint directory (none without Store.Dir;
// emptied first with Store.Resume off), with the random streams of its
// network's initialisation and base stage.
func (t Training) checkpoint(st Store, spec runSpec) (*runCheckpoint, error) {
	ck := &runCheckpoint{every: max(t.CheckpointEvery, 1), init: rand.NewPCG(spec.seed, 1), train: rand.NewPCG(spec.seed, 2)}
	dir, err := st.checkpointDir(spec)
	if err != nil || dir == "" {
		return ck, err
	}
	ck.dir = dir
	if !st.Resume {
		// Start afresh, and checkpoint this run.
		if err := os.RemoveAll(dir); err != nil {
			return nil, err
		}
	}
	return ck, nil
}

// onDevice runs f with the configuration's device, turning the device's
// panics (a kernel that failed, memory exhausted) into an error.
func (t Training) onDevice(f func(dev tensor.Device[float32]) error) (err error) {
	dev, err := device(t.Device, t.Dev)
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

// basePath is the file of BaseCache holding the base network arch trained
// on split (its seed set) of the data with checksums sums ("" without a
// cache): named by a hash of everything the base training depends on.
func (t Training) basePath(arch, target string, seed uint64, split any, sums map[string]string) (string, error) {
	if t.BaseCache == "" {
		return "", nil
	}
	key, err := json.Marshal(struct {
		Arch   string
		Split  any
		Epochs int
		Batch  int
		LR     float64
		Data   map[string]string
		Device string `json:",omitempty"`
	}{arch, split, t.Epochs, t.Batch, t.LR, sums, t.Device})
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(key)
	return filepath.Join(t.BaseCache, fmt.Sprintf("%s-%s-seed%d-%s.state", arch, target, seed, hex.EncodeToString(h[:8]))), nil
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
