// Kernels of the Expectation Consistency Loss: the fused soft anchor
// assignment and the per-bin sums of one domain (soft: counts n and weighted
// sums m; hard: counts and sums of the samples in each bin).
#include "common.cuh"

// dist2 is Σ_d (x_d − a_d)², summed in order and rounded as the CPU does.
template <typename T>
__device__ __forceinline__ T dist2(const T* __restrict__ x, const T* a, i64 d) {
  T s = 0;
  for (i64 i = 0; i < d; i++) {
    T v = sub(x[i], a[i]);
    s = add(s, mul(v, v));
  }
  return s;
}

// soft_assign sets out [rows, b] to the softmax over the b anchors [b, d]
// of scale·‖x_r − a_j‖² (scale = −1/τ) for each row x_r of x [rows, d]: one
// thread per row, a first pass for the maximum and the sum of exponentials
// (rescaled as the maximum grows), a second to write. With shared ≠ 0 the
// block first copies the anchors to shared memory (b·d·sizeof(T) bytes).
// The general case; soft_assign_warp is the fast one.
template <typename T>
__device__ void soft_assign(i64 rows, i64 d, i64 b, const T* __restrict__ x, const T* __restrict__ anchors, T* out,
                              double scale, i64 shared) {
  DYNAMIC_SHARED(smem);
  const T* a = anchors;
  if (shared) {
    T* s = (T*)smem;
    for (i64 i = threadIdx.x; i < b * d; i += blockDim.x) s[i] = anchors[i];
    __syncthreads();
    a = s;
  }
  const T k = (T)scale;
  FOR_EACH(r, rows) {
    const T* xr = x + r * d;
    T m = -t_inf<T>(), s = 0;
    for (i64 j = 0; j < b; j++) {
      T z = mul(k, dist2(xr, a + j * d, d));
      if (z > m) {
        s = s * t_exp(m - z) + 1;
        m = z;
      } else {
        s += t_exp(z - m);
      }
    }
    if (!(m > -t_inf<T>() && m < t_inf<T>())) m = 0;  // tensor.ShiftMax
    T* o = out + r * b;
    for (i64 j = 0; j < b; j++) o[j] = t_exp(mul(k, dist2(xr, a + j * d, d)) - m) / s;
  }
}

// Limit of soft_assign_lanes: anchors per lane.
#define AL_PER 2

// soft_assign_lanes computes what soft_assign does for b ≤ AL_PER·L
// anchors of d ≤ MAXD coordinates (4, 10 or 16), with L lanes per row (L a power of two,
// 4 to 32; a warp takes 32/L rows at a time): lane l of a row's group holds
// anchors l, l + L, ... in registers for the whole launch and computes their
// logits once; the group reduces the maximum and the sum with butterfly
// shuffles, so every lane ends with the same sum and a row's outputs share
// one divisor; a row's b outputs are written by consecutive lanes. Every
// lane of a warp runs the same iterations (a group past the last row
// computes on row 0 and writes nothing), as the shuffles need.
template <typename T, int MAXD>
__device__ void soft_assign_lanes(i64 rows, i64 d, i64 b, i64 L, const T* __restrict__ x,
                                    const T* __restrict__ anchors, T* out, double scale) {
  const int lane = threadIdx.x & 31, l = lane & (L - 1);
  const i64 per = 32 / L;  // rows per warp
  const T k = (T)scale;
  T av[AL_PER][MAXD];
#pragma unroll
  for (int t = 0; t < AL_PER; t++) {
    const i64 j = l + L * t;
#pragma unroll
    for (int i = 0; i < MAXD; i++) av[t][i] = j < b && i < d ? anchors[j * d + i] : (T)0;
  }
  const i64 warps = (i64)gridDim.x * (blockDim.x >> 5);
  // The group's row from r0, its coordinates loaded one iteration ahead.
  auto load = [&](i64 r0, T* xv) {
    const i64 r = r0 + lane / L;
    const T* xr = x + (r < rows ? r : 0) * d;
#pragma unroll
    for (int i = 0; i < MAXD; i++) xv[i] = i < d ? xr[i] : (T)0;
  };
  T xv[MAXD], xn[MAXD];
  i64 r0 = ((i64)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5)) * per;
  if (r0 < rows) load(r0, xn);
  for (; r0 < rows; r0 += warps * per) {
    const i64 r = r0 + lane / L;
    const bool live = r < rows;
#pragma unroll
    for (int i = 0; i < MAXD; i++) xv[i] = xn[i];
    if (r0 + warps * per < rows) load(r0 + warps * per, xn);
    T z[AL_PER];
    T m = -t_inf<T>();
#pragma unroll
    for (int t = 0; t < AL_PER; t++) {
      T s = 0;
#pragma unroll
      for (int i = 0; i < MAXD; i++) {
        if (i < d) {
          T v = sub(xv[i], av[t][i]);
          s = add(s, mul(v, v));
        }
      }
      z[t] = l + L * t < b ? mul(k, s) : -t_inf<T>();
      if (z[t] > m) m = z[t];
    }
    for (int o = L >> 1; o > 0; o >>= 1) {
      T v = __shfl_xor_sync(0xffffffffu, m, o);
      if (v > m) m = v;
    }
    if (!(m > -t_inf<T>() && m < t_inf<T>())) m = 0;  // tensor.ShiftMax
    T s = 0;
#pragma unroll
    for (int t = 0; t < AL_PER; t++) {
      z[t] = t_exp(z[t] - m);
      s += z[t];
    }
    for (int o = L >> 1; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (!live) continue;
    T* o = out + r * b;
#pragma unroll
    for (int t = 0; t < AL_PER; t++)
      if (l + L * t < b) o[l + L * t] = z[t] / s;
  }
}

// The bin statistics of one domain ([G, B, D+2], tensor.BinStats): for each
// bin (g, j), the soft count Σ_r w[r,g,j], the weighted sums Σ_r
// w[r,g,j]·p[r,g,:] and the weighted squared norm Σ_r w[r,g,j]·‖p[r,g]‖²,
// for w [n, G, B] and p [n, G, D]. Slot (g·B + j)·(D+2) + c holds column c.

// bin_stats_part sums one chunk of rows per block into part [chunks, S],
// S = G·B·(D+2). The chunk's rows are split over lanes of threads and the
// lanes added in a fixed order, so the result does not depend on
// scheduling. blockDim.x must be 256.
template <typename T>
__device__ void bin_stats_part(i64 n, i64 g, i64 b, i64 d, const T* __restrict__ w, const T* __restrict__ p, T* part,
                               i64 rpc) {
  __shared__ T lanes[256];
  const i64 gb = g * b, S = gb * (d + 2);
  const i64 r0 = blockIdx.x * rpc, r1 = min(n, r0 + rpc);
  T* out = part + blockIdx.x * S;
  auto value = [&](i64 r, i64 s) -> T {
    const i64 j = s / (d + 2), c = s % (d + 2);
    const T wv = w[r * gb + j];
    if (c == 0) return wv;
    const T* pr = p + (r * g + j / b) * d;
    if (c <= d) return wv * pr[c - 1];
    T q = 0;
    for (i64 k = 0; k < d; k++) q += pr[k] * pr[k];
    return wv * q;
  };
  const int tid = threadIdx.x;
  if (S >= blockDim.x) {
    for (i64 s = tid; s < S; s += blockDim.x) {
      T acc = 0;
      for (i64 r = r0; r < r1; r++) acc += value(r, s);
      out[s] = acc;
    }
    return;
  }
  const i64 L = blockDim.x / S;
  if (tid < L * S) {
    i64 s = tid % S;
    T acc = 0;
    for (i64 r = r0 + tid / S; r < r1; r += L) acc += value(r, s);
    lanes[tid] = acc;
  }
  __syncthreads();
  if (tid < S) {
    T acc = 0;
    for (i64 l = 0; l < L; l++) acc += lanes[l * S + tid];
    out[tid] = acc;
  }
}

// Limit of bin_stats_rows: sums per thread, a count, d weighted sums and a
// weighted squared norm.
#define BR_COLS 18

// bin_stats_rows computes what bin_stats_part does, faster, for G·B ≤ 256
// bins and d + 2 ≤ BR_COLS: thread t takes bin j = t mod G·B and lane
// q = t div G·B of P = 256 div G·B lanes, and sums, in registers and in
// order, its bin's columns over the chunk's rows r ≡ q (mod P). The loads
// need no staging: a warp's w loads are consecutive (rows of G·B values),
// its p loads a few rows that every thread of a lane shares. The lanes are
// then added in order through shared memory, one column at a time, so the
// result does not depend on scheduling. blockDim.x must be 256.
template <typename T>
__device__ void bin_stats_rows(i64 n, i64 g, i64 b, i64 d, const T* __restrict__ w, const T* __restrict__ p, T* part,
                               i64 rpc) {
  __shared__ T lanes[256];
  const i64 gb = g * b, S = gb * (d + 2), P = 256 / gb;
  const int tid = threadIdx.x;
  const i64 j = tid % gb, lane = tid / gb, group = j / b;
  const i64 r0 = blockIdx.x * rpc, r1 = min(n, r0 + rpc);
  T acc[BR_COLS];
#pragma unroll
  for (int c = 0; c < BR_COLS; c++) acc[c] = 0;
  if (lane < P) {
#pragma unroll 4
    for (i64 r = r0 + lane; r < r1; r += P) {
      const T wv = w[r * gb + j];
      const T* pr = p + (r * g + group) * d;
      acc[0] += wv;
      T q = 0;
#pragma unroll
      for (int k = 0; k < BR_COLS - 2; k++)
        if (k < d) {
          acc[k + 1] += wv * pr[k];
          q += pr[k] * pr[k];
        }
#pragma unroll
      for (int k = 1; k < BR_COLS; k++)
        if (k == d + 1) acc[k] += wv * q;
    }
  }
#pragma unroll
  for (int c = 0; c < BR_COLS; c++) {
    if (c > d + 1) break;
    __syncthreads();  // the previous column has been read
    lanes[tid] = acc[c];
    __syncthreads();
    if (tid < gb) {
      T a = 0;
      for (i64 q = 0; q < P; q++) a += lanes[q * gb + tid];
      part[blockIdx.x * S + tid * (d + 2) + c] = a;
    }
  }
}

// hard_bin_part counts, per chunk of rows (one per block), the entries of
// bin [n, G] (bin indices as values of T) in each bin and sums v [n, G, D]
// over them: part [chunks, S+1] with S = G·B·(1+D) slots, first the counts
// ([G, B]), then the sums ([G, B, D]), and a last slot counting indices
// that are not integers in [0, B). The block accumulates in shared memory ((S+1)·sizeof(T) bytes).
template <typename T>
__device__ void hard_bin_part(i64 n, i64 g, i64 b, i64 d, const T* __restrict__ bin, const T* __restrict__ v, T* part,
                              i64 rpc) {
  DYNAMIC_SHARED(smem);
  T* h = (T*)smem;
  const i64 gb = g * b, S = gb * (1 + d);
  for (i64 s = threadIdx.x; s <= S; s += blockDim.x) h[s] = 0;
  __syncthreads();
  const i64 r0 = blockIdx.x * rpc, r1 = min(n, r0 + rpc);
  for (i64 e = r0 * g + threadIdx.x; e < r1 * g; e += blockDim.x) {
    T f = bin[e];
    i64 j = (i64)f;
    if (!(f >= 0 && f < (T)b) || (T)j != f) {
      atomicAdd(h + S, (T)1);
      continue;
    }
    i64 slot = (e % g) * b + j;
    atomicAdd(h + slot, (T)1);
    for (i64 k = 0; k < d; k++) atomicAdd(h + gb + slot * d + k, v[e * d + k]);
  }
  __syncthreads();
  for (i64 s = threadIdx.x; s <= S; s += blockDim.x) part[blockIdx.x * (S + 1) + s] = h[s];
}

// The backward kernels take one thread per row, in tensor's CPU order, on
// rows staged in shared memory: a block copies its rows' inputs there with
// consecutive threads reading consecutive addresses, computes, and copies
// the outputs back the same way (a thread walking its own row in global
// memory would touch a cache line per lane at every step). A block has
// blockDim.x ≥ rpb threads and rpb rows; the dynamic shared memory holds
// the staged arrays one after another (stagedRows sizes it). rpb = 0, for
// rows too wide for shared memory, reads and writes global memory directly.

// stage copies rows [r0, r0 + nr) of src [·, width] to dst [nr, width];
// unstage copies them back.
template <typename T>
__device__ __forceinline__ void stage(T* dst, const T* __restrict__ src, i64 r0, i64 nr, i64 width) {
  for (i64 i = threadIdx.x; i < nr * width; i += blockDim.x) dst[i] = src[r0 * width + i];
}
template <typename T>
__device__ __forceinline__ void unstage(T* dst, const T* src, i64 r0, i64 nr, i64 width) {
  for (i64 i = threadIdx.x; i < nr * width; i += blockDim.x) dst[r0 * width + i] = src[i];
}

// assign_back_row is one row of soft_assign_backward: with k2 = −2/τ,
// dz_j = k2·w_j·(dw_j − Σ_l w_l·dw_l) and o = Σ_j dz_j·(x − a_j), skipping
// the anchors of weight 0 (anchorSet.rowBackward's order). With E > 0
// (e ≤ E) the sums are kept in registers, else in o.
template <int E, typename T>
__device__ __forceinline__ void assign_back_row(const T* wr, const T* dwr, const T* xr, const T* __restrict__ anchors,
                                                T* o, i64 b, i64 e, T k2) {
  T dot = 0;
  for (i64 j = 0; j < b; j++)
    if (wr[j] != 0) dot = add(dot, mul(wr[j], dwr[j]));
  if (E > 0) {
    T acc[E > 0 ? E : 1], xv[E > 0 ? E : 1];
#pragma unroll
    for (int i = 0; i < E; i++) acc[i] = 0, xv[i] = i < e ? xr[i] : (T)0;
    for (i64 j = 0; j < b; j++) {
      if (wr[j] == 0) continue;
      const T dz = mul(mul(k2, wr[j]), sub(dwr[j], dot));
#pragma unroll
      for (int i = 0; i < E; i++)
        if (i < e) acc[i] = add(acc[i], mul(dz, sub(xv[i], anchors[j * e + i])));
    }
#pragma unroll
    for (int i = 0; i < E; i++)
      if (i < e) o[i] = acc[i];
  } else {
    for (i64 i = 0; i < e; i++) o[i] = 0;
    for (i64 j = 0; j < b; j++) {
      if (wr[j] == 0) continue;
      const T dz = mul(mul(k2, wr[j]), sub(dwr[j], dot));
      for (i64 i = 0; i < e; i++) o[i] = add(o[i], mul(dz, sub(xr[i], anchors[j * e + i])));
    }
  }
}

// ROW_BY_WIDTH(w, call) expands call(E) with the register width E for rows
// of w values: 4, 16, or 0 (sums in memory) above 16.
#define ROW_BY_WIDTH(w, call) \
  if ((w) <= 4) {             \
    call(4);                  \
  } else if ((w) <= 16) {     \
    call(16);                 \
  } else {                    \
    call(0);                  \
  }

// soft_assign_backward sets dx [rows, e] to the gradient of the soft
// assignment w [rows, b] of the points x [rows, e] for its output gradient
// dw (scale = −1/τ). Shared: w, dw [rpb, b], x, dx [rpb, e].
template <typename T>
__device__ void soft_assign_backward(i64 rows, i64 e, i64 b, const T* __restrict__ dw, const T* __restrict__ w,
                                     const T* __restrict__ x, const T* __restrict__ anchors, T* dx, double scale,
                                     i64 rpb) {
  const T k2 = 2 * (T)scale;
  if (rpb == 0) {
#define ASSIGN_DIRECT(E) FOR_EACH(r, rows) assign_back_row<E>(w + r * b, dw + r * b, x + r * e, anchors, dx + r * e, b, e, k2)
    ROW_BY_WIDTH(e, ASSIGN_DIRECT)
    return;
  }
  DYNAMIC_SHARED(smem);
  T *sw = (T*)smem, *sdw = sw + rpb * b, *sx = sdw + rpb * b, *so = sx + rpb * e;
  for (i64 r0 = blockIdx.x * rpb; r0 < rows; r0 += gridDim.x * rpb) {
    const i64 nr = min(rpb, rows - r0), t = threadIdx.x;
    __syncthreads();  // the previous rows' outputs are copied out
    stage(sw, w, r0, nr, b);
    stage(sdw, dw, r0, nr, b);
    stage(sx, x, r0, nr, e);
    __syncthreads();
#define ASSIGN_STAGED(E) assign_back_row<E>(sw + t * b, sdw + t * b, sx + t * e, anchors, so + t * e, b, e, k2)
    if (t < nr) {
      ROW_BY_WIDTH(e, ASSIGN_STAGED)
    }
    __syncthreads();
    unstage(dx, so, r0, nr, e);
  }
}

// stats_back_row is one row of bin_stats_backward (statsRowBackward's
// order): dw_j = ds_j0 + ds_j,d+1·‖p‖² + Σ_c ds_j,1+c·p_c and
// dp_c = Σ_j w_j·(ds_j,1+c + 2·ds_j,d+1·p_c), s0 the row's group of ds.
// With D > 0 (d ≤ D) p and the sums are kept in registers, else in memory.
template <int D, typename T>
__device__ __forceinline__ void stats_back_row(const T* wr, const T* pr, const T* __restrict__ s0, T* ow, T* o, i64 b,
                                               i64 d) {
  T pp = 0;
  for (i64 c = 0; c < d; c++) pp = add(pp, mul(pr[c], pr[c]));
  if (D > 0) {
    T acc[D > 0 ? D : 1], pv[D > 0 ? D : 1];
#pragma unroll
    for (int c = 0; c < D; c++) acc[c] = 0, pv[c] = c < d ? pr[c] : (T)0;
    for (i64 j = 0; j < b; j++) {
      const T* sj = s0 + j * (d + 2);
      const T q = sj[d + 1], wj = wr[j];
      T v = add(sj[0], mul(q, pp));
#pragma unroll
      for (int c = 0; c < D; c++)
        if (c < d) {
          v = add(v, mul(sj[1 + c], pv[c]));
          acc[c] = add(acc[c], mul(wj, add(sj[1 + c], mul(mul((T)2, q), pv[c]))));
        }
      ow[j] = v;
    }
#pragma unroll
    for (int c = 0; c < D; c++)
      if (c < d) o[c] = acc[c];
  } else {
    for (i64 c = 0; c < d; c++) o[c] = 0;
    for (i64 j = 0; j < b; j++) {
      const T* sj = s0 + j * (d + 2);
      T v = add(sj[0], mul(sj[d + 1], pp));
      for (i64 c = 0; c < d; c++) {
        v = add(v, mul(sj[1 + c], pr[c]));
        o[c] = add(o[c], mul(wr[j], add(sj[1 + c], mul(mul((T)2, sj[d + 1]), pr[c]))));
      }
      ow[j] = v;
    }
  }
}

// bin_stats_backward sets dw [n, g, b] and dp [n, g, d] to the gradient of
// the bin statistics [g, b, d+2] (count, sums, squared norm) of p under w
// for their gradient ds, a row per sample and group. Shared: w, dw
// [rpb, b], p, dp [rpb, d].
template <typename T>
__device__ void bin_stats_backward(i64 rows, i64 g, i64 b, i64 d, const T* __restrict__ ds, const T* __restrict__ w,
                                   const T* __restrict__ p, T* dw, T* dp, i64 rpb) {
  if (rpb == 0) {
#define STATS_DIRECT(D) \
  FOR_EACH(r, rows * g) stats_back_row<D>(w + r * b, p + r * d, ds + (r % g) * b * (d + 2), dw + r * b, dp + r * d, b, d)
    ROW_BY_WIDTH(d, STATS_DIRECT)
    return;
  }
  DYNAMIC_SHARED(smem);
  T *sw = (T*)smem, *sdw = sw + rpb * b, *sp = sdw + rpb * b, *sdp = sp + rpb * d;
  for (i64 r0 = blockIdx.x * rpb; r0 < rows * g; r0 += gridDim.x * rpb) {
    const i64 nr = min(rpb, rows * g - r0), t = threadIdx.x;
    __syncthreads();
    stage(sw, w, r0, nr, b);
    stage(sp, p, r0, nr, d);
    __syncthreads();
#define STATS_STAGED(D) \
  stats_back_row<D>(sw + t * b, sp + t * d, ds + ((r0 + t) % g) * b * (d + 2), sdw + t * b, sdp + t * d, b, d)
    if (t < nr) {
      ROW_BY_WIDTH(d, STATS_STAGED)
    }
    __syncthreads();
    unstage(dw, sdw, r0, nr, b);
    unstage(dp, sdp, r0, nr, d);
  }
}

// ANCHOR_LANES instantiates soft_assign_lanes for d ≤ MAXD as
// soft_assign_d<MAXD>_<S>.
#define ANCHOR_LANES(S, T, MAXD)                                                                                \
  extern "C" __global__ void __launch_bounds__(256)                                                             \
      soft_assign_d##MAXD##_##S(i64 rows, i64 d, i64 b, i64 lanes, const T* __restrict__ x,                  \
                                  const T* __restrict__ anchors, T* out, double scale) {                        \
    soft_assign_lanes<T, MAXD>(rows, d, b, lanes, x, anchors, out, scale);                                    \
  }

#define ECL(S, T)                                                                                               \
  extern "C" __global__ void soft_assign_##S(i64 rows, i64 d, i64 b, const T* __restrict__ x,                  \
                                               const T* __restrict__ anchors, T* out, double scale, i64 shared) { \
    soft_assign<T>(rows, d, b, x, anchors, out, scale, shared);                                               \
  }                                                                                                             \
  ANCHOR_LANES(S, T, 4)                                                                                         \
  ANCHOR_LANES(S, T, 10)                                                                                        \
  ANCHOR_LANES(S, T, 16)                                                                                        \
  extern "C" __global__ void __launch_bounds__(256)                                                             \
      bin_stats_part_##S(i64 n, i64 g, i64 b, i64 d, const T* __restrict__ w, const T* __restrict__ p, T* part,   \
                        i64 rpc) {                                                                              \
    bin_stats_part<T>(n, g, b, d, w, p, part, rpc);                                                              \
  }                                                                                                             \
  extern "C" __global__ void __launch_bounds__(256)                                                             \
      bin_stats_rows_##S(i64 n, i64 g, i64 b, i64 d, const T* __restrict__ w, const T* __restrict__ p, T* part,   \
                        i64 rpc) {                                                                              \
    bin_stats_rows<T>(n, g, b, d, w, p, part, rpc);                                                              \
  }                                                                                                             \
  extern "C" __global__ void soft_assign_backward_##S(i64 rows, i64 e, i64 b, const T* __restrict__ dw,           \
                                                     const T* __restrict__ w, const T* __restrict__ x,           \
                                                     const T* __restrict__ anchors, T* dx, double scale,         \
                                                     i64 rpb) {                                                  \
    soft_assign_backward<T>(rows, e, b, dw, w, x, anchors, dx, scale, rpb);                                     \
  }                                                                                                             \
  extern "C" __global__ void bin_stats_backward_##S(i64 rows, i64 g, i64 b, i64 d, const T* __restrict__ ds,     \
                                                   const T* __restrict__ w, const T* __restrict__ p, T* dw,      \
                                                   T* dp, i64 rpb) {                                             \
    bin_stats_backward<T>(rows, g, b, d, ds, w, p, dw, dp, rpb);                                                \
  }                                                                                                             \
  extern "C" __global__ void hard_bin_part_##S(i64 n, i64 g, i64 b, i64 d, const T* __restrict__ bin,            \
                                               const T* __restrict__ v, T* part, i64 rpc) {                     \
    hard_bin_part<T>(n, g, b, d, bin, v, part, rpc);                                                            \
  }
BOTH(ECL)
