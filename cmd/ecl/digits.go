package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ecl-go/ecl/datasets/fetch"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/experiment"
)

func runDigits(args []string) error {
	fs := flag.NewFlagSet("digits", flag.ContinueOnError)
	var c experiment.DigitsConfig
	dir := fs.String("data", "", "data directory holding mnist/, usps/, svhn/ (default $ECL_DATA, else ./data; fill it with ecl data fetch)")
	fs.StringVar(&c.Target, "target", "mnist", "target domain: mnist, usps, svhn or synth")
	sources := fs.String("sources", "", "comma list of source domains (default: every other domain whose files are present, and synth)")
	fs.StringVar(&c.Arch, "arch", "lenet5", "network: lenet5, resnet20 or densenet40")
	paradigms := fs.String("paradigms", "toplabel,classwise,canonical", "comma list of ECL paradigms")
	methods := fs.String("methods", "all", "comma list of baselines (ts, cpcs, transcal, pseudocal, softece, dece, kde, drl, oracle), all, or none")
	fs.BoolVar(&c.Control, "control", true, "add the CE-finetune row (the ECL stage without ECL)")
	fs.IntVar(&c.Runs, "runs", 3, "seeds (the paper: 10)")
	fs.Uint64Var(&c.Seed, "seed", 1, "first seed; runs use seed, seed+1, …")
	fs.IntVar(&c.Epochs, "epochs", 5, "epochs of the base network (the paper: 100)")
	fs.IntVar(&c.AuxEpochs, "aux-epochs", 0, "epochs of the auxiliary head (0: -epochs)")
	fs.IntVar(&c.ECLEpochs, "ecl-epochs", 0, "epochs of the fine-tuning stages (0: -epochs)")
	fs.IntVar(&c.Batch, "batch", 100, "batch size (the paper: 100)")
	fs.Float64Var(&c.LR, "lr", 1e-3, "Adam learning rate (the paper: 1e-3)")
	fs.IntVar(&c.MaxSource, "max-source", 10000, "training samples kept per source domain (0: all)")
	fs.IntVar(&c.MaxTarget, "max-target", 10000, "unlabelled target training samples kept (0: all)")
	fs.IntVar(&c.MaxTest, "max-test", 2000, "target test samples kept (0: all)")
	fs.Float64Var(&c.ValFraction, "val", 0.1, "fraction of the source held out for the post-hoc methods")
	fs.StringVar(&c.Lambda, "lambda", "fixed", "loss weight: fixed (λ_ce·CE + ECL) or adaptive (CE + β^γ·ECL, the paper's)")
	fs.Float64Var(&c.LambdaCE, "lambda-ce", 1, "CE weight λ_ce with -lambda fixed")
	fs.Float64Var(&c.Gamma, "gamma", 1, "exponent γ of the adaptive weight")
	fs.IntVar(&c.Loss.Bins, "bins", 15, "ECL bins B")
	reduce := fs.String("reduce", "mean", "mini-batch loss over samples: mean or sum (reference code)")
	metricConv := fs.String("metrics", "paper", "metric conventions: paper or reference")
	out := fs.String("out", "out/digits", "directory for results.json, results.csv and reliability diagrams (empty: none)")
	quiet := fs.Bool("quiet", false, "no progress messages")
	if err := fs.Parse(args); err != nil {
		return err
	}
	c.Dir = fetch.Dir(*dir)
	if *sources != "" {
		c.Sources = strings.Split(*sources, ",")
	}
	var err error
	if c.Paradigms, err = parseList(*paradigms, ecl.ParseParadigm); err != nil {
		return err
	}
	if c.Methods, err = parseMethods(*methods); err != nil {
		return err
	}
	if c.Loss.Reduce, err = parseReduce(*reduce); err != nil {
		return err
	}
	if c.Metrics, err = parseMetrics(*metricConv); err != nil {
		return err
	}
	start := time.Now()
	if !*quiet {
		c.Log = func(format string, args ...any) {
			fmt.Fprintf(os.Stderr, "%8s  %s\n", time.Since(start).Round(time.Second), fmt.Sprintf(format, args...))
		}
	}
	results, err := experiment.RunDigits(c)
	if err != nil {
		return err
	}
	summaries := experiment.Summarize(results)
	head := fmt.Sprintf("digits %s, %s, %d runs from seed %d, %d/%d/%d epochs, batch %d, lr %g", "→"+c.Target, c.Arch, c.Runs, c.Seed, c.Epochs, c.AuxEpochs, c.ECLEpochs, c.Batch, c.LR)
	printTables(os.Stdout, head, summaries, time.Since(start))
	return writeAll(*out, args, experiment.DigitClasses, results, summaries)
}
