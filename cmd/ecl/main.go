// Command ecl runs the project's experiments and evaluations.
//
//	ecl sim  [flags]   train Uncal and ECL on the simulated covariate shifts and print the comparison
//	ecl eval [flags]   compute every calibration metric of given predictions and draw reliability diagrams
//	ecl digits [flags] train a digit network on source domains and compare calibration methods on the target
//	ecl shifts [flags] train a digit network on MNIST or Fashion-MNIST and compare calibration methods on its test split rotated and corrupted at graded intensity
//	ecl images [flags] train a network (or heads on a frozen torchvision backbone) on image domains (PACS, ImageNet-Sketch) and compare calibration methods on the target
//	ecl calibrate [flags] calibrate a model's predictions under covariate shift from files
//	ecl features [flags] run a torchvision network over a folder of images: logits, penultimate features, paths and labels into a .npz
//	ecl data fetch     download MNIST, USPS, SVHN and Fashion-MNIST into the data directory and verify their checksums
//	ecl data synth-domains [flags] write a generated stand-in for PACS (seven shapes in four styles) for ecl images
//	ecl report DIR…    merge run files of studies and sweeps into tables (text, Markdown, LaTeX, CSV) and figures
//	ecl sweep [flags]  expand a grid of study flags into jobs; run one, or write a Slurm/Kubernetes job array
//
// Run "ecl COMMAND -h" for a command's flags.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
)

// commands maps a subcommand's name to its entry point, which parses args.
var commands = map[string]func(args []string) error{
	"sim":       runSim,
	"eval":      runEval,
	"digits":    runDigits,
	"shifts":    runShifts,
	"images":    runImages,
	"calibrate": runCalibrate,
	"features":  runFeatures,
	"data":      runData,
	"sweep":     runSweep,
	"report":    runReport,
}

func main() {
	if len(os.Args) < 2 || commands[os.Args[1]] == nil {
		usage()
		os.Exit(2)
	}
	if err := commands[os.Args[1]](os.Args[2:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintf(os.Stderr, "ecl %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

func usage() {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintf(os.Stderr, "usage: ecl COMMAND [flags]\ncommands: %v\nrun 'ecl COMMAND -h' for a command's flags\n", names)
}

// warn prints each warning to standard error, before any result, so that a
// forced choice that makes the results doubtful is seen first.
func warn(warnings []string) {
	for _, w := range warnings {
		fmt.Fprintln(os.Stderr, "ecl: warning:", w)
	}
}

// printUnfit lists the rows whose method could not be fitted (left out of
// the tables), one "not fitted:" line each.
func printUnfit(w io.Writer, unfit []string) {
	for _, u := range unfit {
		fmt.Fprintln(w, "not fitted:", u)
	}
}
