// The fused kernels of a transformer block: layer normalisation, the exact
// (erf) GELU and flash-style scaled dot-product attention, forward and
// backward: the device's bodies of tensor.LayerNorm(Backward)Kernel,
// tensor.GELU(Backward)Kernel and tensor.Attention(Backward)Kernel, with
// tensor's CPU bodies (tensor/transformer.go) as their references.
//
// Layer norm runs a warp per row, the row's statistics in double (two
// passes) and its per-element arithmetic rounded as the CPU rounds it; the
// backward pass writes dx a warp per row and the column sums dγ, dβ as
// partial sums over chunks of rows (a block each, rows in order), combined
// in chunk order by a second kernel (deterministic). GELU is elementwise in
// double (erf). Attention never holds the [N, M] scores: a block takes br
// rows (queries, or keys for dk and dv) of one batch·head, a warp per row;
// the other side streams through shared memory in tiles of bc ≤ 32 rows, a
// lane per streamed row, with an online softmax forward (running maximum
// and sum rescaling the accumulated output) and the probabilities
// recomputed from the saved log-sum-exp backward. The accumulators live in
// shared memory, so that any head size fits whose tiles fit (plan.go's
// attnPlan); they and the dot products are of the element type (the CPU's
// are float64).
#include "common.cuh"

// tf_warp_sum and tf_warp_max combine v over groups of W consecutive lanes
// of a warp, a whole warp by default (butterfly: every lane of a group gets
// the group's result).
template <typename T, int W = 32>
__device__ __forceinline__ T tf_warp_sum(T v) {
#pragma unroll
  for (int o = W / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

template <typename T, int W = 32>
__device__ __forceinline__ T tf_warp_max(T v) {
#pragma unroll
  for (int o = W / 2; o > 0; o >>= 1) v = combine(OpMaxR, v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// layer_norm sets y = γ·(x − μ)·r + β for each row of x [rows, d], r =
// 1/√(var + ε), and writes μ and r [rows]: a warp a row (layerNormCPU).
template <typename T>
__device__ void layer_norm(i64 rows, i64 d, const T* __restrict__ x, const T* __restrict__ gamma,
                           const T* __restrict__ beta, T* y, T* mean, T* rstd, double eps) {
  const int lane = threadIdx.x & 31;
  const i64 warp = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const i64 warps = ((i64)gridDim.x * blockDim.x) >> 5;
  for (i64 r = warp; r < rows; r += warps) {
    const T* xr = x + r * d;
    T* yr = y + r * d;
    double s = 0;
    for (i64 j = lane; j < d; j += 32) s += (double)xr[j];
    const double mu = tf_warp_sum(s) / (double)d;
    double q = 0;
    for (i64 j = lane; j < d; j += 32) {
      const double c = sub((double)xr[j], mu);
      q = add(q, mul(c, c));
    }
    const double rs = 1 / sqrt(tf_warp_sum(q) / (double)d + eps);
    for (i64 j = lane; j < d; j += 32)
      yr[j] = (T)add(mul(mul(sub((double)xr[j], mu), rs), (double)gamma[j]), (double)beta[j]);
    if (lane == 0) mean[r] = (T)mu, rstd[r] = (T)rs;
  }
}

// layer_norm_backward cuts the rows of x [rows, d] into chunks, a block
// each: it writes dx for the chunk's rows, a warp a row, with g = dy·γ and
// x̂ = (x − μ)·r, dx = (g − mean(g) − x̂·mean(g·x̂))·r; then, a thread a
// column, the chunk's sums of dy·x̂ and dy in row order to part [chunks, 2,
// d] (layerNormBackwardCPU).
template <typename T>
__device__ void layer_norm_backward(i64 rows, i64 d, i64 chunks, const T* __restrict__ dy, const T* __restrict__ x,
                                    const T* __restrict__ gamma, const T* __restrict__ mean,
                                    const T* __restrict__ rstd, T* dx, double* part) {
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
  const i64 per = (rows + chunks - 1) / chunks;
  for (i64 b = blockIdx.x; b < chunks; b += gridDim.x) {
    const i64 r0 = min(rows, b * per), r1 = min(rows, r0 + per);
    for (i64 r = r0 + w; r < r1; r += nw) {
      const T *dyr = dy + r * d, *xr = x + r * d;
      T* dxr = dx + r * d;
      const double mu = (double)mean[r], rs = (double)rstd[r];
      double sg = 0, sgx = 0;
      for (i64 j = lane; j < d; j += 32) {
        const double g = mul((double)dyr[j], (double)gamma[j]);
        sg += g;
        sgx = add(sgx, mul(mul(g, sub((double)xr[j], mu)), rs));
      }
      sg = tf_warp_sum(sg) / (double)d;
      sgx = tf_warp_sum(sgx) / (double)d;
      for (i64 j = lane; j < d; j += 32) {
        const double g = mul((double)dyr[j], (double)gamma[j]);
        dxr[j] = (T)mul(sub(sub(g, sg), mul(mul(sub((double)xr[j], mu), rs), sgx)), rs);
      }
    }
    for (i64 j = threadIdx.x; j < d; j += blockDim.x) {
      double sg = 0, sb = 0;
      for (i64 r = r0; r < r1; r++) {
        const double g = (double)dy[r * d + j];
        sg = add(sg, mul(mul(g, sub((double)x[r * d + j], (double)mean[r])), (double)rstd[r]));
        sb += g;
      }
      part[2 * b * d + j] = sg;
      part[(2 * b + 1) * d + j] = sb;
    }
  }
}

// layer_norm_backward_sums adds the chunks' partial sums: dγ and dβ [d]. A
// block of 8 warps takes 32 columns, a lane a column: warp w adds the
// chunks w, w + 8, … in order, then the 8 warps' sums are added in warp
// order (a fixed order: deterministic).
template <typename T>
__device__ void layer_norm_backward_sums(i64 d, i64 chunks, const double* __restrict__ part, T* dgamma, T* dbeta) {
  __shared__ double gs[8][32], bs[8][32];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  for (i64 j0 = (i64)blockIdx.x * 32; j0 < d; j0 += (i64)gridDim.x * 32) {
    const i64 j = j0 + lane;
    double sg = 0, sb = 0;
    if (j < d)
      for (i64 k = w; k < chunks; k += 8) sg += part[2 * k * d + j], sb += part[(2 * k + 1) * d + j];
    gs[w][lane] = sg, bs[w][lane] = sb;
    __syncthreads();
    if (w == 0 && j < d) {
      sg = 0, sb = 0;
      for (int q = 0; q < 8; q++) sg += gs[q][lane], sb += bs[q][lane];
      dgamma[j] = (T)sg;
      dbeta[j] = (T)sb;
    }
    __syncthreads();  // gs and bs are read before the next columns
  }
}

// tf_cdf is the standard normal CDF Φ(x) = (1 + erf(x/√2))/2 as geluCPU
// computes it.
__device__ __forceinline__ double tf_cdf(double x) { return mul(0.5, add(1.0, erf(quo(x, 1.4142135623730951)))); }

// gelu sets y = x·Φ(x) elementwise over n contiguous values, in double.
template <typename T>
__device__ void gelu(i64 n, const T* __restrict__ x, T* y) {
  FOR_EACH(i, n) {
    const double v = (double)x[i];
    y[i] = (T)mul(mul(v, 0.5), add(1.0, erf(quo(v, 1.4142135623730951))));
  }
}

// gelu_backward sets dx = dy·(Φ(x) + x·φ(x)) elementwise, in double.
template <typename T>
__device__ void gelu_backward(i64 n, const T* __restrict__ dy, const T* __restrict__ x, T* dx) {
  FOR_EACH(i, n) {
    const double v = (double)x[i];
    const double pdf = quo(exp(quo(mul(-v, v), 2.0)), root(6.283185307179586));
    dx[i] = (T)mul((double)dy[i], add(tf_cdf(v), mul(v, pdf)));
  }
}

// The attention kernels run blocks of TF_WARPS warps, each warp taking rows
// w, w + TF_WARPS, … of the block's br ≤ TF_WARPS·TF_RPW rows.
#define TF_WARPS 4
#define TF_RPW 8

// tf_dot is the dot product of a[0..dh) and b[0..dh) (shared memory).
template <typename T>
__device__ __forceinline__ T tf_dot(const T* a, const T* b, i64 dh) {
  T s = 0;
  for (i64 c = 0; c < dh; c++) s += a[c] * b[c];
  return s;
}

// attention writes o = softmax(q·kᵀ·scale)·v and lse, the log-sum-exp of
// each query's scores, for q [bh, n, dh] and k, v [bh, m, dh]: a block per
// tile of br queries of one batch·head, keys and values streamed through
// shared memory in tiles of bc ≤ 32 (a lane per key for the scores, a lane
// per column for the output), with an online softmax (attentionCPU).
// Shared: q and the output accumulators [br, dh], keys [bc, dh + 1]
// (padded: lane j reads row j), values [bc, dh], probabilities [warps, bc].
template <typename T>
__device__ void attention(i64 bh, i64 n, i64 m, i64 dh, i64 br, i64 bc, const T* __restrict__ q,
                          const T* __restrict__ k, const T* __restrict__ v, T* o, T* lse, double scale) {
  DYNAMIC_SHARED(smem);
  T* qs = (T*)smem;
  T* acc = qs + br * dh;
  T* ks = acc + br * dh;
  T* vs = ks + bc * (dh + 1);
  T* ps = vs + bc * dh;
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const i64 tiles = (n + br - 1) / br;
  const T sc = (T)scale;
  for (i64 t = blockIdx.x; t < bh * tiles; t += gridDim.x) {
    const i64 b = t / tiles, q0 = t % tiles * br, rows = min(br, n - q0);
    const T *kb = k + b * m * dh, *vb = v + b * m * dh;
    __syncthreads();  // the previous tile's readers are done
    for (i64 e = threadIdx.x; e < rows * dh; e += blockDim.x) qs[e] = q[(b * n + q0) * dh + e], acc[e] = 0;
    T mx[TF_RPW], l[TF_RPW];
#pragma unroll
    for (int i = 0; i < TF_RPW; i++) mx[i] = -t_inf<T>(), l[i] = 0;
    for (i64 k0 = 0; k0 < m; k0 += bc) {
      const i64 kn = min(bc, m - k0);
      __syncthreads();  // the previous key tile's readers are done
      for (i64 e = threadIdx.x; e < kn * dh; e += blockDim.x) {
        const i64 j = e / dh, c = e % dh;
        ks[j * (dh + 1) + c] = kb[k0 * dh + e];
        vs[e] = vb[k0 * dh + e];
      }
      __syncthreads();
#pragma unroll
      for (int i = 0; i < TF_RPW; i++) {
        const i64 r = w + TF_WARPS * i;
        if (r >= rows) break;
        T s = -t_inf<T>();
        if (lane < kn) s = tf_dot(qs + r * dh, ks + lane * (dh + 1), dh) * sc;
        const T nm = go_max(mx[i], tf_warp_max(s));
        const T corr = t_exp(mx[i] - nm);
        const T p = lane < kn ? t_exp(s - nm) : (T)0;
        l[i] = l[i] * corr + tf_warp_sum(p);
        mx[i] = nm;
        if (lane < bc) ps[w * bc + lane] = p;
        __syncwarp();
        for (i64 c = lane; c < dh; c += 32) {
          T a = acc[r * dh + c] * corr;
          for (i64 j = 0; j < kn; j++) a += ps[w * bc + j] * vs[j * dh + c];
          acc[r * dh + c] = a;
        }
        __syncwarp();  // ps is rewritten for the next row
      }
    }
#pragma unroll
    for (int i = 0; i < TF_RPW; i++) {
      const i64 r = w + TF_WARPS * i;
      if (r >= rows) break;
      for (i64 c = lane; c < dh; c += 32) o[(b * n + q0 + r) * dh + c] = acc[r * dh + c] / l[i];
      if (lane == 0) lse[b * n + q0 + r] = mx[i] + t_log(l[i]);
    }
  }
}

// attention_backward_dot writes dd = rowsum(do·o) for each of rows rows of
// dh values, a warp a row.
template <typename T>
__device__ void attention_backward_dot(i64 rows, i64 dh, const T* __restrict__ dout, const T* __restrict__ o, T* dd) {
  const int lane = threadIdx.x & 31;
  const i64 warp = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const i64 warps = ((i64)gridDim.x * blockDim.x) >> 5;
  for (i64 r = warp; r < rows; r += warps) {
    T s = 0;
    for (i64 c = lane; c < dh; c += 32) s += dout[r * dh + c] * o[r * dh + c];
    s = tf_warp_sum(s);
    if (lane == 0) dd[r] = s;
  }
}

// attention_backward_dq writes dq = ds·k·scale, ds = p·(do·vᵀ − dd), p =
// exp(q·kᵀ·scale − lse): a block per tile of br queries, keys and values
// streamed as in attention. Shared: q, do and the accumulators [br, dh],
// keys and values [bc, dh + 1], ds [warps, bc].
template <typename T>
__device__ void attention_backward_dq(i64 bh, i64 n, i64 m, i64 dh, i64 br, i64 bc, const T* __restrict__ dout,
                                      const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v,
                                      const T* __restrict__ lse, const T* __restrict__ dd, T* dq, double scale) {
  DYNAMIC_SHARED(smem);
  T* qs = (T*)smem;
  T* dos = qs + br * dh;
  T* acc = dos + br * dh;
  T* ks = acc + br * dh;
  T* vs = ks + bc * (dh + 1);
  T* ps = vs + bc * (dh + 1);
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const i64 tiles = (n + br - 1) / br;
  const T sc = (T)scale;
  for (i64 t = blockIdx.x; t < bh * tiles; t += gridDim.x) {
    const i64 b = t / tiles, q0 = t % tiles * br, rows = min(br, n - q0);
    const T *kb = k + b * m * dh, *vb = v + b * m * dh;
    __syncthreads();
    for (i64 e = threadIdx.x; e < rows * dh; e += blockDim.x) {
      qs[e] = q[(b * n + q0) * dh + e];
      dos[e] = dout[(b * n + q0) * dh + e];
      acc[e] = 0;
    }
    for (i64 k0 = 0; k0 < m; k0 += bc) {
      const i64 kn = min(bc, m - k0);
      __syncthreads();
      for (i64 e = threadIdx.x; e < kn * dh; e += blockDim.x) {
        const i64 j = e / dh, c = e % dh;
        ks[j * (dh + 1) + c] = kb[k0 * dh + e];
        vs[j * (dh + 1) + c] = vb[k0 * dh + e];
      }
      __syncthreads();
      for (i64 r = w; r < rows; r += TF_WARPS) {
        T ds = 0;
        if (lane < kn) {
          const T p = t_exp(tf_dot(qs + r * dh, ks + lane * (dh + 1), dh) * sc - lse[b * n + q0 + r]);
          ds = p * (tf_dot(dos + r * dh, vs + lane * (dh + 1), dh) - dd[b * n + q0 + r]) * sc;
        }
        if (lane < bc) ps[w * bc + lane] = ds;
        __syncwarp();
        for (i64 c = lane; c < dh; c += 32) {
          T a = acc[r * dh + c];
          for (i64 j = 0; j < kn; j++) a += ps[w * bc + j] * ks[j * (dh + 1) + c];
          acc[r * dh + c] = a;
        }
        __syncwarp();
      }
    }
    for (i64 r = w; r < rows; r += TF_WARPS)
      for (i64 c = lane; c < dh; c += 32) dq[(b * n + q0 + r) * dh + c] = acc[r * dh + c];
  }
}

// attention_backward writes dk = dsᵀ·q·scale and dv = pᵀ·do: a block per
// tile of br keys of one batch·head, a warp a key, the queries (with do,
// lse and dd) streamed through shared memory in tiles of bc ≤ 32, a lane a
// query (attentionBackwardCPU's sums by key). Shared: k, v and the two
// accumulators [br, dh], q and do [bc, dh + 1], lse and dd [bc], p and ds
// [warps, bc].
template <typename T>
__device__ void attention_backward(i64 bh, i64 n, i64 m, i64 dh, i64 br, i64 bc, const T* __restrict__ dout,
                                   const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v,
                                   const T* __restrict__ lse, const T* __restrict__ dd, T* dk, T* dv,
                                   double scale) {
  DYNAMIC_SHARED(smem);
  T* ks = (T*)smem;
  T* vs = ks + br * dh;
  T* dka = vs + br * dh;
  T* dva = dka + br * dh;
  T* qs = dva + br * dh;
  T* dos = qs + bc * (dh + 1);
  T* ls = dos + bc * (dh + 1);
  T* ds_ = ls + bc;
  T* ps = ds_ + bc;
  T* gs = ps + TF_WARPS * bc;
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const i64 tiles = (m + br - 1) / br;
  const T sc = (T)scale;
  for (i64 t = blockIdx.x; t < bh * tiles; t += gridDim.x) {
    const i64 b = t / tiles, k0 = t % tiles * br, keys = min(br, m - k0);
    __syncthreads();
    for (i64 e = threadIdx.x; e < keys * dh; e += blockDim.x) {
      ks[e] = k[(b * m + k0) * dh + e];
      vs[e] = v[(b * m + k0) * dh + e];
      dka[e] = 0, dva[e] = 0;
    }
    for (i64 i0 = 0; i0 < n; i0 += bc) {
      const i64 qn = min(bc, n - i0);
      __syncthreads();
      for (i64 e = threadIdx.x; e < qn * dh; e += blockDim.x) {
        const i64 j = e / dh, c = e % dh;
        qs[j * (dh + 1) + c] = q[(b * n + i0) * dh + e];
        dos[j * (dh + 1) + c] = dout[(b * n + i0) * dh + e];
      }
      for (i64 e = threadIdx.x; e < qn; e += blockDim.x) ls[e] = lse[b * n + i0 + e], ds_[e] = dd[b * n + i0 + e];
      __syncthreads();
      for (i64 r = w; r < keys; r += TF_WARPS) {
        T p = 0, ds = 0;
        if (lane < qn) {
          p = t_exp(tf_dot(qs + lane * (dh + 1), ks + r * dh, dh) * sc - ls[lane]);
          ds = p * (tf_dot(dos + lane * (dh + 1), vs + r * dh, dh) - ds_[lane]) * sc;
        }
        if (lane < bc) ps[w * bc + lane] = p, gs[w * bc + lane] = ds;
        __syncwarp();
        for (i64 c = lane; c < dh; c += 32) {
          T a = dva[r * dh + c], g = dka[r * dh + c];
          for (i64 j = 0; j < qn; j++) {
            a += ps[w * bc + j] * dos[j * (dh + 1) + c];
            g += gs[w * bc + j] * qs[j * (dh + 1) + c];
          }
          dva[r * dh + c] = a, dka[r * dh + c] = g;
        }
        __syncwarp();
      }
    }
    __syncthreads();  // every warp's last rows are done
    for (i64 e = threadIdx.x; e < keys * dh; e += blockDim.x) {
      dk[(b * m + k0) * dh + e] = dka[e];
      dv[(b * m + k0) * dh + e] = dva[e];
    }
  }
}

// The head-size-64 attention kernels (ViT's heads) compute on register
// tiles: a block of 256 threads as 16 row groups by 16 column groups, the
// thread (rg, cg) owning rows rg, rg + 16, … and columns cg, cg + 16, … of
// each product, so that its shared-memory reads are broadcasts (rows) or
// consecutive (columns). Every operand sits in shared memory row-major,
// rows padded to 65 values (conflict-free reads of a column across rows);
// probabilities and score gradients go through shared memory transposed,
// [streamed row][own row]. A row's softmax statistics combine over its 16
// column threads (half a warp). a64<T> sizes the tiles within 48 KiB of
// static shared memory (plan.go's attn64Rows mirrors the own-side rows).
#define A64_LD 65
template <typename T>
struct a64;
template <>
struct a64<float> {
  static constexpr int FR = 64, FC = 32, QR = 32, QC = 32, KR = 32, KC = 32;
};
template <>
struct a64<double> {
  static constexpr int FR = 32, FC = 16, QR = 16, QC = 16, KR = 16, KC = 16;
};

// a64_load copies R rows of 64 values at src (consecutive rows) into dst,
// zeros from row valid on.
template <typename T, int R>
__device__ __forceinline__ void a64_load(T (*dst)[A64_LD], const T* __restrict__ src, i64 valid) {
  for (int e = threadIdx.x; e < R * 64; e += 256) {
    const int r = e / 64, c = e % 64;
    dst[r][c] = r < valid ? src[(i64)r * 64 + c] : (T)0;
  }
}

// a64_nt adds to acc[u][w] the dot product of row rg + 16u of a and row
// cg + 16w of b (64 values each).
template <typename T, int RM, int RN>
__device__ __forceinline__ void a64_nt(const T (*a)[A64_LD], const T (*b)[A64_LD], int rg, int cg, T (&acc)[RM][RN]) {
#pragma unroll 8
  for (int d = 0; d < 64; d++) {
    T av[RM], bv[RN];
#pragma unroll
    for (int u = 0; u < RM; u++) av[u] = a[rg + 16 * u][d];
#pragma unroll
    for (int w = 0; w < RN; w++) bv[w] = b[cg + 16 * w][d];
#pragma unroll
    for (int u = 0; u < RM; u++)
#pragma unroll
      for (int w = 0; w < RN; w++) acc[u][w] += av[u] * bv[w];
  }
}

// a64_tn adds to acc[u][v] the sum over j < J of pt[j][rg + 16u] ·
// b[j][cg + 16v]: rows of (ptᵀ·b) [own rows, 64].
template <typename T, int RM, int J, int LDP>
__device__ __forceinline__ void a64_tn(const T (*pt)[LDP], const T (*b)[A64_LD], int rg, int cg, T (&acc)[RM][4]) {
#pragma unroll 4
  for (int j = 0; j < J; j++) {
    T pv[RM], bv[4];
#pragma unroll
    for (int u = 0; u < RM; u++) pv[u] = pt[j][rg + 16 * u];
#pragma unroll
    for (int v = 0; v < 4; v++) bv[v] = b[j][cg + 16 * v];
#pragma unroll
    for (int u = 0; u < RM; u++)
#pragma unroll
      for (int v = 0; v < 4; v++) acc[u][v] += pv[u] * bv[v];
  }
}

// a64_scores sets s to the products a·bᵀ and dp to c·dᵀ of the thread's
// rows and columns (a64_nt from zero): the backward kernels' scores and
// score gradients before the softmax's.
template <typename T, int RM, int RN>
__device__ __forceinline__ void a64_scores(const T (*a)[A64_LD], const T (*b)[A64_LD], const T (*c)[A64_LD],
                                           const T (*d)[A64_LD], int rg, int cg, T (&s)[RM][RN], T (&dp)[RM][RN]) {
#pragma unroll
  for (int u = 0; u < RM; u++)
#pragma unroll
    for (int w = 0; w < RN; w++) s[u][w] = 0, dp[u][w] = 0;
  a64_nt<T, RM, RN>(a, b, rg, cg, s);
  a64_nt<T, RM, RN>(c, d, rg, cg, dp);
}

// attention64 is attention for dh = 64: a block per tile of a64<T>::FR
// queries, keys and values streamed in tiles of FC, the scores and the
// output accumulated in registers, the online softmax by row.
template <typename T>
__device__ void attention64(i64 bh, i64 n, i64 m, const T* __restrict__ q, const T* __restrict__ k,
                            const T* __restrict__ v, T* o, T* lse, double scale) {
  constexpr int BR = a64<T>::FR, BC = a64<T>::FC, RM = BR / 16, RS = BC / 16;
  __shared__ T qs[BR][A64_LD], ks[BC][A64_LD], vs[BC][A64_LD], ps[BC][BR + 1];
  const int rg = threadIdx.x / 16, cg = threadIdx.x % 16;
  const i64 tiles = (n + BR - 1) / BR;
  const T sc = (T)scale;
  for (i64 t = blockIdx.x; t < bh * tiles; t += gridDim.x) {
    const i64 b = t / tiles, q0 = t % tiles * BR, rows = min((i64)BR, n - q0);
    __syncthreads();  // the previous tile's readers are done
    a64_load<T, BR>(qs, q + (b * n + q0) * 64, rows);
    T mx[RM], l[RM], acc[RM][4];
#pragma unroll
    for (int u = 0; u < RM; u++) {
      mx[u] = -t_inf<T>(), l[u] = 0;
#pragma unroll
      for (int c = 0; c < 4; c++) acc[u][c] = 0;
    }
    for (i64 k0 = 0; k0 < m; k0 += BC) {
      const i64 kn = min((i64)BC, m - k0);
      __syncthreads();  // ks, vs and ps are free
      a64_load<T, BC>(ks, k + (b * m + k0) * 64, kn);
      a64_load<T, BC>(vs, v + (b * m + k0) * 64, kn);
      __syncthreads();
      T s[RM][RS];
#pragma unroll
      for (int u = 0; u < RM; u++)
#pragma unroll
        for (int w = 0; w < RS; w++) s[u][w] = 0;
      a64_nt<T, RM, RS>(qs, ks, rg, cg, s);
#pragma unroll
      for (int u = 0; u < RM; u++) {
        T rmax = -t_inf<T>();
#pragma unroll
        for (int w = 0; w < RS; w++) {
          s[u][w] = cg + 16 * w < kn ? s[u][w] * sc : -t_inf<T>();
          rmax = go_max(rmax, s[u][w]);
        }
        const T nm = go_max(mx[u], tf_warp_max<T, 16>(rmax));
        const T corr = t_exp(mx[u] - nm);
        T rs = 0;
#pragma unroll
        for (int w = 0; w < RS; w++) {
          const T p = t_exp(s[u][w] - nm);
          ps[cg + 16 * w][rg + 16 * u] = p;
          rs += p;
        }
        l[u] = l[u] * corr + tf_warp_sum<T, 16>(rs);
        mx[u] = nm;
#pragma unroll
        for (int c = 0; c < 4; c++) acc[u][c] *= corr;
      }
      __syncthreads();
      a64_tn<T, RM, BC, BR + 1>(ps, vs, rg, cg, acc);
    }
#pragma unroll
    for (int u = 0; u < RM; u++) {
      const i64 r = rg + 16 * u;
      if (r >= rows) continue;
#pragma unroll
      for (int c = 0; c < 4; c++) o[(b * n + q0 + r) * 64 + cg + 16 * c] = acc[u][c] / l[u];
      if (cg == 0) lse[b * n + q0 + r] = mx[u] + t_log(l[u]);
    }
  }
}

// attention64_backward_dq is attention_backward_dq for dh = 64: a block
// per tile of a64<T>::QR queries, keys and values streamed in tiles of QC.
template <typename T>
__device__ void attention64_backward_dq(i64 bh, i64 n, i64 m, const T* __restrict__ dout, const T* __restrict__ q,
                                        const T* __restrict__ k, const T* __restrict__ v, const T* __restrict__ lse,
                                        const T* __restrict__ dd, T* dq, double scale) {
  constexpr int BR = a64<T>::QR, BC = a64<T>::QC, RM = BR / 16, RS = BC / 16;
  __shared__ T qs[BR][A64_LD], dos[BR][A64_LD], ks[BC][A64_LD], vs[BC][A64_LD], dss[BC][BR + 1];
  const int rg = threadIdx.x / 16, cg = threadIdx.x % 16;
  const i64 tiles = (n + BR - 1) / BR;
  const T sc = (T)scale;
  for (i64 t = blockIdx.x; t < bh * tiles; t += gridDim.x) {
    const i64 b = t / tiles, q0 = t % tiles * BR, rows = min((i64)BR, n - q0);
    __syncthreads();
    a64_load<T, BR>(qs, q + (b * n + q0) * 64, rows);
    a64_load<T, BR>(dos, dout + (b * n + q0) * 64, rows);
    T ls[RM], ds_[RM], acc[RM][4];
#pragma unroll
    for (int u = 0; u < RM; u++) {
      const i64 r = rg + 16 * u;
      ls[u] = r < rows ? lse[b * n + q0 + r] : (T)0;
      ds_[u] = r < rows ? dd[b * n + q0 + r] : (T)0;
#pragma unroll
      for (int c = 0; c < 4; c++) acc[u][c] = 0;
    }
    for (i64 k0 = 0; k0 < m; k0 += BC) {
      const i64 kn = min((i64)BC, m - k0);
      __syncthreads();
      a64_load<T, BC>(ks, k + (b * m + k0) * 64, kn);
      a64_load<T, BC>(vs, v + (b * m + k0) * 64, kn);
      __syncthreads();
      T s[RM][RS], dp[RM][RS];
      a64_scores<T, RM, RS>(qs, ks, dos, vs, rg, cg, s, dp);
#pragma unroll
      for (int u = 0; u < RM; u++)
#pragma unroll
        for (int w = 0; w < RS; w++) {
          T g = 0;
          if (cg + 16 * w < kn) g = t_exp(s[u][w] * sc - ls[u]) * (dp[u][w] - ds_[u]) * sc;
          dss[cg + 16 * w][rg + 16 * u] = g;
        }
      __syncthreads();
      a64_tn<T, RM, BC, BR + 1>(dss, ks, rg, cg, acc);
    }
#pragma unroll
    for (int u = 0; u < RM; u++) {
      const i64 r = rg + 16 * u;
      if (r >= rows) continue;
#pragma unroll
      for (int c = 0; c < 4; c++) dq[(b * n + q0 + r) * 64 + cg + 16 * c] = acc[u][c];
    }
  }
}

// attention64_backward is attention_backward for dh = 64: a block per tile
// of a64<T>::KR keys, the queries (with do, lse and dd) streamed in tiles of
// KC.
template <typename T>
__device__ void attention64_backward(i64 bh, i64 n, i64 m, const T* __restrict__ dout, const T* __restrict__ q,
                                     const T* __restrict__ k, const T* __restrict__ v, const T* __restrict__ lse,
                                     const T* __restrict__ dd, T* dk, T* dv, double scale) {
  constexpr int BR = a64<T>::KR, BC = a64<T>::KC, RM = BR / 16, RS = BC / 16;
  __shared__ T ks[BR][A64_LD], vs[BR][A64_LD], qs[BC][A64_LD], dos[BC][A64_LD];
  __shared__ T pt[BC][BR + 1], gt[BC][BR + 1], ls[BC], dds[BC];
  const int rg = threadIdx.x / 16, cg = threadIdx.x % 16;
  const i64 tiles = (m + BR - 1) / BR;
  const T sc = (T)scale;
  for (i64 t = blockIdx.x; t < bh * tiles; t += gridDim.x) {
    const i64 b = t / tiles, k0 = t % tiles * BR, keys = min((i64)BR, m - k0);
    __syncthreads();
    a64_load<T, BR>(ks, k + (b * m + k0) * 64, keys);
    a64_load<T, BR>(vs, v + (b * m + k0) * 64, keys);
    T dka[RM][4], dva[RM][4];
#pragma unroll
    for (int u = 0; u < RM; u++)
#pragma unroll
      for (int c = 0; c < 4; c++) dka[u][c] = 0, dva[u][c] = 0;
    for (i64 i0 = 0; i0 < n; i0 += BC) {
      const i64 qn = min((i64)BC, n - i0);
      __syncthreads();
      a64_load<T, BC>(qs, q + (b * n + i0) * 64, qn);
      a64_load<T, BC>(dos, dout + (b * n + i0) * 64, qn);
      for (int j = threadIdx.x; j < BC; j += 256) ls[j] = j < qn ? lse[b * n + i0 + j] : (T)0, dds[j] = j < qn ? dd[b * n + i0 + j] : (T)0;
      __syncthreads();
      T s[RM][RS], dp[RM][RS];
      a64_scores<T, RM, RS>(ks, qs, vs, dos, rg, cg, s, dp);
#pragma unroll
      for (int u = 0; u < RM; u++)
#pragma unroll
        for (int w = 0; w < RS; w++) {
          const int c = cg + 16 * w;
          T p = 0, g = 0;
          if (c < qn) {
            p = t_exp(s[u][w] * sc - ls[c]);
            g = p * (dp[u][w] - dds[c]) * sc;
          }
          pt[c][rg + 16 * u] = p, gt[c][rg + 16 * u] = g;
        }
      __syncthreads();
      a64_tn<T, RM, BC, BR + 1>(pt, dos, rg, cg, dva);
      a64_tn<T, RM, BC, BR + 1>(gt, qs, rg, cg, dka);
    }
#pragma unroll
    for (int u = 0; u < RM; u++) {
      const i64 r = rg + 16 * u;
      if (r >= keys) continue;
#pragma unroll
      for (int c = 0; c < 4; c++) {
        dk[(b * m + k0 + r) * 64 + cg + 16 * c] = dka[u][c];
        dv[(b * m + k0 + r) * 64 + cg + 16 * c] = dva[u][c];
      }
    }
  }
}

#define TRANSFORMER(S, T)                                                                                          \
  extern "C" __global__ void layer_norm_##S(i64 rows, i64 d, const T* __restrict__ x, const T* __restrict__ gamma, \
                                            const T* __restrict__ beta, T* y, T* mean, T* rstd, double eps) {     \
    layer_norm<T>(rows, d, x, gamma, beta, y, mean, rstd, eps);                                                    \
  }                                                                                                                \
  extern "C" __global__ void layer_norm_backward_##S(i64 rows, i64 d, i64 chunks, const T* __restrict__ dy,       \
                                                     const T* __restrict__ x, const T* __restrict__ gamma,        \
                                                     const T* __restrict__ mean, const T* __restrict__ rstd,      \
                                                     T* dx, double* part) {                                       \
    layer_norm_backward<T>(rows, d, chunks, dy, x, gamma, mean, rstd, dx, part);                                   \
  }                                                                                                                \
  extern "C" __global__ void layer_norm_backward_sums_##S(i64 d, i64 chunks, const double* __restrict__ part,     \
                                                          T* dgamma, T* dbeta) {                                  \
    layer_norm_backward_sums<T>(d, chunks, part, dgamma, dbeta);                                                   \
  }                                                                                                                \
  extern "C" __global__ void gelu_##S(i64 n, const T* __restrict__ x, T* y) { gelu<T>(n, x, y); }                  \
  extern "C" __global__ void gelu_backward_##S(i64 n, const T* __restrict__ dy, const T* __restrict__ x, T* dx) {  \
    gelu_backward<T>(n, dy, x, dx);                                                                                \
  }                                                                                                                \
  extern "C" __global__ void attention_##S(i64 bh, i64 n, i64 m, i64 dh, i64 br, i64 bc, const T* __restrict__ q, \
                                           const T* __restrict__ k, const T* __restrict__ v, T* o, T* lse,         \
                                           double scale) {                                                         \
    attention<T>(bh, n, m, dh, br, bc, q, k, v, o, lse, scale);                                                    \
  }                                                                                                                \
  extern "C" __global__ void attention_backward_dot_##S(i64 rows, i64 dh, const T* __restrict__ dout,             \
                                                        const T* __restrict__ o, T* dd) {                         \
    attention_backward_dot<T>(rows, dh, dout, o, dd);                                                              \
  }                                                                                                                \
  extern "C" __global__ void attention_backward_dq_##S(                                                            \
      i64 bh, i64 n, i64 m, i64 dh, i64 br, i64 bc, const T* __restrict__ dout, const T* __restrict__ q,         \
      const T* __restrict__ k, const T* __restrict__ v, const T* __restrict__ lse, const T* __restrict__ dd, T* dq, \
      double scale) {                                                                                              \
    attention_backward_dq<T>(bh, n, m, dh, br, bc, dout, q, k, v, lse, dd, dq, scale);                            \
  }                                                                                                                \
  extern "C" __global__ void attention_backward_##S(                                                               \
      i64 bh, i64 n, i64 m, i64 dh, i64 br, i64 bc, const T* __restrict__ dout, const T* __restrict__ q,         \
      const T* __restrict__ k, const T* __restrict__ v, const T* __restrict__ lse, const T* __restrict__ dd, T* dk, \
      T* dv, double scale) {                                                                                       \
    attention_backward<T>(bh, n, m, dh, br, bc, dout, q, k, v, lse, dd, dk, dv, scale);                           \
  }                                                                                                                \
  extern "C" __global__ void __launch_bounds__(256)                                                                \
      attention64_##S(i64 bh, i64 n, i64 m, const T* __restrict__ q, const T* __restrict__ k,                      \
                      const T* __restrict__ v, T* o, T* lse, double scale) {                                       \
    attention64<T>(bh, n, m, q, k, v, o, lse, scale);                                                              \
  }                                                                                                                \
  extern "C" __global__ void __launch_bounds__(256) attention64_backward_dq_##S(                                   \
      i64 bh, i64 n, i64 m, const T* __restrict__ dout, const T* __restrict__ q, const T* __restrict__ k,         \
      const T* __restrict__ v, const T* __restrict__ lse, const T* __restrict__ dd, T* dq, double scale) {        \
    attention64_backward_dq<T>(bh, n, m, dout, q, k, v, lse, dd, dq, scale);                                       \
  }                                                                                                                \
  extern "C" __global__ void __launch_bounds__(256) attention64_backward_##S(                                      \
      i64 bh, i64 n, i64 m, const T* __restrict__ dout, const T* __restrict__ q, const T* __restrict__ k,         \
      const T* __restrict__ v, const T* __restrict__ lse, const T* __restrict__ dd, T* dk, T* dv, double scale) { \
    attention64_backward<T>(bh, n, m, dout, q, k, v, lse, dd, dk, dv, scale);                                      \
  }
BOTH(TRANSFORMER)
