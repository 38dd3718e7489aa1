package tensor

import (
	"fmt"
	"math"
	"slices"
)

// AdamUpdate is one Adam update of one parameter (optim.Adam): Adam's
// settings and the parameter's step count after the update (1 at the
// first). It is AdamKernel's attribute.
type AdamUpdate struct {
	LR, Beta1, Beta2, Eps, Decay float64
	Step                         int
}

// AdamKernel applies an AdamUpdate in place: in are the parameter p, its
// gradient g and moments m, v (contiguous, of one shape); there are no
// outputs. Its CPU body is optim.AdamHost, registered by package optim.
var AdamKernel = NewKernel[AdamUpdate]("adam")

// AdamScalars are an update's constants rounded to T, as every body rounds
// them: β1, 1−β1, β2, 1−β2, 1/√(1−β2ᵗ), ε, lr/(1−β1ᵗ) and the decay.
type AdamScalars[T Float] struct{ B1, C1, B2, C2, VScale, Eps, Rate, Decay T }

// AdamConstants are h's constants in T.
func AdamConstants[T Float](h AdamUpdate) AdamScalars[T] {
	if h.Step < 1 {
		panic(argumentError("AdamConstants", "step %d, want ≥ 1", h.Step))
	}
	bc1 := 1 - math.Pow(h.Beta1, float64(h.Step))
	bc2 := 1 - math.Pow(h.Beta2, float64(h.Step))
	return AdamScalars[T]{T(h.Beta1), T(1 - h.Beta1), T(h.Beta2), T(1 - h.Beta2),
		T(1 / math.Sqrt(bc2)), T(h.Eps), T(h.LR / bc1), T(h.Decay)}
}

// AdamSpan applies one Adam update with constants c to p[i], m[i] and
// v[i] from g[i], for every i < len(p) (g, m and v at least as long): the
// loop of AdamKernel's CPU body, in assembly where it can. Every product,
// sum, quotient and square root is rounded to T apart (the conversions
// keep the compiler from fusing a product into a sum), in this order:
//
//	g += decay·p (if decay ≠ 0)
//	m = β1·m + (1−β1)·g
//	v = β2·v + (1−β2)·g²
//	p −= rate·(m / (scale·√v + ε))
func AdamSpan[T Float](p, g, m, v []T, c AdamScalars[T]) {
	g, m, v = g[:len(p)], m[:len(p)], v[:len(p)]
	for i := adamAsm(p, g, m, v, &c); i < len(p); i++ {
		gi := g[i]
		if c.Decay != 0 {
			gi += T(c.Decay * p[i])
		}
		m[i] = T(c.B1*m[i]) + T(c.C1*gi)
		v[i] = T(c.B2*v[i]) + T(c.C2*T(gi*gi))
		den := T(c.VScale*T(math.Sqrt(float64(v[i])))) + c.Eps
		p[i] -= T(c.Rate * T(m[i]/den))
	}
}

// AdamShapes panics, naming op, unless p, g, m and v are contiguous and of
// one shape.
func AdamShapes[T Float](op string, p, g, m, v *Tensor[T]) {
	for _, t := range []*Tensor[T]{p, g, m, v} {
		if !t.IsContiguous() || !slices.Equal(t.Shape(), p.Shape()) {
			panic(&ShapeError{Op: op, Shapes: [][]int{p.Shape(), g.Shape(), m.Shape(), v.Shape()},
				Detail: fmt.Sprintf("parameter %v, gradient %v and moments %v, %v must share one shape and be contiguous",
					p.Shape(), g.Shape(), m.Shape(), v.Shape())})
		}
	}
}
