package tensor

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

func TestConcatAlongEachAxis(t *testing.T) {
	r := newRNG(51)
	for axis := range 3 {
		shapes := [][]int{{2, 3, 4}, {2, 3, 4}, {2, 3, 4}}
		for i := range shapes {
			shapes[i][axis] = i + 1 // sizes 1, 2, 3 along axis
		}
		ts := []*Tensor[float64]{
			RandNormal[float64](r, 0, 1, shapes[0]...),
			Transpose(RandNormal[float64](r, 0, 1, shapes[1][2], shapes[1][1], shapes[1][0]), 0, 2), // a view
			RandNormal[float64](r, 0, 1, shapes[2]...),
		}
		for _, ax := range []int{axis, axis - 3} {
			got := Concat(ax, ts...)
			want := []int{2, 3, 4}
			want[axis] = 6
			if !expectShape(t, fmt.Sprint("Concat axis ", ax), got, want...) {
				continue
			}
			expectEach(t, fmt.Sprint("Concat axis ", ax), got, 0, func(idx []int) float64 {
				j := slices.Clone(idx)
				for _, x := range ts {
					if j[axis] < x.Dim(axis) {
						return x.At(j...)
					}
					j[axis] -= x.Dim(axis)
				}
				panic("unreachable")
			})
		}
	}
	// One tensor copies; an empty piece contributes nothing.
	x := seq(2, 3)
	c := Concat(1, x)
	if c.Buffer() == x.Buffer() {
		t.Error("Concat of one tensor shares its buffer")
	}
	expectData(t, "Concat one", c, x.Data()...)
	expectData(t, "Concat with empty", Concat(0, Zeros[float64](0, 3), x), x.Data()...)
	expectData(t, "Concat by hand", Concat(0, FromSlice([]float64{1, 2}), FromSlice([]float64{3})), 1, 2, 3)
}

func TestStack(t *testing.T) {
	a, b, c := seq(2, 3), Transpose(seq(3, 2), 0, 1), Full[float64](7, 2, 3)
	for _, axis := range []int{0, 1, 2, -1, -3} {
		s := Stack(axis, a, b, c)
		ax := axis
		if ax < 0 {
			ax += 3
		}
		want := slices.Insert([]int{2, 3}, ax, 3)
		if !expectShape(t, fmt.Sprint("Stack ", axis), s, want...) {
			continue
		}
		expectEach(t, fmt.Sprint("Stack ", axis), s, 0, func(idx []int) float64 {
			k := idx[ax]
			rest := slices.Delete(slices.Clone(idx), ax, ax+1)
			return []*Tensor[float64]{a, b, c}[k].At(rest...)
		})
	}
	expectShape(t, "Stack scalars", Stack(0, Scalar(1.0), Scalar(2.0)), 2)
	expectData(t, "Stack scalars", Stack(0, Scalar(1.0), Scalar(2.0)), 1, 2)
	mustPanic(t, func() { Stack(0, seq(2, 3), seq(3, 2)) }, "tensor.Concat")
}

// naiveGather is out[i…, j, k…] = x[i…, idx[...], k…] through At.
func naiveGather(x *Tensor[float64], axis int, idx []int, shape []int) []float64 {
	out := make([]float64, numel(shape))
	for p, pos := range allIndices(shape) {
		j := slices.Clone(pos)
		j[axis] = idx[p]
		out[p] = x.At(j...)
	}
	return out
}

func TestGatherScatterAdd(t *testing.T) {
	r := newRNG(52)
	x := RandNormal[float64](r, 0, 1, 3, 4, 5)
	views := map[string]*Tensor[float64]{
		"dense":      x,
		"transposed": Transpose(RandNormal[float64](r, 0, 1, 5, 4, 3), 0, 2),
		"narrowed":   Narrow(RandNormal[float64](r, 0, 1, 3, 9, 5), 1, 2, 4),
	}
	for name, v := range views {
		for axis := range 3 {
			shape := v.Shape()
			shape[axis] = 6 // more picks than the axis has: repeats
			idx := make([]int, numel(shape))
			for i := range idx {
				idx[i] = r.IntN(v.Dim(axis))
			}
			label := fmt.Sprintf("Gather %s axis %d", name, axis)
			got := Gather(v, axis, idx, shape...)
			if expectShape(t, label, got, shape...) {
				expectData(t, label, got, naiveGather(v, axis, idx, shape)...)
			}
			// ScatterAdd is Gather's adjoint: <Gather(v), y> = <v, ScatterAdd(y)>.
			y := RandNormal[float64](r, 0, 1, shape...)
			sc := ScatterAdd(y, axis, idx, v.Shape()...)
			expectShape(t, "ScatterAdd", sc, v.Shape()...)
			lhs := SumAll(Mul(got, y)).Item()
			rhs := SumAll(Mul(v, sc)).Item()
			if !near(lhs, rhs, 1e-12) {
				t.Errorf("%s: adjoint identity %v vs %v", label, lhs, rhs)
			}
			// And element by element.
			want := make([]float64, v.Len())
			st := contiguousStrides(v.Shape())
			for p, pos := range allIndices(shape) {
				o := 0
				for d, c := range pos {
					if d == axis {
						c = idx[p]
					}
					o += c * st[d]
				}
				want[o] += y.At(pos...)
			}
			expectData(t, "ScatterAdd "+label, sc, approx(want, sc.Data(), 1e-14)...)
		}
	}
	// Repeated indices accumulate, by hand.
	src := FromSlice([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	expectData(t, "ScatterAdd repeats", ScatterAdd(src, 1, []int{0, 0, 0, 2, 1, 2}, 2, 3), 6, 0, 0, 0, 5, 10)
	expectData(t, "ScatterAdd axis 0", ScatterAdd(src, 0, []int{1, 1, 1, 1, 1, 1}, 2, 3), 0, 0, 0, 5, 7, 9)
	// A transposed source is read in its own row-major order.
	expectData(t, "ScatterAdd transposed src", ScatterAdd(Transpose(src, 0, 1), 0, []int{0, 0, 0, 0, 0, 0}, 1, 2), 6, 15)
	expectData(t, "Gather by hand", Gather(src, 1, []int{2, 2, 0, 1}, 2, 2), 3, 3, 4, 5)
	expectData(t, "Gather on a transpose", Gather(Transpose(src, 0, 1), 0, []int{2, 0}, 1, 2), 3, 4)
}

func TestIndexSelectAndSelectIndex(t *testing.T) {
	x := seq(3, 4, 2)
	for _, c := range []struct {
		axis int
		idx  []int
	}{{0, []int{2, 0}}, {1, []int{3, 3, 0, 1, 2}}, {2, []int{1}}, {-1, []int{1, 0}}, {1, nil}} {
		got := IndexSelect(x, c.axis, c.idx)
		ax := c.axis
		if ax < 0 {
			ax += 3
		}
		shape := x.Shape()
		shape[ax] = len(c.idx)
		label := fmt.Sprint("IndexSelect ", c.axis, c.idx)
		if !expectShape(t, label, got, shape...) {
			continue
		}
		expectEach(t, label, got, 0, func(idx []int) float64 {
			j := slices.Clone(idx)
			j[ax] = c.idx[idx[ax]]
			return x.At(j...)
		})
	}
	expectData(t, "IndexSelect of a transpose", IndexSelect(Transpose(seq(2, 3), 0, 1), 0, []int{2, 0}), 2, 5, 0, 3)
	full, shape := SelectIndex([]int{2, 3}, 1, []int{2, 0})
	if !slices.Equal(shape, []int{2, 2}) || !slices.Equal(full, []int{2, 0, 2, 0}) {
		t.Errorf("SelectIndex axis 1: %v %v", full, shape)
	}
	full, shape = SelectIndex([]int{2, 3}, 0, []int{1, 1, 0})
	if !slices.Equal(shape, []int{3, 3}) || !slices.Equal(full, []int{1, 1, 1, 1, 1, 1, 0, 0, 0}) {
		t.Errorf("SelectIndex axis 0: %v %v", full, shape)
	}
	mustPanic(t, func() { IndexSelect(x, 0, []int{3}) }, "tensor.Gather", "index 3")
}

func TestOneHot(t *testing.T) {
	labels := []int{2, 0, 3, 3, 1}
	for _, o := range []*Tensor[float64]{OneHot[float64](labels, 4), Convert[float64](OneHot[float32](labels, 4))} {
		if !expectShape(t, "OneHot", o, 5, 4) {
			continue
		}
		expectEach(t, "OneHot", o, 0, func(i []int) float64 {
			if labels[i[0]] == i[1] {
				return 1
			}
			return 0
		})
		if got := Ints(ArgMax(o, 1, false)); !slices.Equal(got, labels) {
			t.Errorf("ArgMax(OneHot) = %v", got)
		}
	}
	expectShape(t, "OneHot empty", OneHot[float64](nil, 3), 0, 3)
	mustPanic(t, func() { OneHot[float64]([]int{-1}, 3) }, "tensor.OneHot", "label -1")
}

// Concat writes every element of its result, which it does not clear
// first: in an arena whose previous pass left NaN in the buffer it
// reuses, the result is exactly its parts.
func TestConcatOverwritesRecycledBuffer(t *testing.T) {
	a, b := FromSlice([]float32{1, 2, 3, 4}, 2, 2), FromSlice([]float32{5, 6}, 2, 1)
	var arena Arena[float32]
	arena.Do(func() { Full[float32](float32(math.NaN()), 2, 3) })
	arena.Do(func() {
		got := Concat(1, a, b).Data()
		want := []float32{1, 2, 5, 3, 4, 6}
		if !slices.Equal(got, want) {
			t.Errorf("Concat in a recycled buffer = %v, want %v", got, want)
		}
	})
}
