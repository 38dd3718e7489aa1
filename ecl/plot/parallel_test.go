package plot

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
)

// onCores calls every function once and returns the error of the first
// one (in order) that failed, not of the first to fail in time.
func TestOnCoresFirstErrorInOrder(t *testing.T) {
	var calls [6]atomic.Int32
	fs := make([]func() error, len(calls))
	for i := range fs {
		fs[i] = func() error {
			calls[i].Add(1)
			if i == 2 || i == 4 {
				return fmt.Errorf("f%d", i)
			}
			return nil
		}
	}
	err := onCores(fs)
	if err == nil || err.Error() != "f2" {
		t.Errorf("error %v, want f2", err)
	}
	for i := range calls {
		if c := calls[i].Load(); c != 1 {
			t.Errorf("function %d called %d times", i, c)
		}
	}
	if err := onCores(nil); err != nil {
		t.Errorf("no functions: %v", err)
	}
	if err := onCores([]func() error{func() error { return errors.New("x") }}); err == nil {
		t.Error("one failing function: no error")
	}
}
