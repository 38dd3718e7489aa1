// Batch normalisation in training mode, forward and backward, with an
// optional residual sum and ReLU: tensor.BatchNormKernel,
// tensor.BatchNormBackwardKernel, tensor.BatchNormReluKernel and
// tensor.BatchNormReluBackwardKernel. Each channel's
// values (n rows of s, x being [n, c, s]) are cut into chunks of rows, one
// block each, so that a few channels still fill the GPU: a first kernel
// writes each chunk's partial statistics, a second combines a channel's
// partials in chunk order (deterministic) and writes the outputs of its
// chunk. Statistics and sums are accumulated in double and the per-element
// arithmetic is rounded as tensor's CPU loops round it (batchNormCPU,
// batchNormBackwardCPU), so that only the order of the double sums differs.
#include "common.cuh"

// bn_rows calls f(o) for the offset o of every value of rows [r0, r1) of
// channel ch: a warp a row, lanes along it, where rows hold 32 values or
// more; the block's threads along the chunk's values otherwise.
template <typename F>
__device__ __forceinline__ void bn_rows(i64 r0, i64 r1, i64 c, i64 s, i64 ch, F f) {
  if (s >= 32) {
    const int lane = threadIdx.x % 32, warps = blockDim.x / 32;
    for (i64 r = r0 + threadIdx.x / 32; r < r1; r += warps) {
      const i64 base = (r * c + ch) * s;
      for (i64 p = lane; p < s; p += 32) f(base + p);
    }
  } else {
    for (i64 e = threadIdx.x; e < (r1 - r0) * s; e += blockDim.x) f(((r0 + e / s) * c + ch) * s + e % s);
  }
}

// The rows of chunk k of a channel's n rows cut into chunks.
__device__ __forceinline__ void bn_chunk(i64 n, i64 chunks, i64 k, i64& r0, i64& r1) {
  const i64 per = (n + chunks - 1) / chunks;
  r0 = min(n, k * per);
  r1 = min(n, r0 + per);
}

// bn_stats writes each chunk's count, mean and sum of squared deviations
// from that mean (two passes over the chunk) to part [c, chunks, 3].
template <typename T>
__device__ void bn_stats(i64 n, i64 c, i64 s, i64 chunks, const T* __restrict__ x, double* part) {
  for (i64 b = blockIdx.x; b < c * chunks; b += gridDim.x) {
    const i64 ch = b / chunks;
    i64 r0, r1;
    bn_chunk(n, chunks, b % chunks, r0, r1);
    double sum = 0;
    bn_rows(r0, r1, c, s, ch, [&](i64 o) { sum += (double)x[o]; });
    const double cnt = (double)((r1 - r0) * s);
    const double tot = block_reduce(OpSum, sum), mu = cnt > 0 ? tot / cnt : 0;
    double sq = 0;
    bn_rows(r0, r1, c, s, ch, [&](i64 o) {
      const double d = (double)x[o] - mu;
      sq = add(sq, mul(d, d));
    });
    sq = block_reduce(OpSum, sq);
    if (threadIdx.x == 0) part[3 * b] = cnt, part[3 * b + 1] = mu, part[3 * b + 2] = sq;
  }
}

// bn_combine merges a channel's chunk statistics in chunk order (Chan,
// Golub and LeVeque's pairwise update) into its mean and biased variance.
__device__ __forceinline__ void bn_combine(const double* p, i64 chunks, double& mu, double& va) {
  double cnt = 0, m = 0, m2 = 0;
  for (i64 k = 0; k < chunks; k++, p += 3) {
    if (p[0] == 0) continue;
    const double tot = cnt + p[0], d = p[1] - m;
    m += d * p[0] / tot;
    m2 += p[2] + d * d * cnt * p[0] / tot;
    cnt = tot;
  }
  mu = m;
  va = cnt > 0 ? m2 / cnt : 0;
}

// bn_forward sets y = γ·(x − μ)/√(σ² + ε) + β from the partial statistics,
// the first chunk's block writing μ and σ² to mean and var; with relu set,
// y = max(that + r, 0) (r may be null: no residual), as affineAddRelu.
template <typename T>
__device__ void bn_forward(i64 n, i64 c, i64 s, i64 chunks, const double* __restrict__ part,
                           const T* __restrict__ x, const T* __restrict__ gamma, const T* __restrict__ beta,
                           const T* __restrict__ r, i64 relu, T* y, T* mean, T* var, double eps) {
  __shared__ double st[2];
  for (i64 b = blockIdx.x; b < c * chunks; b += gridDim.x) {
    const i64 ch = b / chunks;
    __syncthreads();  // the previous chunk's readers of st are done
    if (threadIdx.x == 0) {
      bn_combine(part + 3 * ch * chunks, chunks, st[0], st[1]);
      if (b % chunks == 0) mean[ch] = (T)st[0], var[ch] = (T)st[1];
    }
    __syncthreads();
    const double mu = st[0], va = st[1];
    const double a = (double)gamma[ch] / sqrt(va + (double)(T)eps);
    const T scale = (T)a, shift = (T)sub((double)beta[ch], mul(mu, a));
    i64 r0, r1;
    bn_chunk(n, chunks, b % chunks, r0, r1);
    if (!relu)
      bn_rows(r0, r1, c, s, ch, [&](i64 o) { y[o] = add(mul(x[o], scale), shift); });
    else if (r == nullptr)
      bn_rows(r0, r1, c, s, ch, [&](i64 o) { y[o] = go_max(add(mul(x[o], scale), shift), (T)0); });
    else
      bn_rows(r0, r1, c, s, ch, [&](i64 o) { y[o] = go_max(add(add(mul(x[o], scale), shift), r[o]), (T)0); });
  }
}

// bn_grad is the gradient at the batch norm's output: gy, or where y (the
// ReLU's output) is not null, gy where y > 0 and 0 elsewhere (NaN too).
template <typename T>
__device__ __forceinline__ T bn_grad(const T* __restrict__ gy, const T* __restrict__ y, i64 o) {
  return y == nullptr || y[o] > 0 ? gy[o] : (T)0;
}

// bn_backward_sums writes each chunk's Σ g and Σ g·(x − μ) to part
// [c, chunks, 2], g = bn_grad(gy, y), and g to dr where dr is not null (the
// residual's gradient).
template <typename T>
__device__ void bn_backward_sums(i64 n, i64 c, i64 s, i64 chunks, const T* __restrict__ gy,
                                 const T* __restrict__ y, const T* __restrict__ x, const T* __restrict__ mean,
                                 T* dr, double* part) {
  for (i64 b = blockIdx.x; b < c * chunks; b += gridDim.x) {
    const i64 ch = b / chunks;
    const double mu = (double)mean[ch];
    i64 r0, r1;
    bn_chunk(n, chunks, b % chunks, r0, r1);
    double sg = 0, sgx = 0;
    bn_rows(r0, r1, c, s, ch, [&](i64 o) {
      const T gt = bn_grad(gy, y, o);
      if (dr != nullptr) dr[o] = gt;
      const double gv = (double)gt;
      sg += gv;
      sgx = add(sgx, mul(gv, (double)x[o] - mu));
    });
    sg = block_reduce(OpSum, sg);
    sgx = block_reduce(OpSum, sgx);
    if (threadIdx.x == 0) part[2 * b] = sg, part[2 * b + 1] = sgx;
  }
}

// bn_backward is the gradient for the output gradient g = bn_grad(gy, y), from the
// statistics and the partial sums: dβ = Σ g, dγ = Σ g·x̂ and
// dx = a·g + kx·x + k0 with a = γ/√(σ² + ε) (batchNormBackwardCPU's form).
template <typename T>
__device__ void bn_backward(i64 n, i64 c, i64 s, i64 chunks, const double* __restrict__ part,
                            const T* __restrict__ gy, const T* __restrict__ y, const T* __restrict__ x,
                            const T* __restrict__ gamma,
                            const T* __restrict__ mean, const T* __restrict__ var, T* dx, T* dgamma, T* dbeta,
                            double eps) {
  __shared__ double st[2];
  const double m = (double)(n * s);
  for (i64 b = blockIdx.x; b < c * chunks; b += gridDim.x) {
    const i64 ch = b / chunks;
    const double mu = (double)mean[ch], inv = 1 / sqrt((double)var[ch] + (double)(T)eps);
    __syncthreads();
    if (threadIdx.x == 0) {
      double sg = 0, sgx = 0;
      for (i64 k = 0; k < chunks; k++) sg += part[2 * (ch * chunks + k)], sgx += part[2 * (ch * chunks + k) + 1];
      st[0] = sg, st[1] = sgx * inv;  // Σ g, Σ g·x̂
      if (b % chunks == 0) dgamma[ch] = (T)st[1], dbeta[ch] = (T)sg;
    }
    __syncthreads();
    const double sg = st[0], sgx = st[1];
    const double a = (double)gamma[ch] * inv;
    const double kx = -a * inv * sgx / m;
    const double k0 = sub(-a * sg / m, mul(kx, mu));
    const T ta = (T)a, tkx = (T)kx, tk0 = (T)k0;
    i64 r0, r1;
    bn_chunk(n, chunks, b % chunks, r0, r1);
    bn_rows(r0, r1, c, s, ch, [&](i64 o) { dx[o] = add(add(mul(ta, bn_grad(gy, y, o)), mul(tkx, x[o])), tk0); });
  }
}

// channel_affine sets y = x·scale + shift (+ r) per channel of x [n, c, s]
// contiguous, then max(·, 0) with relu set (r may be null: no residual):
// tensor.ChannelAffine, batch norm in evaluation mode, rounded as
// channelAffineCPU (mul, add, add).
template <typename T>
__device__ void channel_affine(i64 total, i64 c, i64 s, const T* __restrict__ x, const T* __restrict__ scale,
                               const T* __restrict__ shift, const T* __restrict__ r, i64 relu, T* y) {
  FOR_EACH(o, total) {
    const i64 ch = o / s % c;
    T v = add(mul(x[o], scale[ch]), shift[ch]);
    if (r != nullptr) v = add(v, r[o]);
    y[o] = relu ? go_max(v, (T)0) : v;
  }
}

#define BATCHNORM(S, T)                                                                                         \
  extern "C" __global__ void bn_stats_##S(i64 n, i64 c, i64 s, i64 chunks, const T* __restrict__ x,             \
                                          double* part) {                                                       \
    bn_stats<T>(n, c, s, chunks, x, part);                                                                      \
  }                                                                                                             \
  extern "C" __global__ void bn_forward_##S(i64 n, i64 c, i64 s, i64 chunks, const double* __restrict__ part,    \
                                            const T* __restrict__ x, const T* __restrict__ gamma,               \
                                            const T* __restrict__ beta, const T* __restrict__ r, i64 relu, T* y, \
                                            T* mean, T* var, double eps) {                                      \
    bn_forward<T>(n, c, s, chunks, part, x, gamma, beta, r, relu, y, mean, var, eps);                           \
  }                                                                                                             \
  extern "C" __global__ void bn_backward_sums_##S(i64 n, i64 c, i64 s, i64 chunks, const T* __restrict__ gy,     \
                                                  const T* __restrict__ y, const T* __restrict__ x,             \
                                                  const T* __restrict__ mean, T* dr, double* part) {            \
    bn_backward_sums<T>(n, c, s, chunks, gy, y, x, mean, dr, part);                                             \
  }                                                                                                             \
  extern "C" __global__ void bn_backward_##S(i64 n, i64 c, i64 s, i64 chunks, const double* __restrict__ part,   \
                                             const T* __restrict__ gy, const T* __restrict__ y,                 \
                                             const T* __restrict__ x, const T* __restrict__ gamma,              \
                                             const T* __restrict__ mean, const T* __restrict__ var, T* dx,      \
                                             T* dgamma, T* dbeta, double eps) {                                 \
    bn_backward<T>(n, c, s, chunks, part, gy, y, x, gamma, mean, var, dx, dgamma, dbeta, eps);                  \
  }                                                                                                             \
  extern "C" __global__ void channel_affine_##S(i64 total, i64 c, i64 s, const T* __restrict__ x,               \
                                                const T* __restrict__ scale, const T* __restrict__ shift,       \
                                                const T* __restrict__ r, i64 relu, T* y) {                      \
    channel_affine<T>(total, c, s, x, scale, shift, r, relu, y);                                                \
  }
BOTH(BATCHNORM)
