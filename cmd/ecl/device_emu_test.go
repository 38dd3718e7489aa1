//go:build cuda && cudaemu

package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestSimOnDeviceMatchesCPU runs a small ecl sim with every method on the
// CUDA backend (here its CPU emulator; CI runs it so) and on the CPU: the
// data, the models and every training stage live on the device, and the
// results agree with the CPU's to float64 summation order.
func TestSimOnDeviceMatchesCPU(t *testing.T) {
	args := []string{"-runs", "1", "-shifts", "normal", "-points", "40", "-base-epochs", "2", "-aux-epochs", "2", "-ecl-epochs", "2", "-methods", "all", "-quiet"}
	results := func(device string) any {
		dir := t.TempDir()
		if err := runSim(append(args, "-device", device, "-out", dir)); err != nil {
			t.Fatalf("-device %s: %v", device, err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "results.json"))
		if err != nil {
			t.Fatal(err)
		}
		var v struct{ Results any }
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		return v.Results
	}
	worst, where := 0.0, ""
	var walk func(path string, a, b any)
	walk = func(path string, a, b any) {
		switch a := a.(type) {
		case map[string]any:
			bm, _ := b.(map[string]any)
			for k, v := range a {
				walk(path+"."+k, v, bm[k])
			}
		case []any:
			bs, _ := b.([]any)
			if len(bs) != len(a) {
				t.Fatalf("%s: %d values on the device, %d on the CPU", path, len(a), len(bs))
			}
			for i := range a {
				walk(fmt.Sprintf("%s[%d]", path, i), a[i], bs[i])
			}
		case float64:
			bf, ok := b.(float64)
			if !ok {
				t.Fatalf("%s: %v on the device, %v on the CPU", path, a, b)
			}
			if d := math.Abs(a-bf) / math.Max(math.Max(math.Abs(a), math.Abs(bf)), 1e-12); d > worst {
				worst, where = d, path
			}
		default:
			if a != b {
				t.Errorf("%s: %v on the device, %v on the CPU", path, a, b)
			}
		}
	}
	walk("Results", results("cuda"), results("cpu"))
	t.Logf("largest relative difference %.2g at %s", worst, where)
	if worst > 1e-6 {
		t.Errorf("device and CPU results differ by %.2g (relative) at %s", worst, where)
	}
}
