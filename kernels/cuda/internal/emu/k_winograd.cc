// The kernels of src/winograd.cu, for the emulator.
#include "emu.h"
#include "../../src/winograd.cu"

REGISTER(winograd_inputs, false)
REGISTER(winograd_outputs, false)
REGISTER(winograd_output_grads, false)
REGISTER(winograd_filters, false)
REGISTER(winograd_filter_grads, false)
