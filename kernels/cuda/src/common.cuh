// Helpers shared by the kernels of this package.
//
// Every kernel parameter is 8 bytes wide (a pointer, a long long or a double):
// gorgonia.org/cu copies each launch argument as 8 bytes. Kernels are written
// once as templates and instantiated for float (suffix _f32) and double
// (suffix _f64) by BOTH.
#pragma once

#include "ops.h"  // the op codes, generated from tensor/device.go

typedef long long i64;

// BOTH(M) expands M(suffix, type) for float and double.
#define BOTH(M) M(f32, float) M(f64, double)

// DYNAMIC_SHARED declares the block's dynamic shared memory (the launch's
// shared bytes) as an unsigned char array; internal/emu, the CPU emulator the
// tests run the kernels on without a GPU, gives it as a pointer instead.
#ifdef CUDA_EMULATOR
#define DYNAMIC_SHARED(name) unsigned char* name = emu::dynamic_shared()
#else
#define DYNAMIC_SHARED(name) extern __shared__ __align__(8) unsigned char name[]
#endif

// FOR_EACH is a grid-stride loop over [0, n): correct for any grid size, so
// launches cap the grid and very large n still works.
#define FOR_EACH(i, n)                                                    \
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < (i64)(n); \
       i += (i64)blockDim.x * gridDim.x)

// strided_offsets sets off[k] to the element offset of row-major position i
// in operand k. meta is nd sizes followed by nd strides per operand (the
// coalesced layout of the Go side); meta == nullptr means every operand is
// dense, so the offset is i itself.
template <int K>
__device__ __forceinline__ void strided_offsets(i64 i, i64 nd, const i64* __restrict__ meta, i64 off[K]) {
#pragma unroll
  for (int k = 0; k < K; k++) off[k] = meta == nullptr ? i : 0;
  if (meta == nullptr) return;
  for (i64 d = nd - 1; d >= 0; d--) {
    i64 s = meta[d];
    i64 c = i % s;
    i /= s;
#pragma unroll
    for (int k = 0; k < K; k++) off[k] += c * meta[(k + 1) * nd + d];
  }
}

// Go's max and min builtins: NaN if either operand is NaN, and
// max(−0, +0) = +0, min(−0, +0) = −0.
template <typename T>
__device__ __forceinline__ T go_max(T x, T y) {
  if (x != x) return x;
  if (y != y) return y;
  if (x == y) return signbit(x) ? y : x;
  return x > y ? x : y;
}

template <typename T>
__device__ __forceinline__ T go_min(T x, T y) {
  if (x != x) return x;
  if (y != y) return y;
  if (x == y) return signbit(x) ? x : y;
  return x < y ? x : y;
}

// Arithmetic rounded as the CPU rounds it: the _rn intrinsics are never
// contracted into fused multiply-adds (nvcc contracts a·b + c by default; Go
// on amd64 rounds the product first). Two copies of one expression can
// otherwise round differently in one kernel.
__device__ __forceinline__ float mul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ float add(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double add(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float sub(float a, float b) { return __fsub_rn(a, b); }
__device__ __forceinline__ double sub(double a, double b) { return __dsub_rn(a, b); }
__device__ __forceinline__ float quo(float a, float b) { return __fdiv_rn(a, b); }
__device__ __forceinline__ double quo(double a, double b) { return __ddiv_rn(a, b); }
__device__ __forceinline__ float root(float a) { return __fsqrt_rn(a); }
__device__ __forceinline__ double root(double a) { return __dsqrt_rn(a); }

__device__ __forceinline__ float t_exp(float x) { return expf(x); }
__device__ __forceinline__ double t_exp(double x) { return exp(x); }
__device__ __forceinline__ float t_log(float x) { return logf(x); }
__device__ __forceinline__ double t_log(double x) { return log(x); }

template <typename T>
__device__ __forceinline__ T t_inf() { return (T)__longlong_as_double(0x7ff0000000000000LL); }


// combine folds v into acc as the CPU's sequential loop does: the sum, or the
// extreme with NaN winning.
template <typename T>
__device__ __forceinline__ T combine(i64 op, T acc, T v) {
  switch (op) {
    case OpSum: return acc + v;
    case OpMaxR: return (v > acc || v != v) && acc == acc ? v : acc;
    default: return (v < acc || v != v) && acc == acc ? v : acc;
  }
}

template <typename T>
__device__ __forceinline__ T identity(i64 op) {
  return op == OpSum ? (T)0 : op == OpMaxR ? -t_inf<T>() : t_inf<T>();
}

// block_reduce combines v over the block (blockDim.x a multiple of 32, at
// most 1024) and returns the result to every thread.
template <typename T>
__device__ T block_reduce(i64 op, T v) {
  __shared__ T part[32];
  __syncthreads();  // part may still be read by a previous call
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = combine(op, v, __shfl_down_sync(0xffffffffu, v, o));
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) part[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (int)(blockDim.x >> 5) ? part[lane] : identity<T>(op);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v = combine(op, v, __shfl_down_sync(0xffffffffu, v, o));
    if (lane == 0) part[0] = v;
  }
  __syncthreads();
  return part[0];
}

// vec is the 16-byte unit of the vectorised loads and stores.
template <typename T>
struct __align__(16) vec {
  T v[16 / sizeof(T)];
};

// read4 reads 4 consecutive elements of shared memory at a 16-byte
// aligned p, in 16-byte loads.
template <typename T>
__device__ __forceinline__ void read4(const T* p, T f[4]) {
  constexpr int V = 16 / sizeof(T);
#pragma unroll
  for (int h = 0; h < 4; h += V) {
    vec<T> x = *(const vec<T>*)&p[h];
#pragma unroll
    for (int w = 0; w < V; w++) f[h + w] = x.v[w];
  }
}

// fma4x4 adds the products of a K-deep pair of k-major tiles in shared
// memory (as [K][LA], bs [K][LB]) to a thread's 4×4 outputs acc: rows
// 4·ty + {0..3}, columns 4·tx + {0..3}, read with 16-byte loads.
template <typename T, int K, int LA, int LB>
__device__ __forceinline__ void fma4x4(const T (*as)[LA], const T (*bs)[LB], int ty, int tx, T acc[4][4]) {
#pragma unroll
  for (int l = 0; l < K; l++) {
    T ra[4], rb[4];
    read4(&as[l][4 * ty], ra);
    read4(&bs[l][4 * tx], rb);
#pragma unroll
    for (int u = 0; u < 4; u++)
#pragma unroll
      for (int v = 0; v < 4; v++) acc[u][v] += ra[u] * rb[v];
  }
}
