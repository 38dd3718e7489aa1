// Strided elementwise kernels: Fill, Copy, Unary, Binary, Where. Operands are
// views of one common shape described by meta (see strided_offsets); n is the
// number of elements.
#include "common.cuh"

// Unary op codes: tensor.UnaryOp.
enum { NEG, EXP, LOG, SQRT, ABS, SIGN, STEP, RELU, SIGMOID, TANH, POWS, AFFINE, CLAMP, INSIDE, LGAMMA, DIGAMMA };
// Binary op codes: tensor.BinaryOp.
enum { ADD, SUB, MUL, DIV, POW, MAX, MIN, GREATER, GREATER_EQUAL, EQUAL };

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
__device__ __forceinline__ T unary(i64 op, T x, T a, T b) {
  double d = x;
  switch (op) {
    case NEG: return -x;
    case EXP: return (T)exp(d);
    case LOG: return (T)log(d);
    case SQRT: return (T)sqrt(d);
    case ABS: return (T)fabs(d);
    case SIGN: return x > 0 ? (T)1 : x < 0 ? (T)-1 : (T)0;
    case STEP: return x > 0 ? (T)1 : (T)0;
    case RELU: return go_max(x, (T)0);
    case SIGMOID: {
      if (x >= 0) return (T)(1 / (1 + exp(-d)));
      double e = exp(d);
      return (T)(e / (1 + e));
    }
    case TANH: return (T)tanh(d);
    case POWS: return (T)pow(d, (double)a);
    case AFFINE: return a * x + b;
    case CLAMP: return go_min(go_max(x, a), b);
    case INSIDE: return a < x && x < b ? (T)1 : (T)0;
    case LGAMMA: return (T)lgamma(d);
    case DIGAMMA: return (T)digamma(d);
  }
  return (T)nan("");
}

template <typename T>
__device__ __forceinline__ T binary(i64 op, T x, T y) {
  switch (op) {
    case ADD: return x + y;
    case SUB: return x - y;
    case MUL: return x * y;
    case DIV: return x / y;
    case POW: return (T)pow((double)x, (double)y);
    case MAX: return go_max(x, y);
    case MIN: return go_min(x, y);
    case GREATER: return x > y ? (T)1 : (T)0;
    case GREATER_EQUAL: return x >= y ? (T)1 : (T)0;
    case EQUAL: return x == y ? (T)1 : (T)0;
  }
  return (T)nan("");
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
