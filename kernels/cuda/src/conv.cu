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

#define CONV_ARGS i64 c, i64 h, i64 w, i64 kh, i64 kw, i64 sh, i64 sw, i64 ph, i64 pw, i64 dh, i64 dw, i64 oh, i64 ow
#define CONV_PASS c, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow
#define POOL_PASS planes, h, w, kh, kw, sh, sw, ph, pw, oh, ow

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
