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

// The large-matrix kernel: a block of 256 threads computes a BM×BN = 128×128
// tile of C, each thread an 8×8 micro-tile (rows 4·ty + {0..3} and
// 64 + 4·ty + {0..3}, columns likewise with tx), stepping through k in slices
// of BK = 8. Both operands' slices are stored k-major in shared memory
// (xs[l][i]) so that the inner loop reads each thread's four rows or columns
// with one 16-byte load; the rows are padded by 4 elements against bank
// conflicts. Shared memory is double-buffered: each step loads the next
// slice from global memory into registers before computing on the current
// one, then stores it into the other buffer (one barrier per step).
//
// Global loads are 16 bytes wide (4 floats or 2 doubles) when the operand's
// unit stride and 16-byte alignment allow (along k, or along the rows or
// columns), element by element otherwise and at the matrix's edges, so that
// every stride combination stays correct.
//
// Resources (ptxas 11.8 -v on the PTX, sm_80 / sm_90): float, compiled for
// two blocks per SM, 128 registers a thread, 48 / 64 bytes of spills (one
// 4-byte reload per slice of the main loop, the rest outside it); double,
// one block per SM, 255 registers, 88 / 64 bytes of spills, none in the main
// loop. Shared memory: 16.5 KiB (float), 33 KiB (double).
#define BM 128
#define BK 8
#define RL (BM + 4)  // shared row length: padded against bank conflicts

// vec is the 16-byte unit of the vectorised loads and stores.
template <typename T>
struct __align__(16) vec {
  T v[16 / sizeof(T)];
};

// slice loads one operand of the large kernel, a matrix of len rows (m for
// A, n for B) by k with strides so along the rows and sk along k, one BM×BK
// slice at a time. Each thread reads 4 elements, in chunks of V (the 16-byte
// width) consecutive along the operand's fast dimension: k when its stride
// is 1 (a row-major A, a transposed B), the rows otherwise. A chunk is one
// 16-byte load when the layout allows it (unit fast stride, 16-byte aligned
// chunks) and it lies inside the matrix, V element loads otherwise.
template <typename T>
struct slice {
  static constexpr int V = 16 / sizeof(T), NV = 4 / V;
  const T* g[NV];  // each chunk's first element in the current slice
  i64 sf, step;    // stride along the fast dimension; k step of a slice
  i64 room[NV];    // fastK: is the chunk's row inside; otherwise its rows left
  bool fastK, wide;

  // i and l are chunk q's row and depth in the slice.
  __device__ __forceinline__ void chunk(int tid, int q, int& i, int& l) const {
    int e = tid + 256 * q;
    if (fastK) {
      i = e / (BK / V);
      l = e % (BK / V) * V;
    } else {
      l = e / (BM / V);
      i = e % (BM / V) * V;
    }
  }

  __device__ __forceinline__ slice(int tid, const T* p, i64 so, i64 sk, i64 len, i64 o0, i64 k0) {
    fastK = sk == 1 && so != 1;
    sf = fastK ? sk : so;
    step = BK * sk;
    i64 slow = fastK ? so : sk;
    wide = sf == 1 && slow % V == 0 && (unsigned long long)p % 16 == 0;
#pragma unroll
    for (int q = 0; q < NV; q++) {
      int i, l;
      chunk(tid, q, i, l);
      g[q] = p + (o0 + i) * so + (k0 + l) * sk;
      room[q] = fastK ? o0 + i < len : len - o0 - i;
    }
  }

  // load reads this thread's elements of the slice at depth k0 into r (zero
  // beyond the matrix and beyond kend) and steps to the next slice.
  __device__ __forceinline__ void load(int tid, i64 k0, i64 kend, T r[4]) {
#pragma unroll
    for (int q = 0; q < NV; q++) {
      int i, l;
      chunk(tid, q, i, l);
      i64 kleft = kend - k0 - l;  // depths left from the chunk's
      bool in = fastK ? room[q] != 0 : kleft > 0;
      i64 n = fastK ? kleft : room[q];  // elements left along the fast dimension
      if (wide && in && n >= V) {
        vec<T> x = *(const vec<T>*)g[q];
#pragma unroll
        for (int w = 0; w < V; w++) r[q * V + w] = x.v[w];
      } else {
#pragma unroll
        for (int w = 0; w < V; w++) r[q * V + w] = in && w < n ? g[q][w * sf] : (T)0;
      }
      g[q] += step;
    }
  }

  // store puts the elements load read into xs, k-major.
  __device__ __forceinline__ void store(int tid, const T r[4], T (*xs)[RL]) const {
#pragma unroll
    for (int q = 0; q < NV; q++) {
      int i, l;
      chunk(tid, q, i, l);
      if (fastK) {
#pragma unroll
        for (int w = 0; w < V; w++) xs[l + w][i] = r[q * V + w];
      } else {
        vec<T> x;
#pragma unroll
        for (int w = 0; w < V; w++) x.v[w] = r[q * V + w];
        *(vec<T>*)&xs[l][i] = x;
      }
    }
  }
};

// frag reads a thread's 8 rows (or columns) of one depth of a slice: 4 at
// 4·t and 4 at 64 + 4·t, in 16-byte loads.
template <typename T>
__device__ __forceinline__ void frag(const T* row, int t, T f[8]) {
  constexpr int V = 16 / sizeof(T);
#pragma unroll
  for (int g = 0; g < 2; g++)
#pragma unroll
    for (int h = 0; h < 4; h += V) {
      vec<T> x = *(const vec<T>*)&row[g * 64 + 4 * t + h];
#pragma unroll
      for (int w = 0; w < V; w++) f[g * 4 + h + w] = x.v[w];
    }
}

template <typename T>
__device__ void mm_big(MM_PARAMS(T)) {
  __align__(16) __shared__ T as[2][BK][RL];
  __align__(16) __shared__ T bs[2][BK][RL];
  constexpr int V = 16 / sizeof(T);
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  for (i64 z = blockIdx.z; z < batch * splits; z += gridDim.z)
    for (i64 by = blockIdx.y; by * BM < m; by += gridDim.y)
      for (i64 bx = blockIdx.x; bx * BM < n; bx += gridDim.x) {
        const i64 kbeg = (z % splits) * kc, kend = min(k, kbeg + kc);
        const i64 row0 = by * BM, col0 = bx * BM;
        slice<T> sa(tid, a + (z / splits) * sa0, sa1, sa2, m, row0, kbeg);
        slice<T> sb(tid, b + (z / splits) * sb0, sb2, sb1, n, col0, kbeg);
        T acc[8][8];
#pragma unroll
        for (int u = 0; u < 8; u++)
#pragma unroll
          for (int v = 0; v < 8; v++) acc[u][v] = 0;
        T ra[4], rb[4];
        sa.load(tid, kbeg, kend, ra);
        sb.load(tid, kbeg, kend, rb);
        sa.store(tid, ra, as[0]);
        sb.store(tid, rb, bs[0]);
        __syncthreads();
        int cur = 0;
        for (i64 k0 = kbeg; k0 < kend; k0 += BK) {
          const bool next = k0 + BK < kend;
          if (next) {
            sa.load(tid, k0 + BK, kend, ra);
            sb.load(tid, k0 + BK, kend, rb);
          }
#pragma unroll
          for (int l = 0; l < BK; l++) {
            T fa[8], fb[8];
            frag(as[cur][l], ty, fa);
            frag(bs[cur][l], tx, fb);
#pragma unroll
            for (int u = 0; u < 8; u++)
#pragma unroll
              for (int v = 0; v < 8; v++) acc[u][v] += fa[u] * fb[v];
          }
          if (next) {
            sa.store(tid, ra, as[cur ^ 1]);
            sb.store(tid, rb, bs[cur ^ 1]);
          }
          __syncthreads();
          cur ^= 1;
        }
        T* pc = c + z * sc0;
        const bool vc = sc2 == 1 && sc1 % V == 0 && (unsigned long long)pc % 16 == 0;
#pragma unroll
        for (int u = 0; u < 8; u++) {
          i64 i = row0 + u / 4 * 64 + 4 * ty + u % 4;
          if (i >= m) continue;
#pragma unroll
          for (int h = 0; h < 8; h += V) {
            i64 j = col0 + h / 4 * 64 + 4 * tx + h % 4;
            T* p = pc + i * sc1 + j * sc2;
            if (vc && j + V <= n) {
              vec<T> x;
              if (beta != 0) x = *(const vec<T>*)p;
#pragma unroll
              for (int w = 0; w < V; w++) x.v[w] = beta != 0 ? acc[u][h + w] + x.v[w] : acc[u][h + w];
              *(vec<T>*)p = x;
            } else {
#pragma unroll
              for (int w = 0; w < V; w++)
                if (j + w < n) p[w * sc2] = beta != 0 ? acc[u][h + w] + p[w * sc2] : acc[u][h + w];
            }
          }
        }
      }
}

// Blocks per SM the large kernel is compiled for: two for float (at most 128
// registers a thread), one for double.
#ifdef CUDA_EMULATOR
#define BIG_BOUNDS(S)
#else
#define BIG_BOUNDS(S) __launch_bounds__(256, BIG_BLOCKS_##S)
#endif
#define BIG_BLOCKS_f32 2
#define BIG_BLOCKS_f64 1
#define MATMUL(S, T)                                                                                   \
  extern "C" __global__ void matmul_naive_##S(MM_PARAMS(T)) { mm_naive<T>(MM_PASS); }                     \
  extern "C" __global__ void __launch_bounds__(256) matmul_tiled_##S(MM_PARAMS(T)) { mm_tiled<T>(MM_PASS); } \
  extern "C" __global__ void BIG_BOUNDS(S) matmul_big_##S(MM_PARAMS(T)) { mm_big<T>(MM_PASS); }
BOTH(MATMUL)
