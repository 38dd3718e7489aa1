package calib

import (
	"fmt"
	"math/rand/v2"

	"github.com/ecl-go/ecl/ecl/metrics"
)

// Methods are the names Fit knows, in the order "ecl calibrate" reports
// them: temperature, vector and matrix scaling, Dirichlet calibration,
// histogram binning, isotonic regression, Platt and beta calibration (two
// classes only), and the methods made for covariate shift: importance
// weighted temperature scaling, CPCS, TransCal and the ECL head.
var Methods = []string{"ts", "vs", "ms", "dirichlet", "hist", "isotonic", "platt", "beta", "iwts", "cpcs", "transcal", "ecl"}

// BinaryOnly are the methods defined for two classes only.
var BinaryOnly = map[string]bool{"platt": true, "beta": true}

// MethodsFor returns the Methods defined for k classes, in order.
func MethodsFor(k int) []string {
	var ms []string
	for _, m := range Methods {
		if k == 2 || !BinaryOnly[m] {
			ms = append(ms, m)
		}
	}
	return ms
}

// UnknownMethodError is Fit's error for a name it does not know.
type UnknownMethodError struct{ Method string }

func (e *UnknownMethodError) Error() string { return fmt.Sprintf("unknown method %q", e.Method) }

// FitData is what a method may fit on: source logits [N, K] with labels,
// importance weights of the source samples (W for iwts and cpcs, WBalanced
// from balanced domains for transcal; DomainWeights), source features [N,
// D] and the unlabelled target's logits [M, K] and features [M, D] (for
// transcal and the ECL head; features may be nil).
type FitData struct {
	Logits         []float64
	Labels         []int
	W              []float64
	WBalanced      []float64
	Features       []float64
	Target         []float64
	TargetFeatures []float64
	K, D           int
}

// Subset returns the source rows idx of f (the target unchanged).
func (f FitData) Subset(idx []int) FitData {
	g := f
	pick := func(x []float64, width int) []float64 {
		if x == nil {
			return nil
		}
		out := make([]float64, 0, len(idx)*width)
		for _, i := range idx {
			out = append(out, x[i*width:(i+1)*width]...)
		}
		return out
	}
	g.Logits, g.W, g.WBalanced, g.Features = pick(f.Logits, f.K), pick(f.W, 1), pick(f.WBalanced, 1), pick(f.Features, f.D)
	g.Labels = make([]int, len(idx))
	for j, i := range idx {
		g.Labels[j] = f.Labels[i]
	}
	return g
}

// FitOptions are the settings of the methods that have any.
type FitOptions struct {
	// ODIR regularises vs (Mu only), ms and dirichlet when ODIRCV is nil.
	ODIR ODIR
	// ODIRCV, when not nil, chooses ODIR for vs, ms and dirichlet by
	// cross-validation instead (FitAffineCV).
	ODIRCV *ODIRSearch
	// AffineIterations caps the L-BFGS iterations of vs, ms and dirichlet
	// (each fit of a cross-validated search too) and of the ECL head's
	// auxiliary regression (unless ECL.AuxIterations is set); 0 is
	// DefaultAffineIterations.
	AffineIterations int
	// HistBins is the number of equal-mass bins per class of hist.
	HistBins int
	// Platt chooses what platt fits: the labels (the zero value) or Platt's
	// smoothed targets (FitPlattWith).
	Platt PlattTargets
	// ECL configures the ECL head.
	ECL ECLOptions
}

// Fit fits the method named m (one of Methods, or "uncal", the identity:
// temperature 1) on f.
func Fit(m string, f FitData, o FitOptions) (Calibrator, error) {
	k := f.K
	switch m {
	case "uncal":
		return &Temperature{T: 1}, nil
	case "ts":
		return FitTemperature(f.Logits, k, f.Labels, nil)
	case "iwts":
		return FitTemperature(f.Logits, k, f.Labels, f.W)
	case "cpcs":
		return FitCPCS(f.Logits, k, f.Labels, f.W)
	case "transcal":
		return FitTransCal(f.Logits, k, f.Labels, f.WBalanced, f.Target)
	case "vs", "ms", "dirichlet":
		if o.ODIRCV != nil {
			s := *o.ODIRCV
			if o.AffineIterations != 0 {
				s.Iterations = o.AffineIterations
			}
			return FitAffineCV(m, f.Logits, k, f.Labels, s)
		}
		r, fn := o.ODIR, map[string]string{"vs": "FitVectorScaling", "ms": "FitMatrixScaling", "dirichlet": "FitDirichlet"}[m]
		if m == "vs" {
			r.Lambda = 0
		}
		return fitAffine(fn, affineMap(m), f.Logits, k, f.Labels, r, o.AffineIterations)
	case "hist":
		return FitHistogram(f.Logits, k, f.Labels, o.HistBins, true)
	case "isotonic":
		return FitIsotonic(f.Logits, k, f.Labels)
	case "platt":
		return FitPlattWith(f.Logits, k, f.Labels, o.Platt)
	case "beta":
		return FitBeta(f.Logits, k, f.Labels)
	case "ecl":
		e := o.ECL
		if e.AuxIterations == 0 {
			e.AuxIterations = o.AffineIterations
		}
		return FitECLHead(f.Logits, k, f.Labels, f.Target, f.Features, f.TargetFeatures, f.D, e)
	}
	return nil, &UnknownMethodError{Method: m}
}

// Folds assigns n samples to k cross-fitting folds at random from seed,
// as evenly as possible.
func Folds(n, k int, seed uint64) []int {
	fold := make([]int, n)
	for i, j := range rand.New(rand.NewPCG(seed, 0xf01d)).Perm(n) {
		fold[j] = i % k
	}
	return fold
}

// StratifiedFolds assigns the samples of labels to folds (2 ≤ folds ≤
// n) at random from seed, stratified: each class's samples, shuffled, are
// dealt to the folds in turn, continuing from where the previous class
// ended, so that every class's count and every fold's size differ by at
// most one between folds.
func StratifiedFolds(labels []int, folds int, seed uint64) ([]int, error) {
	n := len(labels)
	if folds < 2 || folds > n {
		return nil, fmt.Errorf("%d folds for %d samples: want 2 to %d", folds, n, n)
	}
	classes := 0
	for i, y := range labels {
		if y < 0 {
			return nil, fmt.Errorf("label %d at row %d is negative", y, i)
		}
		classes = max(classes, y+1)
	}
	byClass := make([][]int, classes)
	for i, y := range labels {
		byClass[y] = append(byClass[y], i)
	}
	rng := rand.New(rand.NewPCG(seed, 0x57a7))
	fold, next := make([]int, n), 0
	for _, idx := range byClass {
		for _, j := range rng.Perm(len(idx)) {
			fold[idx[j]] = next % folds
			next++
		}
	}
	return fold, nil
}

// CrossFit returns the out-of-fold top-label confidence and correctness
// of every source row under method m: the rows of each fold g (fold[i] ==
// g, g < folds) calibrated by m fitted on the other folds (ApplyTopLabel).
// An error in a fold names it.
func CrossFit(m string, f FitData, fold []int, folds int, o FitOptions) (conf, correct []float64, err error) {
	conf, correct = make([]float64, len(f.Labels)), make([]float64, len(f.Labels))
	for g := range folds {
		var in, out []int
		for i, fg := range fold {
			if fg == g {
				out = append(out, i)
			} else {
				in = append(in, i)
			}
		}
		cg, err := Fit(m, f.Subset(in), o)
		if err != nil {
			return nil, nil, fmt.Errorf("estimate fold %d: %w", g+1, err)
		}
		cc, ok, err := topLabel(cg, rows{x: f.Logits, d: f.K, idx: out}, f.Labels)
		if err != nil {
			return nil, nil, err
		}
		for j, i := range out {
			conf[i], correct[i] = cc[j], ok[j]
		}
	}
	return conf, correct, nil
}

// topLabelRows is the number of rows ApplyTopLabel calibrates at a time.
const topLabelRows = 4096

// ApplyTopLabel applies c to logits [N, k] a block of rows at a time and
// returns only each row's top-label confidence and correctness against
// labels (1 or 0), what the ECE estimates read: O(N) memory instead of
// Apply's O(N·k). Every calibrator maps rows independently, so this is
// metrics.TopLabel of c.Apply(logits, k).
func ApplyTopLabel(c Calibrator, logits []float64, k int, labels []int) (conf, correct []float64, err error) {
	if _, err := checkScores("ApplyTopLabel", logits, k, labels); err != nil {
		return nil, nil, err
	}
	return topLabel(c, rows{x: logits, d: k}, labels)
}

// topLabel is ApplyTopLabel on x, rows of logits, against labels indexed
// by x's rows in the logits (labels[x.idx[j]] for row j where x picks
// rows): gathered into a buffer a block at a time where x picks, so that
// a fold's rows need no copy.
func topLabel(c Calibrator, x rows, labels []int) (conf, correct []float64, err error) {
	n := x.n()
	buf := x.buffer(topLabelRows)
	var y []int // a block's labels, where x picks
	if x.idx != nil {
		y = make([]int, min(n, topLabelRows))
	}
	return topLabelBlocks(c, n, x.d, func(lo, hi int) ([]float64, []int) {
		if x.idx == nil {
			return x.block(lo, hi, buf), labels[lo:hi:hi]
		}
		yb := y[:hi-lo]
		for j, i := range x.idx[lo:hi] {
			yb[j] = labels[i]
		}
		return x.block(lo, hi, buf), yb
	})
}

// topLabelBlocks returns the top-label confidence and correctness under c
// of n rows of k classes that block returns with their labels
// topLabelRows at a time (rows lo…hi).
func topLabelBlocks(c Calibrator, n, k int, block func(lo, hi int) ([]float64, []int)) (conf, correct []float64, err error) {
	conf, correct = make([]float64, n), make([]float64, n)
	for lo := 0; lo < n; lo += topLabelRows {
		hi := min(lo+topLabelRows, n)
		x, y := block(lo, hi)
		p, err := c.Apply(x, k)
		if err != nil {
			return nil, nil, err
		}
		cc, ok := metrics.TopLabel(p, k, y)
		copy(conf[lo:hi], cc)
		copy(correct[lo:hi], ok)
	}
	return conf, correct, nil
}
