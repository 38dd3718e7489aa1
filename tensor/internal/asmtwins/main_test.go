package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFilesAreCurrent: the committed assembly files are what their
// templates make (run go generate ./tensor otherwise), and each holds both
// twins of every function.
func TestFilesAreCurrent(t *testing.T) {
	for _, name := range files {
		want, err := generate(name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("..", "..", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("tensor/%s differs from its template's output; run go generate ./tensor", name)
		}
		if n32, n64 := strings.Count(string(want), "32(SB)"), strings.Count(string(want), "64(SB)"); n32 == 0 || n32 != n64 {
			t.Errorf("%s: %d float32 and %d float64 functions", name, n32, n64)
		}
	}
}
