// The kernels of src/index.cu, for the emulator.
#include "emu.h"
#include "../../src/index.cu"

REGISTER(gather, false)
REGISTER(scatter_add, false)
