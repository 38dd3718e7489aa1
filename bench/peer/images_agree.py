#!/usr/bin/env python3
"""How closely this engine's image tensors agree with torchvision's.

Reads the .npz `go run ./bench/imagetensors -data DIR -out FILE.npz` wrote
(x [N, 3, crop, crop], paths, resize, crop), makes torchvision's tensors of
the same images (PIL's open and convert("RGB"), Resize(resize) bilinear
with antialiasing, CenterCrop(crop), ToTensor, Normalize with ImageNet's
mean and std) and prints the mean and largest absolute difference of the
normalised tensors, the same in 8-bit levels (the difference times the
channel's std times 255), the share of values that differ by more than one
level, and the image that differs most.

    /usr/bin/python3 bench/peer/images_agree.py --npz FILE.npz --data DIR

Optional: `go test` never needs it.
"""
import argparse
import os

import numpy as np
from PIL import Image

from images import STD, transform


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--npz", required=True, help="the archive bench/imagetensors wrote")
    ap.add_argument("--data", required=True, help="the folder it read (its -data)")
    args = ap.parse_args()
    z = np.load(args.npz)
    x, paths = z["x"], [str(p) for p in z["paths"]]
    t = transform(int(z["resize"][0]), int(z["crop"][0]))
    std = np.array(STD, dtype=np.float64).reshape(3, 1, 1)
    total, worst, above, count = 0.0, (0.0, ""), 0, 0
    largest, largest_levels = 0.0, 0.0
    for i, p in enumerate(paths):
        with Image.open(os.path.join(args.data, p)) as img:
            ref = t(img.convert("RGB")).numpy().astype(np.float64)
        d = np.abs(x[i].astype(np.float64) - ref)
        total += d.sum()
        count += d.size
        levels = d * std * 255
        largest, largest_levels = max(largest, d.max()), max(largest_levels, levels.max())
        above += int((levels > 1 + 1e-3).sum())
        if d.mean() > worst[0]:
            worst = (d.mean(), p)
    mad = total / count
    print(f"{len(paths)} images of {args.data}, tensors [3, {x.shape[2]}, {x.shape[3]}]")
    print(f"mean |ours - torchvision| {mad:.3g} normalised ({mad / (1 / 255):.3g} of 1/255; about {mad * float(std.mean()) * 255:.3g} levels of 255)")
    print(f"largest |difference| {largest:.3g} normalised ({largest_levels:.3g} levels)")
    print(f"values more than one level apart: {above} of {count} ({100 * above / count:.3g}%)")
    print(f"the image that differs most: {worst[1]} (mean {worst[0]:.3g})")


if __name__ == "__main__":
    main()
