package main

// The study commands' flags: parsing lists and wording settings errors as flags.

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/experiment"
)

// flagError words a study's SettingError as the flag that set it.
func flagError(err error) error {
	var se *experiment.SettingError
	if errors.As(err, &se) {
		if name, ok := settingFlags[se.Field]; ok {
			return fmt.Errorf("-%s %v: want %s", name, se.Value, se.Want)
		}
	}
	return err
}

func parseReduce(s string) (ecl.Reduction, error) {
	switch s {
	case "sum":
		return ecl.Sum, nil
	case "mean":
		return ecl.Mean, nil
	}
	return 0, fmt.Errorf("-reduce %q: want sum or mean", s)
}

func parseMetrics(s string) (metrics.Options, error) {
	switch s {
	case "paper":
		return metrics.Options{}, nil
	case "reference":
		return metrics.ReferenceOptions(), nil
	}
	return metrics.Options{}, fmt.Errorf("-metrics %q: want paper or reference", s)
}

func parseList[E any](flag, s string, parse func(string) (E, error)) ([]E, error) {
	var out []E
	for _, f := range strings.Split(s, ",") {
		v, err := parse(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("-%s: %w", flag, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// studyDefaults are the defaults of the flags studyFlags registers that
// differ between commands.
type studyDefaults struct {
	paradigms, methods string
	runs, jobs         int
	lambdaCE           string
}

// studyFlags registers the flags of the settings every study shares on fs
// and returns the function that, after fs.Parse, checks and stores those
// that need parsing, with the study's output directory and command line.
func studyFlags(fs *flag.FlagSet, s *experiment.Study, d studyDefaults) func(out string, args []string) error {
	var v studyFlagValues
	v.paradigms = fs.String("paradigms", d.paradigms, "comma list of ECL paradigms: toplabel, classwise, canonical")
	v.methods = fs.String("methods", d.methods, methodsHelp())
	fs.BoolVar(&s.Control, "control", true, "add the CE-finetune row (the ECL stage without ECL)")
	fs.IntVar(&s.Runs, "runs", d.runs, "seeds per setting")
	fs.Uint64Var(&s.Seed, "seed", 1, "first seed; runs use seed, seed+1, …")
	fs.StringVar(&s.Lambda, "lambda", "", "loss weight: fixed (λ_ce·CE + ECL, the default) or adaptive (CE + β^γ·ECL, the paper's)")
	fs.Float64Var(&s.LambdaCE, "lambda-ce", 0, "CE weight λ_ce with -lambda fixed ("+d.lambdaCE+")")
	fs.Float64Var(&s.Gamma, "gamma", 1, "exponent γ of the adaptive weight")
	fs.IntVar(&s.Loss.Bins, "bins", 15, "ECL bins B")
	fs.Float64Var(&s.Loss.Tau, "tau", 0, "soft-binning temperature (0: −1/(ln 0.9·B²))")
	fs.IntVar(&s.Loss.NProx, "nprox", 5, "proximal iterations per step")
	fs.Float64Var(&s.Loss.EMA, "ema", 0.9, "weight of the new value in the cache update")
	v.reduce = fs.String("reduce", "mean", "mini-batch loss over samples: mean (default) or sum (reference code)")
	v.metrics = fs.String("metrics", "paper", "metric conventions: paper (15 equal-width bins) or reference (metrics.py: bins with ≤5 samples dropped, 0 in no bin)")
	fs.IntVar(&s.Jobs, "jobs", d.jobs, "runs computed at once, each in a worker process of this command (default for sim: GOMAXPROCS, the CPUs this process may use, which sweep scripts set to their tasks' CPUs; 1: one after another in this process, the default with -cpuprofile)")
	v.auxFit = fs.String("aux-fit", "plain", "comma list of the ways the auxiliary head is fitted, one ECL row each: plain (on its data as they are, the paper's), iw (each sample's loss weighted by a domain classifier's clipped p_t/p_s; the effective sample size is in the diagnostics), crossfit (each sample it is fitted on estimated by a head fitted without that sample's fold, -aux-folds) pseudocal (on target samples, its logits divided by a temperature fitted on PseudoCal's mixed-up target inputs against their pseudo-labels) or atc (on target samples, its mean estimate matched to the target accuracy that average thresholded confidence estimates: by a shift of its logit of being correct for top-label, a temperature otherwise)")
	fs.IntVar(&s.AuxFolds, "aux-folds", 0, "folds of -aux-fit crossfit (0: 5)")
	fs.BoolVar(&s.Store.Resume, "resume", true, "reuse the runs whose result file is in -out/runs with the same configuration")
	return func(out string, args []string) error { return v.store(fs, s, out, args) }
}

// studyFlagValues are the shared flags' values that need parsing.
type studyFlagValues struct {
	paradigms, methods, reduce, metrics, auxFit *string
}

// store parses v into s, with the output directory out and the command
// line args, and checks the flags fs set that v does not hold.
func (v studyFlagValues) store(fs *flag.FlagSet, s *experiment.Study, out string, args []string) error {
	s.Store.Dir, s.Args = out, args
	s.Store.Reused = func(label string) {
		fmt.Fprintf(os.Stderr, "reusing the result file of %s in %s\n", label, filepath.Join(out, "runs"))
	}
	var err error
	if s.Paradigms, err = parseList("paradigms", *v.paradigms, ecl.ParseParadigm); err != nil {
		return err
	}
	if s.Methods, err = experiment.ParseMethods(*v.methods); err != nil {
		return flagError(err)
	}
	// The plain fit alone is the default, left out of the run records.
	if s.AuxFit = strings.Split(*v.auxFit, ","); slices.Equal(s.AuxFit, []string{"plain"}) {
		s.AuxFit = nil
	}
	if s.Loss.Reduce, err = parseReduce(*v.reduce); err != nil {
		return err
	}
	if s.Metrics, err = parseMetrics(*v.metrics); err != nil {
		return err
	}
	// Flags whose 0 would silently mean the default, which they are not
	// documented to take.
	for _, f := range []struct {
		name string
		zero bool
	}{{"bins", s.Loss.Bins == 0}, {"nprox", s.Loss.NProx == 0}, {"ema", s.Loss.EMA == 0}, {"jobs", s.Jobs < 1}} {
		if f.zero {
			return fmt.Errorf("-%s %s: want a positive value", f.name, fs.Lookup(f.name).Value)
		}
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	// A CPU profile sees this process alone: it computes the runs itself
	// unless -jobs is given.
	jobsSet := false
	fs.Visit(func(f *flag.Flag) { jobsSet = jobsSet || f.Name == "jobs" })
	if p := fs.Lookup("cpuprofile"); p != nil && p.Value.String() != "" && !jobsSet {
		s.Jobs = 1
	}
	return nil
}

// methodsHelp lists the keys -methods takes, each with its row's name.
func methodsHelp() string {
	var keys []string
	for _, m := range experiment.Registered() {
		keys = append(keys, m.Key+" ("+m.Name+")")
	}
	return "comma list of baselines to add, by key (row): " + strings.Join(keys, ", ") + "; all; or none"
}

// settingFlags names the flag of each study setting, for flagError.
var settingFlags = map[string]string{
	"Runs": "runs", "LambdaCE": "lambda-ce", "Gamma": "gamma",
	"Loss.Bins": "bins", "Loss.Tau": "tau", "Loss.NProx": "nprox", "Loss.EMA": "ema",
	"Points": "points", "Hidden": "hidden", "Batch": "batch",
	"BaseEpochs": "base-epochs", "AuxEpochs": "aux-epochs", "ECLEpochs": "ecl-epochs",
	"BaseLR": "base-lr", "AuxLR": "aux-lr", "ECLLR": "ecl-lr",
	"Lambda": "lambda", "Recipe": "recipe", "Methods": "methods",
	// ecl digits
	"Epochs": "epochs", "LR": "lr", "CheckpointEvery": "checkpoint-every", "Arch": "arch", "AuxData": "aux-data", "AuxFit": "aux-fit", "AuxFolds": "aux-folds",
	"Split.Target": "target", "Split.Sources": "sources", "Split.ValFraction": "val",
	"Split.MaxSource": "max-source", "Split.MaxTarget": "max-target", "Split.MaxTest": "max-test",
	// ecl images
	"Split.TestFraction": "test", "Weights": "weights", "WholeNetwork": "ecl-whole", "Workers": "workers", "FeatureBatch": "feature-batch", "MaxPixels": "max-pixels",
	"Augment": "augment", "Cache": "cache", "PretrainedHead": "pretrained-head",
}
