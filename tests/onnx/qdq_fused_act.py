#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A QDQ model without the rounding a convolution fused with its table
activation would not do, for measuring what that fusion would give a
network (README "Real networks": PP-OCRv4 det).

usage: qdq_fused_act.py QDQ.onnx OUT.onnx

Every QuantizeLinear of a Conv's or ConvTranspose's output whose one
DequantizeLinear only a table activation reads (HardSigmoid, the Mul of
x · HardSigmoid(x), Sigmoid) goes with that DequantizeLinear: the
activation takes the float sum. In rkbare such a pre-activation is an int8
map today (the activation a lookup-table task of its own); a DPU that
looked the sum up before OUT_CVT would not round it. Run the result with
tests/onnx/ort_run.js (onnxruntime, unfused).
"""
import collections
import sys

import onnx

TABLE_READERS = {"HardSigmoid", "Mul", "Sigmoid"}


def main():
    src, out = sys.argv[1], sys.argv[2]
    m = onnx.load(src)
    g = m.graph
    producer = {o: n for n in g.node for o in n.output}
    readers = collections.defaultdict(list)
    for n in g.node:
        for i in n.input:
            readers[i].append(n)
    gone = set()
    for q in g.node:
        src_node = producer.get(q.input[0]) if q.op_type == "QuantizeLinear" else None
        if src_node is None or src_node.op_type not in ("Conv", "ConvTranspose"):
            continue
        dqs = [n for n in readers[q.output[0]] if n.op_type == "DequantizeLinear"]
        if len(dqs) != 1 or len(readers[q.output[0]]) != 1:
            continue
        users = readers[dqs[0].output[0]]
        if not users or any(u.op_type not in TABLE_READERS for u in users):
            continue
        for u in users:
            for k, i in enumerate(u.input):
                if i == dqs[0].output[0]:
                    u.input[k] = q.input[0]
        gone.update((id(q), id(dqs[0])))
    kept = [n for n in g.node if id(n) not in gone]
    del g.node[:]
    g.node.extend(kept)
    onnx.save(m, out)
    print("qdq_fused_act: %d pre-activation roundings removed" % (len(gone) // 2))


if __name__ == "__main__":
    main()
