package plot

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// onCores calls every function of fs, on as many goroutines as cores
// (GOMAXPROCS), each taking the next function not yet started, and returns
// the error of the first in fs that failed.
func onCores(fs []func() error) error {
	errs := make([]error, len(fs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(fs)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(fs); i = int(next.Add(1) - 1) {
				errs[i] = fs[i]()
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
