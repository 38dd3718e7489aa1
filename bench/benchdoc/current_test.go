package main

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// The committed indexes, from this package's folder.
var committed = []string{"../results/current.json", "../../kernels/cuda/results/current.json"}

// TestReadmesCurrent fails when a committed README's tables differ from
// what its index and raw files give (go run ./bench/benchdoc rewrites them).
func TestReadmesCurrent(t *testing.T) {
	for _, path := range committed {
		if _, _, err := update(path, true); err != nil {
			t.Error(err)
		}
	}
}

// TestRatiosMatchScripts compares the ratios benchdoc computes with those
// the peer scripts printed into the same raw files (peer/go of the means
// or of the medians, med/med, torch/go, tv/go, PyTorch/Go), within one unit of their last digit
// (the scripts divide unrounded figures, benchdoc the printed ones): a row
// reading the wrong line or field, or a ratio turned the wrong way, fails.
func TestRatiosMatchScripts(t *testing.T) {
	want := map[string]map[string]string{ // index → machine/workload → ratio
		committed[0]: {
			"xeon/LeNet-5 training step (batch 100, Adam)":                                             "1.37",
			"xeon/ResNet-20 training step (batch 100, Adam)":                                           "0.74",
			"xeon/ResNet-50 inference (batch 8)":                                                       "0.80",
			"xeon/DenseNet-121 inference (batch 8)":                                                    "1.10",
			"xeon/ResNet-50 training step (batch 16, Adam)":                                            "0.79",
			"xeon/DenseNet-40 training step (batch 100, Adam)":                                         "1.43",
			"xeon/ViT-B/16 training step (batch 16, Adam)":                                             "1.77",
			"xeon/convolution forward and backward, ResNet-20's layer":                                 "1.19",
			"xeon/SGEMM 1024², 2 threads, result in an arena":                                          "1.06",
			"xeon/DGEMM 128², 2 threads, result allocated":                                             "0.50",
			"xeon/DGEMM 128², 1 thread, result allocated":                                              "1.10",
			"xeon/ECL loss (mini-batch), canonical, K = 3, n = 10⁴, fresh memory beside 64 MB live":    "30.2",
			"xeon/ECL loss (soft-binned), top-label, K = 10, n = 10⁴, fresh memory, nothing else live": "4.9",
			"xeon/ECL loss (mini-batch), canonical, K = 10, n = 10⁴, in a tensor.Arena":                "53.4",
			"xeon/JPEG decode, resize, crop, normalise, 500×375":                                       "0.53",
			"epyc/SGEMM 1024², 2 threads, result in an arena":                                          "1.03",
			"epyc/DGEMM 1024², 2 threads, result allocated":                                            "1.02",
			"epyc/ResNet-20 training step (batch 100, Adam)":                                           "0.90",
			"epyc/DenseNet-40 training step (batch 100, Adam)":                                         "1.82",
			"epyc/Wide ResNet-50-2 inference (batch 8)":                                                "1.31",
			"epyc/ResNet-50 inference (batch 8)":                                                       "1.08",
			"epyc/DenseNet-121 inference (batch 8)":                                                    "1.35",
			"epyc/ResNet-50 training step (batch 16, Adam)":                                            "1.01",
		},
		committed[1]: {
			"h200/ResNet-50 training step (batch 16, Adam)":               "0.62",
			"h200/ViT-B/16 inference (batch 8)":                           "0.53",
			"h200/attention forward and backward, 192 heads × 197 × 64":   "0.55",
			"h200/SGEMM 4096²":                                            "0.74",
			"h200/DGEMM 4096²":                                            "0.59",
			"h200/convolution forward, LeNet-5's first layer (batch 128)": "0.90",
			"h200/ECL loss (mini-batch), canonical, K = 3, n = 10⁴":       "7.26",
			"h200/ECL loss (mini-batch), class-wise, K = 10, n = 10⁶":     "1.68",
		},
	}
	for _, path := range committed {
		ix, err := loadIndex(path)
		if err != nil {
			t.Fatal(err)
		}
		lines, err := readRows(ix.dir(), ix.Rows)
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		for _, l := range lines {
			printed, ok := want[path][l.Machine+"/"+l.Workload]
			if !ok {
				continue
			}
			seen++
			p, err := strconv.ParseFloat(printed, 64)
			if err != nil {
				t.Fatal(err)
			}
			_, decimals, _ := strings.Cut(printed, ".")
			if math.Abs(l.ratio()-p) > math.Pow(10, -float64(len(decimals)))+1e-9 {
				t.Errorf("%s: %q: ratio %.4f, the script printed %s", path, l.Workload, l.ratio(), printed)
			}
		}
		if seen != len(want[path]) {
			t.Errorf("%s: %d of the %d workloads found", path, seen, len(want[path]))
		}
	}
}
