#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Models of ONNX's reductions behind a convolution (fixed seed) for
tests/onnx/reduce_npu.sh: each of the ten Reduce* operators over one axis,
several and all of a [1, C, H, W] map, with and without keepdims, in opset
13 (axes an attribute, ReduceSum's an input) and opset 18 (axes an input),
plus the models the importer must refuse.

usage: reduce_gen.py DIR   writes DIR/<name>/m.onnx, DIR/<name>/calib/*.npy,
DIR/<name>/x.npy and DIR/refuse/<name>.onnx
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SHAPE = [1, 8, 6, 5]
CASES = [  # op, axes (None: all), keepdims, opset
    ("ReduceMean", [1, 2], 1, 13),
    ("ReduceSum", [2, 3], 0, 13),
    ("ReduceMax", None, 1, 13),
    ("ReduceMin", [1, 3], 1, 18),
    ("ReduceProd", [1], 1, 13),
    ("ReduceSumSquare", [3], 0, 18),
    ("ReduceL1", [-1, -2], 1, 13),
    ("ReduceL2", [2, 3], 1, 18),
    ("ReduceLogSum", [1], 1, 13),
    ("ReduceLogSumExp", [0, 1], 0, 18),
]


def model(op, axes, keep, opset, rng, noop=False):
    inputs, inits, attrs = ["c"], [], {"keepdims": keep}
    if noop:
        attrs["noop_with_empty_axes"] = 1
    if axes is not None:
        if opset >= 18 or op == "ReduceSum":
            inits.append(numpy_helper.from_array(np.array(axes, np.int64), "axes"))
            inputs.append("axes")
        else:
            attrs["axes"] = axes
    # a convolution first: the reduction reads a computed map
    w = (rng.standard_normal((SHAPE[1], SHAPE[1], 1, 1)) * 0.4).astype(np.float32)
    b = (rng.standard_normal(SHAPE[1]) * 0.2 + (1.0 if op == "ReduceLogSum" else 0.0))
    inits += [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b.astype(np.float32), "b")]
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"])]
    if op == "ReduceLogSum":  # log of a sum of positive values
        nodes.append(helper.make_node("Sigmoid", ["c"], ["p"]))
        inputs[0] = "p"
    nodes.append(helper.make_node(op, inputs, ["y"], **attrs))
    g = helper.make_graph(nodes, op, [helper.make_tensor_value_info("x", TensorProto.FLOAT, SHAPE)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(20261127)
    for op, axes, keep, opset in CASES:
        d = os.path.join(out, op)
        os.makedirs(os.path.join(d, "calib"))
        onnx.save(model(op, axes, keep, opset, rng), os.path.join(d, "m.onnx"))
        for i in range(8):
            np.save(os.path.join(d, "calib", "%d.npy" % i),
                    rng.standard_normal(SHAPE).astype(np.float32))
        np.save(os.path.join(d, "x.npy"), rng.standard_normal(SHAPE).astype(np.float32))
    r = os.path.join(out, "refuse")
    os.makedirs(r)
    # no axes with noop_with_empty_axes: the identity; the batch axis alone
    onnx.save(model("ReduceSum", None, 1, 13, rng, noop=True), os.path.join(r, "noop.onnx"))
    onnx.save(model("ReduceL2", [0], 1, 13, rng), os.path.join(r, "batch.onnx"))


if __name__ == "__main__":
    main()
