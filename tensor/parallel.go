package tensor

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// grain is the amount of work (roughly, scalar operations) below which a loop
// stays on one goroutine: splitting smaller loops costs more than it gains.
const grain = 1 << 15

// parallelFor calls body over a partition of [0, n) into contiguous chunks,
// one per core (GOMAXPROCS), when n*cost (the work per index) is at least
// grain. body must be safe to run concurrently on disjoint ranges. The
// partition depends only on n and GOMAXPROCS, never on which goroutine runs
// which chunk.
//
// The chunks go to a pool of workers that, after a job, spin a while for
// the next before they sleep: a training step runs dozens of parallel loops
// a few hundred microseconds apart, and waking a sleeping thread took
// ~100 µs on the 2-core virtual machine this was measured on — as long as
// half of a typical loop. The calling goroutine runs chunks too, and any
// chunk no worker has claimed, so a busy or nested pool never deadlocks.
func parallelFor(n, cost int, body func(lo, hi int)) {
	if n <= 0 {
		return
	}
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 || n*max(cost, 1) < grain {
		body(0, n)
		return
	}
	chunk := (n + workers - 1) / workers
	j := &job{body: body, n: n, chunk: chunk, chunks: int64((n + chunk - 1) / chunk)}
	helperPool.post(j, int(j.chunks)-1)
	// The caller works too, and waits for the chunks workers claimed even if
	// it panics.
	defer j.wait()
	j.run()
}

// job is one parallelFor call: chunks claimed through next, counted in
// finished once run (or abandoned by a panic).
type job struct {
	body           func(lo, hi int)
	n, chunk       int
	chunks         int64
	next, finished atomic.Int64
}

// run claims and runs chunks until none is left.
func (j *job) run() {
	for {
		c := j.next.Add(1) - 1
		if c >= j.chunks {
			return
		}
		j.runChunk(int(c))
	}
}

func (j *job) runChunk(c int) {
	defer j.finished.Add(1)
	lo := c * j.chunk
	j.body(lo, min(lo+j.chunk, j.n))
}

// wait closes the job to further claims (the caller stops claiming only
// when none is left, or when its chunk panicked) and returns once every
// claimed chunk has finished.
func (j *job) wait() {
	claimed := min(j.next.Swap(j.chunks), j.chunks)
	for j.finished.Load() < claimed {
		runtime.Gosched()
	}
}

// spinFor is how long an idle worker watches for the next job before it
// sleeps.
const spinFor = 500 * time.Microsecond

// workerPool holds the helper goroutines of parallelFor: they take the
// latest posted job from current, spin spinFor after each, then sleep on
// wake until a post.
type workerPool struct {
	current  atomic.Pointer[job]
	sleepers atomic.Int32
	wake     chan struct{}
	mu       sync.Mutex
	started  int
}

var helperPool = workerPool{wake: make(chan struct{}, 1024)}

// post publishes j to up to helpers workers, starting workers as
// GOMAXPROCS grows and waking sleeping ones.
func (p *workerPool) post(j *job, helpers int) {
	p.mu.Lock()
	for ; p.started < min(helpers, cap(p.wake)); p.started++ {
		go p.work()
	}
	p.mu.Unlock()
	p.current.Store(j)
	for range min(int(p.sleepers.Load()), helpers) {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
}

// work is a worker's loop.
func (p *workerPool) work() {
	var last *job
	for {
		if j := p.current.Load(); j != last && j != nil {
			last = j
			j.run()
			continue
		}
		if !p.spin(last) {
			p.sleepers.Add(1)
			if j := p.current.Load(); j == last || j == nil { // no post since the spin ended
				<-p.wake
			}
			p.sleepers.Add(-1)
		}
	}
}

// spin watches current for a job other than last for spinFor, and reports
// whether one came.
func (p *workerPool) spin(last *job) bool {
	start := time.Now()
	for i := 0; ; i++ {
		if j := p.current.Load(); j != last && j != nil {
			return true
		}
		if i%64 == 63 && time.Since(start) > spinFor {
			return false
		}
		runtime.Gosched()
	}
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
