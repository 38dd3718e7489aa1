package calibrate

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ecl-go/ecl/ecl/calib"
	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/ecl/predict"
)

// Config is one fitting run: source-validation scores with labels (and
// optionally features [N, D]), the target's scores (labels only to report
// the true metrics beside the estimates), an optional PseudoCal set, the
// methods (ParseMethods) and their settings, and where to write.
type Config struct {
	Source, Target                 predict.Scores
	SourceLabels, TargetLabels     []int
	SourceFeatures, TargetFeatures []float64
	D                              int
	// Pseudo is the model's outputs on mixed-up target inputs with their
	// pseudo-labels; nil builds the set from a mixup of the target logits
	// in batches of PseudoBatch.
	Pseudo      *calib.PseudoSet
	PseudoBatch int
	Methods     []string
	// Bins and Bootstrap set the ECE estimates and intervals, Folds the
	// cross-fitting of the importance-weighted estimate, Clip the
	// importance weights' upper clip.
	Bins, Bootstrap, Folds int
	Clip                   float64
	Seed                   uint64
	Fit                    calib.FitOptions
	Diagrams               bool
	Dir                    string
	// Jobs is how many methods are fitted at once (at least 1).
	Jobs int
	// Log receives a line as each method ends (nil: none).
	Log func(string)
}

func (c Config) log(s string) {
	if c.Log != nil {
		c.Log(s)
	}
}

// MethodReport is one method's results; metrics are fractions.
type MethodReport struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
	// ODIR is the regularisation vs, ms and dirichlet were fitted with,
	// ODIRCV the cross-validated search that chose it (nil when given).
	ODIR   *calib.ODIR   `json:"odir,omitempty"`
	ODIRCV *calib.ODIRCV `json:"odir_cv,omitempty"`
	// Target holds every metric of the calibrated target predictions
	// (with target labels only); TargetECE the ECE with its interval.
	Target    *metrics.Report `json:"target,omitempty"`
	TargetECE *calib.Interval `json:"target_ece,omitempty"`
	// Label-free estimates of the target ECE.
	IWECE     calib.Interval `json:"iw_source_ece"`
	PseudoECE calib.Interval `json:"pseudo_target_ece"`
	ProbsFile string         `json:"probs_file"`
}

// Report is report.json.
type Report struct {
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
	Methods       []MethodReport         `json:"methods"`
	Notes         []string               `json:"notes,omitempty"`
}

// ParseMethods reads a comma-separated list of calib.Methods, or "all"
// (the methods defined for k classes: the binary-only ones only for
// k = 2), checking every name; a name listed twice counts once.
func ParseMethods(list string, k int) ([]string, error) {
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
