package tensor

import (
	"runtime"
	"sync"
)

// grain is the amount of work (roughly, scalar operations) below which a loop
// stays on one goroutine: splitting smaller loops costs more than it gains.
const grain = 1 << 15

// parallelFor calls body over a partition of [0, n) into contiguous chunks,
// using up to GOMAXPROCS goroutines when n*cost (the work per index) is at
// least grain. body must be safe to run concurrently on disjoint ranges.
func parallelFor(n, cost int, body func(lo, hi int)) {
	if n <= 0 {
		return
	}
	workers := runtime.GOMAXPROCS(0)
	if workers > n {
		workers = n
	}
	if workers <= 1 || n*max(cost, 1) < grain {
		body(0, n)
		return
	}
	// The calling goroutine takes the first chunk rather than wait idle (and
	// waits for the others even if it panics).
	var wg sync.WaitGroup
	defer wg.Wait()
	chunk := (n + workers - 1) / workers
	for lo := chunk; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			body(lo, hi)
		}()
	}
	body(0, min(chunk, n))
}

// scratchPools keep buffers for reuse across calls (packed GEMM blocks,
// column matrices, partial sums), one pool per element type.
var scratchPools [2]sync.Pool

func scratchPool[T Float]() *sync.Pool {
	var z T
	if _, ok := any(z).(float32); ok {
		return &scratchPools[0]
	}
	return &scratchPools[1]
}

// getScratch returns a buffer of n elements of arbitrary content; give it
// back with putScratch when done.
func getScratch[T Float](n int) *[]T {
	b, _ := scratchPool[T]().Get().(*[]T)
	if b == nil {
		b = new([]T)
	}
	if cap(*b) < n {
		*b = make([]T, n)
	}
	*b = (*b)[:n]
	return b
}

func putScratch[T Float](b *[]T) { scratchPool[T]().Put(b) }
