#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Random QLinearConv models (python3-onnx) and inputs for the NPU-vs-
onnxruntime comparison of tests/onnx/qlinearconv_npu.sh.

usage: qlinearconv_gen.py OUTDIR SEED COUNT
Writes OUTDIR/caseN.onnx and OUTDIR/caseN_x.npy, and prints one line per
case: "caseN <description>".
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def case(rng, i, out):
    dw = i % 3 == 2
    u8 = i % 2 == 0                       # uint8 activations (else int8)
    per_channel = i % 4 != 3
    c = int(rng.choice([1, 3, 5, 8, 17, 33]))
    m = c if dw else int(rng.choice([1, 4, 7, 16, 19, 40]))
    k = int(rng.choice([1, 3, 5]))
    s = int(rng.integers(1, 3))
    h, w = int(rng.integers(k, 14)), int(rng.integers(k, 14))
    p = [int(v) for v in rng.integers(0, k, 4)] if k > 1 else [0, 0, 0, 0]
    act_t = TensorProto.UINT8 if u8 else TensorProto.INT8
    lo, hi = (0, 255) if u8 else (-128, 127)
    x_zp = int(rng.integers(lo + 20, hi - 20))
    y_zp = int(rng.integers(lo + 20, hi - 20))
    x_scale = float(rng.uniform(0.005, 0.05))
    wq = rng.integers(-127, 128, (m, 1 if dw else c, k, k)).astype(np.int8)
    w_scale = rng.uniform(0.002, 0.02, m if per_channel else 1).astype(np.float32)
    taps = (1 if dw else c) * k * k
    y_scale = float(x_scale * float(w_scale.mean()) * np.sqrt(taps) * 40 / 2)
    bias = rng.integers(-3000, 3000, m).astype(np.int32)
    inits = [
        numpy_helper.from_array(np.array(x_scale, np.float32), "x_scale"),
        numpy_helper.from_array(np.array(x_zp, np.uint8 if u8 else np.int8), "x_zp"),
        numpy_helper.from_array(wq, "w"),
        numpy_helper.from_array(w_scale if per_channel else np.array(w_scale[0], np.float32),
                                "w_scale"),
        numpy_helper.from_array(np.zeros(m, np.int8) if per_channel else np.array(0, np.int8),
                                "w_zp"),
        numpy_helper.from_array(np.array(y_scale, np.float32), "y_scale"),
        numpy_helper.from_array(np.array(y_zp, np.uint8 if u8 else np.int8), "y_zp"),
        numpy_helper.from_array(bias, "b"),
    ]
    oh = (h + p[0] + p[2] - k) // s + 1
    ow = (w + p[1] + p[3] - k) // s + 1
    node = helper.make_node("QLinearConv", ["x", "x_scale", "x_zp", "w", "w_scale", "w_zp",
                                            "y_scale", "y_zp", "b"], ["y"], name="qconv",
                            kernel_shape=[k, k], strides=[s, s], pads=p,
                            group=c if dw else 1)
    g = helper.make_graph([node], "qlinearconv_case%d" % i,
                          [helper.make_tensor_value_info("x", act_t, [1, c, h, w])],
                          [helper.make_tensor_value_info("y", act_t, [1, m, oh, ow])], inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, "case%d.onnx" % i))
    x = rng.integers(lo, hi + 1, (1, c, h, w)).astype(np.uint8 if u8 else np.int8)
    np.save(os.path.join(out, "case%d_x.npy" % i), x)
    print("case%d %s %s %dx%dx%d -> %d k%d s%d pads %s x_zp %d y_zp %d %s"
          % (i, "depthwise" if dw else "conv", "uint8" if u8 else "int8", c, h, w, m, k, s,
             p, x_zp, y_zp, "per-channel" if per_channel else "per-tensor"))


def main():
    out, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = np.random.default_rng(seed)
    for i in range(count):
        case(rng, i, out)


if __name__ == "__main__":
    main()
