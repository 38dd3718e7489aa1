package experiment

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/ecl"
)

// TestRegistry: every method has a key and a row name of its own, a line
// saying what it is and a fit for both element types; the paper's
// baselines are there in the order the tables list them, with their
// family's kind, and a row name never reads back as another kind of row.
func TestRegistry(t *testing.T) {
	paper := []string{"ts", "cpcs", "transcal", "pseudocal", "softece", "dece", "kde", "drl", "oracle"}
	if got := slices.DeleteFunc(slices.Clone(Methods), func(k string) bool { return !slices.Contains(paper, k) }); !slices.Equal(got, paper) {
		t.Fatalf("Methods = %v, want %v among them in this order", Methods, paper)
	}
	f32, f64 := registry[float32](), registry[float64]()
	if len(f32) != len(Methods) || len(f64) != len(Methods) {
		t.Fatalf("%d and %d fits for %d methods", len(f32), len(f64), len(Methods))
	}
	keys, names := map[string]bool{}, map[string]bool{}
	for i, m := range Registered() {
		if m.Key != Methods[i] || m.Name == "" || m.About == "" || keys[m.Key] || names[m.Name] {
			t.Errorf("method %d: %+v (a key or name empty or seen before)", i, m)
		}
		keys[m.Key], names[m.Name] = true, true
		if f32[i].Method != m || f64[i].Method != m || f32[i].fit == nil || f64[i].fit == nil {
			t.Errorf("method %q: fits %+v, %+v", m.Key, f32[i].Method, f64[i].Method)
		}
		if post := slices.Contains(paper[:4], m.Key); slices.Contains(paper, m.Key) && m.PostHoc != post {
			t.Errorf("method %q: PostHoc %v", m.Key, m.PostHoc)
		}
		if id := ParseMethodID(m.Name); id != Baseline(m.Name) {
			t.Errorf("method %q: its row %q reads back as %+v", m.Key, m.Name, id)
		}
	}
	if _, ok := lookupMethod[float64]("platt"); ok {
		t.Error("an unregistered key was found")
	}
	if m, ok := lookupMethod[float32]("focal"); !ok || m.Name != "Focal" || m.PostHoc {
		t.Errorf("focal: %+v, %v", m.Method, ok)
	}
}

// ParseMethods takes the keys as listed, all and none; any other name is
// an error listing every key, with a hint for a name in other letters, a
// row name or a row that is not a method's.
func TestParseMethods(t *testing.T) {
	for in, want := range map[string][]string{
		"":                 nil,
		"none":             nil,
		"all":              Methods,
		"ts,pseudocal,kde": {"ts", "pseudocal", "kde"},
		"focal,ts":         {"focal", "ts"},
	} {
		got, err := ParseMethods(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%q: %v, %v; want %v", in, got, err, want)
		}
	}
	all := strings.Join(Methods, ", ")
	for in, hint := range map[string]string{
		"uncal":        "rows are not methods",
		"Uncal":        "rows are not methods",
		"ecl":          "rows are not methods",
		"ECL-toplabel": "rows are not methods",
		"CE-finetune":  "rows are not methods",
		"TS":           "(TS is the row of method ts)",
		"soft-ece":     "(method softece, row Soft-ECE)",
		"Focal":        "(Focal is the row of method focal)",
		"ts,platt":     "all; or none\"",
		"ts,ts":        "(ts is listed twice)",
		"ts,":          "all; or none\"",
		"All":          "all; or none\"",
	} {
		_, err := ParseMethods(in)
		var se *SettingError
		if !errors.As(err, &se) || se.Field != "Methods" || !strings.Contains(se.Want, all) || !strings.Contains(fmt.Sprintf("%s\"", se.Want), hint) {
			t.Errorf("%q: error %v, want a SettingError of Methods listing %s, with %q", in, err, all, hint)
		}
	}
	if err := (Study{Runs: 1, Methods: []string{"ts", "Soft-ECE"}}).validate(); err == nil || !strings.Contains(err.Error(), "Soft-ECE is the row of method softece") {
		t.Errorf("a study with the method Soft-ECE: %v", err)
	}
}

// A MethodID is written as the row name result files have always held and
// read back from it.
func TestMethodIDNames(t *testing.T) {
	for _, c := range []struct {
		id   MethodID
		name string
	}{
		{Uncal, "Uncal"},
		{Control, "CE-finetune"},
		{Baseline("Soft-ECE"), "Soft-ECE"},
		{ECLIn(ecl.TopLabel, ""), "ECL-toplabel"},
		{ECLIn(ecl.ClassWise, "oracle-both"), "ECL-classwise-oracle-both"},
		{Baseline("ECL-nope"), "ECL-nope"},
	} {
		b, err := json.Marshal(Result{Method: c.id})
		if err != nil || !strings.Contains(string(b), `"Method":"`+c.name+`"`) {
			t.Errorf("%+v: %s, %v", c.id, b, err)
		}
		var r Result
		if err := json.Unmarshal(b, &r); err != nil || r.Method != c.id || c.id.String() != c.name {
			t.Errorf("%s read back as %+v, %v", c.name, r.Method, err)
		}
	}
}
