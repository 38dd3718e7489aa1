package sweep

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ecl-go/ecl/internal/atomicfile"
)

// File is what a sweep leaves in its output directory as sweep.json: the
// job list, to name the jobs that never ran.
type File struct {
	Command string `json:"command"`
	Jobs    []Job  `json:"jobs"`
}

// WriteFile creates out and out/logs (the Slurm jobs' output) and writes
// out/sweep.json, atomically.
func WriteFile(out string, f File) error {
	if err := os.MkdirAll(filepath.Join(out, "logs"), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(out, "sweep.json"), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(f)
	})
}

// ReadFile reads dir/sweep.json; ok is false when dir has none.
func ReadFile(dir string) (f File, ok bool, err error) {
	path := filepath.Join(dir, "sweep.json")
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return File{}, false, nil
	}
	if err == nil {
		err = json.Unmarshal(b, &f)
	}
	if err != nil {
		return File{}, false, fmt.Errorf("%s: %w", path, err)
	}
	return f, true, nil
}
