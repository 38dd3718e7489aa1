// The kernels of src/matmul.cu, for the emulator.
#include "emu.h"
#include "../../src/matmul.cu"

REGISTER(matmul_naive, false)
REGISTER(matmul_tiled, true)
REGISTER(matmul_wide, true)
REGISTER(matmul_big, true)
