//go:build unix

package bench

import (
	"syscall"
	"testing"
	"time"
)

// processCPU is the user and system time this process has used, on all
// threads (the collector's included).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds the process CPU time per operation since start, which a
// busy machine inflates far less than the wall-clock ns/op.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
}
