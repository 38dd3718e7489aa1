package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/ecl/predict"
)

// Limits checked before anything is allocated from a flag.
const (
	// maxClassBins caps K×bins, the bins of the class-wise error.
	maxClassBins = 2_000_000
	// kdeAutoWork is the N²K up to which -kde auto computes ECE^KDE (about
	// 2 s at metrics.KDERate).
	kdeAutoWork = 5e7
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

// runEval is "ecl eval": every calibration metric of given predictions,
// optionally with bootstrap intervals and reliability diagrams.
func runEval(args []string) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	probsPath := fs.String("probs", "", "predictions [N, K] or binary [N] (P(y=1)): CSV, .npy or .npz[:array] (required)")
	probs2Path := fs.String("probs2", "", "second predictions on the same labels: paired, sample-matched differences (this minus the other)")
	labelsPath := fs.String("labels", "", "class labels [N]: CSV, text (one per line), .npy or .npz[:array] (required)")
	input := fs.String("input", "auto", "what the files hold: `auto` (detected and reported), probs, or logits (softmax; sigmoid for one column)")
	logits := fs.Bool("logits", false, "the predictions are logits (refused when they look like probabilities: use -input logits to force)")
	nbins := fs.Int("bins", metrics.DefaultBins, fmt.Sprintf("number of bins, at most %d (canonical: anchors requested)", metrics.MaxBins))
	scheme := fs.String("scheme", "width", "bins of equal `width` or equal mass")
	reference := fs.Bool("reference", false, "the reference metrics.py conventions (bins with ≤5 samples left out, confidence 0 in no bin, float32 anchors): -convention reference")
	convention := fs.String("convention", "ours", "binning rules of a library: ours, reference (ECL metrics.py), torchmetrics, netcal, kumar (see docs/conventions.md)")
	boot := fs.Int("bootstrap", 0, "bootstrap resamples for 95% intervals of every metric (0: none)")
	seed := fs.Uint64("seed", 1, "seed of the bootstrap")
	kde := triState("auto")
	fs.Var(&kde, "kde", fmt.Sprintf("compute ECE^KDE, O(N²K): true, false, or auto (only while N²K ≤ %.3g)", kdeAutoWork))
	out := fs.String("out", "", "directory for reliability diagrams as PNG and SVG (empty: none)")
	style := diagramFlags(fs)
	asJSON := fs.Bool("json", false, "print JSON (metrics as fractions) instead of a table")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	case *probsPath == "" || *labelsPath == "":
		return errors.New("-probs and -labels are required")
	case *nbins < 1 || *nbins > metrics.MaxBins:
		return fmt.Errorf("-bins %d: want 1 to %d", *nbins, metrics.MaxBins)
	case *boot < 0 || *boot > 1_000_000:
		return fmt.Errorf("-bootstrap %d: want 0 to 1000000", *boot)
	case *input != "auto" && *input != "probs" && *input != "logits":
		return fmt.Errorf("-input %q: want auto, probs or logits", *input)
	case *logits && *input != "auto":
		return errors.New("-logits and -input: give one")
	}
	mode := predict.Mode(*input)
	if *logits {
		mode = predict.LogitsChecked
	}
	conv, ok := metrics.Conventions[*convention]
	switch {
	case !ok:
		return fmt.Errorf("-convention %q: want ours, reference, torchmetrics, netcal or kumar", *convention)
	case *reference && conv != metrics.Ours && conv != metrics.ReferenceECL:
		return fmt.Errorf("-reference and -convention %s: give one", *convention)
	case *reference:
		conv, *convention = metrics.ReferenceECL, "reference"
	}
	o := metrics.ConventionOptions(conv)
	o.Bins = *nbins
	switch *scheme {
	case "width":
	case "mass":
		o.Scheme = metrics.EqualMass
	default:
		return fmt.Errorf("-scheme %q: want width or mass", *scheme)
	}
	labels, err := predict.ReadLabels(*labelsPath)
	if err != nil {
		return err
	}
	p1, err := predict.ReadProbabilities(*probsPath, *labelsPath, labels, mode)
	if err != nil {
		return err
	}
	var p2 *predict.Probabilities
	if *probs2Path != "" {
		q, err := predict.ReadProbabilities(*probs2Path, *labelsPath, labels, mode)
		if err != nil {
			return err
		}
		if q.K != p1.K {
			return fmt.Errorf("%s: %d classes, %s has %d", *probs2Path, q.K, *probsPath, p1.K)
		}
		p2 = &q
	}
	if p1.K*o.Bins > maxClassBins {
		return fmt.Errorf("-bins %d with the %d classes of %s: the class-wise error would hold %d bins, more than %d: use fewer bins", o.Bins, p1.K, *probsPath, p1.K*o.Bins, maxClassBins)
	}
	work := float64(len(labels)) * float64(len(labels)) * float64(p1.K) // ECE^KDE's N²K
	withKDE := len(labels) >= 2 && (kde == "true" || (kde == "auto" && work <= kdeAutoWork))
	canonical := metrics.CanonicalAffordable(o.Bins, p1.K)
	rep, cals, err := metrics.NewReport(p1.Probs, p1.K, labels, o, withKDE, canonical)
	if err != nil {
		return err
	}
	rep.AddBins(cals)
	rep.Probs, rep.Labels, rep.Scheme, rep.Reference, rep.Convention = *probsPath, *labelsPath, *scheme, conv == metrics.ReferenceECL, *convention
	rep.Input, rep.Notes = p1.Input, append(p1.Notes, p1.Warnings...)
	warn(p1.Warnings)
	if !canonical {
		rep.CanonicalSkipped = true
		rep.Notes = append(rep.Notes, fmt.Sprintf("canonical ECE skipped: the simplex for %d bins and %d classes has more than %d anchor values", o.Bins, p1.K, metrics.MaxAnchorValues))
	}
	if kde == "auto" && !withKDE && len(labels) >= 2 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("ECE^KDE skipped: N²K = %.4g > %.3g (it would take about %.0f s); -kde to compute it", work, kdeAutoWork, work/metrics.KDERate))
	}
	if withKDE && work > kdeAutoWork {
		fmt.Fprintf(os.Stderr, "ecl eval: computing ECE^KDE on N = %d, K = %d (O(N²K), about %.0f s)...\n", len(labels), p1.K, work/metrics.KDERate)
	}
	if p2 != nil {
		if rep.Compare, err = metrics.Compare(p1.Probs, p2.Probs, p1.K, labels, o, rep.KDEBandwidth, canonical); err != nil {
			return err
		}
		rep.Compare.Probs, rep.Compare.Input, rep.Compare.Notes = *probs2Path, p2.Input, append(p2.Notes, p2.Warnings...)
		warn(p2.Warnings)
	}
	if *boot > 0 {
		rep.Bootstrap, rep.Seed = *boot, *seed
		var probs2 []float64
		if p2 != nil {
			probs2 = p2.Probs
		}
		notes, err := metrics.BootstrapReport(&rep, p1.Probs, probs2, p1.K, labels, o, canonical, *boot, *seed)
		if err != nil {
			return err
		}
		rep.Notes = append(rep.Notes, notes...)
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
		return writeDiagrams(*out, "", "", cals, *style)
	}
	return nil
}
