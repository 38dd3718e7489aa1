// The kernels of src/transformer.cu, for the emulator.
#include "emu.h"
#include "../../src/transformer.cu"

REGISTER(layer_norm, true)
REGISTER(layer_norm_backward, true)
REGISTER(layer_norm_backward_sums, true)
REGISTER(gelu, false)
REGISTER(gelu_backward, false)
REGISTER(attention, true)
REGISTER(attention_backward_dot, true)
REGISTER(attention_backward_dq, true)
REGISTER(attention_backward, true)
REGISTER(attention64, true)
REGISTER(attention64_backward_dq, true)
REGISTER(attention64_backward, true)
