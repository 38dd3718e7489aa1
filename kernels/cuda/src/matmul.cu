// Batched matrix product C[b] = A[b]·B[b] (+ beta·C[b]) of strided views:
// A [batch, m, k], B [batch, k, n], C [batch, m, n], each with its own three
// element strides (a batch stride of 0 broadcasts one matrix; transposed
// views have a unit row stride). beta is 0 (C is only written) or 1 (the
// product is added to C).
//
// Split k: with splits > 1 the depth is cut into slices of kc, and C has
// batch·splits matrices, matrix z·splits + s holding the product over slice
// s of batch z (the caller adds the slices). With splits = 1, kc = k.
#include "common.cuh"

#define MM_PARAMS(T)                                                                                           \
  i64 batch, i64 m, i64 n, i64 k, const T *__restrict__ a, i64 sa0, i64 sa1, i64 sa2, const T *__restrict__ b, \
      i64 sb0, i64 sb1, i64 sb2, T *c, i64 sc0, i64 sc1, i64 sc2, double beta, i64 kc, i64 splits
#define MM_PASS batch, m, n, k, a, sa0, sa1, sa2, b, sb0, sb1, sb2, c, sc0, sc1, sc2, beta, kc, splits

// mm_naive computes one element of C per thread: for small matrices, where a
// tile would be mostly idle.
template <typename T>
__device__ void mm_naive(MM_PARAMS(T)) {
  FOR_EACH(t, batch * splits * m * n) {
    i64 j = t % n, i = (t / n) % m, z = t / (m * n), s = z % splits;
    const T* pa = a + (z / splits) * sa0 + i * sa1;
    const T* pb = b + (z / splits) * sb0 + j * sb2;
    T acc = 0;
    for (i64 l = s * kc; l < min(k, s * kc + kc); l++) acc += pa[l * sa2] * pb[l * sb1];
    T* pc = c + z * sc0 + i * sc1 + j * sc2;
    *pc = beta != 0 ? acc + *pc : acc;
  }
}

// Tile of the shared-memory kernel: a block of 256 threads computes a TM×TN
// tile of C, each thread a 4×4 grid of elements spaced 16 apart (so that
// neighbouring threads touch neighbouring columns), stepping through k in
// slices of TK held in shared memory.
#define TM 64
#define TN 64
#define TK 16

template <typename T>
__device__ void mm_tiled(MM_PARAMS(T)) {
  __shared__ T as[TK][TM];
  __shared__ T bs[TK][TN];
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  // Load order: along k when that is the operand's unit stride, so that
  // neighbouring threads read neighbouring addresses.
  const bool aAlongK = sa2 == 1 && sa1 != 1, bAlongK = sb1 == 1 && sb2 != 1;
  for (i64 z = blockIdx.z; z < batch * splits; z += gridDim.z)
    for (i64 by = blockIdx.y; by * TM < m; by += gridDim.y)
      for (i64 bx = blockIdx.x; bx * TN < n; bx += gridDim.x) {
        const T* pa = a + (z / splits) * sa0;
        const T* pb = b + (z / splits) * sb0;
        const i64 kend = min(k, (z % splits) * kc + kc);
        const i64 row0 = by * TM, col0 = bx * TN;
        T acc[4][4];
#pragma unroll
        for (int u = 0; u < 4; u++)
#pragma unroll
          for (int v = 0; v < 4; v++) acc[u][v] = 0;
        for (i64 k0 = (z % splits) * kc; k0 < kend; k0 += TK) {
          for (int e = tid; e < TM * TK; e += 256) {
            int i = aAlongK ? e / TK : e % TM, l = aAlongK ? e % TK : e / TM;
            i64 gi = row0 + i, gl = k0 + l;
            as[l][i] = gi < m && gl < kend ? pa[gi * sa1 + gl * sa2] : (T)0;
          }
          for (int e = tid; e < TN * TK; e += 256) {
            int j = bAlongK ? e / TK : e % TN, l = bAlongK ? e % TK : e / TN;
            i64 gj = col0 + j, gl = k0 + l;
            bs[l][j] = gj < n && gl < kend ? pb[gl * sb1 + gj * sb2] : (T)0;
          }
          __syncthreads();
#pragma unroll
          for (int l = 0; l < TK; l++) {
            T ra[4], rb[4];
#pragma unroll
            for (int u = 0; u < 4; u++) ra[u] = as[l][ty + 16 * u];
#pragma unroll
            for (int v = 0; v < 4; v++) rb[v] = bs[l][tx + 16 * v];
#pragma unroll
            for (int u = 0; u < 4; u++)
#pragma unroll
              for (int v = 0; v < 4; v++) acc[u][v] += ra[u] * rb[v];
          }
          __syncthreads();
        }
#pragma unroll
        for (int u = 0; u < 4; u++) {
          i64 i = row0 + ty + 16 * u;
          if (i >= m) continue;
#pragma unroll
          for (int v = 0; v < 4; v++) {
            i64 j = col0 + tx + 16 * v;
            if (j >= n) continue;
            T* pc = c + z * sc0 + i * sc1 + j * sc2;
            *pc = beta != 0 ? acc[u][v] + *pc : acc[u][v];
          }
        }
      }
}

#define MATMUL(S, T)                                                                                   \
  extern "C" __global__ void matmul_naive_##S(MM_PARAMS(T)) { mm_naive<T>(MM_PASS); }                     \
  extern "C" __global__ void __launch_bounds__(256) matmul_tiled_##S(MM_PARAMS(T)) { mm_tiled<T>(MM_PASS); }
BOTH(MATMUL)
