// Package experiment runs the project's comparisons end to end: data,
// training recipes, calibration methods and metrics over several seeds.
//
// A study is a list of runs, each the models trained on one base model
// (one seed of one setting). With a Store, every run's results go to their
// own file (a Record) as the run ends, keyed by a hash of its
// configuration, and a study run again reuses the files that are there, so
// a killed study loses at most the runs in flight and the records being
// written; ReadRecords gathers the files of any number of studies for a
// report.
//
// A run is a function of its configuration and seed that returns its
// results: its models are steps that each return a row (arm.steps), and the
// baselines are a registry of methods (Method, methods.go), each a line
// with a fit written once for both element types (docs/extending.md). Runs
// may be computed several at a time in worker processes (Study.Jobs and
// Exec; ServeRuns and RunClient carry the requests), giving the results of
// runs computed one after another.
//
// The studies are RunSim (the simulated shifts), RunDigits (the digit
// domains) and RunImages (folders of image domains: PACS,
// ImageNet-Sketch); the last two share Training and one run's body: a
// base network trained on the merged source domains, every method on top
// of its frozen features.
package experiment

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"github.com/ecl-go/ecl/datasets/sim"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/nn"
	"github.com/ecl-go/ecl/tensor"
	"github.com/ecl-go/ecl/train"
)

// Classes is the number of classes of the simulation.
const Classes = 3

// Study holds the settings every study shares.
type Study struct {
	Paradigms []ecl.Paradigm
	Runs      int
	// Seed is the first seed; runs use Seed, Seed+1, ….
	Seed uint64
	// Lambda is "adaptive" (CE + β^γ·ECL, the paper's), "fixed"
	// (λ_ce·CE + ECL, the reference code's) or empty for the study's
	// default; LambdaCE is λ_ce (0: the default) and Gamma is γ.
	Lambda   string
	LambdaCE float64
	Gamma    float64
	// Control adds the CE-finetune row: the ECL stage's schedule with the
	// cross-entropy term only.
	Control bool
	// Methods lists the baselines to add as rows: keys of Methods, each
	// once (ParseMethods reads a list).
	Methods []string
	Loss    ecl.Config // Bins, Tau, NProx, EMA, Reduce
	Metrics metrics.Options
	// AuxFit lists how the auxiliary head is fitted, one ECL row each
	// (with each of a domain study's AuxData): see AuxFits; empty for
	// "plain". AuxFolds is the folds of "crossfit" (0: 5).
	AuxFit   []string `json:",omitempty"`
	AuxFolds int      `json:",omitempty"`
	// Store keeps one result file per run (see Store); Args, the command
	// line, goes into the study's plan.
	Store Store    `json:"-"`
	Args  []string `json:"-"`
	// Jobs is how many runs are computed at once, each by Exec, which
	// computes run i of the study's plan (as RunOne would) in a worker
	// process: the engine's no-grad mode and arenas are process-wide, so
	// runs cannot share one. With Jobs ≤ 1 or no Exec, the runs are
	// computed one after another in this process. Either way each run's
	// randomness flows from its own seed: the results are the same.
	Jobs int                           `json:"-"`
	Exec func(i int) ([]Result, error) `json:"-"`
}

// adaptive reports whether Lambda asks for the paper's adaptive weight
// (fixed λ_ce·CE + ECL is the default).
func (s Study) adaptive() (bool, error) {
	switch s.Lambda {
	case "adaptive":
		return true, nil
	case "fixed", "":
		return false, nil
	}
	return false, &SettingError{"Lambda", s.Lambda, "adaptive or fixed"}
}

// SimConfig configures the simulation study. Zero numeric fields take the
// recipe's defaults.
type SimConfig struct {
	Study
	Recipe string // "paper" or "notebook"
	Shifts []sim.Kind

	Points, Hidden, Batch            int
	BaseEpochs, AuxEpochs, ECLEpochs int
	BaseLR, AuxLR, ECLLR             float64
	NonTrainable                     bool
	// Device names where the models train (the CPU when empty); Dev is
	// that device, set by the caller.
	Device string                 `json:",omitempty"`
	Dev    tensor.Device[float64] `json:"-"`
	// Progress, when set, is called after each run with the paradigms
	// done and in all.
	Progress func(done, total int) `json:"-"`
}

// Setup is what one paradigm's experiment trains on: the notebook recipe
// uses different data sizes, widths, batches and shifts per paradigm.
type Setup struct {
	Shift                 sim.Kind
	Points, Hidden, Batch int
	LambdaCE              float64
}

func (s Setup) String() string {
	return fmt.Sprintf("%s n=%d hidden=%d batch=%d", s.Shift, s.Points, s.Hidden, s.Batch)
}

// recipe returns the training recipe and the setup of paradigm p on shift k.
func (c SimConfig) recipe(k sim.Kind, p ecl.Paradigm) (train.Recipe, Setup, error) {
	var r train.Recipe
	var s Setup
	switch c.Recipe {
	case "paper", "":
		r = train.Recipe{
			Name: "paper",
			Base: train.Stage{Epochs: 100, LR: 1e-3},
			Aux:  train.Stage{Epochs: 100, LR: 1e-3},
			ECL:  train.Stage{Epochs: 100, LR: 1e-3},
			// The paper's adaptive λ is Lambda "adaptive"; the seed study
			// (README) found λ_ce·CE + ECL with the mean-reduced loss better
			// supported, so fixed λ_ce = 1 is the default.
			AuxSoftECE: true,
		}
		s = Setup{Shift: k, Points: 400, Hidden: 100, Batch: 100, LambdaCE: 1}
	case "notebook":
		r = train.Recipe{
			Name:       "notebook",
			Base:       train.Stage{Epochs: 200, LR: 0.01, Milestones: []int{100, 150}},
			Aux:        train.Stage{Epochs: 100, LR: 0.01},
			ECL:        train.Stage{Epochs: 100, LR: 1e-3},
			AuxSoftECE: true,
		}
		wide := map[sim.Kind]sim.Kind{sim.Normal: sim.NormalWide, sim.Uniform: sim.UniformWide}
		switch p {
		case ecl.TopLabel:
			s = Setup{Shift: k, Points: 400, Hidden: 100, Batch: 200, LambdaCE: 0.5}
		case ecl.ClassWise:
			s = Setup{Shift: k, Points: 600, Hidden: 100, Batch: 100, LambdaCE: 0.5}
		case ecl.Canonical:
			s = Setup{Shift: k, Points: 800, Hidden: 300, Batch: 100, LambdaCE: 10}
		}
		if w, ok := wide[k]; ok && p != ecl.TopLabel {
			s.Shift = w
		}
	default:
		return r, s, &SettingError{"Recipe", c.Recipe, "paper or notebook"}
	}
	override := func(dst *int, v int) {
		if v > 0 {
			*dst = v
		}
	}
	overrideF := func(dst *float64, v float64) {
		if v > 0 {
			*dst = v
		}
	}
	override(&s.Points, c.Points)
	override(&s.Hidden, c.Hidden)
	override(&s.Batch, c.Batch)
	override(&r.Base.Epochs, c.BaseEpochs)
	override(&r.Aux.Epochs, c.AuxEpochs)
	override(&r.ECL.Epochs, c.ECLEpochs)
	overrideF(&r.Base.LR, c.BaseLR)
	overrideF(&r.Aux.LR, c.AuxLR)
	overrideF(&r.ECL.LR, c.ECLLR)
	overrideF(&s.LambdaCE, c.LambdaCE)
	var err error
	if r.Adaptive, err = c.adaptive(); err != nil {
		return r, s, err
	}
	r.Batch, r.LambdaCE, r.Gamma, r.NonTrainable, r.Loss = s.Batch, s.LambdaCE, c.Gamma, c.NonTrainable, c.Loss
	return r, s, nil
}

// Scores are the calibration metrics of one model on one domain, as
// fractions (the tables print them ×100, NLL as is).
type Scores struct {
	ACC, ECE, CwECE, CanECE, KDE, NLL, Brier float64
}

// Result is one trained model evaluated on both domains.
type Result struct {
	Shift  ShiftID
	Method MethodID
	Setup  string
	Seed   uint64
	Target Scores
	Source Scores
	// Diagram is the target's calibrations, which the reliability
	// diagrams draw (kept in the run's record, not in results files).
	Diagram *Calibrations `json:"-"`
	// Diag explains an ECL row (nil for the others).
	Diag *Diagnostics `json:",omitempty"`
	// Unfit says why the method could not be fitted on this run's data
	// (an UnfitError); its scores are then empty, and the tables, results
	// files and reports leave the row out and list it beneath.
	Unfit string `json:",omitempty"`
}

// UnfitError reports a method that cannot be fitted on a run's data, such
// as PseudoCal when the model predicts one class on every target sample:
// the run records the row as unfit (Result.Unfit) and goes on.
type UnfitError struct{ Reason string }

func (e *UnfitError) Error() string { return "experiment: " + e.Reason }

// Fitted returns the results of rs whose method was fitted, and the lines
// that say which were not and why ("seed 3, PseudoCal: …"), in order.
func Fitted(rs []Result) (fitted []Result, unfit []string) {
	for _, r := range rs {
		if r.Unfit == "" {
			fitted = append(fitted, r)
			continue
		}
		unfit = append(unfit, fmt.Sprintf("%s seed %d, %s: %s", r.Shift, r.Seed, r.Method, r.Unfit))
	}
	return fitted, unfit
}

// Evaluate computes the Scores of probabilities probs [N, k] against labels:
// the columns of the studies' tables.
func Evaluate(probs []float64, k int, labels []int, o metrics.Options) (Scores, error) {
	m, err := metrics.Measure(probs, k, labels, o, true, metrics.KDECanonical)
	return scoresOf(m), err
}

// scoresOf returns the studies' columns of m (CanECE 0 without the
// canonical calibration, KDE the canonical ECE^KDE).
func scoresOf(m metrics.Measurement) Scores {
	s := Scores{ACC: m.ACC, ECE: m.Top.Error, CwECE: m.Classwise.Error, KDE: m.KDE[metrics.KDECanonical], NLL: m.NLL, Brier: m.Brier}
	if m.Canonical != nil {
		s.CanECE = m.Canonical.Error
	}
	return s
}

// simRun is one run of the simulation study: the models trained on one
// base model (one shift, setup and seed), that is Uncal, the baselines,
// the control and ECL in each paradigm sharing the setup; pos holds those
// paradigms' positions in the study's list.
type simRun struct {
	shift     sim.Kind
	setup     Setup
	recipe    train.Recipe
	seed      uint64
	paradigms []ecl.Paradigm
	pos       []int
}

// simRunConfig is what a simulation run's results depend on besides its
// seed: the study's configuration narrowed to the run's shift and
// paradigms (its record's Config and key).
type simRunConfig struct {
	SimConfig
	Setup Setup
}

// SettingError is a setting of a study outside its range, named by its
// field (Batch, Loss.Bins, ...), found before any work starts.
type SettingError struct {
	Field string
	Value any
	Want  string
}

func (e *SettingError) Error() string {
	return fmt.Sprintf("experiment: %s = %v: want %s", e.Field, e.Value, e.Want)
}

// check returns a SettingError for the first setting that fails its test.
func check(settings ...*SettingError) error {
	for _, s := range settings {
		if s != nil {
			return s
		}
	}
	return nil
}

// atLeast is a SettingError unless v ≥ lo, or v = 0 when zero is the default.
func atLeast(field string, v, lo int, zeroDefault bool) *SettingError {
	if v >= lo || (zeroDefault && v == 0) {
		return nil
	}
	want := fmt.Sprintf("at least %d", lo)
	if zeroDefault {
		want += " (0: the default)"
	}
	return &SettingError{field, v, want}
}

// inRange is a SettingError unless v is finite and in [lo, hi] (no upper
// bound for hi = +Inf); 0, where allowed, is the default.
func inRange(field string, v, lo, hi float64) *SettingError {
	if v >= lo && v <= hi && !math.IsInf(v, 0) {
		return nil
	}
	want := fmt.Sprintf("a finite number in [%g, %g]", lo, hi)
	if math.IsInf(hi, 1) {
		want = fmt.Sprintf("a finite number ≥ %g", lo)
	}
	return &SettingError{field, v, want}
}

// validate checks the settings every study shares: the ranges of the
// fields, zero standing for the default where the field says so.
func (s Study) validate() error {
	if _, err := s.adaptive(); err != nil {
		return err
	}
	return check(
		atLeast("Runs", s.Runs, 1, false),
		inRange("LambdaCE", s.LambdaCE, 0, math.Inf(1)),
		inRange("Gamma", s.Gamma, 0, math.Inf(1)),
		atLeast("Loss.Bins", s.Loss.Bins, 1, true),
		inRange("Loss.Tau", s.Loss.Tau, 0, math.Inf(1)),
		atLeast("Loss.NProx", s.Loss.NProx, 1, true),
		inRange("Loss.EMA", s.Loss.EMA, 0, 1),
		atLeast("AuxFolds", s.AuxFolds, 2, true),
		s.auxFit(),
		checkMethods(s.Methods),
	)
}

// AuxFits lists the ways of fitting the auxiliary head Study.AuxFit
// accepts: "plain", on its data as they are (the paper's); "iw", its loss
// on each sample weighted by the clipped importance weight p_t/p_s of a
// domain classifier on the backbone's features (calib.DomainWeights), the
// effective sample size reported in the diagnostics; "crossfit", each of
// the samples it is fitted on estimated by a head fitted without that
// sample's fold (train.CrossFitAux), the others by the head fitted on all;
// "pseudocal", the head as fitted on the source samples and, on the
// target's, its logits divided by a temperature fitted on PseudoCal's
// mixed-up target inputs against their pseudo-labels (for top-label,
// whether the main head predicts the pseudo-label): a label-free estimate
// of the target's accuracy for ECL to match; "atc", the head as fitted on
// the source samples and, on the target's, its logits divided by the
// temperature under which its mean estimate equals the target accuracy
// that average thresholded confidence estimates (Garg et al. 2022;
// baselines.ATC).
var AuxFits = []string{"plain", "iw", "crossfit", "pseudocal", "atc"}

// auxFit checks AuxFit: each of AuxFits, none twice.
func (s Study) auxFit() *SettingError {
	for i, f := range s.AuxFit {
		if !slices.Contains(AuxFits, f) {
			return &SettingError{"AuxFit", f, "one of " + strings.Join(AuxFits, ", ")}
		}
		if slices.Contains(s.AuxFit[:i], f) {
			return &SettingError{"AuxFit", f, "each of " + strings.Join(AuxFits, ", ") + " once"}
		}
	}
	return nil
}

// maxLR bounds the learning rates a study takes. Adam moves every weight by
// about the learning rate in each step, so above 1 no network trains: the
// loss may stay finite while the model saturates (ecl sim -ecl-lr 1e6 used
// to print such a model's metrics as a result).
const maxLR = 1

// Validate checks every setting before any work: the study's, and the sizes,
// epochs and learning rates (each positive, the rates at most maxLR, or 0
// for the recipe's default; at least 2 points per domain).
func (c SimConfig) Validate() error {
	if err := c.validate(); err != nil {
		return err
	}
	if len(c.Shifts) == 0 || len(c.Paradigms) == 0 {
		return fmt.Errorf("experiment: need at least one shift and paradigm")
	}
	if _, _, err := c.recipe(c.Shifts[0], c.Paradigms[0]); err != nil {
		return err // an unknown recipe
	}
	return check(
		atLeast("Points", c.Points, 2, true),
		atLeast("Hidden", c.Hidden, 1, true),
		atLeast("Batch", c.Batch, 1, true),
		atLeast("BaseEpochs", c.BaseEpochs, 1, true),
		atLeast("AuxEpochs", c.AuxEpochs, 1, true),
		atLeast("ECLEpochs", c.ECLEpochs, 1, true),
		inRange("BaseLR", c.BaseLR, 0, maxLR),
		inRange("AuxLR", c.AuxLR, 0, maxLR),
		inRange("ECLLR", c.ECLLR, 0, maxLR),
	)
}

// plan lists the study's runs, seed by seed and shift by shift, and their
// record specifications.
func (c SimConfig) plan() ([]simRun, []runSpec, error) {
	if err := c.Validate(); err != nil {
		return nil, nil, err
	}
	var runs []simRun
	var specs []runSpec
	for run := range c.Runs {
		seed := c.Seed + uint64(run)
		for _, k := range c.Shifts {
			first := len(runs)
			for i, p := range c.Paradigms {
				r, s, err := c.recipe(k, p)
				if err != nil {
					return nil, nil, err
				}
				j := first
				for j < len(runs) && runs[j].setup != s {
					j++
				}
				if j == len(runs) {
					runs = append(runs, simRun{shift: k, setup: s, recipe: r, seed: seed})
				}
				runs[j].paradigms = append(runs[j].paradigms, p)
				runs[j].pos = append(runs[j].pos, i)
			}
		}
	}
	for _, r := range runs {
		rc := simRunConfig{SimConfig: c, Setup: r.setup}
		rc.Runs, rc.Seed, rc.Shifts, rc.Paradigms = 0, 0, []sim.Kind{r.shift}, r.paradigms
		specs = append(specs, runSpec{study: "sim", label: fmt.Sprintf("%s seed %d", r.setup, r.seed), seed: r.seed, config: rc})
	}
	return runs, specs, nil
}

// RunSim trains, for every shift and seed, the uncalibrated model of each
// setup and ECL in each paradigm, and evaluates them on source and target.
// Seeds are Seed, Seed+1, …; every random choice derives from them. With
// Store.Dir set, each run's results go to their own file as the run ends,
// and a run whose file is there is not trained again (Store.Resume).
func RunSim(c SimConfig) ([]Result, error) {
	runs, specs, err := c.plan()
	if err != nil {
		return nil, err
	}
	if err := c.Store.writePlan("sim", c.Args, specs); err != nil {
		return nil, err
	}
	total := c.Runs * len(c.Shifts) * len(c.Paradigms)
	done := 0
	results, err := c.runAll(specs, func(i int) ([]Result, error) { return c.simulate(runs[i]) }, func(i int) {
		done += len(runs[i].paradigms)
		if c.Progress != nil {
			c.Progress(done, total)
		}
	})
	if err != nil {
		return nil, err
	}
	// Rows go back in the order of the paradigms that made them, as if
	// every paradigm were trained in turn: slots[i] holds run i's rows
	// made at position pos (the baselines at its first paradigm's).
	type slot struct {
		seed, shift, pos int
		rows             []Result
	}
	var slots []slot
	for i, r := range runs {
		shift := slices.Index(c.Shifts, r.shift)
		seed := int(r.seed - c.Seed)
		for j, row := range results[i] {
			pos := r.pos[0]
			if row.Method.Kind == ECLRow {
				pos = r.pos[slices.Index(r.paradigms, row.Method.Paradigm)]
			}
			if len(slots) == 0 || j == 0 || slots[len(slots)-1].pos != pos {
				slots = append(slots, slot{seed: seed, shift: shift, pos: pos})
			}
			slots[len(slots)-1].rows = append(slots[len(slots)-1].rows, row)
		}
	}
	sort.SliceStable(slots, func(i, j int) bool {
		a, b := slots[i], slots[j]
		return a.seed < b.seed || a.seed == b.seed && (a.shift < b.shift || a.shift == b.shift && a.pos < b.pos)
	})
	var out []Result
	for _, s := range slots {
		out = append(out, s.rows...)
	}
	return out, nil
}

// RunOne computes run i of the study's plan in this process, without the
// Store: what a worker process serving the study's runs (Exec) calls.
func (c SimConfig) RunOne(i int) ([]Result, error) {
	runs, _, err := c.plan()
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= len(runs) {
		return nil, fmt.Errorf("experiment: run %d of a plan of %d", i, len(runs))
	}
	return c.simulate(runs[i])
}

// simulate trains and evaluates the models of one run.
func (c SimConfig) simulate(r simRun) ([]Result, error) {
	a, err := c.newArm(r)
	if err != nil {
		return nil, err
	}
	steps, err := a.steps(c.Methods, c.Control, r.paradigms)
	if err != nil {
		return nil, err
	}
	out, err := a.results(steps, c.Metrics, nil)
	for i := range out {
		out[i].Shift, out[i].Setup, out[i].Seed = SimShift(r.shift), r.setup.String(), r.seed
	}
	return out, err
}

// newArm draws the data of run r and trains its base model.
func (c SimConfig) newArm(r simRun) (*arm[float64], error) {
	s, seed := r.setup, r.seed
	// Data and initial weights depend on the seed and the setup only, so
	// every method of a setup sees the same data and base model.
	dev, err := device(c.Device, c.Dev)
	if err != nil {
		return nil, err
	}
	src, tgt := sim.Generate(s.Shift, s.Points, rand.New(rand.NewPCG(seed, uint64(s.Shift)<<32|uint64(s.Points))))
	src, tgt = src.To(dev), tgt.To(dev)
	// A held-out source sample for the post-hoc methods, drawn apart so
	// that the other methods' data stay the same.
	val, _ := sim.Generate(s.Shift, max(s.Points/4, 2), rand.New(rand.NewPCG(seed, uint64(s.Shift)<<32|uint64(s.Points)|1<<63)))
	base := ecl.NewMLPClassifier[float64](rand.New(rand.NewPCG(seed, 1)), 2, s.Hidden, Classes, Classes)
	nn.ToDevice[float64](base, dev)
	if err := train.Base(rand.New(rand.NewPCG(seed, 2)), r.recipe, base, src); err != nil {
		return nil, err
	}
	return &arm[float64]{
		recipe: r.recipe, classes: Classes, seed: seed, base: base,
		models: modelFactory[float64]{build: func(rng *rand.Rand, auxOut int) (*ecl.Classifier[float64], error) {
			return ecl.NewMLPClassifier[float64](rng, 2, s.Hidden, Classes, auxOut), nil
		}, base: base, seed: seed, dev: dev},
		src: src, val: val.To(dev), tgt: tgt, evalSrc: src, evalTgt: tgt,
		full: base, inputs: tgt.X,
		auxFits: c.AuxFit, auxFolds: c.AuxFolds,
	}, nil
}

// evaluateBoth scores source and target predictions of k classes and
// computes the target's calibrations for the diagrams.
func evaluateBoth(o metrics.Options, k int, sp []float64, sy []int, tp []float64, ty []int) (Result, error) {
	var r Result
	var err error
	if r.Target, err = Evaluate(tp, k, ty, o); err != nil {
		return r, err
	}
	if r.Source, err = Evaluate(sp, k, sy, o); err != nil {
		return r, err
	}
	r.Diagram, err = calibrate(tp, k, ty)
	return r, err
}

// copyBase copies the backbone and main head of base into m (whose
// auxiliary head keeps its own initialisation).
func copyBase[T tensor.Float](m, base *ecl.Classifier[T]) error {
	if err := nn.CopyState(m.Backbone, base.Backbone); err != nil {
		return err
	}
	return nn.CopyState(m.Main, base.Main)
}
