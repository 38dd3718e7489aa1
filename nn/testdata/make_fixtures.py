#!/usr/bin/python3
"""Writes the torch.save fixtures of nn's LoadPyTorch and torchvision-model tests.

    /usr/bin/python3 nn/testdata/make_fixtures.py

Needs torch and torchvision (Debian's python3-torch 1.13 and
python3-torchvision 0.14: apt-get install python3-torchvision). Every file
is small; the models are torchvision's own classes at a tiny width, with
random weights and random batch-norm statistics, so the Go models are
checked against torchvision's code path, not a copy of it.

1. reader.pth: a checkpoint {"epoch", "state_dict", "args" (an argparse
   Namespace), "optimizer" (an SGD state_dict)} whose state_dict holds
   float32, float16, bfloat16 and float64 tensors, a transposed view
   (strides (1, 3)), a slice of a larger tensor (storage offset 8, the
   whole 30-element storage saved), two rows sharing that storage, a
   channels-last convolution weight (strides (12, 1, 6, 3)), a 0-d int64
   num_batches_tracked and a 0-d float. Tensor t's element j (in
   row-major order of its shape) is ((37 j + 101 t) mod 255 - 127) / 1024,
   exact in every dtype; reader.json lists names, shapes, dtypes and t.
2. reader_model.pth: {"model": state_dict} with every name prefixed by
   "module." (torch.nn.DataParallel's), the first two tensors of reader.pth.
3. legacy.pth: a tensor saved with _use_new_zipfile_serialization=False.
4. resnet_tiny.pth, wide_tiny.pth, densenet_tiny.pth, vit_tiny.pth and
   tiny_logits.json: torchvision's ResNet (Bottleneck, layers [2, 1, 1, 1],
   stem and planes at 1/32 of resnet50's: 2, 2, 4, 8, 16; width_per_group
   64 and 128, the latter as wide_resnet50_2), DenseNet (growth 4, blocks
   (2, 2, 2, 2), 8 initial features, bn_size 2) and VisionTransformer
   (image 16, patch 4, 2 layers, 2 heads, width 8, MLP 16), 5 classes, in
   eval mode, and their logits computed in float64 for the input
   x[n, c, h, w] = ((7 n + 5 c + 3 h + 11 w) mod 17 - 8) / 8, n < 2, of
   36×36 pixels (16×16 for the ViT). resnet_tiny.pth is saved in float64,
   the others in float32 (whose values the float64 logits are computed from).
5. torchvision_names.json.gz: the state_dict names and shapes of
   torchvision 0.14's resnet50, resnet152, wide_resnet50_2, densenet121,
   densenet161, vit_b_16 and vit_l_16, for the Go models' names tests.
"""
import argparse
import collections
import gzip
import json
import os

import torch
import torchvision
from torch import nn
from torchvision.models import resnet as tvresnet

HERE = os.path.dirname(os.path.abspath(__file__))


def path(name):
    return os.path.join(HERE, name)


def value(t, j):
    return ((37 * j + 101 * t) % 255 - 127) / 1024


def values(t, shape, dtype):
    n = 1
    for d in shape:
        n *= d
    return torch.tensor([value(t, j) for j in range(n)], dtype=torch.float64).reshape(shape).to(dtype)


def reader_fixture():
    sd = collections.OrderedDict()
    specs = []  # name, shape, dtype; t is the index

    def add(name, tensor, dtype, t):
        sd[name] = tensor
        specs.append({"name": name, "shape": list(tensor.shape), "dtype": dtype, "t": t})

    add("a.weight", values(0, [3, 4], torch.float32), "F32", 0)
    add("a.bias", values(1, [4], torch.float16), "F16", 1)
    add("b.weight", values(2, [2, 3], torch.bfloat16), "BF16", 2)
    add("b.bias", values(3, [5], torch.float64), "F64", 3)
    # A transposed view: logical [3, 4], strides (1, 3).
    base = values(4, [3, 4], torch.float32).t().contiguous()
    view = base.t()
    assert view.stride() == (1, 3)
    add("t.weight", view, "F32", 4)
    # A slice of a larger tensor: rows 1..3, columns 2..4 of a 5×6 tensor
    # (offset 8, strides (6, 1)); two more views of the same storage.
    big = torch.full((5, 6), 9.0, dtype=torch.float32)
    big[1:4, 2:5] = values(5, [3, 3], torch.float32)
    big[0, :] = values(6, [6], torch.float32)
    big[4, :] = values(7, [6], torch.float32)
    n = big[1:4, 2:5]
    assert n.storage_offset() == 8 and n.stride() == (6, 1)
    add("n.weight", n, "F32", 5)
    add("s.first", big[0], "F32", 6)
    add("s.last", big[4], "F32", 7)
    # A channels-last convolution weight: logical [2, 3, 2, 2], strides
    # (12, 1, 6, 3), the layout a model moved to torch.channels_last saves.
    cl = values(8, [2, 3, 2, 2], torch.float32).contiguous(memory_format=torch.channels_last)
    assert cl.stride() == (12, 1, 6, 3)
    add("cl.weight", cl, "F32", 8)
    add("bn.num_batches_tracked", torch.tensor(7, dtype=torch.int64), "I64", -1)
    add("scalar", values(9, [], torch.float32), "F32", 9)
    lin = nn.Linear(2, 2)
    opt = torch.optim.SGD(lin.parameters(), lr=0.1, momentum=0.9)
    lin(torch.ones(1, 2)).sum().backward()
    opt.step()
    ckpt = {"epoch": 3, "state_dict": sd, "args": argparse.Namespace(lr=0.1, arch="tiny"),
            "optimizer": opt.state_dict(), "best": 0.5, "note": None, "tags": ["a", "b"]}
    torch.save(ckpt, path("reader.pth"))
    with open(path("reader.json"), "w") as f:
        json.dump(specs, f, indent=1)
        f.write("\n")
    wrapped = collections.OrderedDict(("module." + k, sd[k]) for k in ["a.weight", "a.bias"])
    torch.save({"model": wrapped, "epoch": 1}, path("reader_model.pth"))
    torch.save({"w": values(0, [2], torch.float32)}, path("legacy.pth"), _use_new_zipfile_serialization=False)


class TinyResNet(tvresnet.ResNet):
    """torchvision's ResNet with its stem and stage widths divided by 32:
    ResNet.__init__ with inplanes and planes scaled, the rest (blocks,
    _make_layer, _forward_impl) torchvision's own."""

    def __init__(self, layers, width_per_group, num_classes, base=2):
        nn.Module.__init__(self)
        self._norm_layer = nn.BatchNorm2d
        self.inplanes, self.dilation, self.groups, self.base_width = base, 1, 1, width_per_group
        self.conv1 = nn.Conv2d(3, base, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(base)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(tvresnet.Bottleneck, base, layers[0])
        self.layer2 = self._make_layer(tvresnet.Bottleneck, 2 * base, layers[1], stride=2)
        self.layer3 = self._make_layer(tvresnet.Bottleneck, 4 * base, layers[2], stride=2)
        self.layer4 = self._make_layer(tvresnet.Bottleneck, 8 * base, layers[3], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(8 * base * tvresnet.Bottleneck.expansion, num_classes)


def randomize(model, gen):
    """Random weights everywhere and random batch-norm statistics, so that
    eval-mode batch norm is exercised."""
    with torch.no_grad():
        for name, t in model.state_dict().items():
            if not t.is_floating_point():
                t.fill_(gen.integers(0, 100))
                continue
            if name.endswith("running_var") or (name.endswith(".weight") and t.dim() == 1 and "ln" not in name):
                t.copy_(torch.from_numpy(gen.uniform(0.5, 1.5, t.shape)))
            else:
                fan = t[0].numel() if t.dim() > 1 else 1
                t.copy_(torch.from_numpy(gen.normal(0, 1 / max(fan, 1) ** 0.5, t.shape)))


def tiny_input(size):
    x = torch.zeros(2, 3, size, size, dtype=torch.float64)
    for n in range(2):
        for c in range(3):
            for h in range(size):
                for w in range(size):
                    x[n, c, h, w] = ((7 * n + 5 * c + 3 * h + 11 * w) % 17 - 8) / 8
    return x


def model_fixtures():
    import numpy as np
    gen = np.random.default_rng(26)
    torch.manual_seed(26)
    models = {
        "resnet_tiny": (TinyResNet([2, 1, 1, 1], 64, 5), torch.float64, 36),
        "wide_tiny": (TinyResNet([1, 1, 1, 1], 128, 5), torch.float32, 36),
        "densenet_tiny": (torchvision.models.DenseNet(growth_rate=4, block_config=(2, 2, 2, 2),
                                                      num_init_features=8, bn_size=2, num_classes=5), torch.float32, 36),
        "vit_tiny": (torchvision.models.VisionTransformer(image_size=16, patch_size=4, num_layers=2, num_heads=2,
                                                          hidden_dim=8, mlp_dim=16, num_classes=5), torch.float32, 16),
    }
    logits = {}
    for name, (m, dtype, size) in models.items():
        randomize(m, gen)
        m = m.to(dtype).eval()
        torch.save(m.state_dict(), path(name + ".pth"))
        with torch.no_grad():
            y = m.double()(tiny_input(size))
        logits[name] = {"input": [2, 3, size, size], "logits": y.tolist()}
    with open(path("tiny_logits.json"), "w") as f:
        json.dump(logits, f, indent=1)
        f.write("\n")


def names_fixture():
    tv = torchvision.models
    out = {}
    for name in ["resnet50", "resnet152", "wide_resnet50_2", "densenet121", "densenet161", "vit_b_16", "vit_l_16"]:
        m = getattr(tv, name)(weights=None)
        out[name] = [[k, list(v.shape)] for k, v in m.state_dict().items()]
        del m
    with gzip.open(path("torchvision_names.json.gz"), "wt") as f:
        json.dump(out, f, separators=(",", ":"))


if __name__ == "__main__":
    reader_fixture()
    model_fixtures()
    names_fixture()
    for f in sorted(os.listdir(HERE)):
        print(f"{os.path.getsize(path(f)):8d} {f}")
