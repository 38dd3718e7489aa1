package bench

import (
	"fmt"
	"sync"
)

// fmaRounds is the rounds of one peak call per thread: 2²⁰ rounds of 24
// multiply-adds, a few milliseconds.
const fmaRounds = 1 << 20

// peakCases are the rows of this CPU's arithmetic peak (AVX-512 builds): 24
// independent vector multiply-adds a round on registers alone, on one
// thread and on threads at once, float32 and float64. The GEMM and
// convolution rows are fractions of these.
func peakCases(threads int) []Case {
	counts := []int{1}
	if threads > 1 {
		counts = append(counts, threads)
	}
	var cs []Case
	for _, double := range []bool{false, true} {
		run, per := fmaLoop(double)
		if run == nil {
			return nil
		}
		for _, t := range counts {
			cs = append(cs, Case{
				Name:  fmt.Sprintf("fma-peak/%s/threads%d", map[bool]string{false: "float32", true: "float64"}[double], t),
				Flops: per * fmaRounds * float64(t),
				Setup: func() func() { return func() { onThreads(t, func() { run(fmaRounds) }) } },
			})
		}
	}
	return cs
}

// onThreads runs f on t goroutines at once and waits for them.
func onThreads(t int, f func()) {
	if t == 1 {
		f()
		return
	}
	var wg sync.WaitGroup
	for range t {
		wg.Add(1)
		go func() { defer wg.Done(); f() }()
	}
	wg.Wait()
}
