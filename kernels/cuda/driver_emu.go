//go:build cuda && cudaemu

package cuda

import (
	"unsafe"

	"github.com/ecl-go/ecl/kernels/cuda/internal/emu"
)

// driver is the CPU emulator of internal/emu, standing in for the CUDA
// driver (build tags cuda and cudaemu): the same kernels, launched with the
// same arguments, run on the CPU, and "device" memory is host memory. Work
// runs when it is queued, so sync has nothing to wait for.
type driver struct{}

// The emulator caps grids at a few blocks, so that the tests run every
// kernel's grid-stride loops (a GPU's cap of 65535 blocks would need
// billions of elements).
func init() { gridCap = 3 }

func (driver) open() (string, int64, error) { return "CPU emulator", 8 << 30, nil }

func (driver) bind() error { return nil }

func (driver) alloc(bytes int64) (uint64, error) { return emu.Alloc(bytes) }

func (driver) free(p uint64) { emu.Free(p) }

func (driver) zero(p uint64, bytes int64) error { emu.Zero(p, bytes); return nil }

// scribble fills Empty's blocks with 0xff bytes (NaNs of either precision).
func (driver) scribble(p uint64, bytes int64) { emu.Fill(p, 0xff, bytes) }

func (driver) htod(dst uint64, src unsafe.Pointer, bytes int64) error {
	emu.ToDevice(dst, src, bytes)
	return nil
}

func (driver) dtoh(dst unsafe.Pointer, src uint64, bytes int64) error {
	emu.ToHost(dst, src, bytes)
	return nil
}

func (driver) dtod(dst, src uint64, bytes int64) error { emu.Copy(dst, src, bytes); return nil }

func (driver) sync() error { return nil }

func (driver) launch(k kernel, sfx string, g grid, args []uint64) error {
	return emu.Launch(k.name+sfx, g.x, g.y, g.z, g.block, g.shared, args)
}
