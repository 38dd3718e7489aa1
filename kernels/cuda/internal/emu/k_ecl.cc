// The kernels of src/ecl.cu, for the emulator.
#include "emu.h"
#include "../../src/ecl.cu"

REGISTER(soft_assign, true)
REGISTER(soft_assign_d4, true)
REGISTER(soft_assign_d10, true)
REGISTER(soft_assign_d16, true)
REGISTER(bin_stats_part, true)
REGISTER(bin_stats_rows, true)
REGISTER(soft_assign_backward, true)
REGISTER(bin_stats_backward, true)
REGISTER(hard_bin_part, true)
