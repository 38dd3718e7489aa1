// The kernels of src/adam.cu, for the emulator.
#include "emu.h"
#include "../../src/adam.cu"

REGISTER(adam, false)
