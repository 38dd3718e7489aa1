// Reductions along an axis of a contiguous x viewed as [outer, n, inner],
// softmax and log-softmax along the last axis (log-softmax's gradient too),
// and batch-norm statistics.
#include "common.cuh"

// reduce_strip reduces chunks of the reduced axis: dst [outer, ceil(n/chunk),
// inner] gets, per chunk, the CPU's sequential fold (first element, then each
// next one), or for ArgMax/ArgMin the index of the first extreme (chunk = n).
// With chunk = n it is the whole reduction, one thread per output; a second
// call over the chunk axis finishes a split one.
template <typename T>
__device__ void reduce_strip(i64 op, i64 outer, i64 n, i64 inner, i64 chunk, const T* __restrict__ x, T* dst) {
  i64 nch = (n + chunk - 1) / chunk;
  FOR_EACH(t, outer * nch * inner) {
    i64 j = t % inner, q = t / inner, c = q % nch, o = q / nch;
    i64 i0 = c * chunk, i1 = min(n, i0 + chunk);
    const T* p = x + o * n * inner + j;
    T acc = p[i0 * inner];
    if (op == OpArgMax || op == OpArgMin) {
      i64 bi = i0;
      for (i64 i = i0 + 1; i < i1; i++) {
        T v = p[i * inner];
        if (op == OpArgMax ? v > acc : v < acc) acc = v, bi = i;
      }
      dst[t] = (T)bi;
      continue;
    }
    for (i64 i = i0 + 1; i < i1; i++) acc = combine(op, acc, p[i * inner]);
    dst[t] = acc;
  }
}

// reduce_row reduces each row of x [rows, n] (inner = 1) with one block per
// row: Sum, Max or Min.
template <typename T>
__device__ void reduce_row(i64 op, i64 rows, i64 n, const T* __restrict__ x, T* dst) {
  for (i64 r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* p = x + r * n;
    T acc = identity<T>(op);
    for (i64 i = threadIdx.x; i < n; i += blockDim.x) acc = combine(op, acc, p[i]);
    acc = block_reduce(op, acc);
    if (threadIdx.x == 0) dst[r] = acc;
  }
}

// warp_reduce combines v over a warp and returns it to every lane.
template <typename T>
__device__ __forceinline__ T warp_reduce(i64 op, T v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = combine(op, v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// row_shift is the softmax shift of the row p of k values, on every lane of
// the warp: the row maximum, or 0 when that is infinite or NaN.
template <typename T>
__device__ __forceinline__ T row_shift(const T* p, i64 k, int lane) {
  T m = -t_inf<T>();
  for (i64 j = lane; j < k; j += 32) m = combine(OpMaxR, m, p[j]);
  m = warp_reduce(OpMaxR, m);
  if (!(m > -t_inf<T>() && m < t_inf<T>())) m = 0;
  return m;
}

// softmax_rows is tensor.Softmax (logs = 0) or tensor.LogSoftmax (logs = 1)
// along the last axis of x [rows, k], one warp per row, shifted by
// row_shift.
template <typename T>
__device__ void softmax_rows(i64 rows, i64 k, const T* __restrict__ x, T* dst, i64 logs) {
  int lane = threadIdx.x & 31;
  i64 warp = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  i64 warps = ((i64)gridDim.x * blockDim.x) >> 5;
  for (i64 r = warp; r < rows; r += warps) {
    const T* p = x + r * k;
    T* q = dst + r * k;
    const T m = row_shift(p, k, lane);
    T s = 0;
    for (i64 j = lane; j < k; j += 32) s += t_exp(p[j] - m);
    s = warp_reduce(OpSum, s);
    if (logs) {
      T ls = t_log(s);
      for (i64 j = lane; j < k; j += 32) q[j] = (p[j] - m) - ls;
    } else {
      for (i64 j = lane; j < k; j += 32) q[j] = t_exp(p[j] - m) / s;
    }
  }
}

// log_softmax_backward_rows is tensor.LogSoftmaxBackward along the last axis
// of x [rows, k], one warp per row: dx = g − softmax(x)·Σ g, the softmax
// recomputed from x shifted by row_shift, as −Σg / Σ exp(x − m) times
// exp(x − m), added to g.
template <typename T>
__device__ void log_softmax_backward_rows(i64 rows, i64 k, const T* __restrict__ g, const T* __restrict__ x, T* dx) {
  int lane = threadIdx.x & 31;
  i64 warp = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  i64 warps = ((i64)gridDim.x * blockDim.x) >> 5;
  for (i64 r = warp; r < rows; r += warps) {
    const T* p = x + r * k;
    const T* gr = g + r * k;
    T* q = dx + r * k;
    const T m = row_shift(p, k, lane);
    T s = 0, t = 0;
    for (i64 j = lane; j < k; j += 32) s += t_exp(p[j] - m), t += gr[j];
    s = warp_reduce(OpSum, s);
    t = warp_reduce(OpSum, t);
    T c = -t / s;
    for (i64 j = lane; j < k; j += 32) q[j] = gr[j] + c * t_exp(p[j] - m);
  }
}

// softmax_backward_rows is tensor.SoftmaxBackward along the last axis of y
// [rows, k] (the softmax), one warp per row: dx = y·(g − Σ g·y).
template <typename T>
__device__ void softmax_backward_rows(i64 rows, i64 k, const T* __restrict__ g, const T* __restrict__ y, T* dx) {
  int lane = threadIdx.x & 31;
  i64 warp = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  i64 warps = ((i64)gridDim.x * blockDim.x) >> 5;
  for (i64 r = warp; r < rows; r += warps) {
    const T* p = y + r * k;
    const T* gr = g + r * k;
    T* q = dx + r * k;
    T t = 0;
    for (i64 j = lane; j < k; j += 32) t += gr[j] * p[j];
    t = warp_reduce(OpSum, t);
    for (i64 j = lane; j < k; j += 32) q[j] = p[j] * (gr[j] - t);
  }
}

#define REDUCE(S, T)                                                                                 \
  extern "C" __global__ void reduce_strip_##S(i64 op, i64 outer, i64 n, i64 inner, i64 chunk,         \
                                              const T* __restrict__ x, T* dst) {                      \
    reduce_strip<T>(op, outer, n, inner, chunk, x, dst);                                             \
  }                                                                                                  \
  extern "C" __global__ void reduce_row_##S(i64 op, i64 rows, i64 n, const T* __restrict__ x, T* dst) { \
    reduce_row<T>(op, rows, n, x, dst);                                                              \
  }                                                                                                  \
  extern "C" __global__ void softmax_rows_##S(i64 rows, i64 k, const T* __restrict__ x, T* dst, i64 logs) { \
    softmax_rows<T>(rows, k, x, dst, logs);                                                          \
  }                                                                                                  \
  extern "C" __global__ void log_softmax_backward_rows_##S(i64 rows, i64 k, const T* __restrict__ g,  \
                                                           const T* __restrict__ x, T* dx) {         \
    log_softmax_backward_rows<T>(rows, k, g, x, dx);                                                 \
  }                                                                                                  \
  extern "C" __global__ void softmax_backward_rows_##S(i64 rows, i64 k, const T* __restrict__ g,      \
                                                       const T* __restrict__ y, T* dx) {             \
    softmax_backward_rows<T>(rows, k, g, y, dx);                                                     \
  }
BOTH(REDUCE)
