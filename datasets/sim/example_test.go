package sim_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ecl-go/ecl/datasets/sim"
)

// Draw the uniform shift: the source on [−2.5, 2.5]², the target moved by
// one to [−1.5, 3.5]², both labelled by the same rule.
func ExampleGenerate() {
	k, err := sim.ParseKind("uniform")
	if err != nil {
		panic(err)
	}
	src, tgt := sim.Generate(k, 1000, rand.New(rand.NewPCG(1, 2)))
	fmt.Println(src.Name, src.X.Shape(), "|", tgt.Name, tgt.X.Shape())

	lo, hi := bounds(src.X.Data())
	fmt.Printf("source within [%.0f, %.0f]\n", lo, hi)
	lo, hi = bounds(tgt.X.Data())
	fmt.Printf("target within [%.0f, %.0f]\n", lo, hi)

	x := tgt.X.Data()
	same := true
	for i, y := range tgt.Y {
		same = same && y == sim.Label(x[2*i], x[2*i+1])
	}
	fmt.Println("target labelled by Label:", same)
	// sin 0 + 0 − 1.5 = −1.5, −1.5 cos 0 + 0 + 1 = −0.5, −0.8·0 − 0 − 0.5 = −0.5:
	// classes 1 and 2 tie, and the first wins.
	fmt.Println("Label(0, 0) =", sim.Label(0, 0))
	// Output:
	// uniform source [1000 2] | uniform target [1000 2]
	// source within [-3, 3]
	// target within [-2, 4]
	// target labelled by Label: true
	// Label(0, 0) = 1
}

// bounds is the smallest and largest of xs, rounded outward to integers.
func bounds(xs []float64) (lo, hi float64) {
	lo, hi = xs[0], xs[0]
	for _, v := range xs {
		lo, hi = min(lo, v), max(hi, v)
	}
	return math.Floor(lo), math.Ceil(hi)
}
