package sweep

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteFile leaves sweep.json and the logs folder; ReadFile reads the job
// list back, says when there is none, and names a broken file.
func TestFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if _, ok, err := ReadFile(dir); ok || err != nil {
		t.Errorf("no sweep.json: ok %v, error %v", ok, err)
	}
	jobs, _ := Grid{Command: "sim", Vary: []Axis{{"seed", []string{"1:2"}}}}.Jobs(dir)
	if err := WriteFile(dir, File{Command: "sim", Jobs: jobs}); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(dir, "logs")); err != nil || !st.IsDir() {
		t.Errorf("logs folder: %v", err)
	}
	f, ok, err := ReadFile(dir)
	if err != nil || !ok || f.Command != "sim" || len(f.Jobs) != 2 || f.Jobs[1].Name != "seed=2" || f.Jobs[1].Dir != filepath.Join(dir, "seed=2") {
		t.Errorf("read back %+v, %v, %v", f, ok, err)
	}
	os.WriteFile(filepath.Join(dir, "sweep.json"), []byte("{"), 0o644)
	if _, _, err := ReadFile(dir); err == nil {
		t.Error("a broken sweep.json read")
	}
}
