// Batch normalisation in training mode, forward and backward, one block per
// channel: tensor.BatchNormKernel and tensor.BatchNormBackwardKernel. The
// statistics and per-channel sums are accumulated in double and the
// per-element arithmetic is rounded as tensor's CPU loops round it
// (batchNormCPU, batchNormBackwardCPU), so that only the order of the
// double sums differs. x is [n, c, s] (s values per sample and channel).
#include "common.cuh"

// The element offset of the e-th value (sample e / s, position e % s) of
// channel ch.
__device__ __forceinline__ i64 bn_at(i64 e, i64 c, i64 s, i64 ch) { return ((e / s) * c + ch) * s + e % s; }

// bn_forward sets y = γ·(x − μ)/√(σ² + ε) + β with the channel's mean μ and
// biased variance σ² (two passes), which it writes to mean and var.
template <typename T>
__device__ void bn_forward(i64 n, i64 c, i64 s, const T* __restrict__ x, const T* __restrict__ gamma,
                           const T* __restrict__ beta, T* y, T* mean, T* var, double eps) {
  const i64 count = n * s;
  const double m = (double)count;
  for (i64 ch = blockIdx.x; ch < c; ch += gridDim.x) {
    double sum = 0;
    for (i64 e = threadIdx.x; e < count; e += blockDim.x) sum += (double)x[bn_at(e, c, s, ch)];
    const double mu = block_reduce(OpSum, sum) / m;
    double sq = 0;
    for (i64 e = threadIdx.x; e < count; e += blockDim.x) {
      const double d = (double)x[bn_at(e, c, s, ch)] - mu;
      sq = add(sq, mul(d, d));
    }
    const double va = block_reduce(OpSum, sq) / m;
    if (threadIdx.x == 0) mean[ch] = (T)mu, var[ch] = (T)va;
    const double a = (double)gamma[ch] / sqrt(va + (double)(T)eps);
    const T scale = (T)a, shift = (T)sub((double)beta[ch], mul(mu, a));
    for (i64 e = threadIdx.x; e < count; e += blockDim.x) {
      const i64 o = bn_at(e, c, s, ch);
      y[o] = add(mul(x[o], scale), shift);
    }
  }
}

// bn_backward is the gradient for the output gradient g, from the
// statistics bn_forward wrote: dβ = Σ g, dγ = Σ g·x̂ and
// dx = a·g + kx·x + k0 with a = γ/√(σ² + ε) (batchNormBackwardCPU's form).
template <typename T>
__device__ void bn_backward(i64 n, i64 c, i64 s, const T* __restrict__ g, const T* __restrict__ x,
                            const T* __restrict__ gamma, const T* __restrict__ mean, const T* __restrict__ var, T* dx,
                            T* dgamma, T* dbeta, double eps) {
  const i64 count = n * s;
  const double m = (double)count;
  for (i64 ch = blockIdx.x; ch < c; ch += gridDim.x) {
    const double mu = (double)mean[ch], inv = 1 / sqrt((double)var[ch] + (double)(T)eps);
    double sg = 0, sgx = 0;
    for (i64 e = threadIdx.x; e < count; e += blockDim.x) {
      const i64 o = bn_at(e, c, s, ch);
      const double gv = (double)g[o];
      sg += gv;
      sgx = add(sgx, mul(gv, (double)x[o] - mu));
    }
    sg = block_reduce(OpSum, sg);
    sgx = block_reduce(OpSum, sgx) * inv;  // Σ g·x̂
    if (threadIdx.x == 0) dgamma[ch] = (T)sgx, dbeta[ch] = (T)sg;
    const double a = (double)gamma[ch] * inv;
    const double kx = -a * inv * sgx / m;
    const double k0 = sub(-a * sg / m, mul(kx, mu));
    const T ta = (T)a, tkx = (T)kx, tk0 = (T)k0;
    for (i64 e = threadIdx.x; e < count; e += blockDim.x) {
      const i64 o = bn_at(e, c, s, ch);
      dx[o] = add(add(mul(ta, g[o]), mul(tkx, x[o])), tk0);
    }
  }
}

#define BATCHNORM(S, T)                                                                                         \
  extern "C" __global__ void bn_forward_##S(i64 n, i64 c, i64 s, const T* __restrict__ x,                       \
                                            const T* __restrict__ gamma, const T* __restrict__ beta, T* y,      \
                                            T* mean, T* var, double eps) {                                      \
    bn_forward<T>(n, c, s, x, gamma, beta, y, mean, var, eps);                                                  \
  }                                                                                                             \
  extern "C" __global__ void bn_backward_##S(i64 n, i64 c, i64 s, const T* __restrict__ g,                      \
                                             const T* __restrict__ x, const T* __restrict__ gamma,              \
                                             const T* __restrict__ mean, const T* __restrict__ var, T* dx,      \
                                             T* dgamma, T* dbeta, double eps) {                                 \
    bn_backward<T>(n, c, s, g, x, gamma, mean, var, dx, dgamma, dbeta, eps);                                    \
  }
BOTH(BATCHNORM)
