// Convolution by columns (im2col, GEMM, col2im) and 2-D pooling, NCHW.
//
// The column matrix of a chunk of nb images is col [C·KH·KW, nb·OH·OW]: row
// (c, kh, kw), column (image, oy, ox), zero where the receptive field falls on
// padding. The GEMMs over it run in matmul.cu.
#include "common.cuh"

// im2col fills col from the nb images x [nb, C, H, W].
template <typename T>
__device__ void im2col(i64 nb, const T* __restrict__ x, T* col, i64 c, i64 h, i64 w, i64 kh, i64 kw, i64 sh,
                       i64 sw, i64 ph, i64 pw, i64 dh, i64 dw, i64 oh, i64 ow) {
  i64 cols = nb * oh * ow;
  FOR_EACH(t, c * kh * kw * cols) {
    i64 q = t % cols, r = t / cols;
    i64 ox = q % ow, oy = (q / ow) % oh, img = q / (oh * ow);
    i64 kx = r % kw, ky = (r / kw) % kh, ch = r / (kw * kh);
    i64 iy = oy * sh - ph + ky * dh, ix = ox * sw - pw + kx * dw;
    col[t] = iy >= 0 && iy < h && ix >= 0 && ix < w ? x[((img * c + ch) * h + iy) * w + ix] : (T)0;
  }
}

// col2im sets dx [nb, C, H, W] to the sum of the column entries that read
// each input element: the adjoint of im2col, as a gather (no atomics, so the
// result does not depend on scheduling).
template <typename T>
__device__ void col2im(i64 nb, const T* __restrict__ col, T* dx, i64 c, i64 h, i64 w, i64 kh, i64 kw, i64 sh,
                       i64 sw, i64 ph, i64 pw, i64 dh, i64 dw, i64 oh, i64 ow) {
  i64 cols = nb * oh * ow;
  FOR_EACH(t, nb * c * h * w) {
    i64 ix = t % w, iy = (t / w) % h, ch = (t / (w * h)) % c, img = t / (w * h * c);
    T acc = 0;
    for (i64 ky = 0; ky < kh; ky++) {
      i64 ty = iy + ph - ky * dh;
      if (ty < 0 || ty % sh != 0 || ty / sh >= oh) continue;
      for (i64 kx = 0; kx < kw; kx++) {
        i64 tx = ix + pw - kx * dw;
        if (tx < 0 || tx % sw != 0 || tx / sw >= ow) continue;
        acc += col[((ch * kh + ky) * kw + kx) * cols + (img * oh + ty / sh) * ow + tx / sw];
      }
    }
    dx[t] = acc;
  }
}

// Pooling over planes = N·C planes of h×w; the window of output (oy, ox) is
// clipped to the input (padding never wins a max and counts as zero in an
// average, which divides by kh·kw).

// window_argmax is the CPU's windowArgmax: the plane offset of the first
// maximum in row-major order, or of the first NaN.
template <typename T>
__device__ __forceinline__ i64 window_argmax(const T* __restrict__ p, i64 h, i64 w, i64 kh, i64 kw, i64 sh, i64 sw,
                                             i64 ph, i64 pw, i64 oy, i64 ox) {
  i64 h0 = oy * sh - ph, w0 = ox * sw - pw;
  i64 h1 = min(h0 + kh, h), w1 = min(w0 + kw, w);
  h0 = max(h0, 0LL), w0 = max(w0, 0LL);
  i64 bi = h0 * w + w0;
  T best = p[bi];
  for (i64 iy = h0; iy < h1; iy++)
    for (i64 i = iy * w + w0; i < iy * w + w1; i++) {
      T v = p[i];
      if (v > best || (v != v && best == best)) best = v, bi = i;
    }
  return bi;
}

#define POOL_ARGS i64 planes, i64 h, i64 w, i64 kh, i64 kw, i64 sh, i64 sw, i64 ph, i64 pw, i64 oh, i64 ow

template <typename T>
__device__ void maxpool_fwd(POOL_ARGS, const T* __restrict__ x, T* y) {
  FOR_EACH(t, planes * oh * ow) {
    i64 ox = t % ow, oy = (t / ow) % oh, pl = t / (ow * oh);
    const T* p = x + pl * h * w;
    y[t] = p[window_argmax(p, h, w, kh, kw, sh, sw, ph, pw, oy, ox)];
  }
}

// maxpool_bwd adds each dy into dx (zeroed by the caller) at its window's
// maximum; overlapping windows meet through atomicAdd.
template <typename T>
__device__ void maxpool_bwd(POOL_ARGS, const T* __restrict__ x, const T* __restrict__ dy, T* dx) {
  FOR_EACH(t, planes * oh * ow) {
    i64 ox = t % ow, oy = (t / ow) % oh, pl = t / (ow * oh);
    i64 i = window_argmax(x + pl * h * w, h, w, kh, kw, sh, sw, ph, pw, oy, ox);
    atomicAdd(dx + pl * h * w + i, dy[t]);
  }
}

template <typename T>
__device__ void avgpool_fwd(POOL_ARGS, const T* __restrict__ x, T* y) {
  T scale = (T)1 / (T)(kh * kw);
  FOR_EACH(t, planes * oh * ow) {
    i64 ox = t % ow, oy = (t / ow) % oh, pl = t / (ow * oh);
    const T* p = x + pl * h * w;
    i64 h0 = oy * sh - ph, w0 = ox * sw - pw;
    i64 h1 = min(h0 + kh, h), w1 = min(w0 + kw, w);
    T s = 0;
    for (i64 iy = max(h0, 0LL); iy < h1; iy++)
      for (i64 ix = max(w0, 0LL); ix < w1; ix++) s += p[iy * w + ix];
    y[t] = s * scale;
  }
}

// avgpool_bwd sets each dx to the sum of dy/(kh·kw) over the windows that
// cover it (a gather).
template <typename T>
__device__ void avgpool_bwd(POOL_ARGS, const T* __restrict__ dy, T* dx) {
  T scale = (T)1 / (T)(kh * kw);
  FOR_EACH(t, planes * h * w) {
    i64 ix = t % w, iy = (t / w) % h, pl = t / (w * h);
    // Windows oy with oy·sh − ph ≤ iy < oy·sh − ph + kh (C division
    // truncates a negative lower bound to ≤ 0, which max clips to 0).
    i64 ylo = max(0LL, (iy + ph - kh + sh) / sh), yhi = min(oh - 1, (iy + ph) / sh);
    i64 xlo = max(0LL, (ix + pw - kw + sw) / sw), xhi = min(ow - 1, (ix + pw) / sw);
    T s = 0;
    for (i64 oy = ylo; oy <= yhi; oy++)
      for (i64 ox = xlo; ox <= xhi; ox++) s += dy[(pl * oh + oy) * ow + ox] * scale;
    dx[t] = s;
  }
}

// Implicit-GEMM convolution: the three passes as GEMMs C [M, N] = A [M, K] ·
// B [K, N] whose operands are read from the tensors where they lie, so that
// no column matrix is written or read. Each pass (a "mode" below) says how
// its GEMM indices map to addresses:
//   - a depth l (the GEMM's k) gives aoff, boff and a shift (dy, dx): A[i][l]
//     = a[i·sa + aoff], B[l][j] = b[bbase + boff] where 0 ≤ y0 + dy < bh and
//     0 ≤ x0 + dx < bw (zero padding otherwise);
//   - a column j gives bbase, (y0, x0) and cbase: C[i][j] = c[cbase + i·sc].
// A block computes a TM×TN tile of C (TM·TN = 4096, 256 threads of 4×4
// outputs, a warp 4 row groups by 8 column groups so that its shared-memory
// reads are 16-byte broadcasts), stepping through the depth in slices of
// CK, whose depth table the first CK threads fill. grid z splits the depth
// into slices of kc: slice z of the product goes to matrix z of c.
#define CK 16

struct cgeom {
  i64 c, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow, o;
};

// kent is a depth's entry of the table.
struct kent {
  i64 aoff, boff;
  int dy, dx;
};

// colinfo is a column's addresses.
struct colinfo {
  i64 bbase, cbase;
  int y0, x0;
};

// conv_fwd: y = conv(x, w). M = O, N = images·OH·OW, K = C·KH·KW; A = w,
// B = x, C = y.
struct conv_fwd {
  cgeom g;
  __device__ i64 M() const { return g.o; }
  __device__ i64 K() const { return g.c * g.kh * g.kw; }
  __device__ i64 sa() const { return K(); }
  __device__ i64 sc() const { return g.oh * g.ow; }
  __device__ int bh() const { return int(g.h); }
  __device__ int bw() const { return int(g.w); }
  __device__ kent depth(i64 l) const {
    i64 kk = g.kh * g.kw, ch = l / kk, r = l % kk;
    int dy = int((r / g.kw) * g.dh - g.ph), dx = int((r % g.kw) * g.dw - g.pw);
    return {l, ch * g.h * g.w + dy * g.w + dx, dy, dx};
  }
  __device__ colinfo col(i64 j) const {
    i64 hw = g.oh * g.ow, img = j / hw, p = j % hw;
    int y0 = int(p / g.ow * g.sh), x0 = int(p % g.ow * g.sw);
    return {img * g.c * g.h * g.w + y0 * g.w + x0, img * g.o * hw + p, y0, x0};
  }
};

// conv_bwd_input: dx = the adjoint of conv_fwd in x, for unit strides.
// M = C, N = images·H·W, K = O·KH·KW; A[c][(o, ky, kx)] = w[o][c][ky][kx],
// B[(o, ky, kx)][(n, iy, ix)] = dy[n][o][iy + ph − ky·dh][ix + pw − kx·dw].
struct conv_bwd_input {
  cgeom g;
  __device__ i64 M() const { return g.c; }
  __device__ i64 K() const { return g.o * g.kh * g.kw; }
  __device__ i64 sa() const { return g.kh * g.kw; }
  __device__ i64 sc() const { return g.h * g.w; }
  __device__ int bh() const { return int(g.oh); }
  __device__ int bw() const { return int(g.ow); }
  __device__ kent depth(i64 l) const {
    i64 kk = g.kh * g.kw, oc = l / kk, r = l % kk;
    int dy = int(g.ph - (r / g.kw) * g.dh), dx = int(g.pw - (r % g.kw) * g.dw);
    return {oc * g.c * kk + r, oc * g.oh * g.ow + dy * g.ow + dx, dy, dx};
  }
  __device__ colinfo col(i64 j) const {
    i64 hw = g.h * g.w, img = j / hw, p = j % hw;
    int y0 = int(p / g.w), x0 = int(p % g.w);
    return {img * g.o * g.oh * g.ow + y0 * g.ow + x0, img * g.c * hw + p, y0, x0};
  }
};

// conv_bwd_weight: dw = the adjoint of conv_fwd in w. M = O, N = C·KH·KW,
// K = images·OH·OW; A = dy, B[(n, oy, ox)][(c, ky, kx)] = x[n][c][oy·sh −
// ph + ky·dh][ox·sw − pw + kx·dw], C = dw (or a split's partial sums).
struct conv_bwd_weight {
  cgeom g;
  __device__ i64 M() const { return g.o; }
  __device__ i64 sa() const { return g.oh * g.ow; }
  __device__ i64 sc() const { return g.c * g.kh * g.kw; }
  __device__ int bh() const { return int(g.h); }
  __device__ int bw() const { return int(g.w); }
  __device__ kent depth(i64 l) const {
    i64 hw = g.oh * g.ow, img = l / hw, p = l % hw;
    int dy = int(p / g.ow * g.sh), dx = int(p % g.ow * g.sw);
    return {img * g.o * hw + p, img * g.c * g.h * g.w + dy * g.w + dx, dy, dx};
  }
  __device__ colinfo col(i64 j) const {
    i64 kk = g.kh * g.kw, ch = j / kk, r = j % kk;
    int y0 = int((r / g.kw) * g.dh - g.ph), x0 = int((r % g.kw) * g.dw - g.pw);
    return {ch * g.h * g.w + y0 * g.w + x0, j, y0, x0};
  }
};

template <typename T, typename Mode, int TM, int TN>
__device__ void conv_gemm(const Mode md, i64 n, i64 k, const T* __restrict__ a, const T* __restrict__ b, T* c,
                          i64 kc, i64 splits) {
  static_assert(TM * TN == 4096 && TM >= 16 && TN >= 64, "256 threads of 4×4 outputs, warps of 4×8");
  __align__(16) __shared__ T as[CK][TM + 4];
  __align__(16) __shared__ T bs[CK][TN + 4];
  __shared__ kent kt[CK];
  constexpr int RB = TM / 16;  // warps along the rows
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int ty = (warp % RB) * 4 + lane / 8, tx = (warp / RB) * 8 + lane % 8;
  const i64 m = md.M(), sa = md.sa(), sc = md.sc();
  const int bh = md.bh(), bw = md.bw();
  for (i64 z = blockIdx.z; z < splits; z += gridDim.z)
    for (i64 by = blockIdx.y; by * TM < m; by += gridDim.y)
      for (i64 bx = blockIdx.x; bx * TN < n; bx += gridDim.x) {
        const i64 row0 = by * TM, col0 = bx * TN, kbeg = z * kc, kend = min(k, kbeg + kc);
        // The column this thread loads B for (the same at every depth).
        const i64 lj = col0 + tid % TN;
        const bool jin = lj < n;
        const colinfo ci = md.col(jin ? lj : 0);
        T acc[4][4];
#pragma unroll
        for (int u = 0; u < 4; u++)
#pragma unroll
          for (int v = 0; v < 4; v++) acc[u][v] = 0;
        for (i64 k0 = kbeg; k0 < kend; k0 += CK) {
          if (tid < CK) {
            kent e = md.depth(min(k0 + tid, kend - 1));
            if (k0 + tid >= kend) e.dy = 1 << 30;  // beyond the slice: every B read is padding
            kt[tid] = e;
          }
          __syncthreads();
#pragma unroll
          for (int q = 0; q < TM * CK / 256; q++) {
            int e = tid + 256 * q, i = e / CK, l = e % CK;
            as[l][i] = row0 + i < m && k0 + l < kend ? a[(row0 + i) * sa + kt[l].aoff] : (T)0;
          }
#pragma unroll
          for (int q = 0; q < TN * CK / 256; q++) {
            int l = tid / TN + (256 / TN) * q;
            const kent e = kt[l];
            bool in = jin && (unsigned)(ci.y0 + e.dy) < (unsigned)bh && (unsigned)(ci.x0 + e.dx) < (unsigned)bw;
            bs[l][tid % TN] = in ? b[ci.bbase + e.boff] : (T)0;
          }
          __syncthreads();
          fma4x4<T, CK, TM + 4, TN + 4>(as, bs, ty, tx, acc);
          __syncthreads();
        }
#pragma unroll
        for (int v = 0; v < 4; v++) {
          i64 j = col0 + 4 * tx + v;
          if (j >= n) continue;
          i64 base = md.col(j).cbase + z * m * n;  // splits > 1: n = sc, partial matrices [splits, m, n]
#pragma unroll
          for (int u = 0; u < 4; u++) {
            i64 i = row0 + 4 * ty + u;
            if (i < m) c[base + i * sc] = acc[u][v];
          }
        }
      }
}

#define CONV_ARGS i64 c, i64 h, i64 w, i64 kh, i64 kw, i64 sh, i64 sw, i64 ph, i64 pw, i64 dh, i64 dw, i64 oh, i64 ow
#define CONV_PASS c, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow
#define POOL_PASS planes, h, w, kh, kw, sh, sw, ph, pw, oh, ow

#define CG_PARAMS(T)                                                                                       \
  i64 n, i64 k, const T *__restrict__ a, const T *__restrict__ b, T *c, i64 gc, i64 gh, i64 gw, i64 gkh, i64 gkw, \
      i64 gsh, i64 gsw, i64 gph, i64 gpw, i64 gdh, i64 gdw, i64 goh, i64 gow, i64 go, i64 kc, i64 splits
#define CG_GEOM {gc, gh, gw, gkh, gkw, gsh, gsw, gph, gpw, gdh, gdw, goh, gow, go}
// CONV_GEMM(S, T, name, Mode) defines name_m16, name_m32 and name_m64: the
// tiles 16×256, 32×128 and 64×64, for M ≤ 16, ≤ 32 and more.
#define CONV_GEMM(S, T, name, Mode)                                                                          \
  extern "C" __global__ void __launch_bounds__(256) name##_m16_##S(CG_PARAMS(T)) {                         \
    conv_gemm<T, Mode, 16, 256>(Mode{CG_GEOM}, n, k, a, b, c, kc, splits);                                   \
  }                                                                                                          \
  extern "C" __global__ void __launch_bounds__(256) name##_m32_##S(CG_PARAMS(T)) {                         \
    conv_gemm<T, Mode, 32, 128>(Mode{CG_GEOM}, n, k, a, b, c, kc, splits);                                   \
  }                                                                                                          \
  extern "C" __global__ void __launch_bounds__(256) name##_m64_##S(CG_PARAMS(T)) {                         \
    conv_gemm<T, Mode, 64, 64>(Mode{CG_GEOM}, n, k, a, b, c, kc, splits);                                    \
  }
#define CONV_GEMMS(S, T)                                  \
  CONV_GEMM(S, T, conv2d, conv_fwd)                       \
  CONV_GEMM(S, T, conv2d_backward_input, conv_bwd_input)  \
  CONV_GEMM(S, T, conv2d_backward_weight, conv_bwd_weight)
BOTH(CONV_GEMMS)

#define CONV(S, T)                                                                                             \
  extern "C" __global__ void im2col_##S(i64 nb, const T* __restrict__ x, T* col, CONV_ARGS) {                   \
    im2col<T>(nb, x, col, CONV_PASS);                                                                          \
  }                                                                                                            \
  extern "C" __global__ void col2im_##S(i64 nb, const T* __restrict__ col, T* dx, CONV_ARGS) {                  \
    col2im<T>(nb, col, dx, CONV_PASS);                                                                         \
  }                                                                                                            \
  extern "C" __global__ void maxpool_fwd_##S(POOL_ARGS, const T* __restrict__ x, T* y) {                       \
    maxpool_fwd<T>(POOL_PASS, x, y);                                                                           \
  }                                                                                                            \
  extern "C" __global__ void maxpool_bwd_##S(POOL_ARGS, const T* __restrict__ x, const T* __restrict__ dy, T* dx) { \
    maxpool_bwd<T>(POOL_PASS, x, dy, dx);                                                                      \
  }                                                                                                            \
  extern "C" __global__ void avgpool_fwd_##S(POOL_ARGS, const T* __restrict__ x, T* y) {                       \
    avgpool_fwd<T>(POOL_PASS, x, y);                                                                           \
  }                                                                                                            \
  extern "C" __global__ void avgpool_bwd_##S(POOL_ARGS, const T* __restrict__ dy, T* dx) {                     \
    avgpool_bwd<T>(POOL_PASS, dy, dx);                                                                         \
  }
BOTH(CONV)
