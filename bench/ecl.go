package bench

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/tensor"
)

// ECLCase is one workload of the ECL loss: the mini-batch loss (Algorithm 1,
// 15 bins, sum reduction), or the soft-binned estimator (Eq. 7, L1 norm),
// forward and backward on a source and a target domain of N samples each,
// float32, with the main head's probabilities [N, K] and the auxiliary
// probabilities as the differentiated inputs. bench/peer/ecl.py prints the
// same rows for PyTorch.
type ECLCase struct {
	Paradigm ecl.Paradigm
	K, N     int
	// SoftBinned times ecl.SoftBinnedLoss instead of ecl.MiniBatchLoss.
	SoftBinned bool
	// Arena runs each pass inside a tensor.Arena, as train.fit runs a
	// training step (and the training-step rows run theirs): a pass's
	// tensors are recycled by the next instead of being collected.
	Arena bool
}

// Name is the row's name, as the peer script prints it: ecl/… for the
// mini-batch loss, eclsb/… for the soft-binned estimator.
func (c ECLCase) Name() string {
	prefix := "ecl"
	if c.SoftBinned {
		prefix = "eclsb"
	}
	return fmt.Sprintf("%s/%v/k%d/n%d/float32", prefix, c.Paradigm, c.K, c.N)
}

// ECLCases lists the loss workloads: every paradigm, K = 3 and 10, the
// mini-batch loss at N = 10², 10⁴, 10⁶ and 10⁷ (the last needs several
// GB), then the soft-binned estimator at N = 10² and 10⁴; each estimator
// also at K = 1,000 and N = 10⁴ (canonical: 1,000 anchors of 1,000 values).
func ECLCases() []ECLCase {
	var cs []ECLCase
	for _, soft := range []bool{false, true} {
		ns := []int{100, 10_000, 1_000_000, 10_000_000}
		if soft {
			ns = ns[:2]
		}
		for _, n := range ns {
			ks := []int{3, 10}
			if n == 10_000 {
				ks = append(ks, 1000)
			}
			for _, k := range ks {
				for _, p := range []ecl.Paradigm{ecl.Canonical, ecl.ClassWise, ecl.TopLabel} {
					cs = append(cs, ECLCase{Paradigm: p, K: k, N: n, SoftBinned: soft})
				}
			}
		}
	}
	return cs
}

// Setup draws the inputs and returns one forward and backward pass.
func (c ECLCase) Setup() func() { return c.SetupOn(tensor.CPU[float32]{}) }

// SetupOn is Setup with the inputs on dev (drawn on the CPU, then moved).
func (c ECLCase) SetupOn(dev tensor.Device[float32]) func() {
	r := rand.New(rand.NewPCG(uint64(c.K), uint64(c.N)))
	probs := func() *tensor.Tensor[float32] {
		return tensor.Softmax(tensor.RandNormal[float32](r, 0, 2, c.N, c.K), 1)
	}
	aux := func() *tensor.Tensor[float32] {
		if c.Paradigm == ecl.TopLabel {
			return tensor.RandUniform[float32](r, 0, 1, c.N)
		}
		return probs()
	}
	s, t, as, at := tensor.To(probs(), dev), tensor.To(probs(), dev), tensor.To(aux(), dev), tensor.To(aux(), dev)
	cfg := ecl.Config{Paradigm: c.Paradigm, Classes: c.K, Bins: 15}
	mb, err := ecl.NewMiniBatch(cfg) // its running expectations carry from pass to pass
	if err != nil {
		panic(err)
	}
	loss := func(s, t, as, at *autograd.Var[float32]) *autograd.Var[float32] {
		return ecl.MiniBatchLoss(mb, s, t, as, at)
	}
	if c.SoftBinned {
		sb, err := ecl.NewSoftBinned(cfg, ecl.L1, 0)
		if err != nil {
			panic(err)
		}
		loss = func(s, t, as, at *autograd.Var[float32]) *autograd.Var[float32] {
			return ecl.SoftBinnedLoss(sb, s, t, as, at)
		}
	}
	pass := func() {
		vs := []*autograd.Var[float32]{autograd.Param(s), autograd.Param(t), autograd.Param(as), autograd.Param(at)}
		loss(vs[0], vs[1], vs[2], vs[3]).Backward()
	}
	if !c.Arena {
		return pass
	}
	var arena tensor.Arena[float32]
	return func() { arena.Do(pass) }
}

// BenchECL times c on o in a Go benchmark, with allocations and the time
// per sample.
func BenchECL(b *testing.B, c ECLCase, o On) {
	loop(b, o.timed(c.SetupOn(o.Dev)))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(2*c.N), "ns/sample")
}

// ECLRow is one line of the ECL table.
type ECLRow struct {
	Name          string
	PerOp         time.Duration
	BytesPerOp    int64
	AllocsPerOp   int64
	NanosPerInput float64
}

// MeasureECL runs c on o as a benchmark (about a second) and returns its
// row.
func MeasureECL(c ECLCase, o On) ECLRow {
	res := testing.Benchmark(func(b *testing.B) { BenchECL(b, c, o) })
	per := time.Duration(res.NsPerOp())
	return ECLRow{c.Name(), per, res.AllocedBytesPerOp(), res.AllocsPerOp(), float64(per.Nanoseconds()) / float64(2*c.N)}
}
