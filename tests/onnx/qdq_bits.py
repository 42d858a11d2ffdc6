#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A QDQ model's activations at more (or fewer) bits, for measuring what
8-bit activations cost a network (README "Real networks").

usage: qdq_bits.py QDQ.onnx OUT.onnx BITS

Every QuantizeLinear of a computed tensor (not of the graph input) and the
DequantizeLinear reading it keep their range, (-128 - zp) * scale to
(127 - zp) * scale, but split it into 2^BITS - 1 steps: int16 zero points
(opset 21), BITS from 2 to 16. Weights and the input stay as they are. Run
the result with tests/onnx/ort_run.js (onnxruntime, unfused).
"""
import sys

import numpy as np
import onnx
from onnx import numpy_helper

OPSET = 21	# int16 QuantizeLinear / DequantizeLinear


def main():
    src, out, bits = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if not 2 <= bits <= 16:
        sys.exit("qdq_bits.py: BITS %d: from 2 to 16" % bits)
    m = onnx.load(src)
    g = m.graph
    for o in m.opset_import:
        if o.domain in ("", "ai.onnx"):
            o.version = max(o.version, OPSET)
    consts = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    for n in g.node:
        if n.op_type == "Constant":
            consts[n.output[0]] = numpy_helper.to_array(n.attribute[0].t)
    inputs = {i.name for i in g.input}
    added = []
    changed = 0
    for q in g.node:
        if q.op_type != "QuantizeLinear" or q.input[0] in inputs or q.input[0] in consts:
            continue
        scale = consts[q.input[1]].astype(np.float64)
        zp = consts[q.input[2]].astype(np.float64) if len(q.input) > 2 else 0.0
        lo = (-128.0 - zp) * scale
        step = scale * 255.0 / (2 ** bits - 1)
        zq = np.clip(np.round(-2.0 ** (bits - 1) - lo / step), -2 ** 15, 2 ** 15 - 1)
        names = (q.output[0] + "_bits_scale", q.output[0] + "_bits_zp")
        added += [numpy_helper.from_array(np.asarray(step, np.float32), names[0]),
                  numpy_helper.from_array(np.asarray(zq, np.int16), names[1])]
        for n in g.node:
            if n is q or (n.op_type == "DequantizeLinear" and n.input[0] == q.output[0]):
                n.input[1], n.input[2] = names
        changed += 1
    g.initializer.extend(added)
    onnx.save(m, out)
    print("qdq_bits: %d activations at %d bits" % (changed, bits))


if __name__ == "__main__":
    main()
