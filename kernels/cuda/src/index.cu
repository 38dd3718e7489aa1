// Gather and ScatterAdd along an axis, with one int64 index per element of
// the walked shape (dst's for gather, src's for scatter_add). meta is that
// shape's nd sizes followed by the other operand's nd strides.
#include "common.cuh"

// other_offset is the offset in the other operand of row-major position i of
// the walked shape, with the coordinate along axis replaced by idx.
__device__ __forceinline__ i64 other_offset(i64 i, i64 nd, i64 axis, const i64* __restrict__ meta, i64 idx) {
  i64 off = 0;
  for (i64 d = nd - 1; d >= 0; d--) {
    i64 c = i % meta[d];
    i /= meta[d];
    off += (d == axis ? idx : c) * meta[nd + d];
  }
  return off;
}

#define INDEX(S, T)                                                                                          \
  extern "C" __global__ void gather_##S(i64 n, i64 nd, i64 axis, const i64* __restrict__ meta,                \
                                        const i64* __restrict__ idx, const T* __restrict__ x, T* dst) {      \
    FOR_EACH(i, n) dst[i] = x[other_offset(i, nd, axis, meta, idx[i])];                                      \
  }                                                                                                          \
  extern "C" __global__ void scatter_add_##S(i64 n, i64 nd, i64 axis, const i64* __restrict__ meta,           \
                                             const i64* __restrict__ idx, const T* __restrict__ src, T* dst) { \
    FOR_EACH(i, n) atomicAdd(dst + other_offset(i, nd, axis, meta, idx[i]), src[i]);                         \
  }
BOTH(INDEX)
