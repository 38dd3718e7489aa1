// The kernels of src/batchnorm.cu, for the emulator.
#include "emu.h"
#include "../../src/batchnorm.cu"

REGISTER(bn_stats, true)
REGISTER(bn_forward, true)
REGISTER(bn_backward_sums, true)
REGISTER(bn_backward, true)
REGISTER(channel_affine, false)
