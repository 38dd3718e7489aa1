// Package cuda is the engine's CUDA backend: a tensor.Device for float32 and
// float64 whose every kernel is written in this package (src/*.cu), plus the
// device's bodies of tensor's fused kernels (register.go: the body of
// tensor.XKernel is the function x, as softAssign for SoftAssignKernel),
// the hard bin sums of the binned metrics (HardBinSums), the Adam update
// (AdamStep) and softmax along the last axis, each checked against
// tensor's reference of the same op (its CPU body, or its composed
// version) or, where tensor has none, a pure-Go reference
// (HardBinSumsCPU). optim.Adam and the ECL loss reach the bodies through
// tensor's kernels; docs/ops.md follows each op from autograd to its
// src/*.cu kernels.
//
// The kernels are compiled to PTX for compute_80 (and matmul also for
// compute_90) by gen.sh with nvcc 11.8;
// the PTX is committed and embedded, so building needs no CUDA compiler, and
// the driver JIT-compiles it for the GPU at hand (sm_80 or newer).
//
// The backend is compiled only with the cuda build tag, since its driver
// binding, gorgonia.org/cu, ends the process at start-up on a machine without
// a CUDA device. Without the tag, New and the other entry points return
// ErrNoCUDA. With it, one goroutine locked to an OS thread owns the CUDA
// context and makes every driver call; work is queued on one stream and the
// host waits only when results come back (Download, Tensor.Data, Sync).
// Device memory comes from a caching allocator: buffers return to it when the
// Go garbage collector finds their tensors unreachable.
//
// With the tags cuda and cudaemu, a CPU emulator (internal/emu) runs the same
// kernel sources in place of the driver, so that the cuda tests run without a
// GPU.
//
// Methods of the tensor.Device interface cannot return errors: a CUDA failure
// inside one (out of memory, a failed launch) panics with a message naming
// the kernel and its sizes. Operands that do not fit a kernel panic with
// tensor's typed values, as the CPU's ops do: a *tensor.ShapeError, a
// *tensor.DeviceError for a tensor of another device, a *tensor.ArgumentError
// for a scalar out of range. Nothing falls back to the CPU.
//
// The kernels switch on the op codes of tensor.UnaryOp, BinaryOp and
// ReduceOp through src/ops.h, generated from tensor/device.go by
// internal/opgen (go generate), so that adding an op to tensor changes the
// header; an op the kernel's switch lacks traps, failing the launch.
//
//go:generate go run ./internal/opgen ../../tensor/device.go src/ops.h
//go:generate ./gen.sh
package cuda
