// A CPU emulation of the parts of CUDA the kernels of src/*.cu use, so that
// the same sources, compiled by the host C++ compiler, run without a GPU.
//
// Blocks run one after another. Kernels registered without synchronisation
// run their threads one after another too; the others run each thread of a
// block as a fiber (ucontext), switching at __syncthreads and at warp
// shuffles, which release when every live thread of the block (or warp) has
// arrived. The emulation is deterministic and catches indexing, argument and
// barrier-placement errors; it does not reproduce the GPU's races, timing or
// floating-point contraction.
#pragma once
// Every product and sum rounded on its own, as the _rn intrinsics promise.
#pragma GCC optimize("fp-contract=off")

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include <bit>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "sources.h"  // a hash of src/: rebuilds the emulator when it changes

#define CUDA_EMULATOR 1

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
};

namespace emu {

// thread is the emulated thread being run.
struct thread {
  dim3 idx, block;
};
extern thread* cur;
extern dim3 block_dim, grid_dim;
unsigned char* dynamic_shared();
void syncthreads();
// exchange publishes v for the calling lane, waits for the warp, and returns
// the value published by lane src (or v when src is outside the warp).
uint64_t exchange(uint64_t v, int src);

template <typename T>
T shfl(T v, int src) {
  uint64_t bits = 0;
  memcpy(&bits, &v, sizeof v);
  bits = exchange(bits, src);
  T out;
  memcpy(&out, &bits, sizeof out);
  return out;
}

inline int lane() { return int(cur->idx.x & 31); }

// arch is the compute capability the kernels see, as 10·major + minor (the
// emulator's stand-in for __CUDA_ARCH__ / 10): kernels that differ by
// architecture take their path from it, so that the tests run each.
int arch();

// kernel is a registered __global__ function: how many 8-byte parameters it
// takes and how to call it with them.
struct kernel {
  int params;
  bool sync;  // uses __syncthreads or warp shuffles
  void (*call)(void* fn, const uint64_t* args);
  void* fn;
};
void add(const char* name, kernel k);

template <typename A>
A from_bits(uint64_t v) {
  if constexpr (std::is_pointer_v<A>)
    return reinterpret_cast<A>(v);
  else if constexpr (std::is_same_v<A, double>)
    return std::bit_cast<double>(v);
  else
    return static_cast<A>(v);
}

template <typename... A, std::size_t... I>
void call_with(void (*f)(A...), const uint64_t* a, std::index_sequence<I...>) {
  f(from_bits<A>(a[I])...);
}

template <typename... A>
struct registrar {
  registrar(const char* name, void (*f)(A...), bool sync) {
    static_assert(((sizeof(A) == 8) && ...), "kernel parameters must be 8 bytes");
    add(name, kernel{int(sizeof...(A)), sync,
                     [](void* fn, const uint64_t* a) {
                       call_with(reinterpret_cast<void (*)(A...)>(fn), a, std::index_sequence_for<A...>{});
                     },
                     reinterpret_cast<void*>(f)});
  }
};

}  // namespace emu

// REGISTER(name, sync) registers name_f32 and name_f64.
#define REGISTER(name, sync)                                     \
  static emu::registrar reg_##name##_f32(#name "_f32", name##_f32, sync); \
  static emu::registrar reg_##name##_f64(#name "_f64", name##_f64, sync);

// CUDA's language extensions and built-ins, as the kernels use them.
#define __global__
#define __device__
#define __forceinline__ inline
#define __restrict__ __restrict
#define __launch_bounds__(n)
#define __align__(n) alignas(n)
#define __shared__ static  // one block runs at a time
#define threadIdx (emu::cur->idx)
#define blockIdx (emu::cur->block)
#define blockDim (emu::block_dim)
#define gridDim (emu::grid_dim)

inline void __syncthreads() { emu::syncthreads(); }

// __trap ends the process, as a trapped kernel ends the GPU context.
[[noreturn]] inline void __trap() {
  fprintf(stderr, "emu: kernel executed __trap (an unknown op code?)\n");
  abort();
}

template <typename T>
T __shfl_down_sync(unsigned, T v, int offset) {
  int src = emu::lane() + offset;
  return emu::shfl(v, src < 32 ? src : -1);
}

template <typename T>
T __shfl_xor_sync(unsigned, T v, int mask) {
  return emu::shfl(v, emu::lane() ^ mask);
}

// __syncwarp waits for every live lane of the warp (a warp barrier: an
// exchange whose value is dropped).
inline void __syncwarp(unsigned = 0xffffffffu) { emu::exchange(0, emu::lane()); }

template <typename T>
T atomicAdd(T* p, T v) {  // threads never run concurrently
  T old = *p;
  *p = old + v;
  return old;
}

inline double __longlong_as_double(long long v) { return std::bit_cast<double>(v); }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline double __dadd_rn(double a, double b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline double __dsub_rn(double a, double b) { return a - b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline double __ddiv_rn(double a, double b) { return a / b; }
inline float __fsqrt_rn(float a) { return sqrtf(a); }
inline double __dsqrt_rn(double a) { return sqrt(a); }
