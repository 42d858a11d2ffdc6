#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The benchmark layer of make bench: a 56x56x128 -> 128, 3x3, pad 1 uint8
QLinearConv (ResNet-style, 462 M MAC), per-channel int8 weights, fixed
seed; writes DIR/conv.onnx and DIR/x.npy."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

C, H, K = 128, 56, 3


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(20261124)
    w = rng.integers(-127, 128, (C, C, K, K)).astype(np.int8)
    ws = rng.uniform(0.002, 0.004, C).astype(np.float32)
    inits = [
        numpy_helper.from_array(np.array(0.02, np.float32), "x_scale"),
        numpy_helper.from_array(np.array(128, np.uint8), "x_zp"),
        numpy_helper.from_array(w, "w"),
        numpy_helper.from_array(ws, "w_scale"),
        numpy_helper.from_array(np.zeros(C, np.int8), "w_zp"),
        numpy_helper.from_array(np.array(2.0, np.float32), "y_scale"),
        numpy_helper.from_array(np.array(128, np.uint8), "y_zp"),
        numpy_helper.from_array(rng.integers(-2000, 2000, C).astype(np.int32), "b"),
    ]
    node = helper.make_node("QLinearConv", ["x", "x_scale", "x_zp", "w", "w_scale", "w_zp",
                                            "y_scale", "y_zp", "b"], ["y"], name="conv",
                            kernel_shape=[K, K], pads=[1, 1, 1, 1])
    g = helper.make_graph([node], "bench_conv",
                          [helper.make_tensor_value_info("x", TensorProto.UINT8, [1, C, H, H])],
                          [helper.make_tensor_value_info("y", TensorProto.UINT8, [1, C, H, H])],
                          inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.save(m, os.path.join(out, "conv.onnx"))
    np.save(os.path.join(out, "x.npy"), rng.integers(0, 256, (1, C, H, H)).astype(np.uint8))


if __name__ == "__main__":
    main()
