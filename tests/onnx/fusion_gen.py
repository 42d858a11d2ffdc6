#!/usr/bin/env python3
"""Residual blocks for the conv + residual-add fusion (tests/onnx/fusion_npu.sh;
python3-onnx, He-initialised random weights, fixed seed):

  block A  y = Relu(Conv3x3(Relu(Conv3x3(x))) + x)         (identity shortcut)
  block B  z = Relu(Conv3x3(Relu(Conv3x3(y, s2))) + Conv1x1(y, s2))
           (projection shortcut: both Add inputs are convolutions)
  block C  out = Conv1x1(z) + z                             (no activation)

Usage: fusion_gen.py OUTDIR | pertensor QDQ OUT | exact OUTDIR
writes OUTDIR/m.onnx (float32), OUTDIR/calib/*.npy (int8 calibration) and
OUTDIR/x.npy (the test input), and with `pertensor QDQ OUT` rewrites a QDQ
model (`rkbare compile --save-qdq`, per-channel weights) with per-tensor
weight scales, as converters of per-tensor int8 models write them: each
per-axis weight's values requantised to the largest channel scale, its bias
to the input scale times that. `exact OUTDIR` writes one-block QDQ models
OUTDIR/e<i>.onnx (Conv of x, Add of the map r, an optional Relu / Clip(0, 6),
per-tensor int8 scales and zero points of their own) with inputs
OUTDIR/e<i>_x.npy, OUTDIR/e<i>_r.npy, for tests/onnx/fusion_check.py.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

C, H, W = 16, 20, 24
SEED = 20261126


def build(out):
    rng = np.random.default_rng(SEED)
    nodes, inits = [], []

    def conv(x, cin, cout, k, s, name):
        w = (rng.standard_normal((cout, cin, k, k)) * np.sqrt(2.0 / (cin * k * k)))
        b = rng.uniform(-0.1, 0.1, cout)
        inits.append(numpy_helper.from_array(w.astype(np.float32), name + "_w"))
        inits.append(numpy_helper.from_array(b.astype(np.float32), name + "_b"))
        nodes.append(helper.make_node("Conv", [x, name + "_w", name + "_b"], [name],
                                      kernel_shape=[k, k], strides=[s, s],
                                      pads=[k // 2] * 4, name=name))
        return name

    def op(kind, ins, name):
        nodes.append(helper.make_node(kind, ins, [name], name=name))
        return name

    a = op("Relu", [conv("x", C, C, 3, 1, "a1")], "a1r")
    y = op("Relu", [op("Add", [conv(a, C, C, 3, 1, "a2"), "x"], "a_add")], "y")
    b = op("Relu", [conv(y, C, 2 * C, 3, 2, "b1")], "b1r")
    z = op("Relu", [op("Add", [conv(b, 2 * C, 2 * C, 3, 1, "b2"),
                               conv(y, C, 2 * C, 1, 2, "bp")], "b_add")], "z")
    op("Add", [conv(z, 2 * C, 2 * C, 1, 1, "c1"), z], "out")
    g = helper.make_graph(nodes, "residual", [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, [1, C, H, W])], [helper.make_tensor_value_info(
            "out", TensorProto.FLOAT, [1, 2 * C, H // 2, W // 2])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)],
                          producer_name="rkbare fusion_gen.py")
    m.ir_version = 8
    onnx.checker.check_model(m, full_check=True)
    onnx.save(m, os.path.join(out, "m.onnx"))
    os.makedirs(os.path.join(out, "calib"), exist_ok=True)
    for i in range(4):
        np.save(os.path.join(out, "calib", "%d.npy" % i),
                rng.standard_normal((1, C, H, W)).astype(np.float32))
    np.save(os.path.join(out, "x.npy"), rng.standard_normal((1, C, H, W)).astype(np.float32))


def pertensor(src, dst):
    m = onnx.load(src)
    init = {t.name: t for t in m.graph.initializer}
    arr = {n: numpy_helper.to_array(t) for n, t in init.items()}
    dq = {n.output[0]: n for n in m.graph.node if n.op_type == "DequantizeLinear"}

    def set_init(name, value):
        init[name].CopyFrom(numpy_helper.from_array(value, name))
        arr[name] = value

    for conv in (n for n in m.graph.node if n.op_type == "Conv"):
        wdq, bdq, xdq = dq.get(conv.input[1]), dq.get(conv.input[2]) if len(conv.input) > 2 \
            else None, dq.get(conv.input[0])
        ws = arr[wdq.input[1]]
        if ws.size == 1:
            continue
        s = np.float32(ws.max())
        q = np.round(arr[wdq.input[0]].astype(np.float64) *
                     ws.reshape(-1, 1, 1, 1) / s).clip(-127, 127)
        set_init(wdq.input[0], q.astype(np.int8))
        set_init(wdq.input[1], s)
        zp = arr[wdq.input[2]] if len(wdq.input) > 2 else None
        if zp is not None:
            set_init(wdq.input[2], np.int8(0))
        for a in [a for a in wdq.attribute if a.name == "axis"]:
            wdq.attribute.remove(a)
        if bdq is not None:
            sx = np.float64(arr[xdq.input[1]])
            bs = arr[bdq.input[1]].astype(np.float64)
            bq = np.round(arr[bdq.input[0]].astype(np.float64) * bs / (sx * np.float64(s)))
            set_init(bdq.input[0], bq.astype(np.int32))
            set_init(bdq.input[1], np.float32(sx * np.float64(s)))
            if len(bdq.input) > 2:
                set_init(bdq.input[2], np.int32(0))
            for a in [a for a in bdq.attribute if a.name == "axis"]:
                bdq.attribute.remove(a)
    onnx.checker.check_model(m)
    onnx.save(m, dst)


# exact cases: (in C, out C, H, W, kernel, stride, activation, r scale / y scale)
# (the last one's input does not fit the CBUF: tasks of row bands)
EXACT = ((16, 16, 12, 10, 3, 1, "Relu", 0.8), (16, 32, 14, 18, 1, 2, None, 1.7),
         (32, 32, 9, 7, 3, 1, "Clip", 0.3), (64, 64, 72, 80, 3, 1, "Relu", 1.2))


def exact(out):
    rng = np.random.default_rng(SEED + 1)
    os.makedirs(out, exist_ok=True)
    for i, (cin, cout, h, w, k, s, act, rs) in enumerate(EXACT):
        ho, wo = (h + 2 * (k // 2) - k) // s + 1, (w + 2 * (k // 2) - k) // s + 1
        sx, sw, sy = np.float32(0.03), np.float32(0.004), np.float32(0.05)
        sr = np.float32(sy * rs)
        zx, zr, zy = np.int8(-7), np.int8(11), np.int8(-20 if act else 3)
        wq = rng.integers(-127, 128, (cout, cin, k, k)).astype(np.int8)
        bq = rng.integers(-3000, 3000, cout).astype(np.int32)
        inits = [numpy_helper.from_array(v, n) for n, v in (
            ("sx", sx), ("zx", zx), ("sr", sr), ("zr", zr), ("sy", sy), ("zy", zy),
            ("wq", wq), ("sw", sw), ("zw", np.int8(0)), ("bq", bq),
            ("sb", np.float32(sx * sw)), ("zb", np.int32(0)),
            ("sc", np.float32(0.07)), ("zc", np.int8(1)))]
        n = [helper.make_node("QuantizeLinear", ["x", "sx", "zx"], ["xq"]),
             helper.make_node("DequantizeLinear", ["xq", "sx", "zx"], ["xd"]),
             helper.make_node("QuantizeLinear", ["r", "sr", "zr"], ["rq"]),
             helper.make_node("DequantizeLinear", ["rq", "sr", "zr"], ["rd"]),
             helper.make_node("DequantizeLinear", ["wq", "sw", "zw"], ["wd"]),
             helper.make_node("DequantizeLinear", ["bq", "sb", "zb"], ["bd"]),
             helper.make_node("Conv", ["xd", "wd", "bd"], ["c"], kernel_shape=[k, k],
                              strides=[s, s], pads=[k // 2] * 4),
             # the conv's own output quantised, as exporters write it
             helper.make_node("QuantizeLinear", ["c", "sc", "zc"], ["cq"]),
             helper.make_node("DequantizeLinear", ["cq", "sc", "zc"], ["cd"]),
             helper.make_node("Add", ["cd", "rd"], ["a"])]
        y = "a"
        if act == "Relu":
            n.append(helper.make_node("Relu", ["a"], ["ar"]))
            y = "ar"
        elif act == "Clip":
            inits += [numpy_helper.from_array(np.float32(0), "lo"),
                      numpy_helper.from_array(np.float32(6), "hi")]
            n.append(helper.make_node("Clip", ["a", "lo", "hi"], ["ar"]))
            y = "ar"
        n += [helper.make_node("QuantizeLinear", [y, "sy", "zy"], ["yq"]),
              helper.make_node("DequantizeLinear", ["yq", "sy", "zy"], ["y"])]
        g = helper.make_graph(n, "e%d" % i, [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, cin, h, w]),
            helper.make_tensor_value_info("r", TensorProto.FLOAT, [1, cout, ho, wo])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, cout, ho, wo])], inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="rkbare fusion_gen.py")
        m.ir_version = 8
        onnx.checker.check_model(m, full_check=True)
        onnx.save(m, os.path.join(out, "e%d.onnx" % i))
        np.save(os.path.join(out, "e%d_x.npy" % i),
                (rng.standard_normal((1, cin, h, w)) * 1.5).astype(np.float32))
        np.save(os.path.join(out, "e%d_r.npy" % i),
                (rng.standard_normal((1, cout, ho, wo)) * 2.0).astype(np.float32))


if __name__ == "__main__":
    if sys.argv[1] == "pertensor":
        pertensor(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "exact":
        exact(sys.argv[2])
    else:
        build(sys.argv[1])
