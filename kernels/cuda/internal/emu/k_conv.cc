// The kernels of src/conv.cu, for the emulator.
#include "emu.h"
#include "../../src/conv.cu"

REGISTER(im2col, false)
REGISTER(col2im, false)
REGISTER(maxpool_fwd, false)
REGISTER(maxpool_bwd, false)
REGISTER(avgpool_fwd, false)
REGISTER(avgpool_bwd, false)
