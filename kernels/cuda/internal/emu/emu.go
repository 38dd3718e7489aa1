//go:build cudaemu

// Package emu runs the CUDA kernels of ../../src on the CPU: the same
// sources compiled by the host C++ compiler against emu.h, which emulates
// the CUDA features they use (blocks one after another, threads of a block
// as fibers meeting at barriers). The cuda package's tests run on it with the
// build tags cuda and cudaemu, on machines without a GPU. "Device" memory is
// host memory.
package emu

// #cgo CXXFLAGS: -std=c++20 -O2 -Wno-unused-function
// #include <stdint.h>
// #include <stdlib.h>
// const char* emu_launch(const char* name, int gx, int gy, int gz, int block, int shared, const uint64_t* args, int nargs);
// void* emu_alloc(int64_t bytes);
// void emu_free(uint64_t p);
// void emu_copy(uint64_t dst, uint64_t src, int64_t bytes);
// void emu_zero(uint64_t p, int64_t bytes);
// void emu_fill(uint64_t p, int byte, int64_t bytes);
// void emu_to_device(uint64_t dst, const void* src, int64_t bytes);
// void emu_to_host(void* dst, uint64_t src, int64_t bytes);
// void emu_set_arch(int a);
// int emu_arch(void);
import "C"

import (
	"errors"
	"unsafe"
)

// Launch runs kernel name on a grid of gx·gy·gz blocks of block threads
// with shared bytes of dynamic shared memory, to completion.
func Launch(name string, gx, gy, gz, block, shared int, args []uint64) error {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	cargs := (*C.uint64_t)(C.malloc(C.size_t(8 * (len(args) + 1))))
	defer C.free(unsafe.Pointer(cargs))
	copy(unsafe.Slice((*uint64)(unsafe.Pointer(cargs)), len(args)), args)
	if msg := C.emu_launch(cname, C.int(gx), C.int(gy), C.int(gz), C.int(block), C.int(shared), cargs, C.int(len(args))); msg != nil {
		return errors.New(C.GoString(msg))
	}
	return nil
}

// Alloc returns bytes of host memory standing for device memory.
func Alloc(bytes int64) (uint64, error) {
	p := C.emu_alloc(C.int64_t(bytes))
	if p == nil {
		return 0, errors.New("emu: out of memory")
	}
	return uint64(uintptr(p)), nil
}

func Free(p uint64) { C.emu_free(C.uint64_t(p)) }

// Copy copies bytes between blocks of device memory.
func Copy(dst, src uint64, bytes int64) {
	C.emu_copy(C.uint64_t(dst), C.uint64_t(src), C.int64_t(bytes))
}

// ToDevice copies bytes of host memory to device memory.
func ToDevice(dst uint64, src unsafe.Pointer, bytes int64) {
	C.emu_to_device(C.uint64_t(dst), src, C.int64_t(bytes))
}

// ToHost copies bytes of device memory to host memory.
func ToHost(dst unsafe.Pointer, src uint64, bytes int64) {
	C.emu_to_host(dst, C.uint64_t(src), C.int64_t(bytes))
}

func Zero(p uint64, bytes int64) { C.emu_zero(C.uint64_t(p), C.int64_t(bytes)) }

// Fill sets bytes bytes of device memory at p to b.
func Fill(p uint64, b byte, bytes int64) { C.emu_fill(C.uint64_t(p), C.int(b), C.int64_t(bytes)) }

// Arch is the compute capability the kernels see (10·major + minor; 90 at
// start, a Hopper GPU).
func Arch() int { return int(C.emu_arch()) }

// SetArch sets the compute capability the kernels see, for kernels with a
// path per architecture.
func SetArch(a int) { C.emu_set_arch(C.int(a)) }
