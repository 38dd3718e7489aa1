//go:build cuda

package cuda

import (
	"fmt"
	"runtime"
	"sync"
	"time"
)

// block is a piece of device memory of one size class.
type block struct {
	ptr  uint64
	size int64
}

// allocator caches freed blocks by size class for reuse. Buffers are freed by
// the garbage collector (runtime.AddCleanup), from any goroutine, so the
// free lists are guarded by a mutex; driver calls happen only in malloc,
// under the engine's lock. Reusing a block is safe without synchronisation because
// all work runs on one stream, in order.
type allocator struct {
	mu     sync.Mutex
	free   map[int64][]uint64
	inUse  int64 // bytes handed out and not yet released
	cached int64 // bytes in the free lists
	fresh  int64 // bytes obtained from the driver since the last collection
}

func newAllocator() *allocator { return &allocator{free: map[int64][]uint64{}} }

func (a *allocator) inUseBytes() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.inUse
}

// take pops a cached block of the size class, if any.
func (a *allocator) take(size int64) (block, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	l := a.free[size]
	if len(l) == 0 {
		return block{}, false
	}
	a.free[size] = l[:len(l)-1]
	a.cached -= size
	a.inUse += size
	return block{l[len(l)-1], size}, true
}

// release returns a block to the cache (any goroutine).
func (a *allocator) release(b block) {
	if b.size == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.free[b.size] = append(a.free[b.size], b.ptr)
	a.inUse -= b.size
	a.cached += b.size
}

// gcBudget is how many bytes malloc obtains from the driver between two
// garbage collections. The collector does not see device memory, and tensor
// headers are small, so without this it would rarely run and the buffers of
// unreachable tensors (a training step's intermediates) would not come back
// to the free lists: every allocation would go to the driver.
const gcBudget = 1 << 30

// malloc returns a block of at least bytes bytes, uninitialised (on the
// context thread). After gcBudget bytes (or a quarter of the device, if
// less) have been newly allocated, and before giving up on an out-of-memory
// error, it runs a collection so that the buffers of unreachable tensors
// come back.
func (e *engine) malloc(bytes int64) (block, error) {
	a := e.alloc
	size := sizeClass(bytes)
	if size == 0 {
		return block{}, nil
	}
	if b, ok := a.take(size); ok {
		return b, nil
	}
	if a.fresh > min(gcBudget, e.total/4) {
		a.fresh = 0
		runtime.GC() // the cleanups release blocks from now on, asynchronously
		if b, ok := a.take(size); ok {
			return b, nil
		}
	}
	ptr, err := e.drv.alloc(size)
	if err != nil {
		if b, ok := e.collect(size); ok {
			return b, nil
		}
		e.trim()
		ptr, err = e.drv.alloc(size)
	}
	if err != nil {
		return block{}, fmt.Errorf("cuda: allocating %d bytes on %s (%d in use): %w", size, e.name, a.inUseBytes(), err)
	}
	a.mu.Lock()
	a.inUse += size
	a.fresh += size
	a.mu.Unlock()
	return block{ptr, size}, nil
}

// collect runs the garbage collector and waits briefly for the cleanups of
// freed buffers to return a block of the size class.
func (e *engine) collect(size int64) (block, bool) {
	runtime.GC()
	for range 20 {
		if b, ok := e.alloc.take(size); ok {
			return b, true
		}
		time.Sleep(time.Millisecond)
	}
	return block{}, false
}

// trim gives every cached block back to the driver (on the context thread),
// so that a request of another size class can be met.
func (e *engine) trim() {
	a := e.alloc
	a.mu.Lock()
	defer a.mu.Unlock()
	for size, l := range a.free {
		for _, p := range l {
			e.drv.free(p)
		}
		a.cached -= size * int64(len(l))
		delete(a.free, size)
	}
}
