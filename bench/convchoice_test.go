package bench

import (
	"io"
	"testing"

	"github.com/ecl-go/ecl/tensor"
)

// TestConvLayers checks the list against the networks' definitions: 4
// ResNet-20 shapes (its stem shared with DenseNet-40's), 4 each for the
// ResNet-50s, DenseNet-40's 36 dense layers, DenseNet-121's 4 maps, all
// distinct and valid.
func TestConvLayers(t *testing.T) {
	ls := ConvLayers()
	count := map[string]int{}
	for _, l := range ls {
		count[l.Net]++
		if err := l.Params().Validate(); err != nil {
			t.Error(err)
		}
	}
	want := map[string]int{"ResNet-20": 4, "ResNet-50": 4, "Wide ResNet-50-2": 4, "DenseNet-40": 36, "DenseNet-121": 4}
	for net, n := range want {
		if count[net] != n {
			t.Errorf("%s: %d layers, want %d", net, count[net], n)
		}
	}
	if last := ls[len(ls)-1]; last.C != 128 || last.O != 32 || last.Size != 7 {
		t.Errorf("last layer %+v, want DenseNet-121's 128→32 on 7×7", last)
	}
}

// TestConvTimes runs the measurement once on a small layer: a median for
// every pass and path, and a table line that reads back.
func TestConvTimes(t *testing.T) {
	l := ConvLayer{Net: "small", N: 2, C: 3, O: 4, Size: 5}
	med, err := ConvTimes[float64](l, 1)
	if err != nil {
		t.Fatal(err)
	}
	for pass, ts := range med {
		if len(ts) != len(ConvPaths) {
			t.Errorf("%s: %d medians, want %d", ConvPasses[pass], len(ts), len(ConvPaths))
		}
	}
	line := ConvChoiceOf[float64](l, med)
	if line.DType != "float64" || line.C != 3 || line.H != 5 || line.Forward == "" {
		t.Errorf("line %+v", line)
	}
	if err := tensor.SetConvPath(line.Weight); err != nil {
		t.Error(err)
	}
	tensor.SetConvPath("")
	if _, err := ConvTimes[float32](l, 0); err == nil {
		t.Error("0 rounds: no error")
	}
}

// TestConvChoicesDType checks that an unknown dtype stops the measurement
// with an error naming it, before any layer runs.
func TestConvChoicesDType(t *testing.T) {
	if _, err := ConvChoices(io.Discard, []string{"float16"}, 1, func(l ConvLayer) bool { return l.Net == "ResNet-20" && l.C == 3 }); err == nil {
		t.Error("float16: no error")
	}
}
