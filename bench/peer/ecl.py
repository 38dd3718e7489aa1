#!/usr/bin/env python3
"""PyTorch CPU peer of the ECL loss rows of `go run ./bench/benchtable`.

It prints the same row names (ecl/PARADIGM/kK/nN/float32, and
eclsb/… for the soft-binned estimator of Eq. 7 at N = 10² and 10⁴; K = 3
and 10, and K = 1,000 at N = 10⁴) and the
time of one forward and backward pass of the mini-batch ECL (Algorithm 1: soft
assignment to the anchors, per-bin sums, proximal steps on the detached
sums, the fixed-u loss summed over samples, backward) on a source and a
target domain of N samples, float32, the main head's and auxiliary
probabilities being the differentiated inputs, in two forms: as the
reference code writes it (MiniBatch: broadcast [N, G, B, D] distances) and
the fastest we could write (MiniBatchFast: distances through a matrix
product, sums and cross terms as batched products). ms/op is the faster
form's median of calls timed alone after 5 warm-ups; each form's best call
follows. Rows run in chunks of samples, at most --chunk; each form is
timed so and with at most ASSIGN_MAX assignments [N, G, B] a chunk, the
faster kept (chunkings: canonical K = 1,000's mini-batch loss is faster
in chunks of 4,194, its soft-binned estimator whole; class-wise
K = 1,000 runs in chunks of 279 samples, about 5 s a call, where whole
its 600 MB tensors, which glibc maps and faults afresh every call, took
over 40 s).
The mini-batch loss takes the sums first (without gradients), then the
loss chunk by chunk with backward, as a PyTorch user must to fit in
memory; the soft-binned estimator takes the sums without gradients, the
loss's gradient with respect to them, then each chunk's sums again with
backward from that gradient.
The reference form is left out (-) where its broadcasts would pass
BROADCAST_MAX elements (canonical K = 1,000).

    /usr/bin/python3 bench/peer/ecl.py [--run REGEXP] [--threads N] [--forms fast,reference]

Optional: `go test` never needs it.
"""
import argparse
import itertools
import math
import os
import re

import torch

from train import measure

PARADIGMS = ("canonical", "classwise", "toplabel")


def simplex(b, k):
    """ecl/bins.Simplex: (g + 1/k)/(n+1) for every g ≥ 0 of k integers summing
    to n, the smallest n with C(n+k−1, k−1) ≥ b, first coordinate outermost
    (stars and bars: the k−1 bars' positions among n+k−1 slots, in
    lexicographic order, which is that of g)."""
    n = 1
    while math.comb(n + k - 1, k - 1) < b:
        n += 1
    rows = []
    for bars in itertools.combinations(range(n + k - 1), k - 1):
        edges = (-1,) + bars + (n + k - 1,)
        rows.append([edges[i + 1] - edges[i] - 1 for i in range(k)])
    return (torch.tensor(rows, dtype=torch.float64) + 1 / k) / (n + 1)


def layout(paradigm, k, b=15):
    """Anchors [B, E], temperature, groups G and value dimension D."""
    if paradigm == "canonical":
        a = simplex(b, k)
        g, d = 1, k
    else:
        a = torch.tensor([(2 * j + 1) / (2 * b) for j in range(b)], dtype=torch.float64).reshape(b, 1)
        g, d = (k, 1) if paradigm == "classwise" else (1, 1)
    tau = -1 / (math.log(0.9) * a.shape[0] ** 2)
    return a.float(), tau, g, d


# BROADCAST_MAX bounds the elements of the reference form's [N, G, B, D]
# broadcasts (4 GB in float32): canonical K = 1,000 at N = 10⁴ would need
# 10¹⁰, so only the fast form runs there.
BROADCAST_MAX = 2 ** 30


# ASSIGN_MAX bounds the elements of a chunk's soft assignments [N, G, B]
# (16 MB in float32), so that each chunk's tensors stay in memory glibc
# reuses (bench/peer/env.sh).
ASSIGN_MAX = 2 ** 22


def chunkings(paradigm, k, n, chunk):
    """The chunk sizes a row is timed at: at most chunk samples and
    ASSIGN_MAX assignments a chunk, and at most chunk samples (whole, for
    n ≤ chunk) unless that passes 16 ASSIGN_MAX assignments (class-wise
    K = 1,000, over 40 s a call)."""
    a, _, g, _ = layout(paradigm, k)
    per = g * a.shape[0]
    sizes = {max(1, min(n, chunk, ASSIGN_MAX // per))}
    if min(n, chunk) * per <= 16 * ASSIGN_MAX:
        sizes.add(min(n, chunk))
    return sorted(sizes)


def broadcast(paradigm, k, n):
    """The elements of the reference form's [N, G, B, D] broadcast."""
    a, _, g, d = layout(paradigm, k)
    return n * g * a.shape[0] * max(d, a.shape[1])


def points(paradigm, s):
    """The binned points [N, G, E] of the main head's probabilities s [N, K]."""
    n, k = s.shape
    if paradigm == "canonical":
        return s.reshape(n, 1, k)
    if paradigm == "classwise":
        return s.reshape(n, k, 1)
    return s.max(dim=1).values.reshape(n, 1, 1)


def assign(x, anchors, tau):
    d2 = ((x.unsqueeze(2) - anchors) ** 2).sum(-1)  # [N, G, B]
    return torch.softmax(-d2 / tau, dim=2)


def shrink(v, theta):
    return torch.sign(v) * torch.clamp(v.abs() - theta, min=0)


class MiniBatch:
    def __init__(self, paradigm, k, nprox=5, ema=0.9, skip=2.0 ** -23, device="cpu"):
        self.paradigm, self.k = paradigm, k
        self.anchors, self.tau, self.g, self.d = layout(paradigm, k)
        self.anchors = self.anchors.to(device)
        b = self.anchors.shape[0]
        self.us = torch.zeros(self.g, b, self.d, device=device)
        self.ut = torch.zeros(self.g, b, self.d, device=device)
        self.nprox, self.ema, self.skip = nprox, ema, skip

    def assign(self, x):
        return assign(x, self.anchors, self.tau)

    def sums(self, s, p):
        w = self.assign(points(self.paradigm, s))
        return w, w.sum(0), (w.unsqueeze(3) * p.unsqueeze(2)).sum(0)

    def proximal(self, ns, ms, nt, mt):
        keep = ((ns >= self.skip) & (nt >= self.skip)).float()  # [G, B]
        wt = (nt / (nt.sum(1, keepdim=True) + 2.0 ** -23)).unsqueeze(2)
        ns, nt = ns.clamp(min=self.skip).unsqueeze(2), nt.clamp(min=self.skip).unsqueeze(2)
        us, ut = self.us.clone(), self.ut.clone()
        for _ in range(self.nprox):
            us = ut + shrink(ms / ns - ut, wt / (2 * ns))
            ut = us + shrink(mt / nt - us, wt / (2 * nt))
        k3 = keep.unsqueeze(2)
        self.us = torch.where(k3 > 0, (1 - self.ema) * self.us + self.ema * us, self.us)
        self.ut = torch.where(k3 > 0, (1 - self.ema) * self.ut + self.ema * ut, self.ut)
        return us, ut, keep

    def term(self, w, p, u, keep):
        d2 = ((p.unsqueeze(2) - u) ** 2).sum(-1)  # [N, G, B]
        return (w * d2 * keep).sum()

    def scale(self, loss):
        return loss if self.paradigm == "toplabel" else loss / self.k

    def chunked_sums(self, s, t, ps, pt, chunk):
        """The per-bin sums [ns, ms, nt, mt] of both domains, chunk samples
        at a time, without gradients."""
        p3 = lambda v: v.reshape(v.shape[0], self.g, self.d)
        stats = []
        with torch.no_grad():
            for a, b in ((s, ps), (t, pt)):
                nsum, msum = 0, 0
                for sc, pc in zip(torch.split(a, chunk), torch.split(b, chunk)):
                    _, nc, mc = self.sums(sc, p3(pc))
                    nsum, msum = nsum + nc, msum + mc
                stats += [nsum, msum]
        return stats

    def step(self, s, t, ps, pt, chunk):
        """One forward and backward pass; s, t, ps, pt require gradients."""
        n = s.shape[0]
        p3 = lambda v: v.reshape(v.shape[0], self.g, self.d)
        if n <= chunk:
            ws, ns, ms = self.sums(s, p3(ps))
            wt, nt, mt = self.sums(t, p3(pt))
            us, ut, keep = self.proximal(ns.detach(), ms.detach(), nt.detach(), mt.detach())
            loss = self.scale(self.term(ws, p3(ps), us, keep) + self.term(wt, p3(pt), ut, keep))
            loss.backward()
            return loss.item()
        stats = self.chunked_sums(s, t, ps, pt, chunk)
        us, ut, keep = self.proximal(*stats)
        total = 0.0
        for a, b, u in ((s, ps, us), (t, pt, ut)):
            for lo in range(0, n, chunk):
                sc, pc = a[lo:lo + chunk], b[lo:lo + chunk]
                w = self.assign(points(self.paradigm, sc))
                loss = self.scale(self.term(w, p3(pc), u, keep))
                loss.backward()
                total += loss.item()
        return total


    def softbinned(self, s, t, ps, pt, chunk, eps=2.0 ** -23):
        """One forward and backward pass of the soft-binned estimator (Eq. 7,
        L1 norm): per-bin expectations m/(n + eps) of each domain, their
        distance weighted by the target's share of each bin."""
        p3 = lambda v: v.reshape(v.shape[0], self.g, self.d)

        def loss_of(ns, ms, nt, mt):
            diff = ms / (ns + eps).unsqueeze(2) - mt / (nt + eps).unsqueeze(2)
            return (nt / nt.sum(1, keepdim=True) * diff.abs().sum(2)).sum()

        if s.shape[0] <= chunk:
            _, ns, ms = self.sums(s, p3(ps))
            _, nt, mt = self.sums(t, p3(pt))
            loss = loss_of(ns, ms, nt, mt)
            loss.backward()
            return loss.item()
        stats = [v.requires_grad_(True) for v in self.chunked_sums(s, t, ps, pt, chunk)]
        loss = loss_of(*stats)
        loss.backward()
        parts = lambda v: torch.split(v, chunk)
        for (a, b), gn, gm in zip(((s, ps), (t, pt)), stats[0::2], stats[1::2]):
            for sc, pc in zip(parts(a), parts(b)):
                _, nc, mc = self.sums(sc, p3(pc))
                torch.autograd.backward([nc, mc], [gn.grad, gm.grad])
        return loss.item()


class MiniBatchFast(MiniBatch):
    """The same computation in the fastest form we can write in PyTorch:
    squared distances as ‖x‖² − 2·x·aᵀ + ‖a‖² (one batched matrix product
    instead of an [N, G, B, D] broadcast), per-bin sums and the loss's
    cross terms as batched matrix products (einsum → bmm)."""

    def assign(self, x):
        d2 = (x * x).sum(-1, keepdim=True) - 2 * (x @ self.anchors.T) + (self.anchors * self.anchors).sum(-1)
        return torch.softmax(d2 * (-1 / self.tau), dim=2)

    def sums(self, s, p):
        w = self.assign(points(self.paradigm, s))
        return w, w.sum(0), torch.einsum("ngb,ngd->gbd", w, p)

    def term(self, w, p, u, keep):
        d2 = (p * p).sum(-1, keepdim=True) - 2 * torch.einsum("ngd,gbd->ngb", p, u) + (u * u).sum(-1)
        return (w * d2 * keep).sum()


FORMS = {"reference": MiniBatch, "fast": MiniBatchFast}


def case(paradigm, k, n, chunk, device="cpu", form="reference", soft=False):
    """One forward and backward pass on inputs drawn on the CPU and moved to
    device (kernels/cuda/peer/peer.py times it on the GPU), in the given
    form (FORMS), of the mini-batch loss or, with soft, of the soft-binned
    estimator."""
    g = torch.Generator().manual_seed(k * 1000003 + n)
    probs = lambda: torch.softmax(2 * torch.randn(n, k, generator=g), dim=1)
    aux = (lambda: torch.rand(n, generator=g)) if paradigm == "toplabel" else probs
    inputs = [v.to(device) for v in (probs(), probs(), aux(), aux())]
    mb = FORMS[form](paradigm, k, device=device)

    def run():
        # New leaves on the inputs' storage: no copy inside the timed pass.
        vs = [v.detach().requires_grad_(True) for v in inputs]
        if soft:
            mb.softbinned(*vs, chunk=chunk)
        else:
            mb.step(*vs, chunk=chunk)

    return run


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", default=".", help="regular expression selecting rows by name")
    ap.add_argument("--threads", type=int, default=os.cpu_count(), help="torch threads (default: every core, as the Go side uses)")
    ap.add_argument("--chunk", type=int, default=100_000, help="samples per chunk for large N")
    ap.add_argument("--forms", default="fast,reference", help="comma-separated forms to time (fast: MiniBatchFast; reference: the reference code's broadcast form)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    pattern = re.compile(args.run)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads")
    print(f"{'workload':<34} {'ms/op':>10} {'fast':>10} {'reference':>10}  (ms/op: the faster form's median; best of each form beside)")
    rows = [(False, n) for n in (100, 10_000, 1_000_000, 10_000_000)] + [(True, n) for n in (100, 10_000)]
    for soft, n in rows:
        for k in (3, 10, 1000) if n == 10_000 else (3, 10):
            for p in PARADIGMS:
                name = f"{'eclsb' if soft else 'ecl'}/{p}/k{k}/n{n}/float32"
                if not pattern.search(name):
                    continue
                forms = {}
                for f in args.forms.split(","):
                    for chunk in chunkings(p, k, n, args.chunk):
                        if f == "reference" and broadcast(p, k, min(n, chunk)) > BROADCAST_MAX:
                            continue
                        m = measure(case(p, k, n, chunk, form=f, soft=soft), min_runs=5)
                        if f not in forms or m[0] < forms[f][0]:
                            forms[f] = m
                med = min(m for m, _ in forms.values())
                cols = " ".join(f"{forms[f][1] * 1e3:10.3f}" if f in forms else f"{'-':>10}" for f in ("fast", "reference"))
                print(f"{name:<34} {med * 1e3:10.3f} {cols}", flush=True)


if __name__ == "__main__":
    main()
