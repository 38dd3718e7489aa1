package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ecl-go/ecl/datasets/fetch"
	"github.com/ecl-go/ecl/experiment"
)

func runDigits(args []string) error { return digitsStudy(args, false) }

// digitsStudy is ecl digits; with check, it parses and validates args and
// returns without running anything (ecl sweep's check of its jobs).
func digitsStudy(args []string, check bool) error {
	fs := flag.NewFlagSet("digits", flag.ContinueOnError)
	var c experiment.DigitsConfig
	parseStudy := studyFlags(fs, &c.Study, studyDefaults{paradigms: "toplabel,classwise,canonical", methods: "all", runs: 3, lambdaCE: "0: 1", jobs: 1})
	dir := fs.String("data", "", "data directory holding mnist/, usps/, svhn/ (default $ECL_DATA, else ./data; fill it with ecl data fetch)")
	fs.StringVar(&c.Split.Target, "target", "mnist", "target domain: mnist, usps, svhn or synth")
	sources := fs.String("sources", "", "comma list of source domains (default: every other domain whose files are present, and synth)")
	fs.StringVar(&c.Arch, "arch", "lenet5", "network: lenet5, resnet20 or densenet40")
	fs.IntVar(&c.Epochs, "epochs", 10, "epochs of the base network (the paper: 100)")
	fs.IntVar(&c.AuxEpochs, "aux-epochs", 0, "epochs of the auxiliary head (0: -epochs)")
	fs.IntVar(&c.ECLEpochs, "ecl-epochs", 0, "epochs of the fine-tuning stages (0: -epochs)")
	fs.IntVar(&c.Batch, "batch", 100, "batch size (the paper: 100)")
	fs.Float64Var(&c.LR, "lr", 1e-3, "Adam learning rate (the paper: 1e-3)")
	fs.IntVar(&c.Split.MaxSource, "max-source", 10000, "training samples kept per source domain (0: all)")
	fs.IntVar(&c.Split.MaxTarget, "max-target", 10000, "unlabelled target training samples kept (0: all)")
	fs.IntVar(&c.Split.MaxTest, "max-test", 2000, "target test samples kept (0: all)")
	fs.Float64Var(&c.Split.ValFraction, "val", 0.1, "fraction of the source held out for the post-hoc methods")
	auxData := fs.String("aux-data", "heldout", "comma list of the source samples the auxiliary head is trained on, one ECL row each: heldout (the held-out source split, -val), train (the backbone's training split), oracle (the labelled target training split) or oracle-both (that and the held-out source); the oracles are diagnostics")
	auxSoftECE := fs.Bool("aux-softece", true, "calibrate the top-label auxiliary head with Soft-ECE on the source, as the paper does")
	fs.IntVar(&c.CheckpointEvery, "checkpoint-every", 1, "epochs between the training stages' checkpoints in -out/checkpoints, each stage's last epoch checkpointed too (a killed run resumes from the last, bit for bit)")
	fs.StringVar(&c.BaseCache, "base-cache", "", "directory of trained base networks, reused by runs with the same architecture, data, split, seed and base schedule (empty: none)")
	fs.BoolVar(&c.WholeNetwork, "ecl-whole", false, "the ECL stage and the fine-tuning baselines train the backbone too, on the images (default: the main head alone on the frozen backbone's features, as the reference code)")
	fs.BoolVar(&c.NonTrainable, "nontrainable", false, "use the soft-binned estimator on each mini-batch instead of Algorithm 1 (the paper's Table 7)")
	out := fs.String("out", "out/digits", "directory for one result file per run (runs/), results.json, results.csv and reliability diagrams (empty: none)")
	style := diagramFlags(fs)
	profiled := cpuProfile(fs)
	quiet := fs.Bool("quiet", false, "no progress messages")
	device := fs.String("device", "cpu", "where the base network trains: cpu, or cuda (GPU 0; needs a build with -tags cuda); the later stages train on its features on the CPU")
	if err := parseFlags(fs, args, check); err != nil {
		return err
	}
	var err error
	if check {
		err = checkDevice(*device)
	} else {
		c.Device, c.Dev, err = openDevice[float32](*device)
	}
	if err != nil {
		return err
	}
	c.Dir = fetch.Dir(*dir)
	c.AuxData, c.AuxCE = strings.Split(*auxData, ","), !*auxSoftECE
	if *sources != "" {
		c.Split.Sources = strings.Split(*sources, ",")
	}
	if err := parseStudy(*out, args); err != nil {
		return err
	}
	if err := c.Validate(); err != nil || check {
		return flagError(err)
	}
	start := time.Now()
	if !*quiet {
		c.Log = func(format string, args ...any) {
			fmt.Fprintf(os.Stderr, "%8s  %s\n", time.Since(start).Round(time.Second), fmt.Sprintf(format, args...))
		}
	}
	if isWorker() {
		return serveRuns(c.RunOne)
	}
	if !*quiet {
		// Lines, on a terminal too: the log's lines would break a bar.
		p := newProgress(os.Stderr, "ecl digits", "runs", false)
		p.begin(c.Runs)
		c.Progress = p.update
	}
	defer useWorkers(&c.Study, "digits", args, nil)()
	var results []experiment.Result
	err = profiled(func() (err error) {
		results, err = experiment.RunDigits(c)
		return err
	})
	if err != nil {
		return err
	}
	summaries := experiment.Summarize(results)
	orEpochs := func(n int) int { // the stages' epochs as they ran (0: -epochs)
		if n == 0 {
			return c.Epochs
		}
		return n
	}
	head := fmt.Sprintf("digits %s, %s, %d runs from seed %d, epochs %d base, %d auxiliary head, %d fine-tuning, batch %d, lr %g", "→"+c.Split.Target, c.Arch, c.Runs, c.Seed, c.Epochs, orEpochs(c.AuxEpochs), orEpochs(c.ECLEpochs), c.Batch, c.LR)
	printTables(os.Stdout, head, summaries, time.Since(start))
	experiment.WriteDiagnostics(os.Stdout, results)
	return writeAll(*out, args, results, summaries, *style)
}
