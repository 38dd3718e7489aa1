package calibrate

import (
	"testing"

	"github.com/ecl-go/ecl/ecl/calib"
	"github.com/ecl-go/ecl/ecl/predict"
)

func TestParseSize(t *testing.T) {
	for s, want := range map[string]int64{"0": 0, "123": 123, "123B": 123, "2KiB": 2048, "2289MiB": 2289 << 20, "3GiB": 3 << 30, "1TiB": 1 << 40} {
		if got, err := ParseSize(s); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "x", "-1", "1.5GiB", "2GB", "9999999999TiB"} {
		if _, err := ParseSize(s); err == nil {
			t.Errorf("ParseSize(%q) gave no error", s)
		}
	}
}

func TestInputBytes(t *testing.T) {
	c := Config{Source: predict.Scores{Logits: make([]float64, 30)}, Target: predict.Scores{Logits: make([]float64, 20)},
		SourceFeatures: make([]float64, 7), TargetFeatures: make([]float64, 5), Pseudo: &calib.PseudoSet{Logits: make([]float64, 3)}}
	if got := c.InputBytes(); got != 8*65 {
		t.Errorf("InputBytes %d, want %d", got, 8*65)
	}
}

func TestDefaultMemoryLimit(t *testing.T) {
	if got := DefaultMemoryLimit(16_000); got != MinMemoryLimit {
		t.Errorf("16 kB of input: limit %d, want the floor %d", got, MinMemoryLimit)
	}
	// ImageNet's validation logits as source and target: 2 × 400 MB.
	if got, want := DefaultMemoryLimit(800_000_000), int64(2_080_000_000); got != want {
		t.Errorf("800 MB of input: limit %d, want %d", got, want)
	}
}
