package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/ecl/calib"
	"github.com/ecl-go/ecl/ecl/calibrate"
	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/ecl/predict"
)

// calibrateFlags are the flags of "ecl calibrate".
type calibrateFlags struct {
	srcPath      *string
	srcLabels    *string
	tgtPath      *string
	tgtLabels    *string
	srcFeat      *string
	tgtFeat      *string
	input        *string
	methodList   *string
	out          *string
	nbins        *int
	reps         *int
	folds        *int
	seed         *uint64
	clip         *float64
	lambda       *string
	mu           *string
	odirFolds    *int
	affineIters  *int
	histBins     *int
	plattTargets *string
	pseudoBatch  *int
	pseudoLogits *string
	pseudoLabels *string
	eclHead      *string
	eclParadigm  *string
	eclLambda    *float64
	eclSteps     *int
	noDiagrams   *bool
	jobs         *int
	memLimit     *string
	apply        *string
	probsPath    *string
	labelsPath   *string
}

func newCalibrateFlags(fs *flag.FlagSet) *calibrateFlags {
	return &calibrateFlags{
		srcPath:      fs.String("source", "", "source-validation predictions [N, K] or binary [N]: logits or probabilities (.npy, .npz[:array] or CSV)"),
		srcLabels:    fs.String("source-labels", "", "source-validation labels [N]"),
		tgtPath:      fs.String("target", "", "target predictions [M, K] (unlabelled)"),
		tgtLabels:    fs.String("target-labels", "", "target labels [M], only to report the true metrics beside the estimates (optional)"),
		srcFeat:      fs.String("source-features", "", "source-validation features [N, D] for the domain classifier and the ECL head (optional)"),
		tgtFeat:      fs.String("target-features", "", "target features [M, D] (with -source-features)"),
		input:        fs.String("input", "auto", "what the prediction files hold: auto (detect), logits or probs"),
		methodList:   fs.String("method", "all", "comma-separated methods from "+strings.Join(calib.Methods, ",")+", or all"),
		out:          fs.String("out", "", "output directory (required)"),
		nbins:        fs.Int("bins", metrics.DefaultBins, fmt.Sprintf("bins of the ECE estimates and metrics, at most %d", metrics.MaxBins)),
		reps:         fs.Int("bootstrap", 200, "bootstrap resamples of the ECE intervals (0: none)"),
		folds:        fs.Int("estimate-folds", 2, "cross-fitting folds of the importance-weighted estimate (1: on the fitting samples)"),
		seed:         fs.Uint64("seed", 1, "seed of every random choice"),
		clip:         fs.Float64("clip", 20, "upper clip of the importance weights"),
		lambda:       fs.String("odir-lambda", "cv", "matrix scaling and Dirichlet: off-diagonal penalty λ (Kull et al.'s ODIR), a number ≥ 0, or cv: λ = μ chosen by cross-validation over 10⁶ … 10⁻⁵ (10⁻² from 100 classes); a number here or in -odir-mu fixes both, the other taking the same value unless given"),
		mu:           fs.String("odir-mu", "cv", "vector, matrix scaling and Dirichlet: intercept penalty μ, a number ≥ 0 or cv (see -odir-lambda)"),
		odirFolds:    fs.Int("odir-folds", calib.DefaultODIRFolds, "stratified folds of the cross-validated ODIR penalties (folds drawn from -seed)"),
		affineIters:  fs.Int("affine-iterations", 0, fmt.Sprintf("vector, matrix scaling, Dirichlet and the ECL head's auxiliary regression: L-BFGS iterations of each fit at most (0: %d); the result's fit records how many it took", calib.DefaultAffineIterations)),
		histBins:     fs.Int("hist-bins", 15, "histogram binning: equal-mass bins per class"),
		plattTargets: fs.String("platt-targets", "labels", "what platt fits: labels (the 0/1 labels, maximum likelihood) or smoothed (Platt's 1999 targets (N₊+1)/(N₊+2) and 1/(N₋+2), as scikit-learn's CalibratedClassifierCV(method=\"sigmoid\"))"),
		pseudoBatch:  fs.Int("pseudo-batch", 64, "pseudo-target estimate without -pseudo-logits: batch size of the mixup of target logits"),
		pseudoLogits: fs.String("pseudo-logits", "", "the model's outputs on mixed-up target inputs (PseudoCal; see docs/calibrate.md), same kind as -target (optional)"),
		pseudoLabels: fs.String("pseudo-labels", "", "the pseudo-labels of -pseudo-logits"),
		eclHead:      fs.String("ecl-head", "ts", "ECL head on the frozen logits: ts (a temperature) or vs (vector scaling)"),
		eclParadigm:  fs.String("ecl-paradigm", "toplabel", "ECL paradigm: toplabel, classwise or canonical"),
		eclLambda:    fs.Float64("ecl-lambda", 1, "weight of the ECL term beside the source cross-entropy"),
		eclSteps:     fs.Int("ecl-steps", 100, "L-BFGS iterations of the ECL head at most"),
		noDiagrams:   fs.Bool("no-diagrams", false, "skip the reliability diagrams"),
		jobs:         fs.Int("jobs", runtime.GOMAXPROCS(0), "methods fitted at once, one of the ECL head, Dirichlet and matrix scaling at a time (each also uses the cores on its own)"),
		memLimit:     fs.String("memory-limit", "auto", "soft limit of Go's collector on the heap: auto (2.6 times the input arrays as float64, at least 1GiB, so that the resident set stays within three times; GOMEMLIMIT, when set, instead), off, or a size as GOMEMLIMIT takes it (e.g. 2289MiB)"),
		apply:        fs.String("apply", "", "a saved calibrator (params_METHOD.json) to apply to -probs instead of fitting"),
		probsPath:    fs.String("probs", "", "with -apply: the predictions to calibrate"),
		labelsPath:   fs.String("labels", "", "with -apply: labels of -probs, to report metrics before and after (optional)"),
	}
}

// runCalibrate is "ecl calibrate": fit calibrators on source-validation
// predictions (and unlabelled target predictions) and calibrate the target,
// or with -apply, apply a saved calibrator to new predictions.
func runCalibrate(args []string) error {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	f := newCalibrateFlags(fs)
	profiled := profiles(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *f.out == "" {
		return errors.New("-out is required")
	}
	if *f.input != "auto" && *f.input != "logits" && *f.input != "probs" {
		return fmt.Errorf("-input %q: want auto, logits or probs", *f.input)
	}
	if *f.apply != "" {
		if *f.probsPath == "" {
			return errors.New("-apply needs -probs")
		}
		return calibrate.Apply(os.Stdout, calibrate.ApplyConfig{Params: *f.apply, Probs: *f.probsPath, Labels: *f.labelsPath, Mode: *f.input, Dir: *f.out, Bins: *f.nbins, Warn: warn})
	}
	cfg, err := f.config()
	if err != nil {
		return err
	}
	limit, err := f.memoryLimit()
	if err != nil {
		return err
	}
	if err := f.read(&cfg); err != nil {
		return err
	}
	if err := os.MkdirAll(*f.out, 0o755); err != nil {
		return err
	}
	setMemoryLimit(limit, cfg)
	return profiled(func() error {
		rep, err := calibrate.Run(os.Stdout, cfg)
		if err != nil {
			return err
		}
		rep.TargetLabels = *f.tgtLabels
		return calibrate.WriteJSON(filepath.Join(*f.out, "report.json"), rep)
	})
}

// config checks the fitting flags and returns the run's settings.
func (f *calibrateFlags) config() (calibrate.Config, error) {
	switch {
	case *f.srcPath == "" || *f.srcLabels == "" || *f.tgtPath == "":
		return calibrate.Config{}, errors.New("-source, -source-labels and -target are required (or -apply with -probs)")
	case (*f.srcFeat == "") != (*f.tgtFeat == ""):
		return calibrate.Config{}, errors.New("-source-features and -target-features go together")
	case (*f.pseudoLogits == "") != (*f.pseudoLabels == ""):
		return calibrate.Config{}, errors.New("-pseudo-logits and -pseudo-labels go together")
	case *f.nbins < 1 || *f.nbins > metrics.MaxBins:
		return calibrate.Config{}, fmt.Errorf("-bins %d: want 1 to %d", *f.nbins, metrics.MaxBins)
	case *f.histBins < 1:
		return calibrate.Config{}, fmt.Errorf("-hist-bins %d: need at least 1", *f.histBins)
	case !(*f.clip >= 1) || math.IsInf(*f.clip, 1):
		return calibrate.Config{}, fmt.Errorf("-clip %v: want a finite number ≥ 1 (the importance weights' upper clip)", *f.clip)
	case *f.reps < 0 || *f.folds < 1 || *f.pseudoBatch < 2 || *f.jobs < 1:
		return calibrate.Config{}, fmt.Errorf("-bootstrap %d (≥ 0), -estimate-folds %d (≥ 1), -pseudo-batch %d (≥ 2), -jobs %d (≥ 1)", *f.reps, *f.folds, *f.pseudoBatch, *f.jobs)
	case *f.odirFolds < 2:
		return calibrate.Config{}, fmt.Errorf("-odir-folds %d: need at least 2", *f.odirFolds)
	case *f.affineIters < 0:
		return calibrate.Config{}, fmt.Errorf("-affine-iterations %d: want ≥ 0 (0: %d)", *f.affineIters, calib.DefaultAffineIterations)
	}
	odir, search, err := f.odir()
	if err != nil {
		return calibrate.Config{}, err
	}
	par, err := ecl.ParseParadigm(*f.eclParadigm)
	if err != nil {
		return calibrate.Config{}, fmt.Errorf("-ecl-paradigm: %w", err)
	}
	platt, err := calib.ParsePlattTargets(*f.plattTargets)
	if err != nil {
		return calibrate.Config{}, fmt.Errorf("-platt-targets %w", err)
	}
	cfg := calibrate.Config{Bins: *f.nbins, Bootstrap: *f.reps, Folds: *f.folds, Seed: *f.seed, Clip: *f.clip, PseudoBatch: *f.pseudoBatch,
		Fit: calib.FitOptions{ODIR: odir, ODIRCV: search, AffineIterations: *f.affineIters, HistBins: *f.histBins, Platt: platt,
			ECL: calib.ECLOptions{Head: *f.eclHead, Paradigm: par, Lambda: *f.eclLambda, Steps: *f.eclSteps}},
		Diagrams: !*f.noDiagrams, Dir: *f.out, Jobs: *f.jobs, Log: func(s string) { fmt.Fprintln(os.Stderr, "ecl calibrate: "+s) }}
	return cfg, nil
}

// odir reads -odir-lambda and -odir-mu: both cv (the default) asks for
// the cross-validated search; a number in either fixes both, one left at
// cv taking the other's value.
func (f *calibrateFlags) odir() (calib.ODIR, *calib.ODIRSearch, error) {
	read := func(name, s string) (float64, bool, error) {
		if s == "cv" {
			return 0, true, nil
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !(v >= 0) || math.IsInf(v, 1) {
			return 0, false, fmt.Errorf("-%s %q: want cv or a finite number ≥ 0", name, s)
		}
		return v, false, nil
	}
	lambda, lcv, err := read("odir-lambda", *f.lambda)
	if err != nil {
		return calib.ODIR{}, nil, err
	}
	mu, mcv, err := read("odir-mu", *f.mu)
	switch {
	case err != nil:
		return calib.ODIR{}, nil, err
	case lcv && mcv:
		return calib.ODIR{}, &calib.ODIRSearch{Folds: *f.odirFolds, Seed: *f.seed}, nil
	case lcv:
		lambda = mu
	case mcv:
		mu = lambda
	}
	return calib.ODIR{Lambda: lambda, Mu: mu}, nil, nil
}

// memoryLimit reads -memory-limit: a size in bytes, math.MaxInt64 for
// off, -1 for auto.
func (f *calibrateFlags) memoryLimit() (int64, error) {
	switch *f.memLimit {
	case "auto":
		return -1, nil
	case "off":
		return math.MaxInt64, nil
	}
	limit, err := calibrate.ParseSize(*f.memLimit)
	if err != nil {
		return 0, fmt.Errorf("-memory-limit: %w (or auto, off)", err)
	}
	return limit, nil
}

// setMemoryLimit gives Go's collector the soft limit (from memoryLimit;
// auto: calibrate.DefaultMemoryLimit unless GOMEMLIMIT is set) and says so
// on stderr.
func setMemoryLimit(limit int64, cfg calibrate.Config) {
	if limit < 0 {
		if os.Getenv("GOMEMLIMIT") != "" {
			return
		}
		limit = calibrate.DefaultMemoryLimit(cfg.InputBytes())
	}
	debug.SetMemoryLimit(limit)
	if limit != math.MaxInt64 {
		fmt.Fprintf(os.Stderr, "ecl calibrate: soft memory limit %d MiB\n", limit>>20)
	}
}

// read reads the files the flags name into cfg.
func (f *calibrateFlags) read(cfg *calibrate.Config) error {
	src, err := predict.ReadScores(*f.srcPath, predict.Mode(*f.input))
	if err != nil {
		return err
	}
	tgt, err := predict.ReadScores(*f.tgtPath, predict.Mode(*f.input))
	if err != nil {
		return err
	}
	warn(src.Warnings)
	warn(tgt.Warnings)
	if src.K != tgt.K {
		return fmt.Errorf("%s has %d classes, %s has %d", src.Path, src.K, tgt.Path, tgt.K)
	}
	if cfg.Methods, err = calibrate.ParseMethods(*f.methodList, src.K); err != nil {
		return err
	}
	ys, err := predict.ReadLabelsFor(*f.srcLabels, src)
	if err != nil {
		return err
	}
	cfg.Source, cfg.Target, cfg.SourceLabels = src, tgt, ys
	if *f.tgtLabels != "" {
		if cfg.TargetLabels, err = predict.ReadLabelsFor(*f.tgtLabels, tgt); err != nil {
			return err
		}
	}
	if *f.srcFeat != "" {
		if cfg.SourceFeatures, cfg.TargetFeatures, cfg.D, err = predict.ReadFeatures(*f.srcFeat, *f.tgtFeat, src.Rows, tgt.Rows); err != nil {
			return err
		}
	}
	if *f.pseudoLogits != "" {
		ps, err := predict.ReadScores(*f.pseudoLogits, predict.Mode(*f.input))
		if err != nil {
			return err
		}
		warn(ps.Warnings)
		if ps.K != src.K {
			return fmt.Errorf("%s has %d classes, %s has %d", ps.Path, ps.K, src.Path, src.K)
		}
		py, err := predict.ReadLabelsFor(*f.pseudoLabels, ps)
		if err != nil {
			return err
		}
		cfg.Pseudo = &calib.PseudoSet{Logits: ps.Logits, Labels: py}
	}
	return nil
}
