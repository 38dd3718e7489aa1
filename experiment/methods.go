package experiment

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/tensor"
)

// Method is a baseline the studies know, in one place: its key in
// -methods, its row's name, its kind and how it is fitted on an arm (a base
// model with its data). Each family of methods registers its own in its
// file (posthoc.go, traintime.go); adding a method is one registration and
// its fit function there.
type Method struct {
	Key, Name string
	// PostHoc methods recalibrate the base model's outputs; the others
	// train a copy of it. The post-hoc methods of a study run first, in
	// order, sharing one random stream.
	PostHoc bool
	// fit32 and fit64 are the fit function instantiated for the two
	// element types (the digits and the simulation study): it returns the
	// method's probabilities on the arm's evaluated source and target.
	fit32 func(a *arm[float32], rng *rand.Rand) (src, tgt []float64, err error)
	fit64 func(a *arm[float64], rng *rand.Rand) (src, tgt []float64, err error)
}

// registry holds the methods in registration order.
var registry []Method

// Methods lists the keys of the registered methods, in registration order.
var Methods []string

// register adds m to the registry; a key registered twice is a
// programming error.
func register(m Method) {
	if _, ok := lookupMethod(m.Key); ok {
		panic(fmt.Sprintf("experiment: method %q registered twice", m.Key))
	}
	registry = append(registry, m)
	Methods = append(Methods, m.Key)
}

// lookupMethod is the method registered under key.
func lookupMethod(key string) (Method, bool) {
	for _, m := range registry {
		if m.Key == key {
			return m, true
		}
	}
	return Method{}, false
}

// fitMethod runs m's fit function for a's element type.
func fitMethod[T tensor.Float](m Method, a *arm[T], rng *rand.Rand) (src, tgt []float64, err error) {
	switch a := any(a).(type) {
	case *arm[float32]:
		return m.fit32(a, rng)
	case *arm[float64]:
		return m.fit64(a, rng)
	}
	panic("experiment: arm of an unknown element type")
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
