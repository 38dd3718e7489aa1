package bench

import "testing"

// BenchmarkECLLossArena times the ECL loss rows (ECLCases) with each pass
// inside a tensor.Arena, as a training step runs the loss (train.fit): the
// same work as BenchmarkECLLoss without the collector and the page faults
// of fresh buffers.
func BenchmarkECLLossArena(b *testing.B) {
	for _, c := range ECLCases() {
		c.Arena = true
		b.Run(c.Name(), func(b *testing.B) { BenchECL(b, c, OnCPU) })
	}
}
