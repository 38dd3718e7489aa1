package tensor

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// Jobs posted back to back and after the workers have gone to sleep each
// cover every index once: no lost wake-up, no chunk run twice.
func TestParallelForAfterIdle(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs GOMAXPROCS ≥ 2")
	}
	const n = 1000
	for round := range 50 {
		hits := make([]atomic.Int32, n)
		parallelFor(n, grain, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				hits[i].Add(1)
			}
		})
		for i := range hits {
			if c := hits[i].Load(); c != 1 {
				t.Fatalf("round %d: index %d run %d times", round, i, c)
			}
		}
		if round%10 == 9 {
			time.Sleep(2 * time.Millisecond) // let the workers sleep
		}
	}
}

// A chunk that panics on the calling goroutine still lets the job's wait
// return, and no chunk is claimed after it.
func TestParallelJobPanicReleasesWait(t *testing.T) {
	var ran []int
	j := newJob(3, 1, func(lo, hi int) {
		if lo == 1 {
			panic("chunk 1")
		}
		ran = append(ran, lo)
	})
	func() {
		defer func() {
			if r := recover(); r != "chunk 1" {
				t.Errorf("recovered %v, want chunk 1's panic", r)
			}
		}()
		defer j.wait()
		j.run()
	}()
	if _, ok := j.claim(); len(ran) != 1 || ran[0] != 0 || ok {
		t.Errorf("ran %v, a chunk still to claim: %v; want [0] and none (chunk 2 never claimed)", ran, ok)
	}
}

// parallelFor returns only once every chunk has finished, the slow ones a
// worker runs included.
func TestParallelForWaitsForWorkers(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs GOMAXPROCS ≥ 2")
	}
	for range 20 {
		var done atomic.Int32
		parallelFor(2, grain, func(lo, hi int) {
			if lo > 0 {
				time.Sleep(time.Millisecond)
			}
			done.Add(int32(hi - lo))
		})
		if d := done.Load(); d != 2 {
			t.Fatalf("returned with %d of 2 indices done", d)
		}
	}
}

// BenchmarkWake times parallelFor's overhead against the ideal for two
// chunks of us µs each (a layer of a small network) separated by 20 µs
// of serial work (the glue between layers): "overhead-µs" is the time a
// call takes beyond us + 20, about a core's wake-up where the worker
// slept, a few µs where it polled.
func BenchmarkWake(b *testing.B) {
	busy := func(d time.Duration) {
		for t := time.Now(); time.Since(t) < d; {
		}
	}
	for _, us := range []int{20, 100, 500} {
		b.Run(fmt.Sprintf("chunk%dus", us), func(b *testing.B) {
			d := time.Duration(us) * time.Microsecond
			for range b.N {
				parallelFor(2, grain, func(lo, hi int) {
					for range hi - lo {
						busy(d)
					}
				})
				busy(20 * time.Microsecond)
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)-float64(us+20), "overhead-µs")
		})
	}
}

// A scratch class holds its requests with less than 25% to spare, its
// own size falls in it, and larger classes hold larger sizes.
func TestScratchClass(t *testing.T) {
	lastClass, lastSize := -1, -1
	for n := 0; n < 1<<17; n++ {
		class, size := scratchClass(n)
		if size < n || n >= 8 && 4*size >= 5*n {
			t.Fatalf("n %d: class size %d", n, size)
		}
		if c, s := scratchClass(size); c != class || s != size {
			t.Fatalf("n %d: class %d of size %d, whose own class is %d of size %d", n, class, size, c, s)
		}
		if class < lastClass || class == lastClass && size != lastSize || class > lastClass && size <= lastSize {
			t.Fatalf("n %d: class %d size %d after class %d size %d", n, class, size, lastClass, lastSize)
		}
		lastClass, lastSize = class, size
	}
	if c, _ := scratchClass(1<<62 + 1); c >= scratchClasses {
		t.Errorf("2⁶²+1: class %d of %d", c, scratchClasses)
	}
}
