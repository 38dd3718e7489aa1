package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// names lists dir's entries.
func names(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// ReplaceDir swaps in the new folder as a whole, keeps the old one when
// fill fails, and clears a killed call's temporary folders.
func TestReplaceDir(t *testing.T) {
	parent := t.TempDir()
	path := filepath.Join(parent, "diagrams")
	fill := func(files ...string) func(string) error {
		return func(tmp string) error {
			for _, f := range files {
				if err := os.WriteFile(filepath.Join(tmp, f), []byte(f), 0o644); err != nil {
					return err
				}
			}
			return nil
		}
	}
	if err := ReplaceDir(path, fill("a", "b")); err != nil {
		t.Fatal(err)
	}
	if got := names(t, path); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("first fill: %v, want [a b]", got)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("folder mode %v (%v), want 0755", st.Mode().Perm(), err)
	}
	// A killed call's leftovers.
	os.Mkdir(filepath.Join(parent, ".diagrams.tmp123"), 0o755)
	os.Mkdir(filepath.Join(parent, ".diagrams.tmp-old"), 0o755)
	if err := ReplaceDir(path, fill("c")); err != nil {
		t.Fatal(err)
	}
	if got := names(t, path); !slices.Equal(got, []string{"c"}) {
		t.Errorf("second fill: %v, want [c] alone", got)
	}
	if got := names(t, parent); !slices.Equal(got, []string{"diagrams"}) {
		t.Errorf("parent holds %v, want the folder alone", got)
	}
	bad := errors.New("drawing failed")
	if err := ReplaceDir(path, func(tmp string) error { fill("d")(tmp); return bad }); !errors.Is(err, bad) {
		t.Errorf("failed fill: error %v, want %v", err, bad)
	}
	if got := names(t, path); !slices.Equal(got, []string{"c"}) {
		t.Errorf("after a failed fill: %v, want [c] kept", got)
	}
	if got := names(t, parent); !slices.Equal(got, []string{"diagrams"}) {
		t.Errorf("after a failed fill the parent holds %v, want the folder alone", got)
	}
}
