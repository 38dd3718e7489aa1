//go:build cuda && !cudaemu

package cuda

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"unsafe"

	"gorgonia.org/cu"
)

// driver is the CUDA driver, through gorgonia.org/cu: GPU 0, one context
// and one stream. Every method runs on the context thread.
type driver struct {
	ctx    cu.CUContext // zero until open
	stream cu.Stream
	mods   map[string]cu.Module   // by module name, loaded on first use
	fns    map[string]cu.Function // by kernel name with suffix
	name   string
	arch   int // compute capability, 10·major + minor
}

// open creates the context, current on the calling thread from now on, and
// the stream; it returns the device's name and memory in bytes.
func (dr *driver) open() (name string, total int64, err error) {
	n, err := cu.NumDevices()
	if err != nil || n < 1 {
		return "", 0, fmt.Errorf("cuda: no CUDA device (%d devices, %v)", n, err)
	}
	dev, err := cu.GetDevice(0)
	if err != nil {
		return "", 0, fmt.Errorf("cuda: device 0: %w", err)
	}
	major, err1 := dev.Attribute(cu.ComputeCapabilityMajor)
	minor, err2 := dev.Attribute(cu.ComputeCapabilityMinor)
	if err := errors.Join(err1, err2); err != nil {
		return "", 0, fmt.Errorf("cuda: compute capability of device 0: %w", err)
	}
	dr.name, _ = dev.Name()
	dr.arch = 10*major + minor
	if major < 8 {
		return "", 0, fmt.Errorf("cuda: %s has compute capability %d.%d; the embedded PTX targets compute_80 (sm_80 or newer)", dr.name, major, minor)
	}
	if total, err = dev.TotalMem(); err != nil {
		return "", 0, fmt.Errorf("cuda: memory of %s: %w", dr.name, err)
	}
	if dr.ctx, err = dev.MakeContext(cu.SchedAuto); err != nil {
		return "", 0, fmt.Errorf("cuda: context on %s: %w", dr.name, err)
	}
	if dr.stream, err = cu.MakeStream(cu.NonBlocking); err != nil {
		return "", 0, fmt.Errorf("cuda: stream on %s: %w", dr.name, err)
	}
	dr.mods, dr.fns = map[string]cu.Module{}, map[string]cu.Function{}
	return dr.name, total, nil
}

// bind makes the context current on the calling thread (a no-op before
// open has made it).
func (dr *driver) bind() error {
	if dr.ctx == (cu.CUContext{}) {
		return nil
	}
	return cu.SetCurrentContext(dr.ctx)
}

func (dr *driver) alloc(bytes int64) (uint64, error) {
	p, err := cu.MemAlloc(bytes)
	return uint64(p), err
}

func (dr *driver) free(p uint64) { _ = cu.MemFree(cu.DevicePtr(p)) } // a failure loses the block

func (dr *driver) zero(p uint64, bytes int64) error {
	return cu.MemsetD8Async(cu.DevicePtr(p), 0, bytes, dr.stream)
}

// scribble does nothing: Empty's blocks keep what they held.
func (dr *driver) scribble(uint64, int64) {}

// htod copies host memory to the device. The driver stages pageable memory
// before returning, so src may be reused at once.
func (dr *driver) htod(dst uint64, src unsafe.Pointer, bytes int64) error {
	return cu.MemcpyHtoDAsync(cu.DevicePtr(dst), src, bytes, dr.stream)
}

// dtoh copies device memory to pageable host memory, which the driver
// finishes before returning.
func (dr *driver) dtoh(dst unsafe.Pointer, src uint64, bytes int64) error {
	return cu.MemcpyDtoHAsync(dst, cu.DevicePtr(src), bytes, dr.stream)
}

func (dr *driver) dtod(dst, src uint64, bytes int64) error {
	return cu.MemcpyDtoDAsync(cu.DevicePtr(dst), cu.DevicePtr(src), bytes, dr.stream)
}

func (dr *driver) sync() error { return dr.stream.Synchronize() }

// launch queues a kernel on the stream, loading its module on first use:
// the compute_90 build where there is one and the device is sm_90 or newer
// (unless the environment sets ECL_CUDA_PTX=compute_80, which loads the
// compute_80 builds everywhere: to compare the two, or to step around a
// driver's JIT), else the compute_80 build.
func (dr *driver) launch(k kernel, sfx string, g grid, args []uint64) error {
	name := k.name + sfx
	f, ok := dr.fns[name]
	if !ok {
		mod, ok := dr.mods[k.module]
		if !ok {
			path, virt := "ptx/"+k.module+".ptx", "compute_80"
			if _, err := fs.Stat(ptxFiles, "ptx/sm_90/"+k.module+".ptx"); err == nil && dr.arch >= 90 && os.Getenv("ECL_CUDA_PTX") != "compute_80" {
				path, virt = "ptx/sm_90/"+k.module+".ptx", "compute_90"
			}
			src, err := ptxFiles.ReadFile(path)
			if err != nil {
				return fmt.Errorf("module %s: %w", k.module, err)
			}
			if mod, err = cu.LoadData(string(src)); err != nil {
				return fmt.Errorf("loading module %s (JIT of %s PTX for %s): %w", k.module, virt, dr.name, err)
			}
			dr.mods[k.module] = mod
		}
		var err error
		if f, err = mod.Function(name); err != nil {
			return fmt.Errorf("kernel %s in module %s: %w", name, k.module, err)
		}
		dr.fns[name] = f
	}
	params := make([]unsafe.Pointer, len(args))
	for i := range args {
		params[i] = unsafe.Pointer(&args[i])
	}
	return f.Launch(g.x, g.y, g.z, g.block, 1, 1, g.shared, dr.stream, params)
}
