#!/usr/bin/env python3
"""PyTorch peer of kernels/cuda/bench_test.go.

Times the computations of the Go benchmarks with PyTorch on the same GPU and
prints one row per benchmark in Go's benchmark format (name, iterations,
ns/op, metric), with the same names minus Go's -GOMAXPROCS suffix, so that the
two outputs can be joined into ratios:

    python3 peer.py > peer.txt
    ./kernels.test -test.run '^$' -test.bench . > go.txt

Every iteration waits for the GPU (torch.cuda.synchronize), as the Go
benchmarks do (cuda.Sync). After 5 warm-up calls each call is timed alone;
ns/op is the median, and the best call follows as best-ns/op (Go's rows are
means, so a ratio against the median does not favour Go). TF32 is disabled:
the Go kernels compute in full float32, so cuBLAS and cuDNN do too. The
peers are eager PyTorch at full strength: cuDNN's autotuner on
(cudnn.benchmark), fused Adam, and the fastest ECL formulation we can write
(bench/peer/ecl.py's MiniBatchFast); the reference code's ECL form and
PyTorch's default settings are printed beside as ...Reference and
...Default rows. Needs torch with CUDA.
"""
import os
import statistics
import sys
import time

import torch

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.backends.cudnn.benchmark = True
dev = torch.device("cuda")
gen = torch.Generator(device=dev).manual_seed(1)


def bench(name, f, metric=None):
    """Times f call by call for 1 s (at least 10 calls) after 5 warm-up
    calls and prints a row: the median as ns/op, metric(median) (a value
    and unit) and the best call as best-ns/op."""
    for _ in range(5):
        f()
    torch.cuda.synchronize()
    times, total = [], 0.0
    while total < 1.0 or len(times) < 10:
        start = time.perf_counter()
        f()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
        total += times[-1]
    ns = statistics.median(times) * 1e9
    row = f"{name}\t{len(times)}\t{ns:.0f} ns/op"
    if metric:
        v, unit = metric(ns)
        row += f"\t{v:.4g} {unit}"
    print(row + f"\t{min(times) * 1e9:.0f} best-ns/op", flush=True)


def gflops(flop):
    return lambda ns: (flop / ns, "GFLOP/s")


def rows(n):
    return lambda ns: (n / (ns * 1e-9), "rows/s")


def gemm():
    for dtype, tag in ((torch.float32, "f32"), (torch.float64, "f64")):
        for n in (256, 1024, 4096):
            a = torch.rand(n, n, device=dev, dtype=dtype, generator=gen) * 2 - 1
            b = torch.rand(n, n, device=dev, dtype=dtype, generator=gen) * 2 - 1
            bench(f"BenchmarkGEMM/{tag}/n={n}", lambda: a @ b, gflops(2 * n**3))


CONV_LAYERS = [
    ("lenet1", (128, 1, 28, 28), (6, 1, 5, 5), 0),
    ("resnet16x32", (128, 16, 32, 32), (16, 16, 3, 3), 1),
    ("resnet32x16", (128, 32, 16, 16), (32, 32, 3, 3), 1),
    ("resnet64x8", (128, 64, 8, 8), (64, 64, 3, 3), 1),
]


# ResNet-50's convolution shapes at batch 16, 224x224, as
# bench_test.go's resnet50Layers: name, x, w, stride, padding.
RESNET50_LAYERS = [
    ("stem", (16, 3, 224, 224), (64, 3, 7, 7), 2, 3),
    ("l1_reduce", (16, 256, 56, 56), (64, 256, 1, 1), 1, 0),
    ("l1_3x3", (16, 64, 56, 56), (64, 64, 3, 3), 1, 1),
    ("l1_expand", (16, 64, 56, 56), (256, 64, 1, 1), 1, 0),
    ("l2_reduce", (16, 512, 28, 28), (128, 512, 1, 1), 1, 0),
    ("l2_3x3", (16, 128, 28, 28), (128, 128, 3, 3), 1, 1),
    ("l2_expand", (16, 128, 28, 28), (512, 128, 1, 1), 1, 0),
    ("l2_3x3s2", (16, 128, 56, 56), (128, 128, 3, 3), 2, 1),
    ("l2_down", (16, 256, 56, 56), (512, 256, 1, 1), 2, 0),
    ("l3_reduce", (16, 1024, 14, 14), (256, 1024, 1, 1), 1, 0),
    ("l3_3x3", (16, 256, 14, 14), (256, 256, 3, 3), 1, 1),
    ("l3_expand", (16, 256, 14, 14), (1024, 256, 1, 1), 1, 0),
    ("l4_reduce", (16, 2048, 7, 7), (512, 2048, 1, 1), 1, 0),
    ("l4_3x3", (16, 512, 7, 7), (512, 512, 3, 3), 1, 1),
    ("l4_expand", (16, 512, 7, 7), (2048, 512, 1, 1), 1, 0),
]


def conv():
    """The three passes of each convolution of CONV_LAYERS (BenchmarkConv)
    and of RESNET50_LAYERS (BenchmarkConvResNet50), cuDNN with its
    autotuner."""
    layers = [("Conv", name, xs, ws, 1, pad) for name, xs, ws, pad in CONV_LAYERS]
    layers += [("ConvResNet50",) + l for l in RESNET50_LAYERS]
    F = torch.nn.functional
    for row, name, xs, ws, stride, pad in layers:
        x = torch.rand(*xs, device=dev, generator=gen) * 2 - 1
        w = torch.rand(*ws, device=dev, generator=gen) * 2 - 1
        y = F.conv2d(x, w, stride=stride, padding=pad)
        dy = torch.rand(*y.shape, device=dev, generator=gen) * 2 - 1
        n, c, _, _ = xs
        o, _, kh, kw = ws
        flop = 2 * n * o * c * kh * kw * y.shape[2] * y.shape[3]
        passes = [
            ("forward", lambda: F.conv2d(x, w, stride=stride, padding=pad)),
            ("backward_input", lambda: torch.nn.grad.conv2d_input(x.shape, w, dy, stride=stride, padding=pad)),
            ("backward_weight", lambda: torch.nn.grad.conv2d_weight(x, w.shape, dy, stride=stride, padding=pad)),
        ]
        for pname, f in passes:
            bench(f"Benchmark{row}/{pname}/{name}", f, gflops(flop))


ECL_N = (1_000, 10_000, 100_000, 1_000_000, 10_000_000)
ECL_B = (15, 55)
ECL_K = (3, 10)


def soft_assign(x, a, tau):
    """Softmax over anchors of −‖x − a‖²/τ: squared distances through one
    matrix product, as one writes it in PyTorch for large N."""
    d2 = (x * x).sum(1, keepdim=True) - 2 * (x @ a.T) + (a * a).sum(1)
    return torch.softmax(d2 * (-1 / tau), dim=1)


def ecl():
    tau = 0.01
    for kind in ("SoftAssign", "BinStats", "HardBinSums"):
        for n in ECL_N:
            for k in ECL_K:
                for b in ECL_B:
                    x = torch.softmax(torch.randn(n, k, device=dev, generator=gen) * 2, dim=1)
                    a = torch.rand(b, k, device=dev, generator=gen)
                    name = f"Benchmark{kind}/N={n}/B={b}/K={k}"
                    if kind == "SoftAssign":
                        f = lambda: soft_assign(x, a, tau)
                    elif kind == "BinStats":
                        w = soft_assign(x, a, tau)
                        f = lambda: (w.sum(0), w.T @ x, w.T @ (x * x).sum(1))
                    else:
                        bins = soft_assign(x, a, tau).argmax(1)

                        def f():
                            counts = torch.bincount(bins, minlength=b)
                            sums = torch.zeros(b, k, device=dev).index_add_(0, bins, x)
                            return counts, sums
                    bench(name, f, rows(n))
                    del x, a
                    torch.cuda.empty_cache()


ECL_LOSS_N = (10_000, 1_000_000)


def eclloss():
    """The mini-batch ECL loss forward and backward (bench/peer/ecl.py) on two
    domains of N samples on the GPU, rows named as BenchmarkECLLoss: the
    fast formulation, then the reference code's as BenchmarkECLLossReference."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../bench/peer"))
    import ecl as ecl_peer

    for n in ECL_LOSS_N:
        for k in (3, 10):
            for p in ecl_peer.PARADIGMS:
                for form, row in (("fast", "ECLLoss"), ("reference", "ECLLossReference")):
                    bench(f"Benchmark{row}/{p}/k{k}/n{n}", ecl_peer.case(p, k, n, chunk=n, device=dev, form=form), rows(2 * n))
                    torch.cuda.empty_cache()


def train():
    """Training steps of bench/peer/train.py's networks (the CPU peer's, which
    are nn/'s), moved to the GPU: batch 100 of random 3x28x28 images,
    cross-entropy, Adam: fused Adam with cuDNN's autotuner (the rows named
    as the Go benchmarks), then PyTorch's defaults (foreach Adam, no
    autotuner) as BenchmarkTrainStepDefault."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../bench/peer"))
    import train as cpu_peer

    for row, fused in (("TrainStep", True), ("TrainStepDefault", False)):
        torch.backends.cudnn.benchmark = fused
        for net in ("lenet5", "resnet20"):
            torch.manual_seed(1)
            m = cpu_peer.NETS[net][0]().to(dev)
            x = torch.rand(100, 3, 28, 28, device=dev, generator=gen)
            y = torch.randint(0, 10, (100,), device=dev, generator=gen)
            opt = torch.optim.Adam(m.parameters(), lr=1e-3, weight_decay=0, fused=fused)
            F = torch.nn.functional

            def step():
                opt.zero_grad()
                F.cross_entropy(m(x), y).backward()
                opt.step()
            bench(f"Benchmark{row}/{net}", step, lambda ns: (100 / (ns * 1e-9), "images/s"))
    torch.backends.cudnn.benchmark = True


def large():
    """The paper's large networks (torchvision's resnet50 and vit_b_16,
    random weights, 1000 classes) at 224x224, as bench.LargeStep runs them:
    inference at batch 8 (inference_mode), a training step with fused Adam at
    batch 16; in the contiguous layout (rows named as the Go benchmarks) and
    channels-last (BenchmarkLargeStepChannelsLast/...)."""
    import torchvision

    F = torch.nn.functional
    for net in ("resnet50", "vit_b_16"):
        for mode, n in (("infer", 8), ("train", 16)):
            for form in ("", "ChannelsLast"):
                torch.manual_seed(1)
                m = getattr(torchvision.models, net)(weights=None).to(dev)
                x = torch.rand(n, 3, 224, 224, device=dev, generator=gen)
                if form:
                    m, x = m.to(memory_format=torch.channels_last), x.contiguous(memory_format=torch.channels_last)
                if mode == "infer":
                    m.eval()

                    def step():
                        with torch.inference_mode():
                            m(x)
                else:
                    y = torch.randint(0, 1000, (n,), device=dev, generator=gen)
                    opt = torch.optim.Adam(m.parameters(), lr=1e-3, weight_decay=0, fused=True)

                    def step():
                        opt.zero_grad()
                        F.cross_entropy(m(x), y).backward()
                        opt.step()
                bench(f"BenchmarkLargeStep{form}/{net}/{mode}", step, lambda ns, n=n: (n / (ns * 1e-9), "images/s"))
                del m, x, step
                torch.cuda.empty_cache()


def attention():
    """Attention forward and backward at ViT-B/16's shape for batch 16
    (192 heads of 197 tokens of 64), as BenchmarkAttention: PyTorch's
    scaled_dot_product_attention (its fastest float32 backend) under the Go
    row's name, and the composed softmax(Q·Kᵀ·scale)·V as
    BenchmarkAttentionComposed/...; GFLOP/s counts the same 12·BH·N²·Dh."""
    F = torch.nn.functional
    bh, n, d = 192, 197, 64
    q, k, v, do = (torch.rand(16, 12, n, d, device=dev, generator=gen) * 2 - 1 for _ in range(4))
    q, k, v = (t.requires_grad_() for t in (q, k, v))

    def sdpa():
        torch.autograd.grad(F.scaled_dot_product_attention(q, k, v, scale=1 / 8), (q, k, v), do)

    def composed():
        p = torch.softmax(q @ k.transpose(-1, -2) * (1 / 8), dim=-1)
        torch.autograd.grad(p @ v, (q, k, v), do)
    for form, f in (("", sdpa), ("Composed", composed)):
        bench(f"BenchmarkAttention{form}/bh{bh}/n{n}/d{d}", f, gflops(12 * bh * n * n * d))


if __name__ == "__main__":
    if not torch.cuda.is_available():
        sys.exit("peer.py: no CUDA device")
    print(f"# torch {torch.__version__}, CUDA {torch.version.cuda}, {torch.cuda.get_device_name()}")
    parts = {"gemm": gemm, "conv": conv, "ecl": ecl, "eclloss": eclloss, "train": train, "large": large, "attention": attention}
    for part in sys.argv[1:] or parts:
        parts[part]()
