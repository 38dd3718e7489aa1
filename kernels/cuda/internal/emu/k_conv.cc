// The kernels of src/conv.cu, for the emulator.
#include "emu.h"
#include "../../src/conv.cu"

REGISTER(im2col, false)
REGISTER(col2im, false)
REGISTER(maxpool_fwd, false)
REGISTER(maxpool_bwd, false)
REGISTER(avgpool_fwd, false)
REGISTER(avgpool_bwd, false)
REGISTER(conv2d_m16, true)
REGISTER(conv2d_m32, true)
REGISTER(conv2d_m64, true)
REGISTER(conv2d_backward_input_m16, true)
REGISTER(conv2d_backward_input_m32, true)
REGISTER(conv2d_backward_input_m64, true)
REGISTER(conv2d_backward_weight_m16, true)
REGISTER(conv2d_backward_weight_m32, true)
REGISTER(conv2d_backward_weight_m64, true)
