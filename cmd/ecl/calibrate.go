package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/ecl/calib"
	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/ecl/predict"
)

// calibrateConfig holds the flags of a fitting run.
type calibrateConfig struct {
	methods     []string
	bins, reps  int
	folds       int
	seed        uint64
	clip        float64
	pseudoBatch int
	fit         calib.FitOptions
	diagrams    bool
}

// methodReport is one method's results; metrics are fractions.
type methodReport struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
	// Target holds every metric of the calibrated target predictions
	// (with target labels only); TargetECE the ECE with its interval.
	Target    *metrics.Report `json:"target,omitempty"`
	TargetECE *calib.Interval `json:"target_ece,omitempty"`
	// Label-free estimates of the target ECE.
	IWECE     calib.Interval `json:"iw_source_ece"`
	PseudoECE calib.Interval `json:"pseudo_target_ece"`
	ProbsFile string         `json:"probs_file"`
}

// calibrateReport is report.json.
type calibrateReport struct {
	Source        predict.Scores         `json:"source"`
	Target        predict.Scores         `json:"target"`
	Classes       int                    `json:"classes"`
	TargetLabels  string                 `json:"target_labels,omitempty"`
	DomainOn      string                 `json:"domain_classifier_on"`
	Shift         calib.ShiftDiagnostics `json:"shift"`
	Pseudo        string                 `json:"pseudo_target_from"`
	PseudoSamples int                    `json:"pseudo_target_samples"`
	EstimateFolds int                    `json:"estimate_folds"`
	Bins          int                    `json:"bins"`
	Bootstrap     int                    `json:"bootstrap"`
	Seed          uint64                 `json:"seed"`
	Methods       []methodReport         `json:"methods"`
	Notes         []string               `json:"notes,omitempty"`
}

// runCalibrate is "ecl calibrate": fit calibrators on source-validation
// predictions (and unlabelled target predictions) and calibrate the target,
// or with -apply, apply a saved calibrator to new predictions.
func runCalibrate(args []string) error {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	srcPath := fs.String("source", "", "source-validation predictions [N, K] or binary [N]: logits or probabilities (.npy, .npz[:array] or CSV)")
	srcLabels := fs.String("source-labels", "", "source-validation labels [N]")
	tgtPath := fs.String("target", "", "target predictions [M, K] (unlabelled)")
	tgtLabels := fs.String("target-labels", "", "target labels [M], only to report the true metrics beside the estimates (optional)")
	srcFeat := fs.String("source-features", "", "source-validation features [N, D] for the domain classifier and the ECL head (optional)")
	tgtFeat := fs.String("target-features", "", "target features [M, D] (with -source-features)")
	input := fs.String("input", "auto", "what the prediction files hold: auto (detect), logits or probs")
	methodList := fs.String("method", "all", "comma-separated methods from "+strings.Join(calib.Methods, ",")+", or all")
	out := fs.String("out", "", "output directory (required)")
	nbins := fs.Int("bins", metrics.DefaultBins, fmt.Sprintf("bins of the ECE estimates and metrics, at most %d", metrics.MaxBins))
	reps := fs.Int("bootstrap", 200, "bootstrap resamples of the ECE intervals (0: none)")
	folds := fs.Int("estimate-folds", 2, "cross-fitting folds of the importance-weighted estimate (1: on the fitting samples)")
	seed := fs.Uint64("seed", 1, "seed of every random choice")
	clip := fs.Float64("clip", 20, "upper clip of the importance weights")
	lambda := fs.Float64("odir-lambda", 1e-3, "matrix scaling and Dirichlet: off-diagonal penalty λ (Kull et al.'s ODIR)")
	mu := fs.Float64("odir-mu", 1e-3, "vector, matrix scaling and Dirichlet: intercept penalty μ")
	histBins := fs.Int("hist-bins", 15, "histogram binning: equal-mass bins per class")
	plattTargets := fs.String("platt-targets", "labels", "what platt fits: labels (the 0/1 labels, maximum likelihood) or smoothed (Platt's 1999 targets (N₊+1)/(N₊+2) and 1/(N₋+2), as scikit-learn's CalibratedClassifierCV(method=\"sigmoid\"))")
	pseudoBatch := fs.Int("pseudo-batch", 64, "pseudo-target estimate without -pseudo-logits: batch size of the mixup of target logits")
	pseudoLogits := fs.String("pseudo-logits", "", "the model's outputs on mixed-up target inputs (PseudoCal; see docs/calibrate.md), same kind as -target (optional)")
	pseudoLabels := fs.String("pseudo-labels", "", "the pseudo-labels of -pseudo-logits")
	eclHead := fs.String("ecl-head", "ts", "ECL head on the frozen logits: ts (a temperature) or vs (vector scaling)")
	eclParadigm := fs.String("ecl-paradigm", "toplabel", "ECL paradigm: toplabel, classwise or canonical")
	eclLambda := fs.Float64("ecl-lambda", 1, "weight of the ECL term beside the source cross-entropy")
	eclSteps := fs.Int("ecl-steps", 100, "L-BFGS iterations of the ECL head at most")
	noDiagrams := fs.Bool("no-diagrams", false, "skip the reliability diagrams")
	apply := fs.String("apply", "", "a saved calibrator (params_METHOD.json) to apply to -probs instead of fitting")
	probsPath := fs.String("probs", "", "with -apply: the predictions to calibrate")
	labelsPath := fs.String("labels", "", "with -apply: labels of -probs, to report metrics before and after (optional)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *out == "" {
		return errors.New("-out is required")
	}
	if *input != "auto" && *input != "logits" && *input != "probs" {
		return fmt.Errorf("-input %q: want auto, logits or probs", *input)
	}
	if *apply != "" {
		if *probsPath == "" {
			return errors.New("-apply needs -probs")
		}
		return applySaved(os.Stdout, *apply, *probsPath, *labelsPath, *input, *out, *nbins)
	}
	switch {
	case *srcPath == "" || *srcLabels == "" || *tgtPath == "":
		return errors.New("-source, -source-labels and -target are required (or -apply with -probs)")
	case (*srcFeat == "") != (*tgtFeat == ""):
		return errors.New("-source-features and -target-features go together")
	case (*pseudoLogits == "") != (*pseudoLabels == ""):
		return errors.New("-pseudo-logits and -pseudo-labels go together")
	case *nbins < 1 || *nbins > metrics.MaxBins:
		return fmt.Errorf("-bins %d: want 1 to %d", *nbins, metrics.MaxBins)
	case *histBins < 1:
		return fmt.Errorf("-hist-bins %d: need at least 1", *histBins)
	case !(*clip >= 1) || math.IsInf(*clip, 1):
		return fmt.Errorf("-clip %v: want a finite number ≥ 1 (the importance weights' upper clip)", *clip)
	case *reps < 0 || *folds < 1 || *pseudoBatch < 2:
		return fmt.Errorf("-bootstrap %d (≥ 0), -estimate-folds %d (≥ 1), -pseudo-batch %d (≥ 2)", *reps, *folds, *pseudoBatch)
	}
	par, err := ecl.ParseParadigm(*eclParadigm)
	if err != nil {
		return fmt.Errorf("-ecl-paradigm: %w", err)
	}
	platt, err := calib.ParsePlattTargets(*plattTargets)
	if err != nil {
		return fmt.Errorf("-platt-targets %w", err)
	}
	cfg := calibrateConfig{bins: *nbins, reps: *reps, folds: *folds, seed: *seed, clip: *clip, pseudoBatch: *pseudoBatch,
		fit: calib.FitOptions{ODIR: calib.ODIR{Lambda: *lambda, Mu: *mu}, HistBins: *histBins, Platt: platt,
			ECL: calib.ECLOptions{Head: *eclHead, Paradigm: par, Lambda: *eclLambda, Steps: *eclSteps}},
		diagrams: !*noDiagrams}
	src, err := predict.ReadScores(*srcPath, predict.Mode(*input))
	if err != nil {
		return err
	}
	tgt, err := predict.ReadScores(*tgtPath, predict.Mode(*input))
	if err != nil {
		return err
	}
	warn(src.Warnings)
	warn(tgt.Warnings)
	if src.K != tgt.K {
		return fmt.Errorf("%s has %d classes, %s has %d", src.Path, src.K, tgt.Path, tgt.K)
	}
	if cfg.methods, err = parseCalibrateMethods(*methodList, src.K); err != nil {
		return err
	}
	ys, err := predict.ReadLabelsFor(*srcLabels, src)
	if err != nil {
		return err
	}
	var yt []int
	if *tgtLabels != "" {
		if yt, err = predict.ReadLabelsFor(*tgtLabels, tgt); err != nil {
			return err
		}
	}
	var fs1, ft []float64
	d := 0
	if *srcFeat != "" {
		if fs1, ft, d, err = predict.ReadFeatures(*srcFeat, *tgtFeat, src.Rows, tgt.Rows); err != nil {
			return err
		}
	}
	var pseudo *calib.PseudoSet
	if *pseudoLogits != "" {
		ps, err := predict.ReadScores(*pseudoLogits, predict.Mode(*input))
		if err != nil {
			return err
		}
		warn(ps.Warnings)
		if ps.K != src.K {
			return fmt.Errorf("%s has %d classes, %s has %d", ps.Path, ps.K, src.Path, src.K)
		}
		py, err := predict.ReadLabelsFor(*pseudoLabels, ps)
		if err != nil {
			return err
		}
		pseudo = &calib.PseudoSet{Logits: ps.Logits, Labels: py}
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	rep, err := calibrateRun(os.Stdout, src, tgt, ys, yt, fs1, ft, d, pseudo, cfg, *out)
	if err != nil {
		return err
	}
	rep.TargetLabels = *tgtLabels
	return writeJSON(filepath.Join(*out, "report.json"), rep)
}

// parseCalibrateMethods expands "all" (the binary-only methods only for
// k = 2) and checks every name.
func parseCalibrateMethods(list string, k int) ([]string, error) {
	if list == "all" {
		return calib.MethodsFor(k), nil
	}
	var ms []string
	for _, m := range strings.Split(list, ",") {
		m = strings.TrimSpace(m)
		switch {
		case !slices.Contains(calib.Methods, m):
			return nil, fmt.Errorf("-method: unknown method %q (want %s or all)", m, strings.Join(calib.Methods, ","))
		case calib.BinaryOnly[m] && k != 2:
			return nil, fmt.Errorf("-method %s: defined for two classes, the predictions have %d", m, k)
		case !slices.Contains(ms, m):
			ms = append(ms, m)
		}
	}
	return ms, nil
}
