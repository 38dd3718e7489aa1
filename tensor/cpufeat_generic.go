//go:build !amd64 || noasm

package tensor

// cpuISA is the best level this CPU and build support: portable Go.
var cpuISA = isaGo
