package bench

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/tensor"
)

// InputPass returns one plain pass over c's inputs (the main head's and the
// auxiliary probabilities of both domains, float32): every value summed,
// eight running sums per core on all cores, which streams the bytes at
// about the memory bandwidth. It is the floor the loss is compared with at
// large n. It also returns the inputs' size in bytes.
func (c ECLCase) InputPass() (pass func(), bytes int64) {
	aux := c.K
	if c.Paradigm == ecl.TopLabel {
		aux = 1
	}
	var ins [][]float32
	for _, t := range []*tensor.Tensor[float32]{tensor.Full[float32](0.5, c.N, c.K), tensor.Full[float32](0.5, c.N, c.K),
		tensor.Full[float32](0.5, c.N, aux), tensor.Full[float32](0.5, c.N, aux)} {
		ins = append(ins, tensor.HostData(t))
		bytes += 4 * int64(t.Len())
	}
	procs := runtime.GOMAXPROCS(0)
	sums := make([]float32, procs)
	return func() {
		var wg sync.WaitGroup
		for p := range procs {
			wg.Go(func() {
				for _, in := range ins {
					sums[p] += sum8(in[len(in)*p/procs : len(in)*(p+1)/procs])
				}
			})
		}
		wg.Wait()
	}, bytes
}

// sum8 is the sum of s in eight running sums.
func sum8(s []float32) float32 {
	var a0, a1, a2, a3, a4, a5, a6, a7 float32
	i := 0
	for ; i+8 <= len(s); i += 8 {
		v := s[i : i+8 : i+8]
		a0 += v[0]
		a1 += v[1]
		a2 += v[2]
		a3 += v[3]
		a4 += v[4]
		a5 += v[5]
		a6 += v[6]
		a7 += v[7]
	}
	for _, v := range s[i:] {
		a0 += v
	}
	return a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7
}

// MeasureInputPass runs c.InputPass as a benchmark and returns the time of
// one pass and its rate in GB/s.
func MeasureInputPass(c ECLCase) (time.Duration, float64) {
	pass, bytes := c.InputPass()
	res := testing.Benchmark(func(b *testing.B) { loop(b, pass) })
	per := time.Duration(res.NsPerOp())
	return per, float64(bytes) / per.Seconds() / 1e9
}
