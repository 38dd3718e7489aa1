package tensor

import (
	"math"
	"testing"
)

// max2x2 picks the same element as the general windowArgmax on every window
// of planes with ties and NaNs, even and odd sizes.
func TestMax2x2MatchesWindowArgmax(t *testing.T) {
	r := newRNG(5)
	for _, hw := range [][2]int{{2, 2}, {6, 8}, {7, 5}, {28, 28}} {
		p := Pool2DParams{N: 1, C: 1, H: hw[0], W: hw[1], KH: 2, KW: 2, StrideH: 2, StrideW: 2}
		if !halving(p) {
			t.Fatalf("%+v is not halving", p)
		}
		for trial := range 20 {
			plane := make([]float64, p.H*p.W)
			for i := range plane {
				switch v := r.IntN(8); {
				case v == 0 && trial%2 == 1:
					plane[i] = math.NaN()
				default:
					plane[i] = float64(v % 3) // many ties
				}
			}
			for oy := range p.OutH() {
				for ox := range p.OutW() {
					v, at := max2x2(plane, p.W, oy, ox)
					want := windowArgmax(plane, p, oy, ox)
					if at != want || !(v == plane[want] || math.IsNaN(v) && math.IsNaN(plane[want])) {
						t.Fatalf("%dx%d window (%d,%d) of %v: max2x2 = %v at %d, windowArgmax at %d", p.H, p.W, oy, ox, plane, v, at, want)
					}
				}
			}
		}
	}
}
