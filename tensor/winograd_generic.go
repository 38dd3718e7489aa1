//go:build !amd64 || noasm

package tensor

// asmWinograd4 reports that there are no assembly Winograd transforms on
// this platform (or with the noasm build tag).
func asmWinograd4[T Float]() (k winogradKernels4[T], ok bool) { return k, false }
