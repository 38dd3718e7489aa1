//go:build cuda && !cudaemu

package cuda

// forArchs runs f once: a GPU runs the kernels of its own architecture.
func forArchs(f func(arch string)) { f("device") }
