#!/usr/bin/python3
"""The peer of BenchmarkLoad: PIL's decode and torchvision's evaluation
transform (resize 256, crop 224, ToTensor, Normalize) of one JPEG, timed
in one thread.

    /usr/bin/python3 datasets/images/testdata/peer_transform.py FILE.jpg
    ECL_BENCH_IMAGE=FILE.jpg go test -run '^$' -bench Load ./datasets/images

Without FILE it writes a 500×375 noise field to /tmp/peer_transform.jpg
(quality 75) and times that; pass the same file to both.
"""
import sys
import time

import numpy as np
import torch
from PIL import Image
import torchvision.transforms as T


def main():
    torch.set_num_threads(1)
    path = sys.argv[1] if len(sys.argv) > 1 else "/tmp/peer_transform.jpg"
    if len(sys.argv) == 1:
        rng = np.random.default_rng(1)
        Image.fromarray(rng.integers(0, 256, (375, 500, 3), dtype=np.uint8)).save(path, quality=75)
    t = T.Compose([T.Resize(256), T.CenterCrop(224), T.ToTensor(),
                   T.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))])
    best = float("inf")
    for _ in range(5):
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < 1:
            with open(path, "rb") as f:
                t(Image.open(f).convert("RGB"))
            n += 1
        best = min(best, (time.perf_counter() - start) / n)
    print("%s: %.0f µs per image (best of 5 rounds of 1 s)" % (path, best * 1e6))


if __name__ == "__main__":
    main()
