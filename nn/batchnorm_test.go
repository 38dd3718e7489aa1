package nn

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// AfterConv gives the values and gradients of the convolution followed by
// Forward (or ForwardRelu) and the residual sum, in training and in
// evaluation (where it is one fused op), with and without bias, residual
// and ReLU.
func TestAfterConvMatchesLayers(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, training := range []bool{true, false} {
		for _, bias := range []bool{false, true} {
			for _, withR := range []bool{false, true} {
				for _, relu := range []bool{false, true} {
					name := fmt.Sprintf("training %v bias %v residual %v relu %v", training, bias, withR, relu)
					vb := NewVars[float64]()
					conv := NewConv2d(vb.Sub("conv"), r, 3, 4, 3, tensor.ConvOptions{PadH: 1, PadW: 1}, bias)
					bn := NewBatchNorm2d(vb.Sub("bn"), 4)
					bn.Gamma.Value = tensor.RandUniform[float64](r, 0.5, 1.5, 4)
					bn.Beta.Value = tensor.RandNormal[float64](r, 0, 1, 4)
					bn.RunMean.Value = tensor.RandNormal[float64](r, 0, 1, 4)
					bn.RunVar.Value = tensor.RandUniform[float64](r, 0.5, 2, 4)
					vb.SetTraining(training)
					x := tensor.RandNormal[float64](r, 0, 1, 2, 3, 5, 5)
					res := tensor.RandNormal[float64](r, 0, 1, 2, 4, 5, 5)
					run := func(fused bool) (y *tensor.Tensor[float64], grads []*tensor.Tensor[float64]) {
						bn.RunMean.Value, bn.RunVar.Value = tensor.Clone(bn.RunMean.Value), tensor.Clone(bn.RunVar.Value)
						xv := autograd.Param(x)
						var rv *autograd.Var[float64]
						if withR {
							rv = autograd.Param(res)
						}
						var out *autograd.Var[float64]
						if fused {
							out = bn.AfterConv(conv, xv, rv, relu)
						} else {
							out = bn.Forward(conv.Forward(xv))
							if rv != nil {
								out = autograd.Add(out, rv)
							}
							if relu {
								out = autograd.Relu(out)
							}
						}
						conv.W.Grad, bn.Gamma.Grad, bn.Beta.Grad = nil, nil, nil
						autograd.SumAll(autograd.Mul(out, autograd.Const(res))).Backward()
						grads = []*tensor.Tensor[float64]{xv.Grad, conv.W.Grad, bn.Gamma.Grad, bn.Beta.Grad}
						if rv != nil {
							grads = append(grads, rv.Grad)
						}
						return out.Value, grads
					}
					mean, variance := bn.RunMean.Value, bn.RunVar.Value
					y, g := run(true)
					bn.RunMean.Value, bn.RunVar.Value = mean, variance
					wy, wg := run(false)
					if !near(y, wy) {
						t.Errorf("%s: values differ", name)
					}
					for i := range g {
						if !near(g[i], wg[i]) {
							t.Errorf("%s: gradient %d differs", name, i)
						}
					}
				}
			}
		}
	}
}

// near reports whether a and b have one shape and values within 1e-12.
func near(a, b *tensor.Tensor[float64]) bool {
	if a == nil || b == nil {
		return a == b
	}
	if !slices.Equal(a.Shape(), b.Shape()) {
		return false
	}
	bd := b.Data()
	for i, v := range a.Data() {
		if d := v - bd[i]; d > 1e-12 || d < -1e-12 {
			return false
		}
	}
	return true
}
