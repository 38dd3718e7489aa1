//go:build cuda

package cuda

import (
	"runtime"

	"github.com/ecl-go/ecl/optim"
	"github.com/ecl-go/ecl/tensor"
)

var (
	_ optim.FusedAdam[float32] = (*device[float32])(nil)
	_ optim.FusedAdam[float64] = (*device[float64])(nil)
)

// AdamStep is optim.FusedAdam: optim.Adam's update of a parameter on d.
func (d *device[T]) AdamStep(p, g, m, v *tensor.Tensor[T], h optim.AdamUpdate) {
	must(AdamStep(p, g, m, v, h))
}

func adamStep[T tensor.Float](p, g, m, v *tensor.Tensor[T], h optim.AdamUpdate) error {
	d, err := on("AdamStep", p, g, m, v)
	if err != nil {
		return err
	}
	c := optim.Scalars[T](h)
	n := p.Len()
	args := []uint64{uint64(n), d.ptr(p), d.ptr(g), d.ptr(m), d.ptr(v)}
	for _, s := range []T{c.B1, c.C1, c.B2, c.C2, c.VScale, c.Eps, c.Rate, c.Decay} {
		args = append(args, f64(float64(s)))
	}
	err = d.e.do(func() error { return d.e.launch(kAdam, d.sfx, linear(n), args...) })
	runtime.KeepAlive([]*tensor.Tensor[T]{p, g, m, v})
	return err
}
