package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/ecl-go/ecl/ecl/evaluate"
	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/ecl/plot"
	"github.com/ecl-go/ecl/ecl/predict"
)

// triState is a boolean flag that may also be left to "auto".
type triState string

func (t *triState) String() string   { return string(*t) }
func (t *triState) IsBoolFlag() bool { return true }
func (t *triState) Set(v string) error {
	switch v {
	case "auto":
	case "true", "1", "on":
		v = "true"
	case "false", "0", "off":
		v = "false"
	default:
		return fmt.Errorf("want true, false or auto")
	}
	*t = triState(v)
	return nil
}

// evalFlags are ecl eval's flags that say what to evaluate and how.
type evalFlags struct {
	probs, probs2, labels, input, scheme, convention *string
	logits, reference                                *bool
	bins, boot                                       *int
	seed                                             *uint64
	kde                                              triState
}

// newEvalFlags registers evalFlags on fs.
func newEvalFlags(fs *flag.FlagSet) *evalFlags {
	f := &evalFlags{kde: "auto"}
	f.probs = fs.String("probs", "", "predictions [N, K] or binary [N] (P(y=1)): CSV, .npy or .npz[:array] (required)")
	f.probs2 = fs.String("probs2", "", "second predictions on the same labels: paired, sample-matched differences (this minus the other)")
	f.labels = fs.String("labels", "", "class labels [N]: CSV, text (one per line), .npy or .npz[:array] (required)")
	f.input = fs.String("input", "auto", "what the files hold: `auto` (detected and reported), probs, or logits (softmax; sigmoid for one column)")
	f.logits = fs.Bool("logits", false, "the predictions are logits (refused when they look like probabilities: use -input logits to force)")
	f.bins = fs.Int("bins", metrics.DefaultBins, fmt.Sprintf("number of bins, at most %d (canonical: anchors requested)", metrics.MaxBins))
	f.scheme = fs.String("scheme", "width", "bins of equal `width` or equal mass")
	f.reference = fs.Bool("reference", false, "the reference metrics.py conventions (bins with ≤5 samples left out, confidence 0 in no bin, float32 anchors): -convention reference")
	f.convention = fs.String("convention", "ours", "binning rules of a library: ours, reference (ECL metrics.py), torchmetrics, netcal, kumar (see docs/conventions.md)")
	f.boot = fs.Int("bootstrap", 0, "bootstrap resamples for 95% intervals of every metric (0: none)")
	f.seed = fs.Uint64("seed", 1, "seed of the bootstrap")
	fs.Var(&f.kde, "kde", fmt.Sprintf("compute ECE^KDE, O(N²K): true, false, or auto (only while N²K ≤ %.3g)", evaluate.KDEAutoWork))
	return f
}

// config checks the flags and returns what they ask evaluate.Run for.
func (f *evalFlags) config() (evaluate.Config, error) {
	switch {
	case *f.probs == "" || *f.labels == "":
		return evaluate.Config{}, errors.New("-probs and -labels are required")
	case *f.bins < 1 || *f.bins > metrics.MaxBins:
		return evaluate.Config{}, fmt.Errorf("-bins %d: want 1 to %d", *f.bins, metrics.MaxBins)
	case *f.boot < 0 || *f.boot > 1_000_000:
		return evaluate.Config{}, fmt.Errorf("-bootstrap %d: want 0 to 1000000", *f.boot)
	case *f.input != "auto" && *f.input != "probs" && *f.input != "logits":
		return evaluate.Config{}, fmt.Errorf("-input %q: want auto, probs or logits", *f.input)
	case *f.logits && *f.input != "auto":
		return evaluate.Config{}, errors.New("-logits and -input: give one")
	}
	c := evaluate.Config{Probs: *f.probs, Probs2: *f.probs2, Labels: *f.labels, Mode: predict.Mode(*f.input), Convention: *f.convention,
		KDE: map[triState]evaluate.KDE{"auto": evaluate.KDEAuto, "true": evaluate.KDEOn, "false": evaluate.KDEOff}[f.kde], Bootstrap: *f.boot, Seed: *f.seed}
	if *f.logits {
		c.Mode = predict.LogitsChecked
	}
	conv, ok := metrics.Conventions[c.Convention]
	switch {
	case !ok:
		return evaluate.Config{}, fmt.Errorf("-convention %q: want ours, reference, torchmetrics, netcal or kumar", c.Convention)
	case *f.reference && conv != metrics.Ours && conv != metrics.ReferenceECL:
		return evaluate.Config{}, fmt.Errorf("-reference and -convention %s: give one", c.Convention)
	case *f.reference:
		conv, c.Convention = metrics.ReferenceECL, "reference"
	}
	c.Options = metrics.ConventionOptions(conv)
	c.Options.Bins = *f.bins
	switch *f.scheme {
	case "width":
	case "mass":
		c.Options.Scheme = metrics.EqualMass
	default:
		return evaluate.Config{}, fmt.Errorf("-scheme %q: want width or mass", *f.scheme)
	}
	return c, nil
}

// runEval is "ecl eval": every calibration metric of given predictions,
// optionally with bootstrap intervals and reliability diagrams.
func runEval(args []string) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	f := newEvalFlags(fs)
	out := fs.String("out", "", "directory for reliability diagrams as PNG and SVG (empty: none)")
	style := diagramFlags(fs)
	asJSON := fs.Bool("json", false, "print JSON (metrics as fractions) instead of a table")
	profiled := profiles(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	c, err := f.config()
	if err != nil {
		return err
	}
	c.Warn = warn
	c.Log = func(line string) { fmt.Fprintf(os.Stderr, "ecl eval: %s\n", line) }
	var rep metrics.Report
	var cals metrics.Calibrations
	if err := profiled(func() (err error) { rep, cals, err = evaluate.Run(c); return err }); err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		rep.WriteText(os.Stdout)
	}
	if *out != "" {
		return plot.WriteDiagrams(*out, "", "", cals, *style)
	}
	return nil
}
