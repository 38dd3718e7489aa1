package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/ecl-go/ecl/datasets/fetch"
	"github.com/ecl-go/ecl/experiment"
)

func runDigits(args []string) error { return digitsStudy(args, false) }

// digitsStudy is ecl digits; with check, it parses and validates args and
// returns without running anything (ecl sweep's check of its jobs).
func digitsStudy(args []string, check bool) error {
	fs := flag.NewFlagSet("digits", flag.ContinueOnError)
	var c experiment.DigitsConfig
	parseStudy := studyFlags(fs, &c.Study, studyDefaults{paradigms: "toplabel,classwise,canonical", methods: strings.Join(experiment.PaperMethods, ","), runs: 3, lambdaCE: "0: 1", jobs: 1})
	dir := fs.String("data", "", "data directory holding mnist/, usps/, svhn/ (default $ECL_DATA, else ./data; fill it with ecl data fetch)")
	fs.StringVar(&c.Split.Target, "target", "mnist", "target domain: mnist, usps, svhn or synth")
	sources := fs.String("sources", "", "comma list of source domains (default: every other domain whose files are present, and synth)")
	fs.StringVar(&c.Arch, "arch", "lenet5", "network: lenet5, resnet20 or densenet40")
	fs.IntVar(&c.Split.MaxSource, "max-source", 10000, "training samples kept per source domain (0: all)")
	fs.IntVar(&c.Split.MaxTarget, "max-target", 10000, "unlabelled target training samples kept (0: all)")
	fs.IntVar(&c.Split.MaxTest, "max-test", 2000, "target test samples kept (0: all)")
	fs.Float64Var(&c.Split.ValFraction, "val", 0.1, "fraction of the source held out for the post-hoc methods")
	f := addDomainFlags(fs, &c.Training, "digits")
	if err := parseFlags(fs, args, check); err != nil {
		return err
	}
	if err := f.parsed(check); err != nil {
		return err
	}
	c.Dir = fetch.Dir(*dir)
	if *sources != "" {
		c.Split.Sources = strings.Split(*sources, ",")
	}
	if err := parseStudy(*f.out, args); err != nil {
		return err
	}
	if err := c.Validate(); err != nil || check {
		return flagError(err)
	}
	f.logs()
	return f.run(&c.Study, args, func() ([]experiment.Result, error) { return experiment.RunDigits(c) }, c.RunOne,
		fmt.Sprintf("digits %s, %s", "→"+c.Split.Target, c.Arch))
}
