package optim

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// TestAdamHostMatchesComposed: the one-pass update equals the composed tensor
// ops bit for bit, in both precisions, with and without weight decay, over
// several steps and sizes 0, 1, odd and large.
func TestAdamHostMatchesComposed(t *testing.T) {
	adamPathsAgree[float32](t)
	adamPathsAgree[float64](t)
}

func adamPathsAgree[T tensor.Float](t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for _, n := range []int{0, 1, 35, 100_003} {
		for _, decay := range []float64{0, 0.01} {
			p := tensor.RandNormal[T](r, 0, 1, n)
			m, v := tensor.Zeros[T](n), tensor.Zeros[T](n)
			pc, mc, vc := tensor.Clone(p), tensor.Zeros[T](n), tensor.Zeros[T](n)
			for step := 1; step <= 4; step++ {
				g := tensor.RandNormal[T](r, 0, T(step), n)
				h := AdamUpdate{LR: 0.003, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, Decay: decay, Step: step}
				AdamHost(p, g, m, v, h)
				mc, vc = adamComposed(pc, g, mc, vc, h)
				for name, pair := range map[string][2]*tensor.Tensor[T]{"p": {p, pc}, "m": {m, mc}, "v": {v, vc}} {
					a, b := pair[0].Data(), pair[1].Data()
					for i := range a {
						if a[i] != b[i] {
							t.Fatalf("%s n=%d decay %g step %d: %s[%d] = %v one-pass, %v composed",
								tensor.DType[T](), n, decay, step, name, i, a[i], b[i])
						}
					}
				}
			}
		}
	}
}

// TestAdamMovesAgainstGradient: the first step moves each coordinate by lr
// against its gradient's sign (m̂/√v̂ = ±1 at t = 1).
func TestAdamMovesAgainstGradient(t *testing.T) {
	p := tensor.FromSlice([]float64{1, 1, 1})
	g := tensor.FromSlice([]float64{0.5, -2, 1e-3})
	m, v := tensor.Zeros[float64](3), tensor.Zeros[float64](3)
	AdamHost(p, g, m, v, AdamUpdate{LR: 0.1, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, Step: 1})
	for i, want := range []float64{0.9, 1.1, 0.9} {
		if got := p.Data()[i]; math.Abs(got-want) > 1e-5 {
			t.Errorf("p[%d] = %v, want %v", i, got, want)
		}
	}
}

func TestAdamShapesPanic(t *testing.T) {
	defer func() {
		err, _ := recover().(error)
		var se *tensor.ShapeError
		if !errors.As(err, &se) || se.Op != "optim.AdamHost" || !strings.Contains(se.Detail, "[2 3]") || !strings.Contains(se.Detail, "[6]") {
			t.Errorf("panic %v is not a *tensor.ShapeError naming the op and shapes", err)
		}
	}()
	p := tensor.Zeros[float32](2, 3)
	AdamHost(p, tensor.Zeros[float32](6), tensor.Zeros[float32](2, 3), tensor.Zeros[float32](2, 3), AdamUpdate{Step: 1})
}

// An Adam whose state is restored into a new optimiser over a copy of the
// parameters continues bit for bit as the one that went on stepping.
func TestAdamStateRestoresBitForBit(t *testing.T) {
	grads := func(step int) []float32 { return []float32{float32(step) - 1.5, 0.25 * float32(step), -1} }
	newParams := func(vals []float32) []*autograd.Var[float32] {
		return []*autograd.Var[float32]{autograd.Param(tensor.FromSlice(vals)), autograd.Param(tensor.FromSlice([]float32{3}))}
	}
	stepN := func(o *Adam[float32], from, to int) {
		for s := from; s < to; s++ {
			o.Params[0].Grad = tensor.FromSlice(grads(s))
			if s%2 == 0 { // the second parameter gets a gradient every other step
				o.Params[1].Grad = tensor.FromSlice([]float32{float32(s)})
			} else {
				o.Params[1].Grad = nil
			}
			o.Step()
		}
	}
	a := NewAdam(newParams([]float32{1, 2, 3}), 0.01, 0.1)
	stepN(a, 0, 3)
	st := a.State()
	b := NewAdam(newParams(append([]float32(nil), a.Params[0].Value.Data()...)), 0.01, 0.1)
	tensor.CopyInto(b.Params[1].Value, a.Params[1].Value)
	fresh := NewAdam(newParams(append([]float32(nil), a.Params[0].Value.Data()...)), 0.01, 0.1)
	if err := b.SetState(st); err != nil {
		t.Fatal(err)
	}
	stepN(a, 3, 7)
	stepN(b, 3, 7)
	stepN(fresh, 3, 7)
	if slices.Equal(a.Params[0].Value.Data(), fresh.Params[0].Value.Data()) {
		t.Fatal("the state made no difference: the test cannot tell a restored optimiser from a fresh one")
	}
	for i := range a.Params {
		if !slices.Equal(a.Params[i].Value.Data(), b.Params[i].Value.Data()) {
			t.Errorf("parameter %d: %v after restoring, want %v", i, b.Params[i].Value.Data(), a.Params[i].Value.Data())
		}
	}
	if err := b.SetState(AdamState{M: st.M[:1], V: st.V, T: st.T}); err == nil {
		t.Error("a state of another parameter list accepted")
	}
}
