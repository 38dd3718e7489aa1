// The Adam update of optim.Adam, fused: every product, sum, quotient and
// square root is rounded to T as the engine's tensor ops round them (mul,
// add, ... of common.cuh), so the result equals optim.Adam's bit for bit.
#include "common.cuh"

// adam updates p, m, v [n] in place from the gradient g. The scalars are
// the T-rounded constants of optim.Adam's step: β1, 1−β1, β2, 1−β2,
// 1/√(1−β2ᵗ), ε, lr/(1−β1ᵗ) and the weight decay (0 for none).
template <typename T>
__device__ void adam(i64 n, T* p, const T* __restrict__ g, T* m, T* v, double b1, double c1, double b2, double c2,
                     double vscale, double eps, double step, double decay) {
  FOR_EACH(i, n) {
    T gi = g[i];
    if (decay != 0) gi = add(gi, mul((T)decay, p[i]));
    T mi = add(mul((T)b1, m[i]), mul((T)c1, gi));
    T vi = add(mul((T)b2, v[i]), mul((T)c2, mul(gi, gi)));
    T den = add(mul((T)vscale, root(vi)), (T)eps);
    p[i] = sub(p[i], mul((T)step, quo(mi, den)));
    m[i] = mi;
    v[i] = vi;
  }
}

#define ADAM(S, T)                                                                                        \
  extern "C" __global__ void adam_##S(i64 n, T* p, const T* __restrict__ g, T* m, T* v, double b1,         \
                                      double c1, double b2, double c2, double vscale, double eps,          \
                                      double step, double decay) {                                        \
    adam<T>(n, p, g, m, v, b1, c1, b2, c2, vscale, eps, step, decay);                                     \
  }
BOTH(ADAM)
