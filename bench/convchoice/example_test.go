package main

import (
	"fmt"
	"time"

	"github.com/ecl-go/ecl/bench"
)

// A table line from the medians of ResNet-20's 16→16 layer, in the order
// of bench.ConvPaths (direct, im2col, winograd4, winograd2) per pass:
// forward, input gradient, weight gradient, both gradients at once. The
// fastest single gradients (winograd4's input 0.45 ms, direct's weight
// 0.7 ms) lose to im2col's both at once (1.0 ms).
func Example() {
	l := bench.ConvLayer{Net: "ResNet-20", N: 100, C: 16, O: 16, Size: 32}
	ms := func(ts ...float64) []time.Duration {
		out := make([]time.Duration, len(ts))
		for i, t := range ts {
			out[i] = time.Duration(t * float64(time.Millisecond))
		}
		return out
	}
	med := [4][]time.Duration{ms(0.5, 0.8, 0.4, 0.6), ms(0.5, 0.9, 0.45, 0.6), ms(0.7, 0.9, 0.8, 0.75), ms(1.2, 1.0, 1.3, 1.4)}
	fmt.Println(bench.ConvChoiceOf[float32](l, med))
	// Output: float32 16 16 32 32 1 1 1 winograd4 im2col im2col
}
