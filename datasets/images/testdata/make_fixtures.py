#!/usr/bin/python3
"""Makes the fixtures of package images' agreement test with PIL and torchvision.

Run with Debian's python3-pil, python3-numpy, python3-torch and
python3-torchvision (PIL 9.4, torchvision 0.14):

    cd datasets/images/testdata && /usr/bin/python3 make_fixtures.py

It writes small images in several modes (colour JPEG with 4:2:0 and
4:2:2 chroma, grey and CMYK JPEG; RGBA, LA, paletted with transparency
and 16-bit grey PNG) of odd sizes under img/, and expected.npz holding,
for each image NAME,

    rgb_NAME        PIL's Image.open(f).convert("RGB"), uint8 [H, W, 3]
    x_NAME_S_C      torchvision's Compose([Resize(S), CenterCrop(C),
                    ToTensor(), Normalize(ImageNet mean, std)]) of it,
                    float32 [3, C, C]

for the (S, C) of SETTINGS: a downscale by about 1.5 (as 500×375 → 256),
one by about 4, and an upscale.
"""
import os

import numpy as np
from PIL import Image
import torchvision.transforms as T

SETTINGS = [(20, 16), (8, 8), (28, 20)]


def natural(rng, h, w):
    """A smooth random colour field with some texture and an edge."""
    small = rng.uniform(0, 255, size=(4, 5, 3))
    img = np.array(Image.fromarray(small.astype(np.uint8)).resize((w, h), Image.BICUBIC), dtype=np.float64)
    img += rng.normal(0, 12, size=img.shape)
    img[h // 3:h // 3 + 3, :, 0] = 250  # a sharp red bar
    img[:, w // 2:w // 2 + 2, 2] = 10
    return np.clip(img, 0, 255).astype(np.uint8)


def main():
    rng = np.random.default_rng(20261126)
    os.makedirs("img", exist_ok=True)
    imgs = {}
    imgs["rgb420.jpg"] = (Image.fromarray(natural(rng, 27, 31)), dict(quality=90, subsampling=2))
    imgs["rgb422.jpg"] = (Image.fromarray(natural(rng, 33, 30)), dict(quality=85, subsampling=1))
    imgs["big420.jpg"] = (Image.fromarray(natural(rng, 48, 65)), dict(quality=75, subsampling=2))
    imgs["grey.jpg"] = (Image.fromarray(natural(rng, 29, 23)).convert("L"), dict(quality=90))
    imgs["cmyk.jpg"] = (Image.fromarray(natural(rng, 21, 26)).convert("CMYK"), dict(quality=90))
    rgba = np.dstack([natural(rng, 17, 25), rng.integers(0, 256, size=(17, 25), dtype=np.uint8)])
    imgs["rgba.png"] = (Image.fromarray(rgba, "RGBA"), {})
    imgs["la.png"] = (Image.fromarray(rgba[:, :, [0, 3]], "LA"), {})
    pal = Image.fromarray(natural(rng, 19, 14)).quantize(colors=16)
    pal.info["transparency"] = 3
    imgs["pal.png"] = (pal, dict(transparency=3))
    g16 = (rng.uniform(0, 400, size=(15, 22))).astype(np.uint16)
    imgs["grey16.png"] = (Image.fromarray(g16.astype(np.int32), "I"), {})
    expected = {}
    for name, (im, kw) in imgs.items():
        path = os.path.join("img", name)
        im.save(path, **kw)
        with open(path, "rb") as f:
            rgb = Image.open(f).convert("RGB")
        stem = os.path.splitext(name)[0]
        expected["rgb_" + stem] = np.asarray(rgb, dtype=np.uint8)
        for s, c in SETTINGS:
            t = T.Compose([T.Resize(s), T.CenterCrop(c), T.ToTensor(),
                           T.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))])
            expected["x_%s_%d_%d" % (stem, s, c)] = t(rgb).numpy().astype(np.float32)
        print(name, Image.open(path).mode, rgb.size)
    np.savez_compressed("expected.npz", **expected)


if __name__ == "__main__":
    main()
