package bench

import (
	"io"
	"testing"
	"time"

	"github.com/ecl-go/ecl/tensor"
)

// TestConvLayers checks the list against the networks' definitions: 6
// ResNet-20 shapes (2 strided) at each of two input sizes (its stem
// shared with DenseNet-40's), 7 each (3 strided) for the ResNet-50s,
// DenseNet-40's 36 dense layers at each size, DenseNet-121's 4 maps, all
// distinct and valid.
func TestConvLayers(t *testing.T) {
	ls := ConvLayers()
	count := map[string]int{}
	for _, l := range ls {
		count[l.Net]++
		if err := l.Params().Validate(); err != nil {
			t.Error(err)
		}
		if l.Net == "Wide ResNet-50-2" && l.Stride == 2 && l.Size == 14 && l.C != 1024 {
			t.Errorf("%v: want 1024 channels in Wide ResNet-50-2's last strided layer", l)
		}
	}
	want := map[string]int{"ResNet-20": 12, "ResNet-50": 7, "Wide ResNet-50-2": 7, "DenseNet-40": 72, "DenseNet-121": 4}
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
	l.Stride = 2
	med, err = ConvTimes[float64](l, 1)
	if err != nil {
		t.Fatal(err)
	}
	for pass, ts := range med {
		for path, d := range ts {
			if (d >= 0) != ConvMeasures(l, pass, path) {
				t.Errorf("stride 2, %s by %s: median %v", ConvPasses[pass], ConvPaths[path], d)
			}
		}
	}
	if line := ConvChoiceOf[float64](l, med); line.Stride != 2 || line.Input != "rule" || line.Weight != "rule" {
		t.Errorf("stride 2: line %v", line)
	}
}

// TestConvChoiceOfStrided checks a stride-2 layer's line on made-up
// medians: the forward pass takes the faster of direct and im2col, never
// the unmeasured Winograd paths (−1), and the gradients the rule.
func TestConvChoiceOfStrided(t *testing.T) {
	ms := time.Millisecond
	none := []time.Duration{-1, -1, -1, -1}
	med := [4][]time.Duration{{5 * ms, 4 * ms, -1, -1}, none, none, none}
	got := ConvChoiceOf[float32](ConvLayer{C: 8, O: 8, Size: 8, Stride: 2}, med)
	if want := "float32 8 8 8 8 2 1 1 im2col rule rule"; got.String() != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestConvChoiceOfPairs checks the choice of gradient paths on made-up
// medians (ms; direct, im2col, winograd4, winograd2): apart, direct is
// the faster of each gradient (2 + 2 = 4 ms), but im2col takes both at
// once in 3.5 ms, and so both gradients take im2col; the forward pass
// takes its own fastest, winograd4.
func TestConvChoiceOfPairs(t *testing.T) {
	ms := func(v ...float64) []time.Duration {
		var ds []time.Duration
		for _, x := range v {
			ds = append(ds, time.Duration(x*float64(time.Millisecond)))
		}
		return ds
	}
	med := [4][]time.Duration{ms(5, 4, 3, 6), ms(2, 3, 4, 5), ms(2, 3, 6, 7), ms(5, 3.5, 10, 12)}
	got := ConvChoiceOf[float32](ConvLayer{C: 8, O: 8, Size: 8}, med)
	if got.Forward != "winograd4" || got.Input != "im2col" || got.Weight != "im2col" {
		t.Errorf("got %s %s %s, want winograd4 im2col im2col", got.Forward, got.Input, got.Weight)
	}
	med[3] = ms(4.5, 4.5, 10, 12) // a tie between direct and im2col: the path listed first
	got = ConvChoiceOf[float32](ConvLayer{C: 8, O: 8, Size: 8}, med)
	if got.Input != "direct" || got.Weight != "direct" {
		t.Errorf("got %s %s, want direct direct", got.Input, got.Weight)
	}
}

// TestConvChoicesDType checks that an unknown dtype stops the measurement
// with an error naming it, before any layer runs.
func TestConvChoicesDType(t *testing.T) {
	if _, err := ConvChoices(io.Discard, []string{"float16"}, 1, func(l ConvLayer) bool { return l.Net == "ResNet-20" && l.C == 3 }); err == nil {
		t.Error("float16: no error")
	}
}
