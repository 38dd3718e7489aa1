package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/ecl-go/ecl/datasets/sim"
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
	shifts := simFlags(fs, &c)
	out := fs.String("out", "out/sim", "directory for one result file per run (runs/), results.json, results.csv and reliability diagrams (empty: none)")
	style := diagramFlags(fs)
	profiled := profiles(fs)
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
	if !*quiet {
		p := newProgress(os.Stderr, "ecl sim", "settings", isTerminal(os.Stderr))
		p.begin(c.Runs * len(c.Shifts) * len(c.Paradigms))
		c.Progress = p.update
	}
	return profiled(func() error { return runSimStudy(c, *out, args, *style) })
}

// simFlags registers on fs the flags of c's settings that only ecl sim
// has, and returns the value of -shifts, to parse.
func simFlags(fs *flag.FlagSet, c *experiment.SimConfig) (shifts *string) {
	shifts = fs.String("shifts", "normal,uniform", "comma list of covariate shifts: normal, uniform, normal-wide, uniform-wide")
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
	return shifts
}

// runSimStudy runs the study c, prints its tables and writes its files
// into out (none for an empty out).
func runSimStudy(c experiment.SimConfig, out string, args []string, style plot.DiagramStyle) error {
	start := time.Now()
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
	return writeAll(out, args, results, summaries, style)
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
