package experiment

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/tensor"
)

// Method is a baseline the studies know: its key in Study.Methods (and
// -methods), its row's name, its kind and what it is, in a line (the
// commands' help and docs/commands.md list them).
type Method struct {
	Key, Name string
	// PostHoc methods recalibrate the base model's outputs; the others
	// train a copy of it. The post-hoc methods of a run come first, in
	// order, sharing one random stream; each other one starts the run's
	// fine-tuning stream afresh, as CE-finetune does.
	PostHoc bool
	About   string
}

// fitter is a Method with its fit for the element type T (float32 in the
// digits and images studies, float64 in the simulation): fit returns the
// method's probabilities on the arm's evaluated source and target.
type fitter[T tensor.Float] struct {
	Method
	fit func(a *arm[T], rng *rand.Rand) (src, tgt []float64, err error)
}

// registry lists every method with its fit for T, in the order of the
// tables and of "all". A fit is written once, generic in T, and serves
// both element types. Adding a method is a line here and its fit, or its
// loss for a fine-tuned method, in its own file (docs/extending.md walks
// through focal.go).
func registry[T tensor.Float]() []fitter[T] {
	return []fitter[T]{
		{Method{"ts", "TS", true, "temperature scaling (Guo et al., 2017) fitted on the held-out source"}, fitTS[T]},
		{Method{"cpcs", "CPCS", true, "a temperature fitted with the Brier score on the held-out source weighted by p_t/p_s (after Park et al., 2020)"}, fitCPCS[T]},
		{Method{"transcal", "TransCal", true, "TransCal's temperature (Wang et al., 2020) from the held-out source's errors, weighted by a balanced domain classifier"}, fitTransCal[T]},
		{Method{"pseudocal", "PseudoCal", true, "a temperature fitted on mixed-up target inputs against their pseudo-labels (Hu et al., 2024)"}, fitPseudoCal[T]},
		{Method{"isotonic", "Isotonic", true, "isotonic regression (Zadrozny & Elkan, 2002) of each class probability on the held-out source"}, fitIsotonic[T]},
		{Method{"softece", "Soft-ECE", false, "the loss CE + 1·Soft-ECE on the source (Karandikar et al., 2021)"}, regularised(softECETerm[T])},
		{Method{"dece", "DECE", false, "the loss CE + 0.5·DECE on the source (Bohdal et al., 2023)"}, regularised(deceTerm[T])},
		{Method{"kde", "KDE", false, "the loss CE + 1·ECE^KDE on the source (Popordanoska et al., 2022; canonical, p = 1, bandwidth chosen on each batch)"}, regularised(kdeTerm[T])},
		{Method{"drl", "DRL", false, "the predictive form with the logits scaled by density ratios, trained on source batches and evaluated with the ratios (Wang et al., IJCAI 2023)"}, fitDRL[T]},
		{Method{"oracle", "Oracle", false, "the loss CE + 1·Soft-ECE on the labelled target (uses target labels)"}, regularised(oracleTerm[T])},
		{Method{"focal", "Focal", false, "the focal loss (Lin et al., 2017; γ = 2) in place of CE"}, fineTuned(focalLoss[T])},
	}
}

// Registered lists the methods in table order.
func Registered() []Method {
	var out []Method
	for _, f := range registry[float64]() {
		out = append(out, f.Method)
	}
	return out
}

// Methods lists the keys of the methods in table order: what "all" stands
// for in Study.Methods.
var Methods = keys()

// PaperMethods are the methods the paper compares ECL with: every method
// but focal. The digits and images studies run them by default, so their
// default runs (and run keys) stay those of the paper's comparison.
var PaperMethods = slices.DeleteFunc(slices.Clone(Methods), func(key string) bool { return key == "focal" })

func keys() []string {
	var out []string
	for _, m := range Registered() {
		out = append(out, m.Key)
	}
	return out
}

// lookupMethod is the method registered under key, with its fit for T.
func lookupMethod[T tensor.Float](key string) (fitter[T], bool) {
	for _, f := range registry[T]() {
		if f.Key == key {
			return f, true
		}
	}
	return fitter[T]{}, false
}

// ParseMethods reads a list of methods as the study commands' -methods
// takes it: keys of Methods, comma-separated, each once and spelled as
// listed; "all" for every method; "none" or "" for none. A name that is
// not a key is a *SettingError of Methods naming the keys.
func ParseMethods(list string) ([]string, error) {
	switch list {
	case "", "none":
		return nil, nil
	case "all":
		return slices.Clone(Methods), nil
	}
	ms := strings.Split(list, ",")
	if err := checkMethods(ms); err != nil {
		return nil, err
	}
	return ms, nil
}

// checkMethods is a SettingError for the first of keys that is not a
// method's key or is there twice.
func checkMethods(keys []string) *SettingError {
	want := "a comma list of " + strings.Join(Methods, ", ") + ", each at most once; all; or none"
	for i, key := range keys {
		switch {
		case !slices.Contains(Methods, key):
			return &SettingError{"Methods", key, want + methodHint(key)}
		case slices.Contains(keys[:i], key):
			return &SettingError{"Methods", key, want + " (" + key + " is listed twice)"}
		}
	}
	return nil
}

// methodHint says what a name that is not a method's key may have meant:
// a key or a row name in other letters, a row name, or a row that is not a
// method's.
func methodHint(name string) string {
	for _, m := range Registered() {
		switch {
		case name == m.Name:
			return fmt.Sprintf(" (%s is the row of method %s)", name, m.Key)
		case strings.EqualFold(name, m.Key) || strings.EqualFold(name, m.Name):
			return fmt.Sprintf(" (method %s, row %s)", m.Key, m.Name)
		}
	}
	if n := strings.ToLower(name); n == "uncal" || n == "ce-finetune" || n == "ecl" || strings.HasPrefix(n, "ecl-") {
		return " (the Uncal, CE-finetune and ECL rows are not methods: a study always has Uncal's; the control adds CE-finetune's and the paradigms ECL's)"
	}
	return ""
}

// RowKind is the kind of model a result scores.
type RowKind uint8

const (
	// UncalRow is the base model.
	UncalRow RowKind = iota
	// ControlRow is CE-finetune: the ECL stage's schedule without ECL.
	ControlRow
	// BaselineRow is a registered method (Method).
	BaselineRow
	// ECLRow is ECL in one paradigm.
	ECLRow
)

// MethodID names the model a result scores: the base model, the control, a
// baseline by its Name, or ECL in a paradigm with the auxiliary head's data
// when a study compares several. It is written as its row name (String:
// "Uncal", "CE-finetune", "TS", "ECL-toplabel", "ECL-toplabel-heldout") and
// read back from it, so that result files hold the names they always have.
type MethodID struct {
	Kind RowKind
	// Name is a baseline's (BaselineRow).
	Name string
	// Paradigm and AuxData are ECL's (ECLRow); AuxData is empty when the
	// study trains the auxiliary head on one source sample only.
	Paradigm ecl.Paradigm
	AuxData  string
}

// Uncal and Control name the base model's and the control's rows.
var (
	Uncal   = MethodID{Kind: UncalRow}
	Control = MethodID{Kind: ControlRow}
)

// Baseline names a registered method's row by its Name.
func Baseline(name string) MethodID { return MethodID{Kind: BaselineRow, Name: name} }

// ECLIn names ECL's row in paradigm p, its auxiliary head trained on
// auxData ("" when the study uses one sample).
func ECLIn(p ecl.Paradigm, auxData string) MethodID {
	return MethodID{Kind: ECLRow, Paradigm: p, AuxData: auxData}
}

func (m MethodID) String() string {
	switch m.Kind {
	case UncalRow:
		return "Uncal"
	case ControlRow:
		return "CE-finetune"
	case ECLRow:
		if m.AuxData != "" {
			return "ECL-" + m.Paradigm.String() + "-" + m.AuxData
		}
		return "ECL-" + m.Paradigm.String()
	}
	return m.Name
}

// ParseMethodID reads a row name back; a name that is not Uncal's,
// CE-finetune's or ECL's is a baseline's (older files may name baselines
// no longer registered).
func ParseMethodID(s string) MethodID {
	switch s {
	case "Uncal":
		return Uncal
	case "CE-finetune":
		return Control
	}
	if rest, ok := strings.CutPrefix(s, "ECL-"); ok {
		name, data, _ := strings.Cut(rest, "-")
		if p, err := ecl.ParseParadigm(name); err == nil {
			return ECLIn(p, data)
		}
	}
	return Baseline(s)
}

// MarshalText writes the row name.
func (m MethodID) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads a row name (ParseMethodID).
func (m *MethodID) UnmarshalText(b []byte) error {
	*m = ParseMethodID(string(b))
	return nil
}
