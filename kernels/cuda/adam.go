//go:build cuda

package cuda

import (
	"runtime"

	"github.com/ecl-go/ecl/tensor"
)

func adamStep[T tensor.Float](p, g, m, v *tensor.Tensor[T], h tensor.AdamUpdate) error {
	d, err := on("AdamStep", p, g, m, v)
	if err != nil {
		return err
	}
	c := tensor.AdamConstants[T](h)
	n := p.Len()
	args := []uint64{uint64(n), d.ptr(p), d.ptr(g), d.ptr(m), d.ptr(v)}
	for _, s := range []T{c.B1, c.C1, c.B2, c.C2, c.VScale, c.Eps, c.Rate, c.Decay} {
		args = append(args, f64(float64(s)))
	}
	err = d.e.do(func() error { return d.e.launch(kAdam, d.sfx, linear(n), args...) })
	runtime.KeepAlive([]*tensor.Tensor[T]{p, g, m, v})
	return err
}
