package tensor

import "math"

// wideMaxMin is the row length from which topRows takes wideMax.
const wideMaxMin = 32

// wideMax is lastExtreme(row, false) (the maximum, NaN if the row holds
// one, and the index of its first occurrence among the other elements, 0
// if the first element is NaN) over four interleaved lanes in registers,
// each keeping its first maximum, with one predictable comparison an
// element (v ≤ best, false for a larger v or a NaN): a long row (top-label
// ECL at K = 1,000) then costs about an element a cycle instead of a chain
// of dependent comparisons. Rows shorter than wideMaxMin go to lastExtreme.
func wideMax[T Float](row []T) (val, idx T) {
	n := len(row)
	if n < wideMaxMin || row[0] != row[0] {
		return lastExtreme(row, false)
	}
	b0, b1, b2, b3 := row[0], row[0], row[0], row[0]
	a0, a1, a2, a3 := 0, 0, 0, 0
	nan := false
	i := 1
	for ; i+4 <= n; i += 4 {
		r := row[i : i+4 : i+4]
		if v := r[0]; !(v <= b0) {
			if v > b0 {
				b0, a0 = v, i
			} else {
				nan = true
			}
		}
		if v := r[1]; !(v <= b1) {
			if v > b1 {
				b1, a1 = v, i+1
			} else {
				nan = true
			}
		}
		if v := r[2]; !(v <= b2) {
			if v > b2 {
				b2, a2 = v, i+2
			} else {
				nan = true
			}
		}
		if v := r[3]; !(v <= b3) {
			if v > b3 {
				b3, a3 = v, i+3
			} else {
				nan = true
			}
		}
	}
	for ; i < n; i++ {
		if v := row[i]; !(v <= b0) {
			if v > b0 {
				b0, a0 = v, i
			} else {
				nan = true
			}
		}
	}
	// The first index among the lanes holding the maximum.
	best, first := b0, a0
	for _, l := range [3]struct {
		b T
		a int
	}{{b1, a1}, {b2, a2}, {b3, a3}} {
		if l.b > best || l.b == best && l.a < first {
			best, first = l.b, l.a
		}
	}
	if nan {
		return T(math.NaN()), T(first)
	}
	return row[first], T(first)
}
