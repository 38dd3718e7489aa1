// Strided elementwise kernels: Fill, Copy, Unary, Binary, Where. Operands are
// views of one common shape described by meta (see strided_offsets); n is the
// number of elements.
#include "common.cuh"

// Unary op codes: tensor.UnaryOp.
// Binary op codes: tensor.BinaryOp.

// digamma is the CPU's ψ(x) for x > 0: the recurrence ψ(x) = ψ(x+1) − 1/x up
// to x ≥ 10, then the asymptotic series.
__device__ double digamma(double x) {
  if (!(x > 0)) return nan("");
  double r = 0;
  while (x < 10) {
    r -= 1 / x;
    x++;
  }
  double f = 1 / (x * x);
  return r + log(x) - 0.5 / x - f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (1.0 / 132)))));
}

// unary is the CPU's unaryFunc: the elementary functions are computed in
// double and rounded once, as the CPU does.
template <typename T>
// An unknown code traps: the error reaches the host at the next
// synchronisation, naming the kernel.
__device__ __forceinline__ T unary(i64 op, T x, T a, T b) {
  double d = x;
  switch (op) {
    case OpNeg: return -x;
    case OpExp: return (T)exp(d);
    case OpLog: return (T)log(d);
    case OpSqrt: return (T)sqrt(d);
    case OpAbs: return (T)fabs(d);
    case OpSign: return x > 0 ? (T)1 : x < 0 ? (T)-1 : (T)0;
    case OpStep: return x > 0 ? (T)1 : (T)0;
    case OpRelu: return go_max(x, (T)0);
    case OpSigmoid: {
      if (x >= 0) return (T)(1 / (1 + exp(-d)));
      double e = exp(d);
      return (T)(e / (1 + e));
    }
    case OpTanh: return (T)tanh(d);
    case OpPowS: return (T)pow(d, (double)a);
    case OpAffine: return a * x + b;
    case OpClamp: return go_min(go_max(x, a), b);
    case OpInside: return a < x && x < b ? (T)1 : (T)0;
    case OpLgamma: return (T)lgamma(d);
    case OpDigamma: return (T)digamma(d);
  }
  __trap();  // an op code the switch does not know: the launch fails
  return x;
}

template <typename T>
__device__ __forceinline__ T binary(i64 op, T x, T y) {
  switch (op) {
    case OpAdd: return x + y;
    case OpSub: return x - y;
    case OpMul: return x * y;
    case OpDiv: return x / y;
    case OpPow: return (T)pow((double)x, (double)y);
    case OpMax: return go_max(x, y);
    case OpMin: return go_min(x, y);
    case OpGreater: return x > y ? (T)1 : (T)0;
    case OpGreaterEqual: return x >= y ? (T)1 : (T)0;
    case OpEqual: return x == y ? (T)1 : (T)0;
  }
  __trap();  // an op code the switch does not know: the launch fails
  return x;
}

#define FILL(S, T)                                                                                    \
  extern "C" __global__ void fill_##S(i64 n, i64 nd, const i64* __restrict__ meta, T* dst, double v) { \
    FOR_EACH(i, n) {                                                                                  \
      i64 o[1];                                                                                       \
      strided_offsets<1>(i, nd, meta, o);                                                             \
      dst[o[0]] = (T)v;                                                                               \
    }                                                                                                 \
  }
BOTH(FILL)

#define COPY(S, T)                                                                                   \
  extern "C" __global__ void copy_##S(i64 n, i64 nd, const i64* __restrict__ meta, T* dst,            \
                                      const T* __restrict__ src) {                                   \
    FOR_EACH(i, n) {                                                                                 \
      i64 o[2];                                                                                      \
      strided_offsets<2>(i, nd, meta, o);                                                            \
      dst[o[0]] = src[o[1]];                                                                         \
    }                                                                                                \
  }
BOTH(COPY)

#define UNARY(S, T)                                                                                       \
  extern "C" __global__ void unary_##S(i64 n, i64 nd, const i64* __restrict__ meta, T* dst,                \
                                       const T* __restrict__ x, i64 op, double a, double b) {              \
    FOR_EACH(i, n) {                                                                                      \
      i64 o[2];                                                                                           \
      strided_offsets<2>(i, nd, meta, o);                                                                 \
      dst[o[0]] = unary<T>(op, x[o[1]], (T)a, (T)b);                                                      \
    }                                                                                                     \
  }
BOTH(UNARY)

#define BINARY(S, T)                                                                                     \
  extern "C" __global__ void binary_##S(i64 n, i64 nd, const i64* __restrict__ meta, T* dst,              \
                                        const T* __restrict__ x, const T* __restrict__ y, i64 op) {       \
    FOR_EACH(i, n) {                                                                                     \
      i64 o[3];                                                                                          \
      strided_offsets<3>(i, nd, meta, o);                                                                \
      dst[o[0]] = binary<T>(op, x[o[1]], y[o[2]]);                                                       \
    }                                                                                                    \
  }
BOTH(BINARY)

// where sets dst = x where cond ≠ 0 (NaN counts as ≠ 0), else y.
#define WHERE(S, T)                                                                                     \
  extern "C" __global__ void where_##S(i64 n, i64 nd, const i64* __restrict__ meta, T* dst,              \
                                       const T* __restrict__ cond, const T* __restrict__ x,              \
                                       const T* __restrict__ y) {                                        \
    FOR_EACH(i, n) {                                                                                    \
      i64 o[4];                                                                                         \
      strided_offsets<4>(i, nd, meta, o);                                                               \
      dst[o[0]] = cond[o[1]] != 0 ? x[o[2]] : y[o[3]];                                                  \
    }                                                                                                   \
  }
BOTH(WHERE)
