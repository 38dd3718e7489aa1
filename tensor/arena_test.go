package tensor

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

// A step inside an arena reuses the buffers of the step before (zeroed),
// and a tensor of an ended step panics when used instead of reading the
// memory it shares with the new step's tensors.
func TestArenaRecyclesAndGuards(t *testing.T) {
	var a Arena[float64]
	var first, second *Tensor[float64]
	a.Do(func() {
		first = Add(FromSlice([]float64{1, 2, 3}), FromSlice([]float64{1, 1, 1}))
	})
	if got := first.Data(); got[0] != 2 || got[2] != 4 {
		t.Fatalf("first step gives %v, want [2 3 4]", got)
	}
	a.Do(func() { second = Zeros[float64](3) })
	if host(second)[0] != 0 || host(second)[2] != 0 {
		t.Errorf("recycled buffer not zeroed: %v", second.Data())
	}
	outside := Zeros[float64](3) // after Do: ordinary memory
	if &host(outside)[0] == &host(second)[0] {
		t.Error("an allocation after Do came from the arena")
	}
	func() {
		defer func() {
			err, _ := recover().(error)
			if !errors.Is(err, ErrArgument) || !strings.Contains(err.Error(), "after the Arena step") {
				t.Errorf("using a tensor of an ended step: recovered %v, want an *ArgumentError", err)
			}
		}()
		first.Data()
	}()
}

// The recycled buffer of a step is the memory a tensor of the same length
// had in the step before.
func TestArenaReusesMemory(t *testing.T) {
	var a Arena[float32]
	var p *float32
	a.Do(func() { p = &host(Zeros[float32](1000))[0] })
	a.Do(func() {
		if q := &host(Zeros[float32](1000))[0]; q != p {
			t.Error("second step allocated new memory for the same shape")
		}
	})
}

// A large scratch buffer given back inside Do is the one the next Do gets,
// collections in between; a small one goes to the pools, not to the arena.
func TestArenaKeepsScratch(t *testing.T) {
	var a Arena[float32]
	var large, small *[]float32
	a.Do(func() {
		large, small = getScratch[float32](arenaScratch+1), getScratch[float32](arenaScratch/2)
		putScratch(large)
		putScratch(small)
	})
	runtime.GC()
	runtime.GC() // the pools are empty after two collections
	a.Do(func() {
		if b := getScratch[float32](arenaScratch + 3); b != large {
			t.Error("the next step's scratch buffer of the same class is not the one given back")
		}
		if b := getScratch[float32](arenaScratch / 2); b == small {
			t.Error("a small scratch buffer was kept by the arena")
		}
	})
}

func TestArenaDoesNotNest(t *testing.T) {
	var a, b Arena[float64]
	defer func() {
		err, _ := recover().(error)
		var ae *ArgumentError
		if !errors.As(err, &ae) || !errors.Is(err, ErrArgument) || !strings.Contains(ae.Detail, "do not nest") {
			t.Errorf("nested Do: recovered %v, want an *ArgumentError", err)
		}
	}()
	a.Do(func() { b.Do(func() {}) })
}
