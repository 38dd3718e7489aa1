#!/usr/bin/env python3
"""PyTorch / scikit-learn CPU peer of `ecl calibrate`'s post-hoc fits.

Fits each method on DIR/source.npz (arrays "logits" [N, K] float32 and
"labels" [N] int64, as `go run ./bench/calibdata` writes them), applies it
to DIR/target.npz and prints one line per method:

    peer M fit_s=MEDIAN best_s=BEST reps=R warmups=W target_ece=% target_acc=% nll=NLL objective=F [iters=I evals=E]

fit_s and best_s are the median and best seconds of one fit on the source
(its preprocessing included: log-softmax for dirichlet, softmax for
isotonic and hist), each timed alone after W untimed warm-up fits, the
first included: --warmup (default 5) when the first fit takes under 2 s, at
most 2 up to 10 s, 1 above.
target_ece is the top-label ECE of the target probabilities in 15
equal-width bins (c/15, (c+1)/15], in %; nll the target's mean negative
log-likelihood, each probability floored at 2⁻⁵² as ecl's metrics do;
objective the training objective at the fitted parameters (nan for
isotonic and hist, which minimise none); iters and evals L-BFGS's
iterations and objective evaluations. Everything is float64.

The objectives are those ecl/calib minimises, by one call of
torch.optim.LBFGS(lr=1, history_size=10, line_search_fn="strong_wolfe",
tolerance_grad=1e-8, tolerance_change=1e-12) on cross_entropy of the affine
output:
  ts         mean NLL of softmax(z/T), over log T, from T = 1
  vs         mean NLL of softmax(w⊙z + b) + (μ/K)·Σb², from w = 1, b = 0
  ms         mean NLL of softmax(W·z + b) + λ/(K(K−1))·Σ_{i≠j}W_ij²
             + (μ/K)·Σb², from W = I, b = 0
  dirichlet  ms on x = log softmax(z)
(at most 2000 iterations for vs, ms and dirichlet as ecl's, or --max-iter,
1000 for ts);
  isotonic   scikit-learn IsotonicRegression(out_of_bounds="clip", y_min=0,
             y_max=1) per class, one-vs-rest, on softmax(z)
  hist       15 (--hist-bins) equal-mass bins per class on softmax(z), edges
             midway between the order statistics at the bin boundaries as
             ecl's bins.EqualMassEdges, value the class's frequency in the
             bin (the bin's midpoint when empty), bins (e_j, e_{j+1}]
For isotonic and hist the target rows are renormalised; a row whose
calibrated values sum to 0 keeps its uncalibrated probabilities, as ecl's
one-vs-rest does.

    /usr/bin/python3 bench/peer/calib.py DIR [--methods ts,vs,ms,dirichlet,isotonic,hist] [--reps 5] [--threads 2] [--max-iter 2000]

bench/peer/calib.sh runs it with the machine's description and,
alternately, `ecl calibrate`. Optional: `go test` never needs it.
"""
import argparse
import ctypes
import functools
import os
import statistics
import sys
import time

METHODS = ("ts", "vs", "ms", "dirichlet", "isotonic", "hist")


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("dir", help="directory holding source.npz and target.npz")
    p.add_argument("--methods", default=",".join(METHODS), help="comma-separated, from " + ",".join(METHODS))
    p.add_argument("--reps", type=int, default=5, help="timed fits per method")
    p.add_argument("--warmup", type=int, default=5, help="untimed fits before them (the first included) when a fit takes under 2 s")
    p.add_argument("--threads", type=int, default=2, help="torch.set_num_threads and the BLAS threads")
    p.add_argument("--odir-lambda", type=float, default=1e-3, help="ms and dirichlet: off-diagonal penalty λ")
    p.add_argument("--odir-mu", type=float, default=1e-3, help="vs, ms and dirichlet: intercept penalty μ")
    p.add_argument("--hist-bins", type=int, default=15, help="hist: equal-mass bins per class")
    p.add_argument("--max-iter", type=int, default=2000, help="vs, ms and dirichlet: L-BFGS iterations at most")
    a = p.parse_args()
    methods = [m for m in a.methods.split(",") if m]
    bad = [m for m in methods if m not in METHODS]
    if bad or not methods:
        p.error(f"--methods {a.methods!r}: unknown {bad}, want some of {','.join(METHODS)}")
    if a.reps < 1 or a.warmup < 1 or a.threads < 1 or a.hist_bins < 1 or a.max_iter < 1:
        p.error(f"--reps {a.reps} (≥ 1), --warmup {a.warmup} (≥ 1), --threads {a.threads} (≥ 1), --hist-bins {a.hist_bins} (≥ 1), "
                f"--max-iter {a.max_iter} (≥ 1)")
    a.methods = methods
    return a


ARGS = parse()
# The BLAS and OpenMP pools read these when they load.
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = str(ARGS.threads)

import numpy as np  # noqa: E402
import sklearn  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from sklearn.isotonic import IsotonicRegression  # noqa: E402

NLL_FLOOR = 2.0 ** -52


def load(path):
    with np.load(path) as d:
        z, y = d["logits"], d["labels"]
    if z.ndim != 2 or y.shape != (z.shape[0],):
        raise SystemExit(f"calib.py: {path}: logits {z.shape} and labels {y.shape}, want [N, K] and [N]")
    if z.shape[1] < 3:
        raise SystemExit(f"calib.py: {path}: {z.shape[1]} classes; ecl fits two classes as one binary problem, this peer wants K ≥ 3")
    if y.min() < 0 or y.max() >= z.shape[1]:
        raise SystemExit(f"calib.py: {path}: labels outside [0, {z.shape[1]})")
    return torch.from_numpy(z.astype(np.float64)), torch.from_numpy(y.astype(np.int64))


def lbfgs(params, closure, max_iter):
    """Minimises closure() over params by one L-BFGS step call; returns the
    objective at the result, iterations and evaluations."""
    opt = torch.optim.LBFGS(params, lr=1, max_iter=max_iter, history_size=10, line_search_fn="strong_wolfe",
                            tolerance_grad=1e-8, tolerance_change=1e-12)

    def step():
        opt.zero_grad(set_to_none=False)
        f = closure()
        f.backward()
        return f
    opt.step(step)
    state = opt.state[opt._params[0]]
    with torch.no_grad():
        f = closure().item()
    return f, state["n_iter"], state["func_evals"]


def fit_ts(z, y):
    t = torch.zeros(1, dtype=z.dtype, requires_grad=True)  # log T
    f, it, ev = lbfgs([t], lambda: F.cross_entropy(z * torch.exp(-t), y), 1000)
    inv = torch.exp(-t.detach())
    return (lambda x: torch.softmax(x * inv, 1)), f, it, ev


def fit_vs(z, y):
    k = z.shape[1]
    w = torch.ones(k, dtype=z.dtype, requires_grad=True)
    b = torch.zeros(k, dtype=z.dtype, requires_grad=True)
    mu = ARGS.odir_mu / k
    f, it, ev = lbfgs([w, b], lambda: F.cross_entropy(torch.addcmul(b, z, w), y) + mu * b.dot(b), ARGS.max_iter)
    w, b = w.detach(), b.detach()
    return (lambda x: torch.softmax(torch.addcmul(b, x, w), 1)), f, it, ev


def fit_matrix(x, y):
    """softmax(W·x + b) with the ODIR penalty; returns the map of x."""
    k = x.shape[1]
    w = torch.eye(k, dtype=x.dtype).requires_grad_()
    b = torch.zeros(k, dtype=x.dtype, requires_grad=True)
    lam = ARGS.odir_lambda / (k * (k - 1)) if k > 1 else 0.0
    mu = ARGS.odir_mu / k

    def objective():
        d = torch.diagonal(w)
        off = (w * w).sum() - d.dot(d)
        return F.cross_entropy(torch.addmm(b, x, w.t()), y) + lam * off + mu * b.dot(b)
    f, it, ev = lbfgs([w, b], objective, ARGS.max_iter)
    w, b = w.detach(), b.detach()
    return (lambda v: torch.softmax(torch.addmm(b, v, w.t()), 1)), f, it, ev


def fit_ms(z, y):
    return fit_matrix(z, y)


def fit_dirichlet(z, y):
    m, f, it, ev = fit_matrix(torch.log_softmax(z, 1), y)
    return (lambda x: m(torch.log_softmax(x, 1))), f, it, ev


def one_vs_rest(z, value):
    """Target probabilities of a one-vs-rest map: value(p [K, N]) → [K, N],
    rows renormalised, a zero row kept uncalibrated."""
    p = torch.softmax(z, 1).numpy()
    q = np.maximum(value(np.ascontiguousarray(p.T)), 0).T
    s = q.sum(1, keepdims=True)
    zero = s[:, 0] == 0
    q = q / np.where(zero[:, None], 1, s)
    q[zero] = p[zero]
    return torch.from_numpy(q)


def fit_isotonic(z, y):
    k = z.shape[1]
    pt = np.ascontiguousarray(torch.softmax(z, 1).numpy().T)
    yn = y.numpy()
    fits = [IsotonicRegression(out_of_bounds="clip", y_min=0, y_max=1).fit(pt[c], (yn == c).astype(np.float64))
            for c in range(k)]
    return (lambda x: one_vs_rest(x, lambda q: np.stack([r.predict(q[c]) for c, r in enumerate(fits)]))), \
        float("nan"), None, None


def equal_mass_edges(pt, b):
    """Edges [K, b+1] of b equal-count bins of each row of pt [K, N], as
    ecl's bins.EqualMassEdges: midway between the order statistics either
    side of each boundary, 0 and 1 outside."""
    k, n = pt.shape
    size, extra = divmod(n, b)
    first = [i * size + min(i, extra) for i in range(1, b)]
    kth = sorted({j for c in first if c < n for j in (c - 1, c)})
    s = np.partition(pt, kth, axis=1) if kth else pt
    e = np.ones((k, b + 1))
    e[:, 0] = 0
    for i, c in enumerate(first, 1):
        if c < n:
            e[:, i] = (s[:, c - 1] + s[:, c]) / 2
    return e


def bin_index(p, e):
    """Bins (e_j, e_{j+1}] of p [K, M] under edges e [K, b+1], clamped."""
    idx = np.zeros(p.shape, dtype=np.intp)
    for j in range(1, e.shape[1] - 1):
        idx += p > e[:, j:j + 1]
    return idx


def fit_hist(z, y):
    k, n, b = z.shape[1], z.shape[0], ARGS.hist_bins
    pt = np.ascontiguousarray(torch.softmax(z, 1).numpy().T)
    e = equal_mass_edges(pt, b)
    # Counts from the samples above each edge; label sums from each
    # sample's own class alone.
    above = np.empty((k, b + 1), dtype=np.int64)
    above[:, 0], above[:, b] = n, 0
    for j in range(1, b):
        above[:, j] = np.count_nonzero(pt > e[:, j:j + 1], axis=1)
    count = above[:, :-1] - above[:, 1:]
    yn = y.numpy()
    own = pt[yn, np.arange(n)]
    j = np.zeros(n, dtype=np.intp)
    for i in range(1, b):
        j += own > e[yn, i]
    hits = np.bincount(yn * b + j, minlength=k * b).reshape(k, b)
    v = np.where(count > 0, hits / np.maximum(count, 1), (e[:, :-1] + e[:, 1:]) / 2)
    rows = np.arange(k)[:, None]
    return (lambda x: one_vs_rest(x, lambda q: v[rows, bin_index(q, e)])), float("nan"), None, None


FITS = {"ts": fit_ts, "vs": fit_vs, "ms": fit_ms, "dirichlet": fit_dirichlet, "isotonic": fit_isotonic, "hist": fit_hist}


def metrics(p, y, bins=15):
    """Top-label ECE (%), accuracy (%) and mean NLL of probabilities p [N, K]."""
    conf, pred = p.max(1)
    hit = (pred == y).double()
    idx = torch.clamp(torch.ceil(conf * bins).long() - 1, 0, bins - 1)
    gap = torch.bincount(idx, weights=hit - conf, minlength=bins)
    ece = gap.abs().sum().item() / len(y)
    nll = -torch.log(torch.clamp(p.gather(1, y[:, None]), min=NLL_FLOOR)).mean().item()
    return 100 * ece, 100 * hit.mean().item(), nll


def timed(fit):
    start = time.perf_counter()
    r = fit()
    return time.perf_counter() - start, r


def run(method, zs, ys, zt, yt):
    fit = functools.partial(FITS[method], zs, ys)
    first, r = timed(fit)
    warm = ARGS.warmup if first < 2 else min(ARGS.warmup, 2 if first < 10 else 1)
    for _ in range(warm - 1):
        fit()
    times = []
    for _ in range(ARGS.reps):
        t, r = timed(fit)
        times.append(t)
    apply, obj, iters, evals = r
    with torch.no_grad():
        ece, acc, nll = metrics(apply(zt), yt)
    extra = "" if iters is None else f" iters={iters} evals={evals}"
    print(f"peer {method} fit_s={statistics.median(times):.6g} best_s={min(times):.6g} reps={len(times)} "
          f"warmups={warm} target_ece={ece:.4f} target_acc={acc:.4f} nll={nll:.6f} objective={obj:.10g}{extra}",
          flush=True)


def libraries():
    """The BLAS, LAPACK, OpenMP and oneDNN libraries this process loaded
    (symbolic links resolved), and OpenBLAS's configuration and kernel core
    when it is one of them."""
    with open("/proc/self/maps") as f:
        paths = {line.split()[-1] for line in f if "/" in line}
    libs = sorted({os.path.realpath(p) for p in paths if os.path.basename(p).startswith("lib")
                   and any(w in os.path.basename(p) for w in ("blas", "lapack", "gomp", "dnnl", "mkl"))})
    for p in libs:
        if "openblas" in os.path.basename(p):
            lib = ctypes.CDLL(p)
            lib.openblas_get_config.restype = lib.openblas_get_corename.restype = ctypes.c_char_p
            core = lib.openblas_get_corename().decode()
            libs.append(f"{lib.openblas_get_config().decode().strip()}, core {core}")
            if core.lower() in ("prescott", "core2", "katmai", "nehalem"):
                libs.append(f"WARNING: OpenBLAS chose its {core} kernels; set OPENBLAS_CORETYPE (calib.sh: CORETYPE=Haswell or SkylakeX)")
            break
    return libs


def main():
    torch.set_num_threads(ARGS.threads)
    cfg = torch.__config__.show().strip().splitlines()
    print(f"# torch {torch.__version__}, scikit-learn {sklearn.__version__}, numpy {np.__version__}, "
          f"python {sys.version.split()[0]}; torch.get_num_threads() = {torch.get_num_threads()}")
    print(f"# mkl {torch.backends.mkl.is_available()}, mkldnn (oneDNN) {torch.backends.mkldnn.is_available()}, "
          f"openmp {torch.backends.openmp.is_available()}; torch.__config__.show():")
    for line in cfg[:7]:
        print("#   " + line.strip())
    build = dict(kv.strip().split("=", 1) for kv in cfg[7].split(":", 1)[-1].split(",") if "=" in kv) if len(cfg) > 7 else {}
    print("#   build: " + ", ".join(f"{k}={build.get(k, '?')}" for k in ("BLAS_INFO", "LAPACK_INFO", "USE_MKLDNN", "USE_OPENMP")))
    print("# libraries: " + ", ".join(libraries()))
    zs, ys = load(os.path.join(ARGS.dir, "source.npz"))
    zt, yt = load(os.path.join(ARGS.dir, "target.npz"))
    if zt.shape[1] != zs.shape[1]:
        raise SystemExit(f"calib.py: source has {zs.shape[1]} classes, target {zt.shape[1]}")
    print(f"# source {zs.shape[0]}×{zs.shape[1]}, target {zt.shape[0]}×{zt.shape[1]}, float64; "
          f"warm-ups: {ARGS.warmup} for fits under 2 s, at most 2 up to 10 s, 1 above", flush=True)
    for m in ARGS.methods:
        run(m, zs, ys, zt, yt)


if __name__ == "__main__":
    main()
