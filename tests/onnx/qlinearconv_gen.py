#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Random QLinearConv models (python3-onnx) and inputs for the NPU-vs-
onnxruntime comparison of tests/onnx/qlinearconv_npu.sh; with "integer",
ConvInteger and MatMulInteger models (int32 outputs) instead.

usage: qlinearconv_gen.py OUTDIR SEED COUNT [integer]
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
    kh, kw, sy, sx = k, k, s, s
    if i % 5 == 4:
        # a rectangular kernel and unequal strides: an x/y mix-up shows
        kh, kw = [(3, 1), (1, 5), (5, 3)][i // 5 % 3]
        sy, sx = (1, 2) if i % 2 else (2, 1)
        h, w = int(rng.integers(kh, 14)), int(rng.integers(kw, 14))
        p = [int(rng.integers(0, kh)), int(rng.integers(0, kw)), int(rng.integers(0, kh)),
             int(rng.integers(0, kw))]
    act_t = TensorProto.UINT8 if u8 else TensorProto.INT8
    lo, hi = (0, 255) if u8 else (-128, 127)
    x_zp = int(rng.integers(lo + 20, hi - 20))
    y_zp = int(rng.integers(lo + 20, hi - 20))
    x_scale = float(rng.uniform(0.005, 0.05))
    wq = rng.integers(-127, 128, (m, 1 if dw else c, kh, kw)).astype(np.int8)
    w_scale = rng.uniform(0.002, 0.02, m if per_channel else 1).astype(np.float32)
    taps = (1 if dw else c) * kh * kw
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
    oh = (h + p[0] + p[2] - kh) // sy + 1
    ow = (w + p[1] + p[3] - kw) // sx + 1
    node = helper.make_node("QLinearConv", ["x", "x_scale", "x_zp", "w", "w_scale", "w_zp",
                                            "y_scale", "y_zp", "b"], ["y"], name="qconv",
                            kernel_shape=[kh, kw], strides=[sy, sx], pads=p,
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
    print("case%d %s %s %dx%dx%d -> %d k%dx%d s%dx%d pads %s x_zp %d y_zp %d %s"
          % (i, "depthwise" if dw else "conv", "uint8" if u8 else "int8", c, h, w, m, kh, kw,
             sy, sx, p, x_zp, y_zp, "per-channel" if per_channel else "per-tensor"))


def integer_case(rng, i, out):
    """ConvInteger (even i) or MatMulInteger (odd i): uint8 or int8 data
    with a zero point away from the middle, weights whose distance from
    their zero point fits int8."""
    u8 = i % 4 < 2
    act_t = TensorProto.UINT8 if u8 else TensorProto.INT8
    lo, hi = (0, 255) if u8 else (-128, 127)
    x_zp = int(rng.integers(lo + 20, hi - 20))
    w_u8 = i % 3 == 0
    w_zp = int(rng.integers(100, 156)) if w_u8 else int(rng.integers(-20, 21))
    dt = np.uint8 if u8 else np.int8
    wdt = np.uint8 if w_u8 else np.int8
    c = int(rng.choice([1, 3, 8, 17, 33, 70]))
    m = int(rng.choice([1, 5, 16, 19, 40, 70]))
    if i % 2 == 0:
        k = int(rng.choice([1, 3, 5]))
        s = int(rng.integers(1, 3))
        h, w = int(rng.integers(k, 20)), int(rng.integers(k, 20))
        p = [int(v) for v in rng.integers(0, k, 4)] if k > 1 else [0, 0, 0, 0]
        wshape, xshape = (m, c, k, k), (1, c, h, w)
        yshape = (1, m, (h + p[0] + p[2] - k) // s + 1, (w + p[1] + p[3] - k) // s + 1)
        node = helper.make_node("ConvInteger", ["x", "w", "x_zp", "w_zp"], ["y"],
                                name="convint", kernel_shape=[k, k], strides=[s, s], pads=p)
        desc = "ConvInteger %dx%dx%d -> %d k%d s%d pads %s" % (c, h, w, m, k, s, p)
    else:
        rows = int(rng.integers(1, 40))
        wshape, xshape, yshape = (c, m), (rows, c), (rows, m)
        node = helper.make_node("MatMulInteger", ["x", "w", "x_zp", "w_zp"], ["y"],
                                name="matmulint")
        desc = "MatMulInteger %dx%d x %dx%d" % (rows, c, c, m)
    wlo, whi = (0, 255) if w_u8 else (-128, 127)
    wq = rng.integers(max(wlo, w_zp - 128), min(whi, w_zp + 127) + 1, wshape).astype(wdt)
    inits = [
        numpy_helper.from_array(np.array(x_zp, dt), "x_zp"),
        numpy_helper.from_array(wq, "w"),
        numpy_helper.from_array(np.array(w_zp, wdt), "w_zp"),
    ]
    g = helper.make_graph([node], "integer_case%d" % i,
                          [helper.make_tensor_value_info("x", act_t, list(xshape))],
                          [helper.make_tensor_value_info("y", TensorProto.INT32,
                                                         list(yshape))], inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, "case%d.onnx" % i))
    np.save(os.path.join(out, "case%d_x.npy" % i), rng.integers(lo, hi + 1, xshape).astype(dt))
    print("case%d %s, %s x_zp %d, %s w_zp %d" % (i, desc, "uint8" if u8 else "int8", x_zp,
                                                 "uint8" if w_u8 else "int8", w_zp))


def main():
    out, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    make = integer_case if sys.argv[4:] == ["integer"] else case
    rng = np.random.default_rng(seed)
    for i in range(count):
        make(rng, i, out)


if __name__ == "__main__":
    main()
