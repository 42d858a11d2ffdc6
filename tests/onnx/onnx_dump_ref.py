#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Independent reading of ONNX models for tests/onnx/onnx_dump.sh.

Prints, with python3-onnx's own parser, what `rkbare onnx-dump` prints with
protobuf-c, in the same line format; or one line REFUSED when the model
uses something the C front end is specified to refuse (tools/onnx/
onnx_graph.h). Usage: onnx_dump_ref.py OUTDIR MODEL.onnx...; writes
OUTDIR/<n>.txt for the n-th model.
"""
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

DTYPES = {1: "float32", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32",
          7: "int64", 9: "bool", 10: "float16", 11: "float64"}
MAX_RANK = 8
A = onnx.AttributeProto


class Refused(Exception):
    pass


def fnv(data):
    h = 2166136261
    for b in data:
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return "%08x" % h


def dims_str(dims):
    return "[" + ",".join("?" if d is None or d < 0 else str(d) for d in dims) + "]"


def tensor_bytes(t):
    if t.data_type not in DTYPES or t.data_location == onnx.TensorProto.EXTERNAL:
        raise Refused()
    if len(t.dims) > MAX_RANK or any(d < 0 for d in t.dims):
        raise Refused()
    arr = numpy_helper.to_array(t)
    return arr.astype(arr.dtype.newbyteorder("<")).tobytes()


def const_line(name, t):
    return "const %s %s %s %s" % (name, DTYPES[t.data_type], dims_str(t.dims),
                                 fnv(tensor_bytes(t)))


def constant_node(n):
    if len(n.output) != 1 or len(n.attribute) != 1:
        raise Refused()
    a = n.attribute[0]
    name = n.output[0]
    if a.name == "value":
        return const_line(name, a.t)
    if a.name == "value_float":
        return "const %s float32 [] %s" % (name, fnv(np.float32(a.f).tobytes()))
    if a.name == "value_int":
        return "const %s int64 [] %s" % (name, fnv(np.int64(a.i).tobytes()))
    if a.name == "value_floats":
        return "const %s float32 [%d] %s" % (name, len(a.floats),
                                             fnv(np.array(a.floats, "<f4").tobytes()))
    if a.name == "value_ints":
        return "const %s int64 [%d] %s" % (name, len(a.ints),
                                           fnv(np.array(a.ints, "<i8").tobytes()))
    raise Refused()


def attr_str(a):
    if a.type == A.INT:
        return "%d" % a.i
    if a.type == A.FLOAT:
        return "%.9g" % a.f
    if a.type == A.STRING:
        return "'%s'" % a.s.decode("utf-8", "surrogateescape")
    if a.type == A.INTS:
        return "(" + ",".join("%d" % v for v in a.ints) + ")"
    if a.type == A.FLOATS:
        return "(" + ",".join("%.9g" % v for v in a.floats) + ")"
    if a.type == A.TENSOR:
        return "tensor:%s%s:%s" % (DTYPES.get(a.t.data_type, "?"), dims_str(a.t.dims),
                                   fnv(tensor_bytes(a.t)))
    raise Refused()


def value_info(vi):
    tt = vi.type.tensor_type if vi.type.HasField("tensor_type") else None
    dtype = DTYPES.get(tt.elem_type, "unsupported") if tt else "unsupported"
    if tt is None or not tt.HasField("shape") or len(tt.shape.dim) > MAX_RANK:
        return dtype, "[unknown]"
    return dtype, dims_str([d.dim_value if d.HasField("dim_value") else -1
                            for d in tt.shape.dim])


def dump(model):
    g = model.graph
    if len(g.sparse_initializer):
        raise Refused()
    opset = [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")]
    if not opset:
        raise Refused()
    lines = ["opset %d" % opset[-1]]
    inits = {t.name for t in g.initializer}
    for vi in g.input:
        if vi.name not in inits:
            lines.append("input %s %s %s" % ((vi.name,) + value_info(vi)))
    lines += [const_line(t.name, t) for t in g.initializer]
    node_lines = []
    for n in g.node:
        if n.domain in ("", "ai.onnx") and n.op_type == "Constant":
            lines.append(constant_node(n))
            continue
        dom = "" if n.domain in ("", "ai.onnx") else n.domain + "."
        s = "node %s%s in=%s out=%s" % (dom, n.op_type, ",".join(n.input), ",".join(n.output))
        for a in n.attribute:
            s += " %s=%s" % (a.name, attr_str(a))
        node_lines.append(s)
    lines += node_lines
    lines += ["output %s" % o.name for o in g.output]
    return "\n".join(lines) + "\n"


def main():
    outdir = sys.argv[1]
    for i, path in enumerate(sys.argv[2:]):
        try:
            text = dump(onnx.load(path))
        except Refused:
            text = "REFUSED\n"
        with open(os.path.join(outdir, "%d.txt" % i), "w", encoding="utf-8",
                  errors="surrogateescape") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
