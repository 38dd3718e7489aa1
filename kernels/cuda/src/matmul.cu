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

// put writes a thread's V consecutive outputs x, row i and columns j.. of
// the tile of C at pc, skipping those outside its first mr rows and nr
// columns (the matrix's edge), adding them to C when beta is 1; one 16-byte
// access when vc (C's rows are unit-stride and 16-byte aligned).
template <typename T>
__device__ __forceinline__ void put(T* pc, int mr, int nr, i64 sc1, i64 sc2, bool vc, double beta, int i, int j,
                                    const T* x) {
  constexpr int V = 16 / sizeof(T);
  if (i >= mr) return;
  T* p = pc + i * sc1 + j * sc2;
  if (vc && j + V <= nr) {
    vec<T> y;
    if (beta != 0) y = *(const vec<T>*)p;
#pragma unroll
    for (int w = 0; w < V; w++) y.v[w] = beta != 0 ? x[w] + y.v[w] : x[w];
    *(vec<T>*)p = y;
  } else {
#pragma unroll
    for (int w = 0; w < V; w++)
      if (j + w < nr) p[w * sc2] = beta != 0 ? x[w] + p[w * sc2] : x[w];
  }
}

// The shared-memory kernels: a block of 256 threads computes a TM×TN tile of
// C (TM·TN = 4096: 64×64 for mid-sized matrices, 32×128 for few rows and
// many columns, such as a convolution's output channels by its pixels), each
// thread a 4×4 block of it (rows 4·ty + {0..3}, columns 4·tx + {0..3}, read
// from shared memory with 16-byte loads), stepping through k in slices of TK
// held k-major in shared memory, rows padded by 4 elements against bank
// conflicts. Resources (ptxas 11.8, sm_80 / sm_90), 64×64: float 97 / 128
// registers, double 128; 32×128: float 128 / 127, double 128; no spills.
#define TK 16

template <typename T, int TM, int TN>
__device__ void mm_tiled(MM_PARAMS(T)) {
  static_assert(TM * TN == 4096, "256 threads of 4×4 outputs");
  __align__(16) __shared__ T as[TK][TM + 4];
  __align__(16) __shared__ T bs[TK][TN + 4];
  constexpr int V = 16 / sizeof(T);
  const int tid = threadIdx.x, tx = tid % (TN / 4), ty = tid / (TN / 4);
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
          fma4x4<T, TK, TM + 4, TN + 4>(as, bs, ty, tx, acc);
          __syncthreads();
        }
        // Element stores: 16-byte ones cost this kernel registers (spills).
        T* pc = c + z * sc0 + row0 * sc1 + col0 * sc2;
        const int mr = min(m - row0, (i64)TM), nr = min(n - col0, (i64)TN);
#pragma unroll
        for (int u = 0; u < 4; u++)
#pragma unroll
          for (int h = 0; h < 4; h += V) put(pc, mr, nr, sc1, sc2, false, beta, 4 * ty + u, 4 * tx + h, &acc[u][h]);
      }
}

// The large-matrix kernel: a block of 256 threads computes a BM×BM = 128×128
// tile of C, stepping through k in slices of BK = 8. Both operands' slices
// are stored k-major in shared memory (xs[l][i]), rows padded by 4 elements
// against bank conflicts, and double-buffered: each step loads the next
// slice from global memory into registers before computing on the current
// one, then stores it into the other buffer (one barrier per step). The
// arithmetic is simt's for float (8×8 outputs a thread on the CUDA cores)
// and dmma's for double (the FP64 tensor cores).
//
// Global loads are 16 bytes wide (4 floats or 2 doubles) when the operand's
// unit stride and 16-byte alignment allow (along k, or along the rows or
// columns), element by element otherwise and at the matrix's edges, so that
// every stride combination stays correct.
//
// Resources (ptxas 11.8 -v on the PTX, sm_80 / sm_90): float, compiled for
// two blocks per SM, 128 registers a thread, 8 / 12 bytes of spill stores
// (none in the main loop for sm_80, one 4-byte reload a slice for sm_90);
// double, one block per SM, 254 / 236 registers, no spills. Shared memory:
// 16.5 KiB (float), 33 KiB (double). The driver JIT-compiles the PTX with
// its own ptxas, whose allocation may differ.
#define BM 128
#define BK 8
#define RL (BM + 4)  // shared row length: padded against bank conflicts

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

// simt is the large kernel's arithmetic on the CUDA cores: each thread owns
// an 8×8 micro-tile, rows 4·ty + {0..3} and 64 + 4·ty + {0..3} of the block's
// tile, columns likewise with tx, and reads them from the slices with 16-byte
// loads.
template <typename T>
struct simt {
  T acc[8][8];
  int tx, ty;

  __device__ __forceinline__ simt() : tx(threadIdx.x % 16), ty(threadIdx.x / 16) {
#pragma unroll
    for (int u = 0; u < 8; u++)
#pragma unroll
      for (int v = 0; v < 8; v++) acc[u][v] = 0;
  }

  // frag reads 8 rows (or columns) of one depth of a slice: 4 at 4·t and 4
  // at 64 + 4·t.
  __device__ __forceinline__ static void frag(const T* row, int t, T f[8]) {
    read4(&row[4 * t], f);
    read4(&row[64 + 4 * t], f + 4);
  }

  // step adds the products of one BK-deep pair of slices.
  __device__ __forceinline__ void step(const T (*as)[RL], const T (*bs)[RL]) {
#pragma unroll
    for (int l = 0; l < BK; l++) {
      T fa[8], fb[8];
      frag(as[l], ty, fa);
      frag(bs[l], tx, fb);
#pragma unroll
      for (int u = 0; u < 8; u++)
#pragma unroll
        for (int v = 0; v < 8; v++) acc[u][v] += fa[u] * fb[v];
    }
  }

  template <typename Put>
  __device__ __forceinline__ void store(Put put) const {
    constexpr int V = 16 / sizeof(T);
#pragma unroll
    for (int u = 0; u < 8; u++)
#pragma unroll
      for (int h = 0; h < 8; h += V) put(u / 4 * 64 + 4 * ty + u % 4, h / 4 * 64 + 4 * tx + h % 4, &acc[u][h]);
  }
};

// warp64x32 is a warp's part of the 128×128 tile for the tensor-core
// arithmetic: warp w takes rows r0 = 64·(w / 4) and columns c0 = 32·(w % 4).
struct warp64x32 {
  int lane, r0, c0;
  __device__ __forceinline__ warp64x32()
      : lane(threadIdx.x % 32), r0(64 * (threadIdx.x / 32 / 4)), c0(32 * (threadIdx.x / 32 % 4)) {}
};

// dmma is the large kernel's double-precision arithmetic on the FP64 tensor
// cores (sm_80 and newer): mma.sync m8n8k4, each warp computing a 64×32
// part of the block's tile (warp w: rows 64·(w / 4), columns 32·(w % 4)) as
// 8×4 products of 8×8 tiles. In an m8n8k4 product lane L holds A[L/4][L%4],
// B[L%4][L/4] and C[L/4][2·(L%4) + {0, 1}].
struct dmma : warp64x32 {
  double acc[8][4][2];

  __device__ __forceinline__ dmma() {
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
      for (int j = 0; j < 4; j++) acc[i][j][0] = acc[i][j][1] = 0;
  }

  __device__ __forceinline__ void step(const double (*as)[RL], const double (*bs)[RL]) {
#pragma unroll
    for (int l = 0; l < BK; l += 4) {
      double fa[8], fb[4];
#pragma unroll
      for (int i = 0; i < 8; i++) fa[i] = as[l + lane % 4][r0 + 8 * i + lane / 4];
#pragma unroll
      for (int j = 0; j < 4; j++) fb[j] = bs[l + lane % 4][c0 + 8 * j + lane / 4];
      mma(fa, fb);
    }
  }

#ifndef CUDA_EMULATOR
  __device__ __forceinline__ void mma(const double fa[8], const double fb[4]) {
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
      for (int j = 0; j < 4; j++)
        asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
            : "+d"(acc[i][j][0]), "+d"(acc[i][j][1])
            : "d"(fa[i]), "d"(fb[j]));
  }
#else
  // The emulator's mma: the warp's lanes publish their fragments, and each
  // computes its outputs from the others' as the instruction does.
  void mma(const double fa[8], const double fb[4]) {
    static double sa[8][8][32], sb[8][4][32];  // [warp][tile][lane]
    int w = threadIdx.x / 32;
    for (int i = 0; i < 8; i++) sa[w][i][lane] = fa[i];
    for (int j = 0; j < 4; j++) sb[w][j][lane] = fb[j];
    emu::exchange(0, 0);  // every lane has published
    int r = lane / 4, q = lane % 4;
    for (int i = 0; i < 8; i++)
      for (int j = 0; j < 4; j++)
        for (int h = 0; h < 2; h++)
          for (int kk = 0; kk < 4; kk++) acc[i][j][h] += sa[w][i][4 * r + kk] * sb[w][j][4 * (2 * q + h) + kk];
    emu::exchange(0, 0);  // every lane has read
  }
#endif

  template <typename Put>
  __device__ __forceinline__ void store(Put put) const {
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
      for (int j = 0; j < 4; j++) put(r0 + 8 * i + lane / 4, c0 + 8 * j + 2 * (lane % 4), acc[i][j]);
  }
};

// dmma16 is dmma for sm_90 (Hopper), whose FP64 tensor cores take the
// m16n8k8 shape (SASS DMMA.16x8x8; m8n8k4 also runs there, at a lower rate):
// each warp computes the same 64×32 part of the block's tile as 4×4 products
// of 16×8 tiles, one k8 step a slice. With g = L/4 and t = L%4, lane L holds
// A[g][t], A[g+8][t], A[g][t+4], A[g+8][t+4]; B[t][g], B[t+4][g]; and
// C[g][2t + {0, 1}], C[g+8][2t + {0, 1}].
struct dmma16 : warp64x32 {
  double acc[4][4][4];

  __device__ __forceinline__ dmma16() {
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
      for (int j = 0; j < 4; j++)
#pragma unroll
        for (int h = 0; h < 4; h++) acc[i][j][h] = 0;
  }

  // step loads B's four fragments, then A's tile by tile, each followed by
  // its four products (fewer fragments live at once: no spills).
  __device__ __forceinline__ void step(const double (*as)[RL], const double (*bs)[RL]) {
    static_assert(BK == 8, "one m16n8k8 step a slice");
    const int g = lane / 4, t = lane % 4;
    double fb[4][2];
#pragma unroll
    for (int j = 0; j < 4; j++) {
      fb[j][0] = bs[t][c0 + 8 * j + g];
      fb[j][1] = bs[t + 4][c0 + 8 * j + g];
    }
#pragma unroll
    for (int i = 0; i < 4; i++) {
      const double fa[4] = {as[t][r0 + 16 * i + g], as[t][r0 + 16 * i + g + 8], as[t + 4][r0 + 16 * i + g],
                            as[t + 4][r0 + 16 * i + g + 8]};
#pragma unroll
      for (int j = 0; j < 4; j++) mma(acc[i][j], fa, fb[j]);
    }
  }

#ifndef CUDA_EMULATOR
  __device__ __forceinline__ static void mma(double c[4], const double a[4], const double b[2]) {
#if __CUDA_ARCH__ >= 900
    asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
#else
    __trap();  // not reached: the compute_80 build never takes dmma16 (big_acc)
#endif
  }
#else
  // The emulator's mma, as dmma's: the lanes publish their fragments, each
  // computes its outputs C[g + 8·(h/2)][2t + h%2] from the lanes holding
  // A[row][kk] (lane 4·(row%8) + kk%4, element row/8 + 2·(kk/4)) and
  // B[kk][col] (lane 4·col + kk%4, element kk/4), then waits for the warp.
  void mma(double c[4], const double a[4], const double b[2]) {
    static double sa[8][4][32], sb[8][2][32];  // [warp][element][lane]
    int w = threadIdx.x / 32;
    for (int e = 0; e < 4; e++) sa[w][e][lane] = a[e];
    for (int e = 0; e < 2; e++) sb[w][e][lane] = b[e];
    emu::exchange(0, 0);
    const int g = lane / 4, t = lane % 4;
    for (int h = 0; h < 4; h++) {
      int row = g + 8 * (h / 2), col = 2 * t + h % 2;
      for (int kk = 0; kk < 8; kk++)
        c[h] += sa[w][row / 8 + 2 * (kk / 4)][4 * (row % 8) + kk % 4] * sb[w][kk / 4][4 * col + kk % 4];
    }
    emu::exchange(0, 0);
  }
#endif

  template <typename Put>
  __device__ __forceinline__ void store(Put put) const {
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
      for (int j = 0; j < 4; j++) {
        put(r0 + 16 * i + lane / 4, c0 + 8 * j + 2 * (lane % 4), &acc[i][j][0]);
        put(r0 + 16 * i + lane / 4 + 8, c0 + 8 * j + 2 * (lane % 4), &acc[i][j][2]);
      }
  }
};

// mm_big runs the large kernel with the arithmetic of Acc (simt or dmma).
template <typename T, typename Acc>
__device__ void mm_big(MM_PARAMS(T)) {
  __align__(16) __shared__ T as[2][BK][RL];
  __align__(16) __shared__ T bs[2][BK][RL];
  constexpr int V = 16 / sizeof(T);
  const int tid = threadIdx.x;
  for (i64 z = blockIdx.z; z < batch * splits; z += gridDim.z)
    for (i64 by = blockIdx.y; by * BM < m; by += gridDim.y)
      for (i64 bx = blockIdx.x; bx * BM < n; bx += gridDim.x) {
        const i64 kbeg = (z % splits) * kc, kend = min(k, kbeg + kc);
        const i64 row0 = by * BM, col0 = bx * BM;
        slice<T> sa(tid, a + (z / splits) * sa0, sa1, sa2, m, row0, kbeg);
        slice<T> sb(tid, b + (z / splits) * sb0, sb2, sb1, n, col0, kbeg);
        Acc acc;
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
          acc.step(as[cur], bs[cur]);
          if (next) {
            sa.store(tid, ra, as[cur ^ 1]);
            sb.store(tid, rb, bs[cur ^ 1]);
          }
          __syncthreads();
          cur ^= 1;
        }
        T* pc = c + z * sc0;
        const bool vc = sc2 == 1 && sc1 % V == 0 && (unsigned long long)pc % 16 == 0;
        pc += row0 * sc1 + col0 * sc2;
        const int mr = min(m - row0, (i64)BM), nr = min(n - col0, (i64)BM);
        acc.store([&](int i, int j, const T* x) { put(pc, mr, nr, sc1, sc2, vc, beta, i, j, x); });
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

// big_acc is the large kernel's arithmetic: simt for float; for double dmma,
// or dmma16 where the module is compiled for sm_90 (gen.sh compiles this
// file for compute_80 and compute_90; the driver loads the one the device
// runs best). The emulator takes the architecture it emulates at run time
// (emu::arch), so that its tests run both.
template <typename A>
struct tag {
  typedef A type;
};
template <typename T>
struct big_acc {
  template <typename F>
  __device__ __forceinline__ static void run(F f) {
    f(tag<simt<T>>());
  }
};
template <>
struct big_acc<double> {
  template <typename F>
  __device__ __forceinline__ static void run(F f) {
#ifdef CUDA_EMULATOR
    if (emu::arch() >= 90)
      f(tag<dmma16>());
    else
      f(tag<dmma>());
#elif __CUDA_ARCH__ >= 900
    f(tag<dmma16>());
#else
    f(tag<dmma>());
#endif
  }
};

#define MATMUL(S, T)                                                                                   \
  extern "C" __global__ void matmul_naive_##S(MM_PARAMS(T)) { mm_naive<T>(MM_PASS); }                     \
  extern "C" __global__ void __launch_bounds__(256) matmul_tiled_##S(MM_PARAMS(T)) { mm_tiled<T, 64, 64>(MM_PASS); } \
  extern "C" __global__ void __launch_bounds__(256) matmul_wide_##S(MM_PARAMS(T)) { mm_tiled<T, 32, 128>(MM_PASS); } \
  extern "C" __global__ void BIG_BOUNDS(S) matmul_big_##S(MM_PARAMS(T)) {                                 \
    big_acc<T>::run([&](auto t) { mm_big<T, typename decltype(t)::type>(MM_PASS); });                              \
  }
BOTH(MATMUL)
