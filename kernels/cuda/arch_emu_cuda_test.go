//go:build cuda && cudaemu

package cuda

import "github.com/ecl-go/ecl/kernels/cuda/internal/emu"

// forArchs runs f once for each architecture whose kernels differ (the
// emulator's kernels take their path from emu.Arch: Hopper's, then
// Ampere's), restoring the emulator's architecture after.
func forArchs(f func(arch string)) {
	defer emu.SetArch(emu.Arch())
	for _, a := range []int{90, 80} {
		emu.SetArch(a)
		f(map[int]string{90: "sm_90", 80: "sm_80"}[a])
	}
}
