package nn

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ecl-go/ecl/tensor"
)

// isSafetensors reports whether path names a safetensors file (by its
// extension); other files are read as torch.save files.
func isSafetensors(path string) bool {
	return strings.EqualFold(filepath.Ext(path), ".safetensors")
}

// openSized opens the file at path and returns its size; errors are
// prefixed with fn.
func openSized(path, fn string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", fn, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("%s: %w", fn, err)
	}
	return f, fi.Size(), nil
}

// LoadWeights restores m from a weights file: LoadSafetensors for a path
// ending in .safetensors, else LoadPyTorch with opt (which applies to
// torch.save files only).
func LoadWeights[T tensor.Float](path string, m Module[T], opt *PyTorchOptions) error {
	if isSafetensors(path) {
		return LoadSafetensors(path, m)
	}
	return LoadPyTorch(path, m, opt)
}

// WeightShapes lists the tensors of a weights file (a .safetensors file,
// or a torch.save file as LoadPyTorch reads it, its names changed by opt's
// Rename) by name, with their shapes, in the file's order, without
// reading their values: for instance to learn a head's number of classes
// before building the model. Errors are LoadSafetensors' and
// LoadPyTorch's.
func WeightShapes(path string, opt *PyTorchOptions) (names []string, shapes [][]int, err error) {
	f, size, err := openSized(path, "nn.WeightShapes")
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if isSafetensors(path) {
		tensors, _, err := readSafetensorsHeader(f, size)
		if err != nil {
			return nil, nil, fmt.Errorf("nn.WeightShapes %s: %w", path, err)
		}
		for _, t := range tensors {
			names, shapes = append(names, t.name), append(shapes, ints(t.shape))
		}
		return names, shapes, nil
	}
	a, err := openTorchArchive(path, f, size)
	if err != nil {
		return nil, nil, err
	}
	ns, ts, err := a.stateDict()
	if err != nil {
		return nil, nil, err
	}
	for i, n := range ns {
		if opt != nil && opt.Rename != nil {
			n = opt.Rename(n)
		}
		names, shapes = append(names, n), append(shapes, ints(ts[i].shape))
	}
	return names, shapes, nil
}

// ints converts a file's dimensions, checked when the file was read.
func ints(s []int64) []int {
	out := make([]int, len(s))
	for i, v := range s {
		out[i] = int(v)
	}
	return out
}
