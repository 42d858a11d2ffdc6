#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Judges of the conv + residual-add fusion (tests/onnx/fusion_npu.sh).

  fusion_check.py exact MODEL.onnx X.npy R.npy OUT.npy
      a one-block QDQ model of tests/onnx/fusion_gen.py (Conv of x, Add of r,
      Relu / Clip(0, 6) or none) computed as the fused op defines it
      (docs/FORMAT.md): y = saturate(round(((sum (x - zx) w + b) sx sw +
      (r - zr) sr) / sy) + zy), clamped by the activation, with no rounding
      of the convolution's own output, integer sums exact (numpy int64), the
      rest in float64, rounding half to even. OUT.npy (the runtime's
      dequantised output) must be within 1 LSB of it everywhere.
  fusion_check.py cosine GATE REF.npy OUT.npy...
      each OUT against REF (onnxruntime fp32): cosine >= GATE.
"""
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def quantise(v, s, z):
    return np.clip(np.rint(v.astype(np.float64) / np.float64(s)) + int(z), -128, 127)


def exact(model, xf, rf, outf):
    m = onnx.load(model)
    p = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    conv = next(n for n in m.graph.node if n.op_type == "Conv")
    a = {x.name: onnx.helper.get_attribute_value(x) for x in conv.attribute}
    k, s, pad = a["kernel_shape"][0], a["strides"][0], a["pads"][0]
    x = quantise(np.load(xf), p["sx"], p["zx"]).astype(np.int64) - int(p["zx"])
    r = quantise(np.load(rf), p["sr"], p["zr"]).astype(np.int64) - int(p["zr"])
    w = p["wq"].astype(np.int64)
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    co, ho, wo = r.shape[1], r.shape[2], r.shape[3]
    acc = np.zeros((1, co, ho, wo), np.int64)
    for dy in range(k):
        for dx in range(k):
            win = x[:, :, dy:dy + s * ho:s, dx:dx + s * wo:s]
            acc += np.einsum("oc,nchw->nohw", w[:, :, dy, dx], win)
    acc += p["bq"].astype(np.int64).reshape(1, -1, 1, 1)
    real = acc * (np.float64(p["sx"]) * np.float64(p["sw"])) + r * np.float64(p["sr"])
    sy, zy = np.float64(p["sy"]), int(p["zy"])
    y = np.clip(np.rint(real / sy) + zy, -128, 127)
    ops = [n.op_type for n in m.graph.node]
    if "Relu" in ops:
        y = np.maximum(y, zy)
    elif "Clip" in ops:
        y = np.clip(y, zy, min(127, zy + np.rint(6.0 / sy)))
    got = np.rint(np.load(outf).astype(np.float64) / sy) + zy
    diff = np.abs(got - y)
    print("fusion: %s: exact judge: max %d LSB, %d of %d values 1 LSB apart" %
          (model.split("/")[-1], diff.max(), int((diff == 1).sum()), diff.size))
    return diff.max() <= 1


def cosine(gate, ref, outs):
    r = np.load(ref).ravel().astype(np.float64)
    ok = True
    for o in outs:
        v = np.load(o).ravel().astype(np.float64)
        c = float(v @ r / (np.linalg.norm(v) * np.linalg.norm(r)))
        print("fusion: %s: cosine %.6f (gate %s)" % (o, c, gate))
        ok = ok and c >= float(gate)
    return ok


if __name__ == "__main__":
    if sys.argv[1] == "exact":
        sys.exit(0 if exact(*sys.argv[2:6]) else 1)
    sys.exit(0 if cosine(sys.argv[2], sys.argv[3], sys.argv[4:]) else 1)
