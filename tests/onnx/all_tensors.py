#!/usr/bin/env python3
"""A copy of an ONNX model whose graph outputs are also every float32
tensor its nodes compute, so that onnxruntime (ort_run.js) writes each one:
the per-layer reference of `rkbare compare --ref-dir`.
Usage: all_tensors.py MODEL.onnx OUT.onnx [NAME=DxDx.. ...]
NAME=DxD..: the dimensions of a graph input with symbolic ones.
"""
import sys

import onnx
from onnx import TensorProto

m = onnx.load(sys.argv[1])
for spec in sys.argv[3:]:
    name, dims = spec.split("=")
    for i in m.graph.input:
        if i.name == name:
            for d, v in zip(i.type.tensor_type.shape.dim, dims.split("x")):
                d.ClearField("dim_param")
                d.dim_value = int(v)
m = onnx.shape_inference.infer_shapes(m)
have = {o.name for o in m.graph.output}
for v in m.graph.value_info:
    if v.type.tensor_type.elem_type == TensorProto.FLOAT and v.name not in have:
        m.graph.output.append(v)
onnx.save(m, sys.argv[2])
