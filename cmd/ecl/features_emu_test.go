//go:build cuda && cudaemu

package main

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/ecl-go/ecl/datasets/arrays"
	"github.com/ecl-go/ecl/datasets/images/imagestest"
)

// TestFeaturesOnDeviceMatchesCPU runs ecl features with -device cuda
// (here the CUDA backend's CPU emulator) and on the CPU: the logits and
// features agree to float32 summation order.
func TestFeaturesOnDeviceMatchesCPU(t *testing.T) {
	withTinyArchs(t)
	data := t.TempDir()
	if _, err := imagestest.Tree(data, []string{"a", "b"}, 3, 8); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, dev := range []string{"cpu", "cuda"} {
		out[dev] = filepath.Join(t.TempDir(), dev+".npz")
		if err := runFeatures([]string{"-arch", "resnet_tiny", "-weights", tinyWeights, "-data", data, "-out", out[dev], "-batch", "4", "-device", dev, "-quiet"}); err != nil {
			t.Fatalf("-device %s: %v", dev, err)
		}
	}
	for _, name := range []string{"logits", "features"} {
		cpu, _, err := arrays.ReadNPZ(out["cpu"], name)
		if err != nil {
			t.Fatal(err)
		}
		gpu, _, err := arrays.ReadNPZ(out["cuda"], name)
		if err != nil {
			t.Fatal(err)
		}
		var d, s float64
		for i := range cpu {
			d, s = max(d, math.Abs(cpu[i]-gpu[i])), max(s, math.Abs(cpu[i]))
		}
		t.Logf("%s: max |cuda − cpu| %.2e of max %.2e", name, d, s)
		if len(cpu) != len(gpu) || d > 1e-4*s {
			t.Errorf("%s: %d and %d values, max difference %.2e of %.2e", name, len(gpu), len(cpu), d, s)
		}
	}
}
