#!/usr/bin/python3
"""PyTorch CPU peer of the Go training-step and convolution rows.

Prints the rows of `go run ./bench/benchtable` that it can measure, with the
same names and columns: the training steps of LeNet-5, ResNet-20 and
DenseNet-40 (batch 100 of random 3x28x28 images, cross-entropy, Adam,
float32), the convolution layers (forward and both backward passes), and
torchvision's ResNet-50 and ViT-B/16 at 224x224 (inference at batch 8 under
torch.inference_mode, a training step with Adam at batch 16; the large rows
warm up 2 calls, take the median of at least 3, and report the faster of
the contiguous and channels-last layouts).
The networks are those of nn/ (nn/lenet.go, nn/resnet.go, nn/densenet.go):
LeNet-5 pools before its ReLUs, ResNet-20 has option-A shortcuts,
DenseNet-40 the basic layers with growth 12 and uncompressed transitions.
Their state_dict names are those of the Go models (nn.LeNet5 & co. under
ecl.NewClassifier), so a state saved by one side as safetensors loads into
the other: pass aux=K for ECL's auxiliary head (aux.weight, aux.bias),
which forward does not use.

    /usr/bin/python3 bench/peer/train.py [-run REGEXP] [-threads 2]

Debian's python3-torch (PyTorch 1.13, CPU) is /usr/bin/python3; go test never
needs this script.
"""
import argparse
import re
import statistics
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


def heads(m, width, classes, aux):
    """Puts the main head and, if aux > 0, the auxiliary head on m."""
    m.main = nn.Linear(width, classes)
    if aux:
        m.aux = nn.Linear(width, aux)


class LeNet5(nn.Module):
    def __init__(self, classes=10, aux=0):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5, padding=2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1, self.fc2 = nn.Linear(400, 120), nn.Linear(120, 84)
        heads(self, 84, classes, aux)

    def forward(self, x):
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2(x), 2))
        x = F.relu(self.fc1(x.flatten(1)))
        return self.main(F.relu(self.fc2(x)))


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.stride, self.extra = stride, cout - cin

    def forward(self, x):
        h = F.relu(self.bn1(self.conv1(x)))
        h = self.bn2(self.conv2(h))
        s = x[:, :, ::self.stride, ::self.stride] if self.stride > 1 else x
        if self.extra:  # option A: zero channels, extra//2 before
            lo = self.extra // 2
            s = F.pad(s, (0, 0, 0, 0, lo, self.extra - lo))
        return F.relu(h + s)


class ResNet20(nn.Module):
    def __init__(self, classes=10, aux=0):
        super().__init__()
        layers = [nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU()]
        cin = 16
        for stage, cout in enumerate([16, 32, 64]):
            for i in range(3):
                layers.append(BasicBlock(cin, cout, 2 if stage > 0 and i == 0 else 1))
                cin = cout
        self.backbone = nn.Sequential(*layers)
        heads(self, cin, classes, aux)

    def forward(self, x):
        return self.main(self.backbone(x).mean((2, 3)))


class DenseLayer(nn.Module):
    def __init__(self, cin, growth):
        super().__init__()
        self.bn = nn.BatchNorm2d(cin)
        self.conv = nn.Conv2d(cin, growth, 3, 1, 1, bias=False)

    def forward(self, x):
        return torch.cat([x, self.conv(F.relu(self.bn(x)))], 1)


class Transition(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.bn = nn.BatchNorm2d(c)
        self.conv = nn.Conv2d(c, c, 1, bias=False)

    def forward(self, x):
        return F.avg_pool2d(self.conv(F.relu(self.bn(x))), 2)


class DenseNet40(nn.Module):
    def __init__(self, classes=10, aux=0, growth=12, layers=12):
        super().__init__()
        c = 16
        mods = [nn.Conv2d(3, c, 3, 1, 1, bias=False)]
        for block in range(3):
            if block > 0:
                mods.append(Transition(c))
            for _ in range(layers):
                mods.append(DenseLayer(c, growth))
                c += growth
        mods += [nn.BatchNorm2d(c), nn.ReLU()]
        self.backbone = nn.Sequential(*mods)
        heads(self, c, classes, aux)

    def forward(self, x):
        return self.main(self.backbone(x).mean((2, 3)))


NETS = {"lenet5": (LeNet5, 62006), "resnet20": (ResNet20, 269722), "densenet40": (DenseNet40, 1019722)}

# name, (N, C, H, W, O, K, pad): the layers of bench.Cases.
CONVS = {"lenet5": (100, 6, 12, 12, 16, 5, 0), "resnet20": (100, 16, 32, 32, 16, 3, 1)}


def measure(f, min_time=1.0, min_runs=10, warmup=5):
    """Median and best seconds per call of f, each call timed alone, after
    warmup calls (oneDNN's primitive creation, Adam's first steps), over at
    least min_runs calls and min_time seconds."""
    for _ in range(warmup):
        f()
    times = []
    while len(times) < min_runs or sum(times) < min_time:
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times)


def adam_step(m, x, y):
    """A training step of m on x and labels y: cross-entropy, then Adam at
    lr 1e-3 (its state kept across calls)."""
    opt = torch.optim.Adam(m.parameters(), lr=1e-3, weight_decay=0)

    def step():
        opt.zero_grad()
        F.cross_entropy(m(x), y).backward()
        opt.step()
    return step


def train_step(net):
    torch.manual_seed(1)
    m = NETS[net][0]()
    params = sum(p.numel() for p in m.parameters())
    if params != NETS[net][1]:
        raise SystemExit(f"train.py: {net} has {params} parameters, want {NETS[net][1]}")
    x = torch.rand(100, 3, 28, 28)
    return adam_step(m, x, torch.randint(0, 10, (100,)))


# The paper's large networks (torchvision's, random weights, 1000 classes)
# at 224×224: inference at batch 8, a training step (Adam) at batch 16, as
# bench.LargeStep runs them.
LARGE = ("resnet50", "wide_resnet50_2", "densenet121", "vit_b_16")


def large_step(net, train, channels_last=False):
    import torchvision

    torch.manual_seed(1)
    m = getattr(torchvision.models, net)(weights=None)
    n = 16 if train else 8
    x = torch.rand(n, 3, 224, 224)
    if channels_last:  # oneDNN's preferred layout for convolutions
        m, x = m.to(memory_format=torch.channels_last), x.contiguous(memory_format=torch.channels_last)
    if not train:
        m.eval()

        def infer():
            with torch.inference_mode():
                m(x)
        return infer
    m.train()
    return adam_step(m, x, torch.randint(0, 1000, (n,)))


def conv_case(name, dtype):
    n, c, h, w, o, k, pad = CONVS[name]
    g = torch.Generator().manual_seed(1)
    x = torch.randn(n, c, h, w, generator=g, dtype=dtype, requires_grad=True)
    wt = (0.1 * torch.randn(o, c, k, k, generator=g, dtype=dtype)).requires_grad_()
    oh, ow = h + 2 * pad - k + 1, w + 2 * pad - k + 1
    dy = torch.randn(n, o, oh, ow, generator=g, dtype=dtype)
    flops = 3 * 2 * n * o * oh * ow * c * k * k

    def run():
        x.grad = wt.grad = None
        F.conv2d(x, wt, padding=pad).backward(dy)
    return run, flops


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-run", default=".", help="regular expression selecting rows by name")
    ap.add_argument("-threads", type=int, default=2, help="torch.set_num_threads")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.set_num_interop_threads(1)
    re_run = re.compile(args.run)
    print(f"torch {torch.__version__} CPU, {torch.get_num_threads()} threads")
    print(f"{'workload':<34} {'ms/op':>10} {'GFLOP/s':>9} {'best ms':>9}  (ms/op: median of calls timed alone after 5 warm-ups)")
    for name in CONVS:
        for dtype, dn in ((torch.float32, "float32"), (torch.float64, "float64")):
            row = f"conv2d-fwd+bwd/{dn}/{name}"
            if re_run.search(row):
                run, flops = conv_case(name, dtype)
                s, best = measure(run)
                print(f"{row:<34} {s * 1e3:10.3f} {flops / s / 1e9:9.2f} {best * 1e3:9.3f}", flush=True)
    for net in NETS:
        row = f"{net}-train-step/float32"
        if re_run.search(row):
            s, best = measure(train_step(net))
            print(f"{row:<34} {s * 1e3:10.3f} {'':>9} {best * 1e3:9.3f}  ({100 / s:.0f} images/s, batch 100, Adam)", flush=True)
    for net in LARGE:
        for train, row, n in ((False, f"{net}-infer/float32", 8), (True, f"{net}-train-step/float32", 16)):
            if re_run.search(row):
                # The faster of the two memory layouts (ResNet's convolutions
                # may prefer channels-last).
                forms = {cl: measure(large_step(net, train, cl), min_runs=3, warmup=2) for cl in (False, True)}
                cl = min(forms, key=lambda f: forms[f][0])
                s, best = forms[cl]
                layout = "channels-last" if cl else "contiguous"
                print(f"{row:<34} {s * 1e3:10.3f} {'':>9} {best * 1e3:9.3f}  ({n / s:.1f} images/s, batch {n} at 224×224, {layout}, the faster layout)", flush=True)


if __name__ == "__main__":
    main()
