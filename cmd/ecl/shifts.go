package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ecl-go/ecl/datasets/corrupt"
	"github.com/ecl-go/ecl/datasets/fetch"
	"github.com/ecl-go/ecl/experiment"
	"github.com/ecl-go/ecl/experiment/report"
)

func runShifts(args []string) error { return shiftsStudy(args, false) }

// shiftsStudy is ecl shifts; with check, it parses and validates args and
// returns without running anything (ecl sweep's check of its jobs).
func shiftsStudy(args []string, check bool) error {
	fs := flag.NewFlagSet("shifts", flag.ContinueOnError)
	var c experiment.ShiftsConfig
	parseStudy := studyFlags(fs, &c.Study, studyDefaults{paradigms: "toplabel,classwise,canonical", methods: strings.Join(experiment.PaperMethods, ","), runs: 5, lambdaCE: "0: 1", jobs: 1})
	dir := fs.String("data", "", "data directory holding mnist/ and fashion/ (default $ECL_DATA, else ./data; fill it with ecl data fetch)")
	fs.StringVar(&c.Dataset, "dataset", "mnist", "source data set, whose test split the targets are made from: mnist or fashion")
	transforms := fs.String("transforms", strings.Join(corrupt.Names, ","), "comma list of target transforms: "+strings.Join(corrupt.Names, ", "))
	angles := fs.String("angles", "", "comma list of the rotation's angles in degrees (empty: 0 to 180 by 15)")
	severities := fs.String("severities", "", "comma list of the corruptions' severities (empty: 1 to 5)")
	fs.StringVar(&c.Arch, "arch", "lenet5", "network: lenet5, resnet20 or densenet40")
	fs.IntVar(&c.MaxSource, "max-source", 10000, "source training images kept (0: all)")
	fs.IntVar(&c.MaxTarget, "max-target", 2000, "unlabelled target images, drawn from the test split")
	fs.IntVar(&c.MaxTest, "max-test", 1000, "scored target images, drawn from the rest of the test split")
	fs.Float64Var(&c.ValFraction, "val", 0.1, "fraction of the source held out for the post-hoc methods")
	fs.StringVar(&c.TargetCache, "target-cache", "", "directory of transformed target sets (empty: -out/targets)")
	figures := fs.Bool("figures", false, "only draw the figures from the run files in -out (those done so far) and print the map")
	f := addDomainFlags(fs, &c.Training, "shifts")
	if err := parseFlags(fs, args, check); err != nil {
		return err
	}
	if err := f.parsed(check); err != nil {
		return err
	}
	c.Dir = fetch.Dir(*dir)
	c.Transforms = strings.Split(*transforms, ",")
	var err error
	if c.Angles, err = ints("angles", *angles); err != nil {
		return err
	}
	if c.Severities, err = ints("severities", *severities); err != nil {
		return err
	}
	if err := parseStudy(*f.out, args); err != nil {
		return err
	}
	if err := c.Validate(); err != nil || check {
		return flagError(err)
	}
	if *figures {
		return shiftFigures(*f.out)
	}
	f.logs()
	if isWorker() {
		return serveRuns(c.RunOne)
	}
	if !*f.quiet {
		p := newProgress(os.Stderr, "ecl shifts", "runs", false)
		p.begin(c.Total())
		c.Progress = p.update
	}
	defer useWorkers(&c.Study, "shifts", args, nil)()
	var results []experiment.Result
	if err := f.profiled(func() (err error) {
		results, err = experiment.RunShifts(c)
		return err
	}); err != nil {
		return err
	}
	summaries := experiment.Summarize(results)
	head := fmt.Sprintf("shifts %s, %s, %d runs from seed %d on %d targets", c.Dataset, c.Arch, c.Runs, c.Seed, len(c.Targets()))
	report.StudyTables(os.Stdout, head, summaries, time.Since(f.start))
	_, unfit := experiment.Fitted(results)
	printUnfit(os.Stdout, unfit)
	if *f.out == "" {
		return nil
	}
	if err := report.WriteResults(*f.out, args, results, summaries); err != nil {
		return err
	}
	return shiftFigures(*f.out)
}

// shiftFigures draws the study's figures from the run files in out into
// out/figures and prints where ECL beats Uncal and CE-finetune.
func shiftFigures(out string) error {
	recs, _, err := experiment.ReadRecords(out)
	if err != nil {
		return err
	}
	var results []experiment.Result
	for _, r := range recs {
		results = append(results, r.Results...)
	}
	results, _ = experiment.Fitted(results)
	m, err := experiment.WriteShiftFigures(filepath.Join(out, "figures"), results)
	if err != nil {
		return err
	}
	fmt.Printf("figures in %s\n\n", filepath.Join(out, "figures"))
	if err := experiment.WriteShiftSummary(os.Stdout, results); err != nil {
		return err
	}
	fmt.Println()
	return m.Write(os.Stdout)
}

// ints parses a comma list of integers (empty: nil).
func ints(name, s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("-%s: %q is not a whole number", name, f)
		}
		out = append(out, n)
	}
	return out, nil
}
