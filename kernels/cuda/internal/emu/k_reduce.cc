// The kernels of src/reduce.cu, for the emulator.
#include "emu.h"
#include "../../src/reduce.cu"

REGISTER(reduce_strip, false)
REGISTER(reduce_row, true)
REGISTER(softmax_rows, true)
REGISTER(log_softmax_backward_rows, true)
REGISTER(softmax_backward_rows, true)
