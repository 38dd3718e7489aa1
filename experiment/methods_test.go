package experiment

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/ecl"
)

// TestRegistry: every method is registered once, with a name and both
// fit functions; the paper's baselines are there in the order the tables
// list them (each family's file registers its own, a file holding one
// added method its own), with their family's kind.
func TestRegistry(t *testing.T) {
	paper := []string{"ts", "cpcs", "transcal", "pseudocal", "softece", "dece", "kde", "drl", "oracle"}
	if got := slices.DeleteFunc(slices.Clone(Methods), func(k string) bool { return !slices.Contains(paper, k) }); !slices.Equal(got, paper) {
		t.Fatalf("Methods = %v, want %v among them in this order", Methods, paper)
	}
	for _, key := range Methods {
		m, ok := lookupMethod(key)
		if !ok || m.Name == "" || m.fit32 == nil || m.fit64 == nil {
			t.Errorf("method %q: %+v", key, m)
		}
		if post := slices.Contains(paper[:4], key); slices.Contains(paper, key) && m.PostHoc != post {
			t.Errorf("method %q: PostHoc %v", key, m.PostHoc)
		}
	}
	if _, ok := lookupMethod("platt"); ok {
		t.Error("an unregistered key was found")
	}
	defer func() {
		if recover() == nil {
			t.Error("registering a key twice did not panic")
		}
	}()
	register(Method{Key: "ts"})
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
