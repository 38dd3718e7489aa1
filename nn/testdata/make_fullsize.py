#!/usr/bin/python3
"""Writes full-size torchvision models with random weights for nn's opt-in
full-size test (TestFullSizeTorchvision), into a folder outside the tree:

    /usr/bin/python3 nn/testdata/make_fullsize.py /tmp/fullsize resnet50 densenet121 vit_b_16
    ECL_FULLSIZE_DIR=/tmp/fullsize go test ./nn -run FullSize -v

For each model named (any of resnet50, resnet152, wide_resnet50_2,
densenet121, densenet161, vit_b_16, vit_l_16): torchvision 0.14's model with
its own random initialisation, batch-norm statistics and biases drawn at
random (so that evaluation-mode batch norm is not the identity), saved with
torch.save(state_dict) in float32 as NAME.pth; a DenseNet's names are
written as in torchvision's published files (denselayer1.norm.1.weight,
read back with nn.TorchvisionDenseNetName). logits.json holds each model's
logits, computed in float64, for the first image of make_fixtures.py's
input at 224×224. The files are large (100 MB for resnet50, 346 MB for
vit_b_16, 1.2 GB for vit_l_16), so they are not committed.
"""
import json
import os
import re
import sys

import numpy as np
import torch
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_fixtures import tiny_input  # noqa: E402


def main(out, names):
    os.makedirs(out, exist_ok=True)
    gen = np.random.default_rng(1)
    torch.manual_seed(1)
    x = tiny_input(224)[:1]
    logits = {}
    for name in names:
        m = getattr(torchvision.models, name)(weights=None)
        with torch.no_grad():
            for k, t in m.state_dict().items():
                if k.endswith("running_var"):
                    t.copy_(torch.from_numpy(gen.uniform(0.5, 1.5, t.shape)))
                elif k.endswith("running_mean") or (k.endswith("bias") and t.dim() == 1):
                    t.copy_(torch.from_numpy(gen.normal(0, 0.1, t.shape)))
                elif k == "class_token" or k.startswith("heads."):  # zero-initialised
                    t.copy_(torch.from_numpy(gen.normal(0, 0.05, t.shape)))
        m.eval()
        sd = m.state_dict()
        if name.startswith("densenet"):
            sd = {re.sub(r"(denselayer\d+\.(?:norm|relu|conv))([12])\.", r"\1.\2.", k): v for k, v in sd.items()}
        torch.save(sd, os.path.join(out, name + ".pth"))
        with torch.no_grad():
            logits[name] = m.double()(x)[0].tolist()
        print(name, flush=True)
    with open(os.path.join(out, "logits.json"), "w") as f:
        json.dump(logits, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
