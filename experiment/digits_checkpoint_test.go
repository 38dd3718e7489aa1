package experiment

import (
	"os"
	"path/filepath"
	"testing"
)

// removeCheckpoints removes the given runs' checkpoints, keeps another
// run's (a study of other settings killed in the same -out), and removes
// the checkpoints directory once it is empty.
func TestRemoveCheckpointsKeepsOtherRuns(t *testing.T) {
	st := Store{Dir: t.TempDir()}
	spec := runSpec{study: "digits", label: "mnist lenet5 seed 1", seed: 1, config: map[string]int{"Epochs": 3}}
	dir, err := st.checkpointDir(spec)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(st.Dir, "checkpoints", "mnist-lenet5-seed-1-0123456789abcdef")
	for _, d := range []string{dir, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "base.json"), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.removeCheckpoints([]runSpec{spec}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the run's checkpoint is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(other, "base.json")); err != nil {
		t.Errorf("another run's checkpoint was removed: %v", err)
	}
	os.RemoveAll(other)
	if err := st.removeCheckpoints([]runSpec{spec}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(st.Dir, "checkpoints")); !os.IsNotExist(err) {
		t.Errorf("the empty checkpoints directory is still there: %v", err)
	}
}
