package nn

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ecl-go/ecl/tensor"
)

// A save killed between writing and renaming leaves ".s.ecl.tmp…" behind
// (made here by hand); the next Save of the same file removes it.
func TestSaveRemovesKilledSavesTemporary(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.ecl")
	if err := os.WriteFile(filepath.Join(dir, ".s.ecl.tmp4242"), []byte("ECLSTATE half"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Save(path, stateList[float64]{named("a", tensor.Ones[float64](3))}); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "s.ecl" {
		t.Errorf("directory after Save: %v, want only s.ecl", entries)
	}
}
