//go:build cuda

package cuda_test

import (
	"math/rand/v2"
	"testing"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/kernels/cuda"
	"github.com/ecl-go/ecl/tensor"
)

// TestMiniBatchStepTransfers: one step of the mini-batch ECL on the device
// (loss and backward pass, inputs already there) copies to the host once
// (both domains' bin statistics, for the proximal step) and uploads one
// tensor (the coefficients of the fixed-u loss); top-label uploads two more,
// the class positions of the top confidence's gradient (tensor.ExtremeGrad's
// composed version, which this device runs). The anchors are uploaded at
// the first step only. Records (strides of the elementwise kernels'
// operands) are logged, not bounded.
func TestMiniBatchStepTransfers(t *testing.T) {
	dev := gpu[float32](t)
	for _, par := range []ecl.Paradigm{ecl.Canonical, ecl.ClassWise, ecl.TopLabel} {
		r := rand.New(rand.NewPCG(5, uint64(par)))
		const n, k = 50, 3
		aux := k
		if par == ecl.TopLabel {
			aux = 1
		}
		in := []*tensor.Tensor[float32]{probs[float32](r, n, k), probs[float32](r, n+7, k),
			tensor.RandUniform[float32](r, 0, 1, n, aux), tensor.RandUniform[float32](r, 0, 1, n+7, aux)}
		for i, x := range in {
			in[i] = tensor.To(x, dev)
		}
		wantUp := int64(1)
		if par == ecl.TopLabel {
			wantUp = 3
		}
		mb, err := ecl.NewMiniBatch(ecl.Config{Paradigm: par, Classes: k})
		if err != nil {
			t.Fatal(err)
		}
		for step := range 3 {
			vs := make([]*autograd.Var[float32], len(in))
			for i, x := range in {
				vs[i] = autograd.Param(x)
			}
			before := cuda.TransferCount()
			ecl.MiniBatchLoss(mb, vs[0], vs[1], vs[2], vs[3]).Backward()
			after := cuda.TransferCount()
			up, down := after.Uploads-before.Uploads, after.Downloads-before.Downloads
			t.Logf("%v step %d: %d uploads, %d downloads, %d records", par, step, up, down, after.Records-before.Records)
			if step > 0 && (up != wantUp || down != 1) {
				t.Errorf("%v step %d: %d uploads and %d downloads, want %d and 1", par, step, up, down, wantUp)
			}
		}
	}
}
