// The kernels of src/ecl.cu, for the emulator.
#include "emu.h"
#include "../../src/ecl.cu"

REGISTER(anchor_assign, true)
REGISTER(anchor_assign_d4, true)
REGISTER(anchor_assign_d10, true)
REGISTER(anchor_assign_d16, true)
REGISTER(bin_sums_part, true)
REGISTER(bin_sums_rows, true)
REGISTER(soft_assign_backward, true)
REGISTER(bin_stats_backward, true)
REGISTER(hard_bin_part, true)
