#!/usr/bin/python3
"""Writes the safetensors fixtures of nn's tests, independently of the Go code.

    /usr/bin/python3 nn/testdata/gen_lenet5.py

1. lenet5.safetensors: the state of bench/peer/train.py's PyTorch LeNet5
   (conv1, conv2, fc1, fc2, main; 10 classes), written with the standard
   library only (struct, json) from the published format: an 8-byte
   little-endian header length, a JSON header (keys sorted, not in data
   order, and __metadata__), the data in state_dict order. Value j of tensor
   t is ((37 j + 101 t) mod 255 - 127) / 1024, exact in every dtype used:
   conv1.weight is F64, conv1.bias F16, conv2.bias BF16, the rest F32.
2. lenet5_logits.json: PyTorch's logits (float64) of that model on the input
   x[n, c, h, w] = ((7 n + 5 c + 3 h + 11 w) mod 17 - 8) / 8, n < 4, after
   loading the file (read back with the parser below) with
   load_state_dict(strict=True), which also checks that the names are the
   PyTorch model's.
3. torch_names.json: the state_dict names and shapes of train.py's LeNet5,
   ResNet20 and DenseNet40, each with aux=2, for the Go models' names test.

Steps 2 and 3 need torch (Debian's python3-torch is /usr/bin/python3).
"""
import json
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LENET5 = [  # name, shape, dtype: the state_dict of train.py's LeNet5(10)
    ("conv1.weight", [6, 3, 5, 5], "F64"), ("conv1.bias", [6], "F16"),
    ("conv2.weight", [16, 6, 5, 5], "F32"), ("conv2.bias", [16], "BF16"),
    ("fc1.weight", [120, 400], "F32"), ("fc1.bias", [120], "F32"),
    ("fc2.weight", [84, 120], "F32"), ("fc2.bias", [84], "F32"),
    ("main.weight", [10, 84], "F32"), ("main.bias", [10], "F32"),
]


def value(t, j):
    return ((37 * j + 101 * t) % 255 - 127) / 1024


def count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def encode(v, dtype):
    if dtype == "F64":
        return struct.pack("<d", v)
    if dtype == "F32":
        return struct.pack("<f", v)
    if dtype == "F16":
        return struct.pack("<e", v)
    if dtype == "BF16":  # the high half of the float32, exact for these values
        return struct.pack("<f", v)[2:]
    raise ValueError(dtype)


def write_lenet5(path):
    header, data = {"__metadata__": {"format": "pt", "writer": "gen_lenet5.py"}}, b""
    for t, (name, shape, dtype) in enumerate(LENET5):
        blob = b"".join(encode(value(t, j), dtype) for j in range(count(shape)))
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(blob)]}
        data += blob
    js = json.dumps(header, sort_keys=True).encode()
    js += b" " * (-len(js) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(js)) + js + data)


def read(path):
    """The tensors of a safetensors file as (dtype, shape, list of floats)."""
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header, data = json.loads(raw[8:8 + n]), raw[8 + n:]
    fmt = {"F64": ("<d", 8), "F32": ("<f", 4), "F16": ("<e", 2)}
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        b, end = e["data_offsets"]
        chunk = data[b:end]
        if e["dtype"] == "BF16":
            vals = [struct.unpack("<f", b"\0\0" + chunk[i:i + 2])[0] for i in range(0, len(chunk), 2)]
        else:
            f, size = fmt[e["dtype"]]
            vals = [struct.unpack(f, chunk[i:i + size])[0] for i in range(0, len(chunk), size)]
        out[name] = (e["dtype"], e["shape"], vals)
    return out


def with_torch(path):
    import torch
    sys.path.insert(0, os.path.join(HERE, "..", "..", "bench", "peer"))
    import train

    tensors = read(path)
    for t, (name, shape, dtype) in enumerate(LENET5):  # the round trip of step 1
        assert tensors[name][2] == [value(t, j) for j in range(count(shape))], name
    state = {k: torch.tensor(v, dtype=torch.float64).reshape(s) for k, (_, s, v) in tensors.items()}
    m = train.LeNet5(10).double()
    m.load_state_dict(state, strict=True)
    x = torch.tensor([[[[((7 * n + 5 * c + 3 * h + 11 * w) % 17 - 8) / 8 for w in range(28)]
                        for h in range(28)] for c in range(3)] for n in range(4)], dtype=torch.float64)
    with torch.no_grad():
        logits = m(x)
    with open(os.path.join(HERE, "lenet5_logits.json"), "w") as f:
        json.dump({"torch": torch.__version__, "logits": logits.tolist()}, f, indent=1)
        f.write("\n")
    names = {}
    for arch in ("lenet5", "resnet20", "densenet40"):
        sd = train.NETS[arch][0](10, aux=2).state_dict()
        names[arch] = [[k, list(v.shape)] for k, v in sd.items()]
    with open(os.path.join(HERE, "torch_names.json"), "w") as f:  # a name a line
        f.write("{\n" + ",\n".join("%s: [\n%s\n]" % (json.dumps(a), ",\n".join(json.dumps(e) for e in l))
                                    for a, l in names.items()) + "\n}\n")


if __name__ == "__main__":
    out = os.path.join(HERE, "lenet5.safetensors")
    write_lenet5(out)
    try:
        import torch  # noqa: F401
    except ImportError:
        sys.exit("gen_lenet5.py: wrote %s; steps 2 and 3 need torch (/usr/bin/python3)" % out)
    with_torch(out)
