// The kernels of src/elementwise.cu, for the emulator.
#include "emu.h"
#include "../../src/elementwise.cu"

REGISTER(fill, false)
REGISTER(copy, false)
REGISTER(unary, false)
REGISTER(binary, false)
REGISTER(where, false)
