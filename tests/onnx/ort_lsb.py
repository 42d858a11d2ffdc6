#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""How far our output is from the judge's (onnxruntime unfused, ort_run.js),
in LSB of the output's scale.

usage: ort_lsb.py QDQ.onnx OURS.npy ORT.npy OUTPUT LABEL
QDQ.onnx is the quantised model onnxruntime ran; OUTPUT names the graph
output whose DequantizeLinear gives the scale. Prints "LABEL SHAPE: N LSB
from the judge"; exit status 1 beyond 1 LSB (or on another shape).
"""
import sys

import numpy as np
import onnx
from onnx import numpy_helper

TOLERANCE_LSB = 1.0


def main():
    qdq, ours, ort, output, label = sys.argv[1:6]
    q = onnx.load(qdq)
    inits = {i.name: numpy_helper.to_array(i) for i in q.graph.initializer}
    scale = [float(inits[n.input[1]]) for n in q.graph.node
             if n.op_type == "DequantizeLinear" and n.output[0] == output][0]
    a, b = np.load(ours), np.load(ort)
    lsb = float(np.abs(a - b).max()) / scale if a.shape == b.shape else float("inf")
    print("%s %s: %.2f LSB from the judge" % (label, "x".join(map(str, a.shape)), lsb))
    sys.exit(0 if lsb <= TOLERANCE_LSB + 1e-3 else 1)


if __name__ == "__main__":
    main()
