#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Small float graphs (fixed seed) holding each pattern tools/onnx/onnx_fold.c
rewrites, with an input for each and what the folded graph must hold.

Usage: fold_gen.py OUTDIR. Writes OUTDIR/<name>.onnx, OUTDIR/<name>.x.npy (the
input, named x) and OUTDIR/expect.json: per model, op type -> how many nodes of
that type the folded graph keeps, and whether onnxruntime can run the folded
graph as well (no HardSwish at an opset below 14, no Swish below 24)."""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1]
rng = np.random.default_rng(20261126)
expect = {}


def const(name, value, dtype=np.float32):
    return numpy_helper.from_array(np.asarray(value, dtype=dtype), name)


def rand(name, *shape, scale=0.4):
    return const(name, rng.standard_normal(shape) * scale)


def bn_params(prefix, c):
    return [const(prefix + "_scale", rng.uniform(0.5, 1.5, c)),
            const(prefix + "_b", rng.standard_normal(c) * 0.2),
            const(prefix + "_mean", rng.standard_normal(c) * 0.3),
            const(prefix + "_var", rng.uniform(0.2, 2.0, c))]


def bn(prefix, x, y, eps=1e-5):
    return helper.make_node("BatchNormalization", [x] + [prefix + s for s in
                            ("_scale", "_b", "_mean", "_var")], [y], epsilon=eps,
                            name=prefix)


def save(name, nodes, inits, in_shape, outputs, opset, keeps, ort_folded=True,
         x_shape=None, x_scale=1.0, ir_version=7):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, in_shape)
    outs = [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs]
    g = helper.make_graph(nodes, name, [x], outs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = ir_version
    onnx.save(m, os.path.join(OUT, name + ".onnx"))
    shape = x_shape or in_shape
    np.save(os.path.join(OUT, name + ".x.npy"),
            (rng.standard_normal(shape) * x_scale).astype(np.float32))
    expect[name] = {"keeps": keeps, "ort_folded": ort_folded}


def conv(name, x, y, w, b=None, **kw):
    return helper.make_node("Conv", [x, w] + ([b] if b else []), [y], name=name, **kw)


def mk(op, ins, outs, name, **kw):
    return helper.make_node(op, ins, outs if isinstance(outs, list) else [outs], name=name, **kw)


# Shape subgraphs feeding Reshape, a per-channel constant computed from a
# shape (Range, Cast, ConstantOfShape) added after a Conv, Slice / Div / Cast
# arithmetic on sizes.
nodes = [
    conv("c", "x", "c", "w1", "b1", pads=[1, 1, 1, 1]),
    conv("d", "x", "d", "w2", "b2", pads=[1, 1, 1, 1]),
    mk("Shape", ["c"], "s", "shape"),
    mk("Gather", ["s", "i0"], "n", "gather_n", axis=0),
    mk("Gather", ["s", "i1"], "ch", "gather_c", axis=0),
    mk("Gather", ["s", "i2"], "h", "gather_h", axis=0),
    mk("Gather", ["s", "i3"], "w", "gather_w", axis=0),
    mk("Mul", ["h", "w"], "hw", "hw"),
    mk("Unsqueeze", ["n", "ax0"], "n1", "unsq_n"),
    mk("Unsqueeze", ["ch", "ax0"], "c1", "unsq_c"),
    mk("Unsqueeze", ["hw", "ax0"], "hw1", "unsq_hw"),
    mk("Concat", ["n1", "minus1"], "shape_flat", "cat_flat", axis=0),
    mk("Reshape", ["c", "shape_flat"], "flat", "reshape_flat"),
    mk("Relu", ["flat"], "y1", "relu_flat"),
    # a per-channel ramp 0, 0.1, .. from the channel count
    mk("Range", ["zero", "ch", "one"], "ramp_i", "range"),
    mk("Cast", ["ramp_i"], "ramp_f", "cast_ramp", to=TensorProto.FLOAT),
    mk("Mul", ["ramp_f", "tenth"], "ramp", "scale_ramp"),
    # [1, C, 1, 1] with int64 ConstantOfShape ones ([1] and [1, 1])
    mk("ConstantOfShape", ["one1"], "lead", "ones1",
       value=numpy_helper.from_array(np.array([1], np.int64))),
    mk("ConstantOfShape", ["two1"], "trail", "ones2",
       value=numpy_helper.from_array(np.array([1], np.int64))),
    mk("Concat", ["lead", "c1", "trail"], "bshape", "cat_bshape", axis=0),
    # PyTorch's size idioms: Where(Equal(..)), Expand, Transpose
    mk("Equal", ["bshape", "ones4"], "is1", "equal"),
    mk("Where", ["is1", "ones4", "bshape"], "fixed", "where"),
    mk("Reshape", ["ramp", "row"], "ramp_row", "reshape_row"),
    mk("Transpose", ["ramp_row"], "ramp_col", "transpose", perm=[1, 0]),
    mk("Reshape", ["ramp_col", "col3"], "ramp3", "reshape_col"),
    mk("Expand", ["ramp3", "fixed"], "bias4", "expand"),
    mk("Add", ["d", "bias4"], "dd", "add_bias"),
    mk("Relu", ["dd"], "dr", "relu_d"),
    mk("Concat", ["n1", "c1", "hw1"], "shape3", "cat3", axis=0),
    mk("Reshape", ["dr", "shape3"], "y2", "reshape3"),
    # sizes / 2 through float and back: [3, 3] * 2
    mk("Slice", ["s", "st", "en"], "sz", "slice_hw"),
    mk("Cast", ["sz"], "szf", "cast_f", to=TensorProto.FLOAT),
    mk("Div", ["szf", "two"], "half", "half"),
    mk("Floor", ["half"], "halff", "floor"),
    mk("Cast", ["halff"], "halfi", "cast_i", to=TensorProto.INT64),
    mk("Mul", ["halfi", "two_i"], "sz2", "double"),
    mk("Concat", ["n1", "c1", "sz2"], "shape4", "cat4", axis=0),
    mk("Reshape", ["flat", "shape4"], "y3", "reshape4"),
]
inits = [rand("w1", 8, 4, 3, 3), rand("b1", 8), rand("w2", 8, 4, 3, 3), rand("b2", 8),
         const("i0", 0, np.int64), const("i1", 1, np.int64), const("i2", -2, np.int64),
         const("i3", 3, np.int64), const("ax0", [0], np.int64),
         const("minus1", [-1], np.int64), const("zero", 0, np.int64),
         const("one", 1, np.int64), const("tenth", 0.1), const("one1", [1], np.int64), const("two1", [2], np.int64),
         const("ones4", [1, 1, 1, 1], np.int64), const("row", [1, -1], np.int64),
         const("col3", [-1, 1, 1], np.int64),
         const("st", [2], np.int64), const("en", [4], np.int64), const("two", 2.0),
         const("two_i", 2, np.int64)]
save("shape_reshape", nodes, inits, [1, 4, 6, 6], ["y1", "y2", "y3"], 13,
     {op: 0 for op in ("Shape", "Gather", "Slice", "Cast", "Concat", "Unsqueeze", "Range",
                       "ConstantOfShape", "Floor", "Add", "Div", "Equal", "Where", "Expand",
                       "Transpose")} | {"Reshape": 3, "Conv": 2})

# PaddlePaddle's spelling (opset 11, symbolic N, H, W): Conv -> BN, Conv ->
# Mul(scalar, x) -> Add(x, scalar), hard-swish as Add 3 / Clip(0, 6) inputs /
# Mul / Div 6, the learnable Mul / Add after it, a Shape-computed flatten.
D = ["p2o.DynamicDimension.0", 3, "p2o.DynamicDimension.1", "p2o.DynamicDimension.2"]
nodes = [
    conv("conv0", "x", "c0", "w0", strides=[2, 2], pads=[1, 1, 1, 1]),
    bn("bn0", "c0", "b0"),
    conv("conv1", "b0", "c1", "w1", "cb1", pads=[1, 1, 1, 1], group=8),
    mk("Mul", ["k1", "c1"], "m1", "p2o.Mul.1"),
    mk("Add", ["m1", "k2"], "a1", "p2o.Add.3"),
    mk("Add", ["a1", "three"], "a3", "p2o.Add.5"),
    mk("Clip", ["a3", "zero", "six"], "cl", "p2o.Clip.1"),
    mk("Mul", ["a1", "cl"], "mm", "p2o.Mul.3"),
    mk("Div", ["mm", "six"], "hs", "hardswish"),
    mk("Mul", ["k3", "hs"], "m3", "p2o.Mul.5"),
    mk("Add", ["m3", "k4"], "a4", "p2o.Add.7"),
    conv("conv2", "a4", "c2", "w2", "cb2"),
    mk("Mul", ["k5", "c2"], "m5", "p2o.Mul.7"),
    mk("Add", ["m5", "k6"], "a5", "p2o.Add.9"),
    mk("Shape", ["a5"], "s", "p2o.Shape.0"),
    mk("Gather", ["s", "g0"], "n", "p2o.Gather.0", axis=0),
    mk("Slice", ["s", "st", "en", "ax"], "c", "p2o.Slice.0"),
    mk("Gather", ["s", "g2"], "h", "p2o.Gather.2", axis=0),
    mk("Gather", ["s", "g3"], "w", "p2o.Gather.3", axis=0),
    mk("Mul", ["h", "w"], "hw", "p2o.Mul.9"),
    mk("Unsqueeze", ["n"], "n1", "p2o.Unsqueeze.0", axes=[0]),
    mk("Unsqueeze", ["hw"], "hw1", "p2o.Unsqueeze.2", axes=[0]),
    mk("Concat", ["n1", "c", "hw1"], "shape", "p2o.Concat.0", axis=0),
    mk("Reshape", ["a5", "shape"], "y", "p2o.Reshape.0"),
]
inits = [rand("w0", 8, 3, 3, 3), *bn_params("bn0", 8), rand("w1", 8, 1, 3, 3, scale=0.6),
         rand("cb1", 8), const("k1", [0.9431]), const("k2", [0.5043]), const("three", 3.0),
         const("zero", 0.0), const("six", 6.0), const("k3", [0.4763]), const("k4", [-0.0076]),
         rand("w2", 6, 8, 1, 1), rand("cb2", 6), const("k5", [1.9006]), const("k6", [0.8012]),
         const("g0", 0, np.int64), const("g2", 2, np.int64), const("g3", -1, np.int64),
         const("st", [1], np.int64), const("en", [2], np.int64), const("ax", [0], np.int64)]
save("paddle_dyn", nodes, inits, D, ["y"], 11,
     {"BatchNormalization": 0, "Clip": 0, "Div": 0, "Shape": 0, "Gather": 0, "Slice": 0,
      "HardSwish": 1, "Mul": 1, "Add": 1, "Conv": 3, "Reshape": 1},
     ort_folded=False, x_shape=[1, 3, 10, 14], x_scale=2.0)

# LayerNorm spelled out as PaddlePaddle writes it (Pow, Sqrt; opset 11,
# symbolic N and T), its output's Shape giving a Reshape's: the shapes run
# through Pow and Sqrt (PP-OCRv4 rec's transformer blocks).
nodes = [
    mk("ReduceMean", ["x"], "mu", "p2o.ReduceMean.0", axes=[-1]),
    mk("Sub", ["x", "mu"], "d", "p2o.Sub.0"),
    mk("Pow", ["d", "two"], "d2", "p2o.Pow.0"),
    mk("ReduceMean", ["d2"], "var", "p2o.ReduceMean.2", axes=[-1]),
    mk("Add", ["var", "eps"], "ve", "p2o.Add.0"),
    mk("Sqrt", ["ve"], "sd", "p2o.Sqrt.0"),
    mk("Div", ["d", "sd"], "dn", "p2o.Div.0"),
    mk("Mul", ["dn", "gamma"], "dg", "p2o.Mul.0"),
    mk("Add", ["dg", "beta"], "ln", "p2o.Add.2"),
    mk("Shape", ["ln"], "s", "p2o.Shape.0"),
    mk("Slice", ["s", "st", "en", "ax"], "nt", "p2o.Slice.0"),
    mk("Concat", ["nt", "split"], "shape", "p2o.Concat.0", axis=0),
    mk("Reshape", ["ln", "shape"], "y", "p2o.Reshape.0"),
]
inits = [const("two", 2.0), const("eps", 1e-5), rand("gamma", 8), rand("beta", 8),
         const("st", [0], np.int64),
         const("en", [2], np.int64), const("ax", [0], np.int64),
         const("split", [2, 4], np.int64)]
save("layernorm_shape", nodes, inits, ["p2o.DynamicDimension.0", "p2o.DynamicDimension.1", 8],
     ["y"], 11, {"Shape": 0, "Slice": 0, "Concat": 0, "Pow": 0, "Sqrt": 0,
                 "LayerNormalization": 1, "Reshape": 1},
     ort_folded=False, x_shape=[1, 5, 8])

# BatchNormalization into Conv (no bias, grouped with bias), into Gemm (transB
# with C, and after Mul / Add per column); one whose Conv output has a second
# reader stays.
nodes = [
    conv("conv0", "x", "c0", "w0", pads=[1, 1, 1, 1]),
    bn("bn0", "c0", "b0", eps=1e-3),
    mk("Relu", ["b0"], "r0", "relu0"),
    conv("conv1", "r0", "c1", "w1", "cb1", group=2),
    bn("bn1", "c1", "y0"),
    conv("conv2", "r0", "c2", "w2", "cb2"),
    bn("bn2", "c2", "b2"),
    mk("Relu", ["c2"], "r2", "relu2"),
    mk("Add", ["b2", "r2"], "y1", "add2"),
    mk("GlobalAveragePool", ["r0"], "gp", "gap"),
    mk("Flatten", ["gp"], "fl", "flatten"),
    helper.make_node("Gemm", ["fl", "gw", "gc"], ["g0"], name="gemm0", transB=1,
                     alpha=0.7, beta=0.5),
    bn("bn3", "g0", "y2"),
    helper.make_node("Gemm", ["fl", "gw2"], ["g1"], name="gemm1"),
    mk("Mul", ["g1", "col"], "gm", "mul_col"),
    mk("Add", ["gm", "k"], "y3", "add_k"),
]
inits = [rand("w0", 8, 4, 3, 3), *bn_params("bn0", 8), rand("w1", 6, 4, 1, 1), rand("cb1", 6),
         *bn_params("bn1", 6), rand("w2", 4, 8, 1, 1), rand("cb2", 4), *bn_params("bn2", 4),
         rand("gw", 5, 8), rand("gc", 5), *bn_params("bn3", 5), rand("gw2", 8, 3),
         const("col", rng.uniform(0.5, 2, 3)), const("k", 0.25)]
save("bn", nodes, inits, [1, 4, 7, 7], ["y0", "y1", "y2", "y3"], 13,
     {"BatchNormalization": 1, "Mul": 0, "Add": 1, "Conv": 3, "Gemm": 2})

# ConvTranspose -> Add [1, C, 1, 1] -> BN (the DB head's upsampling), grouped:
# the float reference may not run ConvTranspose, so onnxruntime judges the
# folded graph against the original.
nodes = [
    helper.make_node("ConvTranspose", ["x", "tw"], ["t"], name="up", strides=[2, 2],
                     group=2),
    mk("Add", ["t", "tb"], "ta", "up_bias"),
    bn("bnt", "ta", "y"),
]
inits = [rand("tw", 4, 3, 2, 2), rand("tb", 1, 6, 1, 1), *bn_params("bnt", 6)]
save("convtranspose_bn", nodes, inits, [1, 4, 5, 5], ["y"], 13,
     {"BatchNormalization": 0, "Add": 0, "ConvTranspose": 1})

# Constant scales after a Conv: per channel [1, C, 1, 1] and [C, 1, 1], Sub,
# Div by a scalar; a [C] vector (numpy aligns it with W, not the channels),
# c - x, and weights shared by two Convs stay correct.
nodes = [
    conv("conv0", "x", "c0", "w0", "b0", pads=[1, 1, 1, 1]),
    mk("Mul", ["c0", "s4"], "m0", "mul_pc"),
    mk("Sub", ["m0", "s3"], "s0", "sub_pc"),
    mk("Div", ["s0", "k"], "y0", "div_k"),
    conv("conv1", "x", "c1", "w0", pads=[1, 1, 1, 1]),
    mk("Add", ["c1", "vec"], "y1", "add_vec_w"),
    conv("conv2", "x", "c2", "w0", "b0", pads=[1, 1, 1, 1]),
    mk("Sub", ["k", "c2"], "y2", "k_minus_x"),
    conv("conv3", "x", "c3", "w0", "b0", pads=[1, 1, 1, 1]),
    mk("Mul", ["c3", "k"], "y3", "mul_shared"),
]
inits = [rand("w0", 8, 4, 3, 3), rand("b0", 8), const("s4", rng.uniform(0.5, 2, (1, 8, 1, 1))),
         const("s3", rng.standard_normal((8, 1, 1))), const("k", 1.7),
         const("vec", rng.standard_normal(8))]
save("affine", nodes, inits, [1, 4, 8, 8], ["y0", "y1", "y2", "y3"], 13,
     {"Mul": 0, "Div": 0, "Sub": 1, "Add": 1, "Conv": 4})

# hard-swish spellings (opset 11: Clip bounds as inputs); the last one's
# Clip is also a graph output, so it stays spelled out.
def hs_head(i):
    return conv("conv%d" % i, "x", "x%d" % i, "w%d" % i, "b%d" % i, pads=[1, 1, 1, 1])


nodes = [hs_head(i) for i in range(1, 6)] + [
    mk("Add", ["x1", "three"], "a1", "add1"),
    mk("Clip", ["a1", "zero", "six"], "c1", "clip1"),
    mk("Mul", ["x1", "c1"], "m1", "mul1"),
    mk("Div", ["m1", "six"], "h1", "div1"),
    mk("Add", ["three", "x2"], "a2", "add2"),
    mk("Clip", ["a2", "zero", "six"], "c2", "clip2"),
    mk("Mul", ["c2", "x2"], "m2", "mul2"),
    mk("Mul", ["m2", "sixth"], "h2", "mul2b"),
    mk("HardSigmoid", ["x3"], "g3", "hsig3", alpha=1.0 / 6, beta=0.5),
    mk("Mul", ["g3", "x3"], "h3", "mul3"),
    mk("Add", ["x4", "three"], "a4", "add4"),
    mk("Clip", ["a4", "zero", "six"], "c4", "clip4"),
    mk("Div", ["c4", "six"], "d4", "div4"),
    mk("Mul", ["x4", "d4"], "h4", "mul4"),
    mk("Add", ["x5", "three"], "a5", "add5"),
    mk("Clip", ["a5", "zero", "six"], "c5", "clip5"),
    mk("Mul", ["x5", "c5"], "m5", "mul5"),
    mk("Div", ["m5", "six"], "h5", "div5"),
]
inits = [t for i in range(1, 6) for t in (rand("w%d" % i, 6, 3, 3, 3, scale=1.0),
                                            rand("b%d" % i, 6))]
inits += [const("three", 3.0), const("zero", 0.0), const("six", 6.0),
          const("sixth", np.float32(1.0) / np.float32(6.0))]
save("hardswish", nodes, inits, [1, 3, 6, 6], ["h1", "h2", "h3", "h4", "h5", "c5"], 11,
     {"HardSwish": 4, "Clip": 1, "HardSigmoid": 0, "Div": 1, "Mul": 1, "Add": 1},
     ort_folded=False, x_scale=2.0)

# Clip with min / max attributes (opset 10)
nodes = [conv("conv", "x", "x1", "w", "b", pads=[1, 1, 1, 1]),
         mk("Add", ["x1", "three"], "a", "add"),
         mk("Clip", ["a"], "c", "clip", min=0.0, max=6.0),
         mk("Mul", ["x1", "c"], "m", "mul"),
         mk("Div", ["m", "six"], "y", "div")]
inits = [rand("w", 6, 3, 3, 3, scale=1.0), rand("b", 6), const("three", 3.0), const("six", 6.0)]
save("hardswish_attr", nodes, inits, [1, 3, 6, 6], ["y"], 10,
     {"HardSwish": 1, "Clip": 0, "Div": 0, "Mul": 0, "Add": 0}, ort_folded=False, x_scale=2.0)

# SiLU, either operand order; a Sigmoid that is also an output stays.
nodes = [conv("conv%d" % i, "x", "x%d" % i, "w%d" % i, "b%d" % i, pads=[1, 1, 1, 1])
         for i in range(1, 4)] + [
    mk("Sigmoid", ["x1"], "s1", "sig1"), mk("Mul", ["x1", "s1"], "y1", "mul1"),
    mk("Sigmoid", ["x2"], "s2", "sig2"), mk("Mul", ["s2", "x2"], "y2", "mul2"),
    mk("Sigmoid", ["x3"], "s3", "sig3"), mk("Mul", ["x3", "s3"], "y3", "mul3"),
]
inits = [t for i in range(1, 4) for t in (rand("w%d" % i, 5, 3, 3, 3, scale=1.0),
                                            rand("b%d" % i, 5))]
save("silu", nodes, inits, [1, 3, 6, 6], ["y1", "y2", "y3", "s3"], 13,
     {"Swish": 2, "Sigmoid": 1, "Mul": 1}, ort_folded=False, x_scale=2.0)

# Identity and inference Dropout, one Identity writing the graph output.
nodes = [mk("Identity", ["x"], "xi", "id_in"),
         conv("conv", "xi", "c", "w", "b", pads=[1, 1, 1, 1]),
         mk("Dropout", ["c"], "cd", "drop"),
         mk("Relu", ["cd"], "r", "relu"),
         mk("Identity", ["r"], "y", "id_out")]
inits = [rand("w", 6, 3, 3, 3), rand("b", 6)]
save("identity", nodes, inits, [1, 3, 6, 6], ["y"], 13,
     {"Identity": 0, "Dropout": 0, "Conv": 1, "Relu": 1})

# HardSwish and Swish as nodes of their own (opset 24: Swish with alpha)
nodes = [conv("conv", "x", "c", "w", "b", pads=[1, 1, 1, 1]),
         mk("HardSwish", ["c"], "h", "hswish"),
         mk("Swish", ["h"], "y", "swish", alpha=0.5)]
inits = [rand("w", 6, 3, 3, 3, scale=1.0), rand("b", 6)]
save("native", nodes, inits, [1, 3, 6, 6], ["y"], 24, {"HardSwish": 1, "Swish": 1},
     ort_folded=False, x_scale=2.0, ir_version=10)

# Means and maxima over H and W as PyTorch writes them (x.mean((2, 3),
# keepdim=True) in squeeze-and-excitation, x.mean((-1, -2)) before a
# classifier, then x.view(x.size(0), -1)): global pools, a Flatten after the
# one without keepdims (whose 2-D shape the view's Shape reads); a mean over
# the channels stays.
nodes = [conv("conv", "x", "c", "w", "b", pads=[1, 1, 1, 1]),
         mk("ReduceMean", ["c"], "m", "se_mean", axes=[2, 3], keepdims=1),
         mk("Mul", ["c", "m"], "se", "se_mul"),
         mk("ReduceMax", ["se"], "mx", "se_max", axes=[-1, -2]),
         mk("Add", ["se", "mx"], "a", "add"),
         mk("ReduceMean", ["a"], "ch", "channel_mean", axes=[1], keepdims=1),
         mk("Add", ["a", "ch"], "a2", "add2"),
         mk("ReduceMean", ["a2"], "v", "head_mean", axes=[3, 2], keepdims=0),
         mk("Shape", ["v"], "vs", "view_shape"),
         mk("Gather", ["vs", "i0"], "vn", "view_n", axis=0),
         mk("Unsqueeze", ["vn", "ax0"], "vn1", "view_unsq"),
         mk("Concat", ["vn1", "m1"], "vsh", "view_cat", axis=0),
         mk("Reshape", ["v", "vsh"], "vf", "view"),
         mk("Gemm", ["vf", "fw", "fb"], "y", "fc", transB=1)]
inits = [rand("w", 6, 3, 3, 3, scale=1.0), rand("b", 6), rand("fw", 4, 6), rand("fb", 4),
         const("i0", 0, np.int64), const("ax0", [0], np.int64), const("m1", [-1], np.int64)]
save("spatial_reduce", nodes, inits, [1, 3, 6, 6], ["y"], 13,
     {"GlobalAveragePool": 2, "GlobalMaxPool": 1, "Flatten": 1, "ReduceMean": 1,
      "ReduceMax": 0, "Shape": 0, "Reshape": 0})

# Reductions of tokens without keepdims (PyTorch's default): the mean over
# the tokens before a classifier, a sum over the features; each becomes the
# reduction with keepdims and a Reshape to its output's shape.
nodes = [mk("MatMul", ["x", "wt"], "t", "tokens"),
         mk("ReduceMean", ["t"], "pooled", "token_mean", axes=[1], keepdims=0),
         mk("Gemm", ["pooled", "fw", "fb"], "y", "fc", transB=1),
         mk("ReduceSum", ["t", "last"], "y2", "feature_sum", keepdims=0)]
inits = [rand("wt", 8, 8), rand("fw", 4, 8), rand("fb", 4), const("last", [-1], np.int64)]
save("token_reduce", nodes, inits, [1, 5, 8], ["y", "y2"], 13,
     {"ReduceMean": 1, "ReduceSum": 1, "Reshape": 2})

# Squeeze-and-excitation written with expand_as (x * s.expand_as(x)): the
# Expand of the channel weights to the map's shape goes, Mul broadcasts.
nodes = [conv("conv", "x", "c", "w", "b", pads=[1, 1, 1, 1]),
         mk("GlobalAveragePool", ["c"], "p", "pool"),
         conv("fc", "p", "q", "w2", "b2"),
         mk("Sigmoid", ["q"], "s", "gate"),
         mk("Shape", ["c"], "cs", "shape"),
         mk("Expand", ["s", "cs"], "e", "expand_as"),
         mk("Mul", ["c", "e"], "y", "scale")]
inits = [rand("w", 6, 3, 3, 3, scale=1.0), rand("b", 6), rand("w2", 6, 6, 1, 1), rand("b2", 6)]
save("expand_se", nodes, inits, [1, 3, 6, 6], ["y"], 13,
     {"Expand": 0, "Shape": 0, "Mul": 1})

# Sum, Mean, Max and Min of several inputs (ONNX's variadic forms, with
# numpy broadcasting): chains of binary Adds, Maxes and Mins, Mean's a Mul
# by 1/k after its Adds.
nodes = [conv("conv", "x", "c", "w", "b", pads=[1, 1, 1, 1]),
         mk("Relu", ["c"], "r", "relu"),
         mk("Sum", ["c", "r", "k"], "s", "sum3"),
         mk("Mean", ["s", "c"], "m", "mean2"),
         mk("Max", ["m", "r", "c"], "mx", "max3"),
         mk("Min", ["mx", "c", "r", "s"], "y", "min4")]
inits = [rand("w", 6, 3, 3, 3, scale=1.0), rand("b", 6), rand("k", 1, 6, 1, 1)]
save("variadic", nodes, inits, [1, 3, 6, 6], ["s", "m", "mx", "y"], 13,
     {"Sum": 0, "Mean": 0, "Add": 3, "Mul": 1, "Max": 2, "Min": 3})

# InstanceNormalization (a style-transfer block): a LayerNormalization of
# H and W, then the scale and B per channel
nodes = [conv("conv", "x", "c", "w", "b", pads=[1, 1, 1, 1]),
         mk("InstanceNormalization", ["c", "s", "t"], "n", "inorm", epsilon=1e-3),
         mk("Relu", ["n"], "y", "relu")]
inits = [rand("w", 6, 3, 3, 3, scale=1.0), rand("b", 6), rand("s", 6), rand("t", 6)]
save("instancenorm", nodes, inits, [1, 3, 6, 6], ["y"], 13,
     {"InstanceNormalization": 0, "LayerNormalization": 1, "Mul": 1, "Add": 1})

# an Expand an element-wise op reads against a smaller operand: it stays
# (the importers copy the map out, a Gather table)
nodes = [conv("conv", "x", "c", "w", "b", pads=[1, 1, 1, 1]),
         mk("GlobalAveragePool", ["c"], "p", "pool"),
         mk("Shape", ["c"], "cs", "shape"),
         mk("Expand", ["p", "cs"], "e", "the_expand"),
         mk("Add", ["e", "p"], "y", "add")]
inits = [rand("w", 6, 3, 3, 3, scale=1.0), rand("b", 6)]
save("expand_kept", nodes, inits, [1, 3, 4, 8], ["y"], 13, {"Expand": 1, "Shape": 0})

json.dump(expect, open(os.path.join(OUT, "expect.json"), "w"), indent=1)

# Refusals: the message must name the node.
bad = {}


def save_bad(name, nodes, inits, in_shape, opset, message, x_shape):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, in_shape)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    g = helper.make_graph(nodes, name, [x], [y], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 7
    onnx.save(m, os.path.join(OUT, "bad_%s.onnx" % name))
    np.save(os.path.join(OUT, "bad_%s.x.npy" % name),
            rng.standard_normal(x_shape).astype(np.float32))
    bad[name] = message


# Shape of a map whose height is symbolic, compiled without a size
save_bad("symbolic", [mk("Relu", ["x"], "r", "relu"), mk("Shape", ["r"], "s", "the_shape"),
                      mk("Reshape", ["r", "s"], "y", "reshape")], [], [1, 3, "H", 8], 13,
         "node 'the_shape' (Shape): the shape of 'r' is not known at compile time: input 'x' "
         "has the symbolic dimension 2", [1, 3, 4, 8])
# Gather index outside the shape
save_bad("gather_range", [mk("Shape", ["x"], "s", "shape"),
                          mk("Gather", ["s", "i"], "g", "the_gather", axis=0),
                          mk("Unsqueeze", ["g", "ax"], "g1", "unsq"),
                          mk("Reshape", ["x", "g1"], "y", "reshape")],
         [const("i", [7], np.int64), const("ax", [0], np.int64)], [1, 3, 4, 8], 13,
         "node 'the_gather' (Gather): index 7 is outside 0..3 of axis 0", [1, 3, 4, 8])
# a shape computed from the input's values
save_bad("runtime_shape", [mk("ReduceMax", ["x"], "mx", "rmax", keepdims=0),
                           mk("Cast", ["mx"], "mi", "to_int", to=TensorProto.INT64),
                           mk("Unsqueeze", ["mi", "ax"], "m1", "unsq"),
                           mk("Concat", ["m1", "minus1"], "s", "cat", axis=0),
                           mk("Reshape", ["x", "s"], "y", "the_reshape")],
         [const("ax", [0], np.int64), const("minus1", [-1], np.int64)], [1, 3, 4, 8], 13,
         "node 'the_reshape' (Reshape): its shape input 's' is computed from values known only "
         "at run time (node 'cat' (Concat) does not fold to a constant)", [1, 3, 4, 8])
# a graph output folded to an int64 constant (the reference writes float32)
save_bad("int_output", [mk("Shape", ["x"], "y", "shape")], [], [1, 3, 4, 8], 13,
         "output 'y' is int64; the reference writes float32 outputs", [1, 3, 4, 8])

json.dump(bad, open(os.path.join(OUT, "bad.json"), "w"), indent=1)
