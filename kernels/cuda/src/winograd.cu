// Winograd minimal filtering F(m×m, 3×3), m = 4 or 2, for 3×3, stride-1,
// undilated convolutions, NCHW: the transforms of tensor/winograd.go, one
// thread a tile (or a filter). An m×m output tile is Aᵀ[(G g Gᵀ) ⊙ (Bᵀ d
// B)]A for the (m+2)×(m+2) input tile d; summed over the input channels,
// each of the a² = (m+2)² transformed positions ξ is a matrix product M[ξ]
// = U[ξ]·V[ξ], which the Go side runs as a batched GEMM (matmul.cu). The
// tiles of a chunk, t0 to t0+nt of the batch (in order image, tile row,
// tile column; th×tw tiles an image), are laid out as
//   v  [a², C, nt]  transformed input tiles (winograd_inputs)
//   u  [a², O, C]   transformed filters (winograd_filters)
//   mm [a², O, nt]  products, back-transformed by winograd_outputs.
// Tiles reaching past the input read zeros; outputs past the edge are
// dropped. The weight gradient is taken in the same domain: dM = A·dY·Aᵀ
// (winograd_output_grads, dY zero past the edge), dU[ξ] = Σ dM[ξ]·V[ξ]ᵀ (a
// GEMM), dW = Gᵀ·dU·G (winograd_filter_grads).
#include "common.cuh"

// wg<M> holds F(M×M, 3×3): its side A = M+2, and its transforms of a
// vector of stride sd into one of stride so, as tensor/winograd.go's
// inputRow (bt: Bᵀ·d, A from A), outputRow (at: Aᵀ·s, M from A) and
// gradRow (am: A·s, A from M, the adjoint of at); g is G, A×3.
template <int M>
struct wg;

template <>
struct wg<4> {
  static constexpr int A = 6;
  template <typename T>
  __device__ static void bt(T* out, int so, const T* d, int sd) {
    T d0 = d[0], d1 = d[sd], d2 = d[2 * sd], d3 = d[3 * sd], d4 = d[4 * sd], d5 = d[5 * sd];
    out[0] = 4 * d0 - 5 * d2 + d4;
    out[so] = d4 + d3 - 4 * (d1 + d2);
    out[2 * so] = d4 - d3 + 4 * (d1 - d2);
    out[3 * so] = d4 - d2 + 2 * (d3 - d1);
    out[4 * so] = d4 - d2 - 2 * (d3 - d1);
    out[5 * so] = 4 * d1 - 5 * d3 + d5;
  }
  template <typename T>
  __device__ static void at(T* out, int so, const T* s, int ss) {
    T s0 = s[0], s1 = s[ss], s2 = s[2 * ss], s3 = s[3 * ss], s4 = s[4 * ss], s5 = s[5 * ss];
    out[0] = s0 + s1 + s2 + s3 + s4;
    out[so] = s1 - s2 + 2 * (s3 - s4);
    out[2 * so] = s1 + s2 + 4 * (s3 + s4);
    out[3 * so] = s1 - s2 + 8 * (s3 - s4) + s5;
  }
  template <typename T>
  __device__ static void am(T* out, int so, const T* s, int ss) {
    T s0 = s[0], s1 = s[ss], s2 = s[2 * ss], s3 = s[3 * ss];
    out[0] = s0;
    out[so] = s0 + s1 + s2 + s3;
    out[2 * so] = s0 - s1 + s2 - s3;
    out[3 * so] = s0 + 2 * s1 + 4 * s2 + 8 * s3;
    out[4 * so] = s0 - 2 * s1 + 4 * s2 - 8 * s3;
    out[5 * so] = s3;
  }
  template <typename T>
  __device__ static T g(int k, int j) {
    const double G[6][3] = {{1.0 / 4, 0, 0},
                            {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                            {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                            {1.0 / 24, 1.0 / 12, 1.0 / 6},
                            {1.0 / 24, -1.0 / 12, 1.0 / 6},
                            {0, 0, 1}};
    return (T)G[k][j];
  }
};

template <>
struct wg<2> {
  static constexpr int A = 4;
  template <typename T>
  __device__ static void bt(T* out, int so, const T* d, int sd) {
    T d0 = d[0], d1 = d[sd], d2 = d[2 * sd], d3 = d[3 * sd];
    out[0] = d0 - d2;
    out[so] = d1 + d2;
    out[2 * so] = d2 - d1;
    out[3 * so] = d1 - d3;
  }
  template <typename T>
  __device__ static void at(T* out, int so, const T* s, int ss) {
    T s0 = s[0], s1 = s[ss], s2 = s[2 * ss], s3 = s[3 * ss];
    out[0] = s0 + s1 + s2;
    out[so] = s1 - s2 - s3;
  }
  template <typename T>
  __device__ static void am(T* out, int so, const T* s, int ss) {
    T s0 = s[0], s1 = s[ss];
    out[0] = s0;
    out[so] = s0 + s1;
    out[2 * so] = s0 - s1;
    out[3 * so] = -s1;
  }
  template <typename T>
  __device__ static T g(int k, int j) {
    const double G[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
    return (T)G[k][j];
  }
};

// tiling is a chunk's tiles: th×tw tiles of m×m outputs an image, the
// chunk's tile t being the batch's t0 + t.
struct tiling {
  i64 m, th, tw, t0;
  // at sets the image and the top-left output position of chunk tile t.
  __device__ void at(i64 t, i64& n, i64& oy, i64& ox) const {
    i64 g = t0 + t, per = th * tw, r = g % per;
    n = g / per, oy = r / tw * m, ox = r % tw * m;
  }
};

// inputs sets v [a², C, nt] to Bᵀ·d·B for each channel's input tile d of
// x [N, C, H, W] (rows from oy − ph, columns from ox − pw; zero outside).
template <typename T, int M>
__device__ void inputs(tiling tl, i64 c, i64 h, i64 w, i64 ph, i64 pw, i64 nt, const T* __restrict__ x, T* v) {
  constexpr int A = wg<M>::A;
  FOR_EACH(i, c * nt) {
    i64 t = i % nt, ch = i / nt, n, oy, ox;
    tl.at(t, n, oy, ox);
    i64 y0 = oy - ph, x0 = ox - pw;
    const T* img = x + (n * c + ch) * h * w;
    T d[A * A], tmp[A * A], e[A * A];
#pragma unroll
    for (int r = 0; r < A; r++)
#pragma unroll
      for (int q = 0; q < A; q++) {
        i64 y = y0 + r, u = x0 + q;
        d[r * A + q] = y >= 0 && y < h && u >= 0 && u < w ? img[y * w + u] : (T)0;
      }
#pragma unroll
    for (int q = 0; q < A; q++) wg<M>::bt(tmp + q, A, d + q, A);  // Bᵀ·d, column by column
#pragma unroll
    for (int r = 0; r < A; r++) wg<M>::bt(e + r * A, 1, tmp + r * A, 1);  // then each row by B
#pragma unroll
    for (int xi = 0; xi < A * A; xi++) v[(xi * c + ch) * nt + t] = e[xi];
  }
}

// outputs writes y [N, O, OH, OW] from mm [a², O, nt]: each tile Aᵀ·M·A,
// clipped at the edge, plus bias[o] where bias is not null.
template <typename T, int M>
__device__ void outputs(tiling tl, i64 o, i64 oh, i64 ow, i64 nt, const T* __restrict__ mm,
                        const T* __restrict__ bias, T* y) {
  constexpr int A = wg<M>::A;
  FOR_EACH(i, o * nt) {
    i64 t = i % nt, oc = i / nt, n, oy, ox;
    tl.at(t, n, oy, ox);
    T s[A * A], tmp[M * A], out[M * M];
#pragma unroll
    for (int xi = 0; xi < A * A; xi++) s[xi] = mm[(xi * o + oc) * nt + t];
#pragma unroll
    for (int q = 0; q < A; q++) wg<M>::at(tmp + q, A, s + q, A);  // Aᵀ·M, column by column
#pragma unroll
    for (int r = 0; r < M; r++) wg<M>::at(out + r * M, 1, tmp + r * A, 1);  // then each row by A
    T* plane = y + (n * o + oc) * oh * ow;
#pragma unroll
    for (int r = 0; r < M; r++)
#pragma unroll
      for (int q = 0; q < M; q++) {
        if (oy + r >= oh || ox + q >= ow) continue;
        T val = out[r * M + q];
        if (bias != nullptr) val = val + bias[oc];
        plane[(oy + r) * ow + ox + q] = val;
      }
  }
}

// output_grads sets dm [a², O, nt] to A·dY·Aᵀ for each tile's output
// gradient dY of dy [N, O, OH, OW], zero past the edge.
template <typename T, int M>
__device__ void output_grads(tiling tl, i64 o, i64 oh, i64 ow, i64 nt, const T* __restrict__ dy, T* dm) {
  constexpr int A = wg<M>::A;
  FOR_EACH(i, o * nt) {
    i64 t = i % nt, oc = i / nt, n, oy, ox;
    tl.at(t, n, oy, ox);
    const T* plane = dy + (n * o + oc) * oh * ow;
    T s[M * M], tmp[A * M], e[A * A];
#pragma unroll
    for (int r = 0; r < M; r++)
#pragma unroll
      for (int q = 0; q < M; q++)
        s[r * M + q] = oy + r < oh && ox + q < ow ? plane[(oy + r) * ow + ox + q] : (T)0;
#pragma unroll
    for (int q = 0; q < M; q++) wg<M>::am(tmp + q, M, s + q, M);  // A·dY, column by column
#pragma unroll
    for (int r = 0; r < A; r++) wg<M>::am(e + r * A, 1, tmp + r * M, 1);  // then each row by Aᵀ
#pragma unroll
    for (int xi = 0; xi < A * A; xi++) dm[(xi * o + oc) * nt + t] = e[xi];
  }
}

// filters sets u [a², O, C] to G·g·Gᵀ for the filters g of w [O, C, 3, 3],
// or with flip of w [C, O, 3, 3], each turned by 180° (the input gradient's
// filters: channels swapped and flipped, tensor's flipKernel).
template <typename T, int M>
__device__ void filters(i64 o, i64 c, i64 flip, const T* __restrict__ w, T* u) {
  constexpr int A = wg<M>::A;
  FOR_EACH(i, o * c) {
    i64 oc = i / c, ch = i % c;
    T g[9], tmp[A * 3], e[A * A];
#pragma unroll
    for (int k = 0; k < 9; k++) g[k] = flip ? w[(ch * o + oc) * 9 + 8 - k] : w[(oc * c + ch) * 9 + k];
#pragma unroll
    for (int r = 0; r < A; r++)  // G·g
#pragma unroll
      for (int q = 0; q < 3; q++) {
        T sum = 0;
#pragma unroll
        for (int l = 0; l < 3; l++) sum += wg<M>::template g<T>(r, l) * g[l * 3 + q];
        tmp[r * 3 + q] = sum;
      }
#pragma unroll
    for (int r = 0; r < A; r++)  // then by Gᵀ
#pragma unroll
      for (int q = 0; q < A; q++) {
        T sum = 0;
#pragma unroll
        for (int l = 0; l < 3; l++) sum += tmp[r * 3 + l] * wg<M>::template g<T>(q, l);
        e[r * A + q] = sum;
      }
#pragma unroll
    for (int xi = 0; xi < A * A; xi++) u[(xi * o + oc) * c + ch] = e[xi];
  }
}

// filter_grads sets dw [O, C, 3, 3] to Gᵀ·dU·G for du [a², O, C].
template <typename T, int M>
__device__ void filter_grads(i64 o, i64 c, const T* __restrict__ du, T* dw) {
  constexpr int A = wg<M>::A;
  FOR_EACH(i, o * c) {
    i64 oc = i / c, ch = i % c;
    T s[A * A], tmp[3 * A];
#pragma unroll
    for (int xi = 0; xi < A * A; xi++) s[xi] = du[(xi * o + oc) * c + ch];
#pragma unroll
    for (int r = 0; r < 3; r++)  // Gᵀ·dU
#pragma unroll
      for (int q = 0; q < A; q++) {
        T sum = 0;
#pragma unroll
        for (int l = 0; l < A; l++) sum += wg<M>::template g<T>(l, r) * s[l * A + q];
        tmp[r * A + q] = sum;
      }
#pragma unroll
    for (int r = 0; r < 3; r++)  // then by G
#pragma unroll
      for (int q = 0; q < 3; q++) {
        T sum = 0;
#pragma unroll
        for (int l = 0; l < A; l++) sum += tmp[r * A + l] * wg<M>::template g<T>(l, q);
        dw[(oc * c + ch) * 9 + r * 3 + q] = sum;
      }
  }
}

// BY_TILE(T, f, args) calls f<T, 4> or f<T, 2> by the kernel's parameter
// m; another m traps (not reached: the Go side passes 4 or 2).
#define BY_TILE(T, f, ...)  \
  if (m == 4)               \
    f<T, 4>(__VA_ARGS__);   \
  else if (m == 2)          \
    f<T, 2>(__VA_ARGS__);   \
  else                      \
    __trap();

#define TILING_ARGS i64 m, i64 th, i64 tw, i64 t0, i64 nt
#define TILING tiling{m, th, tw, t0}

#define WINOGRAD(S, T)                                                                                          \
  extern "C" __global__ void winograd_inputs_##S(TILING_ARGS, i64 c, i64 h, i64 w, i64 ph, i64 pw,              \
                                                 const T* __restrict__ x, T* v) {                               \
    BY_TILE(T, inputs, TILING, c, h, w, ph, pw, nt, x, v)                                                       \
  }                                                                                                             \
  extern "C" __global__ void winograd_outputs_##S(TILING_ARGS, i64 o, i64 oh, i64 ow, const T* __restrict__ mm, \
                                                  const T* __restrict__ bias, T* y) {                           \
    BY_TILE(T, outputs, TILING, o, oh, ow, nt, mm, bias, y)                                                     \
  }                                                                                                             \
  extern "C" __global__ void winograd_output_grads_##S(TILING_ARGS, i64 o, i64 oh, i64 ow,                      \
                                                       const T* __restrict__ dy, T* dm) {                       \
    BY_TILE(T, output_grads, TILING, o, oh, ow, nt, dy, dm)                                                     \
  }                                                                                                             \
  extern "C" __global__ void winograd_filters_##S(i64 m, i64 o, i64 c, i64 flip, const T* __restrict__ w,       \
                                                  T* u) {                                                       \
    BY_TILE(T, filters, o, c, flip, w, u)                                                                       \
  }                                                                                                             \
  extern "C" __global__ void winograd_filter_grads_##S(i64 m, i64 o, i64 c, const T* __restrict__ du, T* dw) {  \
    BY_TILE(T, filter_grads, o, c, du, dw)                                                                      \
  }
BOTH(WINOGRAD)
