package tensor

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// Arena recycles the CPU buffers of a computation repeated many times, such
// as the steps of a training loop: inside Do, every CPU buffer of element
// type T comes from the arena, and the next Do takes them all back before
// it starts, so that once the first step has run a step allocates no new
// tensor memory (Go's collector never sees it, and large buffers are not
// returned to the operating system and faulted in again at every step).
// The kernels' large scratch buffers (column matrices, a dense block's
// gradient) given back during Do are kept by the arena too, from one Do to
// the next, where the pools they otherwise come from are emptied by every
// other collection.
//
// A tensor made inside Do lives until the next Do on the same arena begins;
// any CPU operation on it after that panics (its buffer is marked dead
// rather than silently shared). State that must outlive a step — optimiser
// moments, running statistics — must be made outside Do or updated in
// place. Like autograd.NoGrad, an active arena is process-wide: no other
// goroutine may create CPU tensors of type T while Do runs. The zero Arena
// is ready to use; drop it when done (its buffers are then collected as
// usual, and tensors of its last Do stay valid).
type Arena[T Float] struct {
	mu      sync.Mutex
	live    []*cpuBuffer[T]
	free    map[int][][]T
	scratch map[int][]*[]T // scratch buffers given back, by size class
}

var (
	arena32 atomic.Pointer[Arena[float32]]
	arena64 atomic.Pointer[Arena[float64]]
)

// activeArena is the slot holding the arena in use for T, if any.
func activeArena[T Float]() *atomic.Pointer[Arena[T]] {
	var z T
	if _, ok := any(z).(float32); ok {
		return any(&arena32).(*atomic.Pointer[Arena[T]])
	}
	return any(&arena64).(*atomic.Pointer[Arena[T]])
}

// Do recycles the buffers of the arena's previous Do, then runs f with
// every CPU allocation of type T drawn from the arena. Arenas of one
// element type do not nest.
func (a *Arena[T]) Do(f func()) {
	slot := activeArena[T]()
	if !slot.CompareAndSwap(nil, a) {
		panic(argumentError(fmt.Sprintf("Arena[%s].Do", DType[T]()), "another arena of this type is active (arenas do not nest)"))
	}
	defer slot.Store(nil)
	a.recycle()
	f()
}

// recycle marks every buffer handed out as dead and keeps its memory for
// reuse.
func (a *Arena[T]) recycle() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.free == nil {
		a.free = map[int][][]T{}
	}
	for _, b := range a.live {
		a.free[len(b.data)] = append(a.free[len(b.data)], b.data)
		b.data, b.dead = nil, true
	}
	clear(a.live)
	a.live = a.live[:0]
}

// get returns a buffer of n elements, reusing a recycled one of that
// length when there is one, zeroed if zero (else of arbitrary content).
func (a *Arena[T]) get(n int, zero bool) *cpuBuffer[T] {
	a.mu.Lock()
	defer a.mu.Unlock()
	var data []T
	if list := a.free[n]; len(list) > 0 {
		data = list[len(list)-1]
		list[len(list)-1] = nil
		a.free[n] = list[:len(list)-1]
		if zero {
			clear(data)
		}
	} else {
		data, zero = make([]T, n), true
	}
	b := &cpuBuffer[T]{data: data}
	b.zeros.Store(zero)
	a.live = append(a.live, b)
	return b
}

// takeScratch returns a scratch buffer of size class class given back to
// the arena (keepScratch), or nil if it holds none.
func (a *Arena[T]) takeScratch(class int) *[]T {
	a.mu.Lock()
	defer a.mu.Unlock()
	list := a.scratch[class]
	if len(list) == 0 {
		return nil
	}
	b := list[len(list)-1]
	list[len(list)-1] = nil
	a.scratch[class] = list[:len(list)-1]
	return b
}

// keepScratch keeps the scratch buffer b of size class class for
// takeScratch.
func (a *Arena[T]) keepScratch(class int, b *[]T) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.scratch == nil {
		a.scratch = map[int][]*[]T{}
	}
	a.scratch[class] = append(a.scratch[class], b)
}
