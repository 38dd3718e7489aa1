#!/usr/bin/env python3
"""torchvision peer of the input-pipeline rows of `go run ./bench/benchtable`.

For each folder WxH of --dir (the JPEGs `benchtable -image-dir DIR` wrote,
two class folders each) it prints the row images/decode-resize-crop/WxH:
the time of one pass of a DataLoader (--workers worker processes,
persistent, batches of --batch) over torchvision's ImageFolder with PIL
decoding and the evaluation transform of ImageNet networks (Resize(256)
bilinear with antialiasing, CenterCrop(224), ToTensor, Normalize with
ImageNet's mean and std), as the median of --rounds passes after one
warm-up pass, and the images per second.

    /usr/bin/python3 bench/peer/images.py --dir DIR [--run REGEXP] [--rounds 3] [--workers 2]

Optional: `go test` never needs it.
"""
import argparse
import os
import re
import statistics
import time

import torch
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def transform(resize=256, crop=224):
    """The evaluation transform, as this engine's images.EvalTransform."""
    return transforms.Compose([
        transforms.Resize(resize, interpolation=transforms.InterpolationMode.BILINEAR, antialias=True),
        transforms.CenterCrop(crop),
        transforms.ToTensor(),
        transforms.Normalize(MEAN, STD),
    ])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", required=True, help="folder of WxH folders of JPEGs (benchtable -image-dir)")
    ap.add_argument("--run", default=".", help="regular expression selecting rows by name")
    ap.add_argument("--rounds", type=int, default=3, help="timed passes per row")
    ap.add_argument("--workers", type=int, default=2, help="DataLoader worker processes")
    ap.add_argument("--batch", type=int, default=32, help="images per batch")
    args = ap.parse_args()
    pattern = re.compile(args.run)
    torch.set_num_threads(1)
    print(f"torch {torch.__version__}, DataLoader num_workers={args.workers}, batch {args.batch}, median of {args.rounds} passes")
    print(f"{'workload':<34} {'ms/op':>10} {'':>9}")
    for size in sorted(os.listdir(args.dir)):
        name = "images/decode-resize-crop/" + size
        if not pattern.search(name) or not os.path.isdir(os.path.join(args.dir, size)):
            continue
        ds = datasets.ImageFolder(os.path.join(args.dir, size), transform=transform())
        dl = DataLoader(ds, batch_size=args.batch, num_workers=args.workers, persistent_workers=args.workers > 0)
        times = []
        for r in range(args.rounds + 1):
            start = time.perf_counter()
            n = sum(x.shape[0] for x, _ in dl)
            if r > 0:  # the first pass starts the workers and warms the page cache
                times.append(time.perf_counter() - start)
        per = statistics.median(times)
        print(f"{name:<34} {per * 1e3:10.3f} {'':>9}  ({n / per:.1f} images/s: {n} JPEGs per pass, "
              f"best {min(times) * 1e3:.3f} ms, {args.workers} workers)")


if __name__ == "__main__":
    main()
