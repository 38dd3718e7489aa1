package bench

import (
	"testing"
	"time"

	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/tensor"
)

// InputPass returns one plain pass over c's inputs (the main head's and the
// auxiliary probabilities of both domains, float32, each summed with
// tensor.SumAll): the memory-bandwidth floor the loss is compared with at
// large n. It also returns the inputs' size in bytes.
func (c ECLCase) InputPass() (pass func(), bytes int64) {
	aux := c.K
	if c.Paradigm == ecl.TopLabel {
		aux = 1
	}
	ins := []*tensor.Tensor[float32]{tensor.Full[float32](0.5, c.N, c.K), tensor.Full[float32](0.5, c.N, c.K),
		tensor.Full[float32](0.5, c.N, aux), tensor.Full[float32](0.5, c.N, aux)}
	for _, t := range ins {
		bytes += 4 * int64(t.Len())
	}
	return func() {
		for _, t := range ins {
			tensor.SumAll(t)
		}
	}, bytes
}

// MeasureInputPass runs c.InputPass as a benchmark and returns the time of
// one pass and its rate in GB/s.
func MeasureInputPass(c ECLCase) (time.Duration, float64) {
	pass, bytes := c.InputPass()
	res := testing.Benchmark(func(b *testing.B) { loop(b, pass) })
	per := time.Duration(res.NsPerOp())
	return per, float64(bytes) / per.Seconds() / 1e9
}
