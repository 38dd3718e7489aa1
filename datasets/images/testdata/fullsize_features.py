#!/usr/bin/python3
"""torchvision's logits and penultimate features of the fixture images,
for the opt-in full-size test of ecl features (TestFullSizeFeatures in
cmd/ecl), with the random full-size models of nn/testdata/make_fullsize.py:

    /usr/bin/python3 nn/testdata/make_fullsize.py /tmp/fullsize resnet50 densenet121 vit_b_16
    /usr/bin/python3 datasets/images/testdata/fullsize_features.py /tmp/fullsize resnet50 densenet121 vit_b_16
    ECL_FULLSIZE_DIR=/tmp/fullsize go test ./cmd/ecl -run FullSizeFeatures -v

For each model NAME it reads DIR/NAME.pth and writes DIR/NAME_images.npz:
logits and features (float32) of the images of datasets/images/testdata/img
in sorted order, each read as torchvision's ImageFolder does
(Image.open(f).convert("RGB")) and transformed with the model's
IMAGENET1K_V1 evaluation transform (resize 256, or 242 for vit_l_16;
crop 224; ImageNet's mean and standard deviation).
"""
import os
import re
import sys

import numpy as np
import torch
import torchvision
import torchvision.transforms as T
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))


def features(m, name, x):
    """The penultimate features of the batch x, as ecl features takes them."""
    if name.startswith("densenet"):
        return torch.flatten(torch.nn.functional.adaptive_avg_pool2d(torch.relu(m.features(x)), 1), 1)
    if name.startswith("vit"):
        h = m._process_input(x)
        h = torch.cat([m.class_token.expand(h.shape[0], -1, -1), h], dim=1)
        return m.encoder(h)[:, 0]
    body = torch.nn.Sequential(*list(m.children())[:-1])
    return torch.flatten(body(x), 1)


def main(out, names):
    torch.set_num_threads(2)
    imgdir = os.path.join(HERE, "img")
    files = sorted(os.listdir(imgdir))
    for name in names:
        m = getattr(torchvision.models, name)(weights=None)
        sd = torch.load(os.path.join(out, name + ".pth"))
        if name.startswith("densenet"):
            sd = {re.sub(r"(denselayer\d+\.(?:norm|relu|conv))\.([12])\.", r"\1\2.", k): v for k, v in sd.items()}
        m.load_state_dict(sd)
        m.eval()
        t = T.Compose([T.Resize(242 if name == "vit_l_16" else 256), T.CenterCrop(224), T.ToTensor(),
                       T.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))])
        xs = []
        for fn in files:
            with open(os.path.join(imgdir, fn), "rb") as f:
                xs.append(t(Image.open(f).convert("RGB")))
        x = torch.stack(xs)
        with torch.no_grad():
            f = features(m, name, x)
            logits = m(x)
        np.savez(os.path.join(out, name + "_images.npz"), logits=logits.numpy().astype(np.float32),
                 features=f.numpy().astype(np.float32), paths=np.array(files))
        print(name, tuple(logits.shape), tuple(f.shape), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
