package tensor

import (
	"errors"
	"testing"
)

// TestWrapSharesData checks that Wrap neither copies nor accepts a shape
// of another size.
func TestWrapSharesData(t *testing.T) {
	data := []float64{1, 2, 3, 4, 5, 6}
	w := Wrap(data, 2, 3)
	data[4] = 50
	if got := w.Data(); got[4] != 50 || w.Shape()[0] != 2 || w.Shape()[1] != 3 {
		t.Fatalf("Wrap: %v of shape %v after a write to data", got, w.Shape())
	}
	HostData(w)[0] = -1
	if data[0] != -1 {
		t.Fatal("a write through HostData(Wrap(data)) did not reach data")
	}
	defer func() {
		if err, _ := recover().(error); !errors.Is(err, ErrShape) {
			t.Fatalf("Wrap of 6 values as [4]: recovered %v, want a shape error", err)
		}
	}()
	Wrap(data, 4)
}
