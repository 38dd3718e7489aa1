package tensor

import (
	"math/bits"
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
// grain; smaller loops run inline, on the calling goroutine. body must be
// safe to run concurrently on disjoint ranges. The partition depends only
// on n and GOMAXPROCS, never on which goroutine runs which chunk.
//
// The chunks go to a pool of workers that poll for the next job for
// spinWait, then sleep. The calling goroutine runs chunks too, and any
// chunk no worker has claimed yet, so a worker slow to wake costs
// parallelism, never waiting, and a busy or nested pool never deadlocks.
// When the caller is out of chunks while a worker still runs one, it
// polls for spinWait, then sleeps until that worker is done. (Workers
// used to spin 500 µs after each job, and the caller yielded in a loop
// while it waited: on the 2-core machine, under load, a spinning
// goroutine took the core from the one it waited for. Neither then spun
// at all, and each job paid the wake-up of an idle core.)
func parallelFor(n, cost int, body func(lo, hi int)) {
	if n <= 0 {
		return
	}
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 || n*max(cost, 1) < grain {
		body(0, n)
		return
	}
	j := newJob(n, (n+workers-1)/workers, body)
	helperPool.post(j, int(j.chunks)-1)
	// The caller works too, and waits for the chunks workers claimed even if
	// it panics.
	defer j.wait()
	j.run()
}

// ParallelFor runs body over a partition of [0, n) into contiguous chunks,
// one per core (GOMAXPROCS), when n·cost (roughly, the scalar operations
// an index takes) is at least 2¹⁵, else inline: the engine's own loop,
// for a kernel body registered from outside the package (optim's Adam).
// body must be safe to run concurrently on disjoint ranges; the
// partition depends only on n and GOMAXPROCS.
func ParallelFor(n, cost int, body func(lo, hi int)) { parallelFor(n, cost, body) }

// job is one parallelFor call. Its chunks are claimed through next. held
// counts the workers between their attempt to claim a chunk and the end
// of that chunk, plus 1 for the caller until it has run out of chunks;
// whoever takes it to 0 unlocks done, which the caller locked and then
// waits on (a Mutex may be unlocked by another goroutine than its locker).
type job struct {
	body     func(lo, hi int)
	n, chunk int
	chunks   int64
	next     atomic.Int64
	held     atomic.Int64
	unlocked atomic.Bool
	done     sync.Mutex
}

// newJob returns the job of body over [0, n) in chunks of chunk indices,
// held by its caller.
func newJob(n, chunk int, body func(lo, hi int)) *job {
	j := &job{body: body, n: n, chunk: chunk, chunks: int64((n + chunk - 1) / chunk)}
	j.held.Store(1)
	j.done.Lock()
	return j
}

// run is the caller's part of the job: it claims and runs chunks until
// none is left.
func (j *job) run() {
	for {
		c, ok := j.claim()
		if !ok {
			return
		}
		j.runChunk(c)
	}
}

// claim returns the next chunk to run, if any is left.
func (j *job) claim() (int, bool) {
	c := j.next.Add(1) - 1
	return int(c), c < j.chunks
}

func (j *job) runChunk(c int) {
	lo := c * j.chunk
	j.body(lo, min(lo+j.chunk, j.n))
}

// help is a worker's part of the job: it claims and runs chunks until none
// is left, holding the job while it does.
func (j *job) help() {
	for {
		j.held.Add(1)
		c, ok := j.claim()
		if ok {
			j.runChunk(c)
		}
		j.release()
		if !ok {
			return
		}
	}
}

// release gives up a hold on j, unlocking done (once) when it was the
// last. Once the caller has given up its hold, held is 0 only when every
// claimed chunk has finished; a worker that comes late, finds no chunk and
// gives up its hold may take it to 0 again, which changes nothing.
func (j *job) release() {
	if j.held.Add(-1) == 0 && j.unlocked.CompareAndSwap(false, true) {
		j.done.Unlock()
	}
}

// wait closes the job to further claims (the caller stops claiming only
// when none is left, or when its chunk panicked), gives up the caller's
// hold and returns once every claimed chunk has finished.
func (j *job) wait() {
	j.next.Store(j.chunks)
	j.release()
	spinUntil(j.unlocked.Load)
	j.done.Lock()
}

// spinWait is how long a worker out of jobs, or a caller out of chunks,
// polls before it sleeps: several times what waking an idle core of a
// virtual machine costs (BenchmarkWake; bench/README.md, "Waking cores"),
// so that the serial Go code between a step's parallel ops (autograd, an
// op's set-up, the scalar sums) does not put the workers to sleep once or
// twice a layer. Like OpenMP's spin before a thread blocks, it spends a
// core's time while idle; a process that stops computing sleeps after it.
const spinWait = time.Millisecond

// spinUntil polls ready for up to spinWait and reports whether it turned
// true.
func spinUntil(ready func() bool) bool {
	if ready() {
		return true
	}
	start := time.Now()
	for i := 0; ; i++ {
		if ready() {
			return true
		}
		if i%64 == 0 && time.Since(start) > spinWait {
			return false
		}
	}
}

// workerPool holds the helper goroutines of parallelFor: they take the
// latest posted job from current, and sleep on wake until a post when there
// is none.
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
			j.help()
			continue
		}
		if spinUntil(func() bool { j := p.current.Load(); return j != last && j != nil }) {
			continue
		}
		p.sleepers.Add(1)
		if j := p.current.Load(); j == last || j == nil { // no post since the check
			<-p.wake
		}
		p.sleepers.Add(-1)
	}
}

// scratchPools keep buffers for reuse across calls (packed GEMM blocks,
// column matrices, partial sums), per element type and size class
// (scratchClass), so that a request finds a buffer made for its size
// rather than dropping one made for another and allocating afresh.
var scratchPools [2][scratchClasses]sync.Pool

// scratchClasses is the number of size classes: sizes 0 to 7, then four
// per power of two up to 2⁶³.
const scratchClasses = 8 + 4*61

// scratchClass is the smallest size class holding n elements and its
// size: n itself below 8, else n rounded up to its three leading bits
// (4 to 7 times a power of two), less than 25% over n.
func scratchClass(n int) (class, size int) {
	if n < 8 {
		return n, n
	}
	e := bits.Len(uint(n)) - 3
	top := (n + 1<<e - 1) >> e
	if top == 8 {
		e, top = e+1, 4
	}
	return 8 + 4*(e-1) + top - 4, top << e
}

// poolOf is the pool of pools for T.
func poolOf[T Float](pools *[2]sync.Pool) *sync.Pool { return &pools[precision[T]()] }

// precision indexes per-type tables: 0 for float32, 1 for float64.
func precision[T Float]() int {
	var z T
	if _, ok := any(z).(float32); ok {
		return 0
	}
	return 1
}

// getScratch returns a buffer of n elements of arbitrary content; give it
// back with putScratch when done. Inside an Arena's Do, buffers of at
// least arenaScratch elements come from the arena's scratch (see
// Arena.takeScratch), others from the pools.
func getScratch[T Float](n int) *[]T {
	class, size := scratchClass(n)
	var b *[]T
	if a := activeArena[T]().Load(); a != nil && size >= arenaScratch {
		b = a.takeScratch(class)
	} else {
		b, _ = scratchPool[T](class).Get().(*[]T)
	}
	if b == nil {
		b = new([]T)
	}
	if cap(*b) < n {
		*b = make([]T, size)
	}
	*b = (*b)[:n]
	return b
}

// scratchPool is T's pool of class.
func scratchPool[T Float](class int) *sync.Pool { return &scratchPools[precision[T]()][class] }

// getFrom returns a buffer of n elements of arbitrary content from pool,
// whose buffers are of one size.
func getFrom[T Float](pool *sync.Pool, n int) *[]T {
	b, _ := pool.Get().(*[]T)
	if b == nil {
		b = new([]T)
	}
	if cap(*b) < n {
		*b = make([]T, n)
	}
	*b = (*b)[:n]
	return b
}

// putScratch gives b, from getScratch, back to the pool of its class, or
// to the active arena's scratch (as getScratch takes it).
func putScratch[T Float](b *[]T) {
	class, _ := scratchClass(cap(*b))
	if a := activeArena[T]().Load(); a != nil && cap(*b) >= arenaScratch {
		a.keepScratch(class, b)
		return
	}
	scratchPool[T](class).Put(b)
}

// arenaScratch is the fewest elements of a scratch buffer that an active
// arena keeps (256 KiB of float32): smaller ones stay in the pools, whose
// per-core caches take no lock.
const arenaScratch = 1 << 16
