#!/usr/bin/python3
"""Makes train.npz, the fixture of package images' tests of TrainTransform
against torchvision's RandomResizedCrop.

Run with Debian's python3-pil, python3-numpy, python3-torch and
python3-torchvision (PIL 9.4, torchvision 0.14), after make_fixtures.py:

    cd datasets/images/testdata && /usr/bin/python3 make_train_fixture.py

It writes train.npz holding

    crop_NAME_K     torchvision's F.resized_crop(img, i, j, h, w, [s, s])
                    of the fixture image img/NAME (PIL's bilinear resize of
                    the crop), uint8 [s, s, 3], for the K-th of BOXES
    box_NAME_K      that box and side: int64 [i, j, h, w, s]
    fallback        RandomResizedCrop.get_params for settings under which
                    every try misses, so that the central fallback box is
                    returned whatever the random draws: float64 rows
                    [width, height, scale0, scale1, ratio0, ratio1, i, j, h, w]
    stats_WxH       the mean and standard deviation of get_params's
                    (i, j, h, w), of log(w/h) and of w·h/(W·H) over DRAWS
                    draws with the default scale and ratio, for a W×H
                    image: float64 [2, 6]
"""
import numpy as np
import torch
from PIL import Image
import torchvision.transforms as T
import torchvision.transforms.functional as F

NAMES = ["big420.jpg", "rgb420.jpg", "grey.jpg"]
# (i, j, h, w, s) as fractions of the image's height and width, and a side.
BOXES = [(0.0, 0.0, 1.0, 1.0, 16), (0.1, 0.2, 0.5, 0.6, 12), (0.3, 0.05, 0.4, 0.3, 28),
         (0.5, 0.5, 0.5, 0.5, 7), (0.0, 0.4, 0.9, 0.35, 40)]
FALLBACK = [  # (width, height, scale, ratio)
    (1000, 10, (0.08, 1.0), (3 / 4, 4 / 3)),   # too wide: a box of the full height
    (10, 1000, (0.08, 1.0), (3 / 4, 4 / 3)),   # too tall: the full width
    (300, 200, (1.5, 2.0), (3 / 4, 4 / 3)),    # no box fits: the full height, w=round(200·4/3)
    (200, 190, (1.5, 2.0), (3 / 4, 4 / 3)),    # the whole image, within the ratios
    (41, 97, (1.2, 3.0), (0.5, 2.0)),          # width/height 0.42 < 0.5: w=41, h=82
    (97, 41, (1.2, 3.0), (0.5, 2.0)),          # width/height 2.37 > 2: h=41, w=82
    (7, 33, (1.2, 3.0), (1.0, 1.0)),           # w=7, h=7
]
SIZES = [(227, 227), (500, 375), (64, 200), (20, 15)]
DRAWS = 40000


def main():
    torch.manual_seed(20261128)
    out = {}
    for name in NAMES:
        with open("img/" + name, "rb") as f:
            img = Image.open(f).convert("RGB")
        W, H = img.size
        stem = name.split(".")[0]
        for k, (fi, fj, fh, fw, s) in enumerate(BOXES):
            h, w = max(1, round(fh * H)), max(1, round(fw * W))
            i, j = min(round(fi * H), H - h), min(round(fj * W), W - w)
            out["crop_%s_%d" % (stem, k)] = np.asarray(F.resized_crop(img, i, j, h, w, [s, s]), dtype=np.uint8)
            out["box_%s_%d" % (stem, k)] = np.array([i, j, h, w, s], dtype=np.int64)
    rows = []
    for w, h, scale, ratio in FALLBACK:
        i, j, hh, ww = T.RandomResizedCrop.get_params(Image.new("RGB", (w, h)), list(scale), list(ratio))
        rows.append([w, h, scale[0], scale[1], ratio[0], ratio[1], i, j, hh, ww])
    out["fallback"] = np.array(rows, dtype=np.float64)
    for w, h in SIZES:
        img = Image.new("RGB", (w, h))
        d = np.array([T.RandomResizedCrop.get_params(img, [0.08, 1.0], [3 / 4, 4 / 3]) for _ in range(DRAWS)], dtype=np.float64)
        d = np.column_stack([d, np.log(d[:, 3] / d[:, 2]), d[:, 2] * d[:, 3] / (w * h)])
        out["stats_%dx%d" % (w, h)] = np.stack([d.mean(0), d.std(0)])
        print(w, h, out["stats_%dx%d" % (w, h)])
    np.savez_compressed("train.npz", **out)


if __name__ == "__main__":
    main()
