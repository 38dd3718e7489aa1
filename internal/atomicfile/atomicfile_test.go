package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReplacesOnlyOnSuccess(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	if err := Write(path, func(w io.Writer) error { _, err := io.WriteString(w, "first"); return err }); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, func(w io.Writer) error {
		io.WriteString(w, "half")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v", err)
	}
	b, _ := os.ReadFile(path)
	if string(b) != "first" {
		t.Errorf("file holds %q after a failed write", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
	if err := Write(filepath.Join(dir, "missing", "x"), func(io.Writer) error { return nil }); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
}

// A temporary file left by a killed writer (created here as one would be)
// is removed by the next Write of the same path, and only that path's.
func TestWriteRemovesStaleTemporaries(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.bin")
	for _, name := range []string{".state.bin.tmp123", ".state.bin.tmp9", ".other.bin.tmp1"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("half"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := Write(path, func(w io.Writer) error { _, err := io.WriteString(w, "done"); return err }); err != nil {
		t.Fatal(err)
	}
	var names []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 2 || names[0] != ".other.bin.tmp1" || names[1] != "state.bin" {
		t.Errorf("directory holds %v, want .other.bin.tmp1 and state.bin", names)
	}
	if err := RemoveStale(filepath.Join(dir, "other.bin")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".other.bin.tmp1")); !os.IsNotExist(err) {
		t.Errorf("RemoveStale left .other.bin.tmp1: %v", err)
	}
}
