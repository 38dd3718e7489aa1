package tensor

import (
	"sort"
	"sync"
)

// Kernel is a fused operation: a name and one body per device that has one.
// A is the type of its attributes (the arguments that are not tensors). The
// package that declares a kernel registers its CPU body and keeps a version
// composed of tensor ops, which runs on devices without a body and is the
// reference the bodies are tested against; a backend adds bodies for its
// own device with Register, without the declaring package importing it.
// A differentiable fused op is a forward and a backward kernel recorded as
// one autograd primitive (see autograd's package documentation).
type Kernel[A any] struct {
	name   string
	bodies sync.Map // Device[T] → Body[T, A]
}

// Body is a kernel's implementation on one device: it reads in and writes
// out. The caller has checked the shapes and allocated out (zeroed,
// contiguous, on the device); in are on the device and contiguous unless
// the kernel's declaration says otherwise.
type Body[T Float, A any] func(out, in []*Tensor[T], attr A)

var (
	kernelsMu sync.Mutex
	kernels   []string
)

// NewKernel declares the kernel called name; each name is declared once.
func NewKernel[A any](name string) *Kernel[A] {
	kernelsMu.Lock()
	defer kernelsMu.Unlock()
	for _, n := range kernels {
		if n == name {
			panic(argumentError("NewKernel", "kernel %q declared twice", name))
		}
	}
	kernels = append(kernels, name)
	return &Kernel[A]{name: name}
}

// Kernels lists the names of the declared kernels, sorted.
func Kernels() []string {
	kernelsMu.Lock()
	defer kernelsMu.Unlock()
	out := append([]string(nil), kernels...)
	sort.Strings(out)
	return out
}

func (k *Kernel[A]) String() string { return k.name }

// Register makes body k's implementation on dev (a comparable value, such
// as CPU[T]{} or a backend's device pointer), replacing any earlier one.
func Register[T Float, A any](k *Kernel[A], dev Device[T], body Body[T, A]) {
	k.bodies.Store(dev, body)
}

// Lookup returns k's body on dev, if it has one.
func Lookup[T Float, A any](k *Kernel[A], dev Device[T]) (Body[T, A], bool) {
	b, ok := k.bodies.Load(dev)
	if !ok {
		return nil, false
	}
	return b.(Body[T, A]), true
}

// registerCPU registers the two instances of a generic CPU body.
func registerCPU[A any](k *Kernel[A], f32 Body[float32, A], f64 Body[float64, A]) {
	Register(k, Device[float32](CPU[float32]{}), f32)
	Register(k, Device[float64](CPU[float64]{}), f64)
}
