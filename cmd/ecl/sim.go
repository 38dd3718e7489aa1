package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/ecl-go/ecl/datasets/sim"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/ecl/plot"
	"github.com/ecl-go/ecl/experiment"
	"github.com/ecl-go/ecl/experiment/report"
)

func runSim(args []string) error { return simStudy(args, false) }

// simStudy is ecl sim; with check, it parses and validates args and
// returns without running anything (ecl sweep's check of its jobs).
func simStudy(args []string, check bool) error {
	fs := flag.NewFlagSet("sim", flag.ContinueOnError)
	var c experiment.SimConfig
	parseStudy := studyFlags(fs, &c.Study, studyDefaults{paradigms: "canonical,classwise,toplabel", methods: "", runs: 10, lambdaCE: "0: recipe default", jobs: runtime.GOMAXPROCS(0)})
	shifts := fs.String("shifts", "normal,uniform", "comma list of covariate shifts: normal, uniform, normal-wide, uniform-wide")
	fs.StringVar(&c.Recipe, "recipe", "paper", "training recipe: paper (the paper's text: Adam 1e-3, 100 epochs, batch 100 in every stage) or notebook (the reference notebook's stages)")
	fs.IntVar(&c.Points, "points", 0, "points per domain (0: recipe default)")
	fs.IntVar(&c.Hidden, "hidden", 0, "hidden units of the MLP (0: recipe default)")
	fs.IntVar(&c.Batch, "batch", 0, "batch size (0: recipe default)")
	fs.IntVar(&c.BaseEpochs, "base-epochs", 0, "epochs of the base model (0: recipe default)")
	fs.IntVar(&c.AuxEpochs, "aux-epochs", 0, "epochs of the auxiliary head (0: recipe default)")
	fs.IntVar(&c.ECLEpochs, "ecl-epochs", 0, "epochs of the ECL stage (0: recipe default)")
	fs.Float64Var(&c.BaseLR, "base-lr", 0, "Adam learning rate of the base model (0: recipe default)")
	fs.Float64Var(&c.AuxLR, "aux-lr", 0, "learning rate of the auxiliary head (0: recipe default)")
	fs.Float64Var(&c.ECLLR, "ecl-lr", 0, "learning rate of the ECL stage (0: recipe default)")
	fs.BoolVar(&c.NonTrainable, "nontrainable", false, "use the soft-binned estimator on each mini-batch instead of Algorithm 1 (ablation)")
	out := fs.String("out", "out/sim", "directory for one result file per run (runs/), results.json, results.csv and reliability diagrams (empty: none)")
	style := diagramFlags(fs)
	profiled := cpuProfile(fs)
	quiet := fs.Bool("quiet", false, "no progress display (on a terminal a bar; elsewhere a line when the study starts, as runs end, at most one every 10 s, and when it ends)")
	device := fs.String("device", "cpu", deviceFlag)
	if err := parseFlags(fs, args, check); err != nil {
		return err
	}
	var err error
	if check {
		err = checkDevice(*device)
	} else {
		c.Device, c.Dev, err = openDevice[float64](*device)
	}
	if err != nil {
		return err
	}
	if c.Shifts, err = parseList("shifts", *shifts, sim.ParseKind); err != nil {
		return err
	}
	if err := parseStudy(*out, args); err != nil {
		return err
	}
	if err := c.Validate(); err != nil || check {
		return flagError(err)
	}
	if isWorker() {
		lessGC()
		return serveRuns(c.RunOne)
	}
	defer useWorkers(&c.Study, "sim", args, sharedCores(c.Jobs))()
	start := time.Now()
	if !*quiet {
		p := newProgress(os.Stderr, "ecl sim", "settings", isTerminal(os.Stderr))
		p.begin(c.Runs * len(c.Shifts) * len(c.Paradigms))
		c.Progress = p.update
	}
	return profiled(func() error {
		restore := lessGC()
		results, err := experiment.RunSim(c)
		restore()
		if err != nil {
			return err
		}
		summaries := experiment.Summarize(results)
		report.StudyTables(os.Stdout, fmt.Sprintf("recipe %s, %d runs from seed %d", c.Recipe, c.Runs, c.Seed), summaries, time.Since(start))
		_, unfit := experiment.Fitted(results)
		printUnfit(os.Stdout, unfit)
		return writeAll(*out, args, results, summaries, *style)
	})
}

// writeAll writes the results files and the first seed's reliability
// diagrams into dir, unless dir is empty; the runs' own files are there
// already.
func writeAll(dir string, args []string, results []experiment.Result, summaries []experiment.Summary, style plot.DiagramStyle) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := report.WriteResults(dir, args, results, summaries); err != nil {
		return err
	}
	fitted, _ := experiment.Fitted(results)
	if err := report.WriteStudyDiagrams(dir, fitted, style); err != nil {
		return err
	}
	fmt.Printf("results and diagrams in %s\n", dir)
	return nil
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
	paradigms := fs.String("paradigms", d.paradigms, "comma list of ECL paradigms: toplabel, classwise, canonical")
	methods := fs.String("methods", d.methods, methodsHelp())
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
	reduce := fs.String("reduce", "mean", "mini-batch loss over samples: mean (default) or sum (reference code)")
	metricConv := fs.String("metrics", "paper", "metric conventions: paper (15 equal-width bins) or reference (metrics.py: bins with ≤5 samples dropped, 0 in no bin)")
	fs.IntVar(&s.Jobs, "jobs", d.jobs, "runs computed at once, each in a worker process of this command (default for sim: GOMAXPROCS, the CPUs this process may use, which sweep scripts set to their tasks' CPUs; 1: one after another in this process, the default with -cpuprofile)")
	auxFit := fs.String("aux-fit", "plain", "comma list of the ways the auxiliary head is fitted, one ECL row each: plain (on its data as they are, the paper's), iw (each sample's loss weighted by a domain classifier's clipped p_t/p_s; the effective sample size is in the diagnostics), crossfit (each sample it is fitted on estimated by a head fitted without that sample's fold, -aux-folds) pseudocal (on target samples, its logits divided by a temperature fitted on PseudoCal's mixed-up target inputs against their pseudo-labels) or atc (on target samples, its mean estimate matched to the target accuracy that average thresholded confidence estimates: by a shift of its logit of being correct for top-label, a temperature otherwise)")
	fs.IntVar(&s.AuxFolds, "aux-folds", 0, "folds of -aux-fit crossfit (0: 5)")
	fs.BoolVar(&s.Store.Resume, "resume", true, "reuse the runs whose result file is in -out/runs with the same configuration")
	return func(out string, args []string) error {
		s.Store.Dir, s.Args = out, args
		s.Store.Reused = func(label string) {
			fmt.Fprintf(os.Stderr, "reusing the result file of %s in %s\n", label, filepath.Join(out, "runs"))
		}
		var err error
		if s.Paradigms, err = parseList("paradigms", *paradigms, ecl.ParseParadigm); err != nil {
			return err
		}
		if s.Methods, err = experiment.ParseMethods(*methods); err != nil {
			return flagError(err)
		}
		// The plain fit alone is the default, left out of the run records.
		if s.AuxFit = strings.Split(*auxFit, ","); slices.Equal(s.AuxFit, []string{"plain"}) {
			s.AuxFit = nil
		}
		if s.Loss.Reduce, err = parseReduce(*reduce); err != nil {
			return err
		}
		if s.Metrics, err = parseMetrics(*metricConv); err != nil {
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
		// A CPU profile sees this process alone: it computes the runs
		// itself unless -jobs is given.
		jobsSet := false
		fs.Visit(func(f *flag.Flag) { jobsSet = jobsSet || f.Name == "jobs" })
		if p := fs.Lookup("cpuprofile"); p != nil && p.Value.String() != "" && !jobsSet {
			s.Jobs = 1
		}
		return nil
	}
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

// lessGC has the garbage collector run at 5× the live heap instead of 2×,
// unless GOGC is set, and returns the function that sets it back: a
// simulation run allocates fast and keeps a few MB, so that collecting
// less often saves about a tenth of its CPU time for a few tens of MB
// more memory per process.
func lessGC() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(400)
	return func() { debug.SetGCPercent(old) }
}
