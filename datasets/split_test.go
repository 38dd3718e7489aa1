package datasets

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/tensor"
)

// three is samples of 2 features holding 10·i, 10·i+1 with labels i.
func three() Split[float64] {
	return Split[float64]{Name: "three", X: tensor.FromSlice([]float64{0, 1, 10, 11, 20, 21}, 3, 2), Y: []int{0, 1, 2}}
}

func TestRowsAndConcat(t *testing.T) {
	s := three()
	r := s.Rows([]int{2, 0, 2})
	if r.Name != "three" || r.Len() != 3 || !slices.Equal(r.Y, []int{2, 0, 2}) || !slices.Equal(r.X.Data(), []float64{20, 21, 0, 1, 20, 21}) {
		t.Errorf("Rows: %q %v %v", r.Name, r.Y, r.X.Data())
	}
	c := Concat("both", s.Rows([]int{1}), s)
	if c.Name != "both" || !slices.Equal(c.Y, []int{1, 0, 1, 2}) || !slices.Equal(c.X.Shape(), []int{4, 2}) || !slices.Equal(c.X.Data(), []float64{10, 11, 0, 1, 10, 11, 20, 21}) {
		t.Errorf("Concat: %q %v %v %v", c.Name, c.Y, c.X.Shape(), c.X.Data())
	}
	if on := s.To(tensor.CPU[float64]{}); on.X != s.X {
		t.Error("To the device the inputs are on copied them")
	}
}

func TestCheck(t *testing.T) {
	if err := three().Check(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		s    Split[float64]
		want string
	}{
		{Split[float64]{Name: "none", Y: []int{0}}, "no input rows"},
		{Split[float64]{Name: "short", X: tensor.Zeros[float64](3, 2), Y: []int{0, 1}}, "inputs [3 2] for 2 labels"},
		{Split[float64]{Name: "negative", X: tensor.Zeros[float64](2, 2), Y: []int{0, -1}}, "label -1 of sample 1"},
	} {
		err := c.s.Check()
		var se *SplitError
		if !errors.As(err, &se) || se.Split != c.s.Name || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want a *SplitError saying %q", c.s.Name, err, c.want)
		}
	}
}
