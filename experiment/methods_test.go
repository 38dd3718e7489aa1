package experiment

import (
	"slices"
	"testing"
)

// TestRegistry: every method is registered once, with a name, both fit
// functions and its family's kind, in the order the tables list them.
func TestRegistry(t *testing.T) {
	want := []string{"ts", "cpcs", "transcal", "pseudocal", "softece", "dece", "kde", "drl", "oracle"}
	if !slices.Equal(Methods, want) {
		t.Fatalf("Methods = %v, want %v", Methods, want)
	}
	for _, key := range Methods {
		m, ok := lookupMethod(key)
		if !ok || m.Name == "" || m.fit32 == nil || m.fit64 == nil {
			t.Errorf("method %q: %+v", key, m)
		}
		if post := slices.Contains(want[:4], key); m.PostHoc != post {
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
