package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/ecl-go/ecl/experiment"
	"github.com/ecl-go/ecl/experiment/report"
)

// runReport is "ecl report": merges run records from any number of study
// or sweep directories into tables (text, Markdown, LaTeX, CSV), paired
// per-seed differences between two methods with bootstrap intervals, a
// figure per metric, and lists the planned runs that are missing.
func runReport(args []string) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: ecl report [flags] DIR…\n\nMerges the run records (DIR/**/runs/*.json) of studies and sweeps.\n\n")
		fs.PrintDefaults()
	}
	format := fs.String("format", "text", "table on standard output: text, md, latex, csv or none")
	out := fs.String("out", "", "directory for report.md, report.tex, report.csv, report.txt, the per-metric figures and the reliability diagram grids (empty: none)")
	metricList := fs.String("metrics", "ACC,ECE,CwECE,CanECE,KDE,NLL", "comma list of target metrics: "+strings.Join(experiment.ScoreNames, ", "))
	shifts := fs.String("shifts", "", "comma list of shifts (or →targets) to keep (empty: all)")
	compare := fs.String("compare", "", "A,B: paired per-seed differences B − A between two methods, with bootstrap intervals")
	reps := fs.Int("bootstrap", 1000, "bootstrap resamples of the paired differences")
	seed := fs.Uint64("seed", 1, "seed of the bootstrap")
	figs, size := figureFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errors.New("no directories")
	}
	names, keep, err := reportSelection(*metricList, *shifts)
	if err != nil {
		return err
	}
	rep, err := report.Load(fs.Args(), keep, names)
	if err != nil {
		return err
	}
	if *compare != "" {
		a, b, ok := strings.Cut(*compare, ",")
		if !ok {
			return fmt.Errorf("-compare %q: want two methods, A,B", *compare)
		}
		if err := rep.Compare(a, b, *reps, *seed); err != nil {
			return err
		}
	}
	switch {
	case slices.Contains(report.Formats, *format):
		err = rep.Write(os.Stdout, *format)
	case *format != "none":
		return fmt.Errorf("-format %q: want text, md, latex, csv or none", *format)
	case len(rep.Diffs) > 0: // -format none leaves out the tables, not what -compare asked for
		err = rep.DiffText(os.Stdout)
	}
	if err != nil {
		return err
	}
	for _, m := range rep.Missing {
		fmt.Fprintln(os.Stderr, "missing:", m)
	}
	printUnfit(os.Stderr, rep.Unfit)
	if *out == "" {
		return nil
	}
	return rep.WriteDir(*out, strings.Split(*figs, ","), *size)
}

// figureFlags registers the flags of the per-metric figures: their
// formats and size.
func figureFlags(fs *flag.FlagSet) (formats *string, size *report.FigureSize) {
	formats = fs.String("figures", "png,svg", "formats of the per-metric figures with -out: comma list of png, svg")
	size = &report.FigureSize{}
	fs.IntVar(&size.DPI, "dpi", 200, "resolution of PNG figures")
	fs.Float64Var(&size.Width, "width", 0, "figure width in cm (0: 2 cm per method, at least 14)")
	fs.Float64Var(&size.Height, "height", 9, "figure height in cm")
	return formats, size
}

// reportSelection reads -metrics and -shifts (nil shifts: all).
func reportSelection(metricList, shifts string) (names []string, keep []experiment.ShiftID, err error) {
	names = strings.Split(metricList, ",")
	for _, n := range names {
		if !slices.Contains(experiment.ScoreNames, n) {
			return nil, nil, fmt.Errorf("-metrics: unknown metric %q (want %s)", n, strings.Join(experiment.ScoreNames, ", "))
		}
	}
	if shifts != "" {
		keep, err = parseList("shifts", shifts, experiment.ParseShift)
	}
	return names, keep, err
}
