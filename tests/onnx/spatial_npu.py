#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# The spatial ops end to end (tests/onnx/spatial_npu.sh): small float graphs
# (fixed seeds), one per op and mode, compiled by `rkbare compile` in int8
# (calibrated) and fp16, run by `rkbare infer`, and judged by onnxruntime:
# against the float model (fp32) every output's cosine >= 0.999 in fp16 and
# >= 0.98 in int8; where the op only moves int8 values (Resize nearest,
# DepthToSpace, Slice, Split, Pad, and Concat of equally quantised maps)
# the int8 output equals onnxruntime's run of the QDQ model we calibrated
# (DequantizeLinear -> op -> QuantizeLinear with the input's parameters:
# the exact rearrangement of the int8 input) bit for bit. Bad attributes are
# refused naming the node and the attribute.
# Usage: spatial_npu.py RKBARE TMPDIR [CASE ...]
#        spatial_npu.py --seeds DIR: write the fuzz seeds (tests/fuzz/seeds)
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

RKBARE, TMP = sys.argv[1], sys.argv[2]
ONLY = sys.argv[3:]
# one model of each op and form, for fuzz_onnx's corpus
SEEDS = ["resize_nearest_asymmetric_floor_x2", "resize_linear_half_pixel__x2",
         "resize_cubic_asymmetric_exclude_x3",
         "resize_sizes_nearest", "d2s_CRD", "s2d", "split_input_c", "slice_hw_steps",
         "pad_reflect", "concat4_in_place", "conv_group4", "conv_dilated", "conv1d",
         "deconv_k2s2", "deconv_k3s2p1_outpad", "conv_group8_cut", "split_in_place"]
rng = np.random.default_rng(20261126)


def const(name, a):
    return numpy_helper.from_array(np.asarray(a), name)


def ints(name, v):
    return const(name, np.array(v, np.int64))


def weights(name, *shape):
    fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
    return const(name, (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32))


def model(name, nodes, x_shape, outs, inits=(), opset=13):
    """A graph of input x; outs: [(name, shape)]."""
    g = helper.make_graph(nodes, name,
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
                          [helper.make_tensor_value_info(o, TensorProto.FLOAT, s)
                           for o, s in outs], list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


CASES = []


def case(name, nodes, x_shape, outs, inits=(), opset=13, exact=False, cpu_ops=None):
    """exact: the int8 result is the exact rearrangement of the int8 input.
    Calibration writes opset 13, in whose spelling it puts older ones
    (Split before 13, Resize and Pad before 11, Slice before 10).
    cpu_ops: the CPU ops the container must hold, (int8, fp16)."""
    CASES.append((name, model(name, nodes, x_shape, outs, list(inits), opset), x_shape, exact,
                  cpu_ops))


def N(op, ins, outs, **kw):
    return helper.make_node(op, ins, outs, name=op.lower() + "_" + outs[0], **kw)


ROI = const("roi", np.zeros(0, np.float32))


def scales(name, sh, sw):
    return const(name, np.array([1, 1, sh, sw], np.float32))


def sizes(name, c, h, w):
    return const(name, np.array([1, c, h, w], np.int64))


# ---- Resize ----
X = [1, 16, 5, 7]
for mode, coord, nearest, f in (("nearest", "asymmetric", "floor", 2),
                                ("nearest", "asymmetric", "floor", 4),
                                ("nearest", "asymmetric", "floor", 8),
                                ("nearest", "half_pixel", "round_prefer_floor", 2),
                                ("nearest", "half_pixel", "round_prefer_ceil", 3),
                                ("nearest", "align_corners", "round_prefer_floor", 2),
                                ("nearest", "pytorch_half_pixel", "ceil", 2),
                                ("nearest", "tf_half_pixel_for_nn", "floor", 2),
                                ("linear", "half_pixel", None, 2),
                                ("linear", "align_corners", None, 2),
                                ("linear", "pytorch_half_pixel", None, 4),
                                ("linear", "asymmetric", None, 3),
                                ("cubic", "half_pixel", None, 2),
                                ("cubic", "align_corners", None, 2),
                                ("cubic", "pytorch_half_pixel", None, 3),
                                ("cubic", "asymmetric", "exclude", 3)):
    kw = {"mode": mode, "coordinate_transformation_mode": coord}
    if nearest == "exclude":	# PyTorch's bicubic: a = -0.5, taps outside left out
        kw.update(cubic_coeff_a=-0.5, exclude_outside=1)
    elif nearest:
        kw["nearest_mode"] = nearest
    case("resize_%s_%s_%s_x%d" % (mode, coord, nearest or "", f),
         [N("Resize", ["x", "roi", "sc"], ["y"], **kw)], X,
         [("y", [1, 16, 5 * f, 7 * f])], [ROI, scales("sc", f, f)], exact=mode == "nearest")
# sizes (not a whole factor), opset 11 with roi, opset 10 (X, scales)
case("resize_sizes_nearest", [N("Resize", ["x", "roi", "", "sz"], ["y"], mode="nearest",
                                coordinate_transformation_mode="half_pixel")],
     X, [("y", [1, 16, 8, 11])], [ROI, sizes("sz", 16, 8, 11)], exact=True)
case("resize_sizes_linear_down", [N("Resize", ["x", "roi", "", "sz"], ["y"], mode="linear")],
     [1, 16, 8, 12], [("y", [1, 16, 4, 6])], [ROI, sizes("sz", 16, 4, 6)])
case("resize_sizes_cubic_down", [N("Resize", ["x", "roi", "", "sz"], ["y"], mode="cubic")],
     [1, 16, 8, 12], [("y", [1, 16, 5, 7])], [ROI, sizes("sz", 16, 5, 7)])
case("resize_opset11", [N("Resize", ["x", "roi", "sc"], ["y"], mode="nearest",
                          coordinate_transformation_mode="asymmetric", nearest_mode="floor")],
     X, [("y", [1, 16, 10, 14])], [const("roi", np.zeros(8, np.float32)), scales("sc", 2, 2)],
     opset=11, exact=True)
case("resize_opset10", [N("Resize", ["x", "sc"], ["y"], mode="nearest")],
     X, [("y", [1, 16, 10, 14])], [scales("sc", 2, 2)], opset=10, exact=True)
# PP-OCRv4 det's neck: conv, nearest x2 upsampling, add (here a conv after)
case("resize_after_conv", [N("Conv", ["x", "w1", "b1"], ["c"], kernel_shape=[3, 3],
                             pads=[1, 1, 1, 1]),
                           N("Resize", ["c", "roi", "sc"], ["u"], mode="nearest",
                             coordinate_transformation_mode="asymmetric", nearest_mode="floor"),
                           N("Conv", ["u", "w2", "b2"], ["y"], kernel_shape=[1, 1])],
     [1, 8, 6, 6], [("y", [1, 8, 12, 12])],
     [weights("w1", 24, 8, 3, 3), weights("b1", 24), ROI, scales("sc", 2, 2),
      weights("w2", 8, 24, 1, 1), weights("b2", 8)])

# ---- DepthToSpace, SpaceToDepth ----
for mode in ("DCR", "CRD"):
    case("d2s_" + mode, [N("DepthToSpace", ["x"], ["y"], blocksize=2, mode=mode)],
         [1, 32, 4, 5], [("y", [1, 8, 8, 10])], exact=True)
case("s2d", [N("SpaceToDepth", ["x"], ["y"], blocksize=2)], [1, 6, 8, 10],
     [("y", [1, 24, 4, 5])], exact=True)

# ---- Split ----
case("split_equal_c", [N("Split", ["x"], ["a", "b", "c"], axis=1)], [1, 48, 4, 5],
     [("a", [1, 16, 4, 5]), ("b", [1, 16, 4, 5]), ("c", [1, 16, 4, 5])], exact=True)
case("split_input_c", [N("Split", ["x", "sp"], ["a", "b", "c"], axis=1)], [1, 40, 4, 5],
     [("a", [1, 8, 4, 5]), ("b", [1, 24, 4, 5]), ("c", [1, 8, 4, 5])],
     [const("sp", np.array([8, 24, 8], np.int64))], exact=True)
case("split_attr_h", [N("Split", ["x"], ["a", "b"], axis=2, split=[2, 4])], [1, 8, 6, 5],
     [("a", [1, 8, 2, 5]), ("b", [1, 8, 4, 5])], opset=11, exact=True)
case("split_num_outputs_18", [N("Split", ["x"], ["a", "b", "c"], axis=2, num_outputs=3)],
     [1, 8, 10, 4], [("a", [1, 8, 4, 4]), ("b", [1, 8, 4, 4]), ("c", [1, 8, 2, 4])],
     opset=18, exact=True)
case("split_w_negative_axis", [N("Split", ["x"], ["a", "b"], axis=-1)], [1, 8, 3, 10],
     [("a", [1, 8, 3, 5]), ("b", [1, 8, 3, 5])], exact=True)
# YOLOv8's C2f: a conv, its output split in two, both halves used
case("split_c2f", [N("Conv", ["x", "w1", "b1"], ["c"], kernel_shape=[1, 1]),
                   N("Split", ["c"], ["s0", "s1"], axis=1),
                   N("Conv", ["s1", "w2", "b2"], ["d"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
                   N("Concat", ["s0", "s1", "d"], ["y"], axis=1)],
     [1, 16, 6, 6], [("y", [1, 48, 6, 6])],
     [weights("w1", 32, 16, 1, 1), weights("b1", 32), weights("w2", 16, 16, 3, 3),
      weights("b2", 16)])

# read where they lie: the halves of a convolution's output, each read by
# a convolution (int8 parts start on a 16-channel atom, fp16 on 8)
case("split_in_place", [N("Conv", ["x", "w1", "b1"], ["c"], kernel_shape=[1, 1]),
                        N("Split", ["c"], ["s0", "s1"], axis=1),
                        N("Conv", ["s0", "w2", "b2"], ["d0"], kernel_shape=[3, 3],
                          pads=[1, 1, 1, 1]),
                        N("Conv", ["s1", "w3", "b3"], ["d1"], kernel_shape=[1, 1]),
                        N("Add", ["d0", "d1"], ["y"])],
     [1, 8, 6, 6], [("y", [1, 8, 6, 6])],
     [weights("w1", 32, 8, 1, 1), weights("b1", 32), weights("w2", 8, 16, 3, 3),
      weights("b2", 8), weights("w3", 8, 16, 1, 1), weights("b3", 8)], cpu_ops=(0, 0))
# parts that are graph outputs are copied (an edge is never a view)
case("split_to_outputs", [N("Conv", ["x", "w1", "b1"], ["c"], kernel_shape=[1, 1]),
                          N("Split", ["c"], ["a", "b"], axis=1)],
     [1, 8, 4, 4], [("a", [1, 16, 4, 4]), ("b", [1, 16, 4, 4])],
     [weights("w1", 32, 8, 1, 1), weights("b1", 32)], cpu_ops=(2, 2))
case("slice_in_place", [N("Conv", ["x", "w1", "b1"], ["c"], kernel_shape=[1, 1]),
                        N("Slice", ["c", "st", "en", "ax"], ["s"]),
                        N("Conv", ["s", "w2", "b2"], ["y"], kernel_shape=[1, 1])],
     [1, 8, 5, 5], [("y", [1, 8, 5, 5])],
     [weights("w1", 48, 8, 1, 1), weights("b1", 48), ints("st", [16]), ints("en", [40]),
      ints("ax", [1]), weights("w2", 8, 24, 1, 1), weights("b2", 8)], cpu_ops=(0, 0))
# an fp16 part on an 8-channel atom is in place, an int8 one copied
case("slice_fp16_in_place", [N("Conv", ["x", "w1", "b1"], ["c"], kernel_shape=[1, 1]),
                             N("Slice", ["c", "st", "en", "ax"], ["s"]),
                             N("Conv", ["s", "w2", "b2"], ["y"], kernel_shape=[1, 1])],
     [1, 8, 5, 5], [("y", [1, 8, 5, 5])],
     [weights("w1", 32, 8, 1, 1), weights("b1", 32), ints("st", [8]), ints("en", [20]),
      ints("ax", [1]), weights("w2", 8, 12, 1, 1), weights("b2", 8)], cpu_ops=(1, 0))

# ---- Slice ----

case("slice_c", [N("Slice", ["x", "st", "en", "ax"], ["y"])], [1, 32, 4, 5],
     [("y", [1, 16, 4, 5])], [ints("st", [4]), ints("en", [20]), ints("ax", [1])], exact=True)
case("slice_hw_steps", [N("Slice", ["x", "st", "en", "ax", "sp"], ["y"])], [1, 8, 9, 10],
     [("y", [1, 8, 4, 4])],
     [ints("st", [1, -1]), ints("en", [9, -100]), ints("ax", [2, 3]), ints("sp", [2, -2])],
     exact=True)
case("slice_big_ends", [N("Slice", ["x", "st", "en"], ["y"])], [1, 8, 6, 7],
     [("y", [1, 8, 6, 4])],
     [ints("st", [0, 0, 0, 3]), ints("en", [1, 8, 2**62, 2**62])], exact=True)
case("slice_opset9", [N("Slice", ["x"], ["y"], starts=[2, 1], ends=[6, 4], axes=[1, 2])],
     [1, 8, 6, 5], [("y", [1, 4, 3, 5])], opset=9, exact=True)

# ---- Pad ----
for mode in ("constant", "reflect", "edge"):
    case("pad_" + mode, [N("Pad", ["x", "pd", "cv"] if mode == "constant" else ["x", "pd"],
                           ["y"], mode=mode)],
         [1, 8, 5, 6], [("y", [1, 8, 8, 9])],
         [ints("pd", [0, 0, 1, 2, 0, 0, 2, 1])] +
         ([const("cv", np.array(0.25, np.float32))] if mode == "constant" else []),
         exact=True)
case("pad_channels", [N("Pad", ["x", "pd"], ["y"])], [1, 8, 3, 4], [("y", [1, 13, 3, 4])],
     [ints("pd", [0, 2, 0, 0, 0, 3, 0, 0])], exact=True)
case("pad_opset2", [N("Pad", ["x"], ["y"], pads=[0, 0, 1, 1, 0, 0, 1, 1], mode="edge")],
     [1, 8, 3, 4], [("y", [1, 8, 5, 6])], opset=9, exact=True)

# ---- Concat of more than two maps ----
case("concat4", [N("Conv", ["x", "w%d" % i, "b%d" % i], ["c%d" % i], kernel_shape=[1, 1])
                 for i in range(4)] +
     [N("Concat", ["c0", "c1", "c2", "c3"], ["y"], axis=1)],
     [1, 8, 5, 5], [("y", [1, 64, 5, 5])],
     [t for i in range(4) for t in (weights("w%d" % i, 16, 8, 1, 1), weights("b%d" % i, 16))],
     exact=True)

# PP-OCRv4's neck: four maps concatenated along the channels and read by a
# convolution; whole kernel groups each (int8 32, fp16 16 channels), so
# their producers write them in place: no copy, no CPU op
case("concat4_in_place", [N("Conv", ["x", "w%d" % i, "b%d" % i], ["c%d" % i],
                            kernel_shape=[3, 3], pads=[1, 1, 1, 1]) for i in range(4)] +
     [N("Concat", ["c0", "c1", "c2", "c3"], ["cat"], axis=1),
      N("Conv", ["cat", "wh", "bh"], ["y"], kernel_shape=[1, 1])],
     [1, 8, 6, 6], [("y", [1, 8, 6, 6])],
     [t for i in range(4) for t in (weights("w%d" % i, 32, 8, 3, 3), weights("b%d" % i, 32))] +
     [weights("wh", 8, 128, 1, 1), weights("bh", 8)], cpu_ops=(0, 0))
# fp16 in place (16-channel parts), int8 copied (its convolutions write 32)
case("concat3_fp16_in_place", [N("Conv", ["x", "w%d" % i, "b%d" % i], ["c%d" % i],
                                 kernel_shape=[1, 1]) for i in range(3)] +
     [N("Concat", ["c0", "c1", "c2"], ["cat"], axis=1),
      N("Relu", ["cat"], ["r"]),
      N("Conv", ["r", "wh", "bh"], ["y"], kernel_shape=[1, 1])],
     [1, 8, 5, 7], [("y", [1, 8, 5, 7])],
     [t for i in range(3) for t in (weights("w%d" % i, 16, 8, 1, 1), weights("b%d" % i, 16))] +
     [weights("wh", 8, 48, 1, 1), weights("bh", 8)], cpu_ops=(2, 0))
# the last part may be any width; a part read elsewhere too is copied
case("concat_last_narrow", [N("Conv", ["x", "w0", "b0"], ["c0"], kernel_shape=[1, 1]),
                            N("Conv", ["x", "w1", "b1"], ["c1"], kernel_shape=[1, 1]),
                            N("Concat", ["c0", "c1"], ["cat"], axis=1),
                            N("Conv", ["cat", "wh", "bh"], ["y"], kernel_shape=[1, 1])],
     [1, 8, 4, 4], [("y", [1, 8, 4, 4])],
     [weights("w0", 32, 8, 1, 1), weights("b0", 32), weights("w1", 5, 8, 1, 1),
      weights("b1", 5), weights("wh", 8, 37, 1, 1), weights("bh", 8)], cpu_ops=(0, 0))
case("concat3_same", [N("Concat", ["x", "x", "x"], ["y"], axis=1)], [1, 8, 4, 5],
     [("y", [1, 24, 4, 5])], exact=True)

# ---- convolutions as exporters write them ----
case("conv_group4", [N("Conv", ["x", "w", "b"], ["y"], group=4, kernel_shape=[3, 3],
                       pads=[1, 1, 1, 1])],
     [1, 32, 6, 6], [("y", [1, 32, 6, 6])], [weights("w", 32, 8, 3, 3), weights("b", 32)])
case("conv_group2_wide", [N("Conv", ["x", "w", "b"], ["y"], group=2, kernel_shape=[1, 1])],
     [1, 16, 5, 5], [("y", [1, 48, 5, 5])], [weights("w", 48, 8, 1, 1), weights("b", 48)])
# cut in place: after a convolution (the input an op writes), 8 groups of
# 8 channels as 2 convolutions of 4 groups (int8: 32 channels in, 32 out),
# fp16 as 4 of 2 (16 out, the kernel group); the first convolution's input
# is the graph's, so it stays one
case("conv_group8_cut", [N("Conv", ["x", "w0", "b0"], ["c"], group=2, kernel_shape=[1, 1]),
                         N("Conv", ["c", "w", "b"], ["d"], group=8, kernel_shape=[3, 3],
                           pads=[1, 1, 1, 1]),
                         N("Relu", ["d"], ["r"]),
                         N("Conv", ["r", "w2", "b2"], ["y"], kernel_shape=[1, 1])],
     [1, 16, 6, 6], [("y", [1, 8, 6, 6])],
     [weights("w0", 64, 8, 1, 1), weights("b0", 64), weights("w", 64, 8, 3, 3),
      weights("b", 64), weights("w2", 8, 64, 1, 1), weights("b2", 8)])
case("conv_dw_multiplier", [N("Conv", ["x", "w", "b"], ["y"], group=8, kernel_shape=[3, 3],
                              pads=[1, 1, 1, 1])],
     [1, 8, 6, 6], [("y", [1, 16, 6, 6])], [weights("w", 16, 1, 3, 3), weights("b", 16)])
case("conv_dilated", [N("Conv", ["x", "w", "b"], ["y"], dilations=[2, 2], kernel_shape=[3, 3],
                        pads=[2, 2, 2, 2])],
     [1, 8, 9, 9], [("y", [1, 16, 9, 9])], [weights("w", 16, 8, 3, 3), weights("b", 16)])
case("conv_dw_dilated", [N("Conv", ["x", "w"], ["y"], group=16, dilations=[3, 2],
                           kernel_shape=[3, 3], pads=[3, 2, 3, 2])],
     [1, 16, 9, 9], [("y", [1, 16, 9, 9])], [weights("w", 16, 1, 3, 3)])

# Conv1d: [1, C, W] maps as C channels of one row; a Concat and a Slice
# along their axes in such a graph
case("conv1d", [N("Conv", ["x", "w1", "b1"], ["c1"], kernel_shape=[3], pads=[1, 1]),
                N("Relu", ["c1"], ["r1"]),
                N("Conv", ["r1", "w2", "b2"], ["y"], kernel_shape=[5], strides=[2],
                  dilations=[2], pads=[4, 3], group=4)],
     [1, 16, 20], [("y", [1, 32, 10])],
     [weights("w1", 32, 16, 3), weights("b1", 32), weights("w2", 32, 8, 5), weights("b2", 32)])
case("conv1d_concat_slice", [N("Conv", ["x", "w1", "b1"], ["c1"], kernel_shape=[1]),
                             N("Concat", ["c1", "x"], ["cat"], axis=1),
                             N("Slice", ["cat", "st", "en", "ax"], ["s"]),
                             N("Conv", ["s", "w2", "b2"], ["y"], kernel_shape=[3])],
     [1, 8, 12], [("y", [1, 8, 6])],
     [weights("w1", 8, 8, 1), weights("b1", 8), ints("st", [2]), ints("en", [10]),
      ints("ax", [2]), weights("w2", 8, 16, 3), weights("b2", 8)])

# ---- ConvTranspose ----
case("deconv_k2s2", [N("ConvTranspose", ["x", "w", "b"], ["y"], kernel_shape=[2, 2],
                       strides=[2, 2])],
     [1, 16, 5, 6], [("y", [1, 8, 10, 12])], [weights("w", 16, 8, 2, 2), weights("b", 8)])
case("deconv_k2s2_relu", [N("ConvTranspose", ["x", "w"], ["d"], kernel_shape=[2, 2],
                            strides=[2, 2]),
                          N("Relu", ["d"], ["y"])],
     [1, 16, 4, 4], [("y", [1, 4, 8, 8])], [weights("w", 16, 4, 2, 2)])
case("deconv_k3s2p1_outpad", [N("ConvTranspose", ["x", "w", "b"], ["y"], kernel_shape=[3, 3],
                                strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1])],
     [1, 8, 5, 4], [("y", [1, 8, 10, 8])], [weights("w", 8, 8, 3, 3), weights("b", 8)])
case("deconv_k4s2p1", [N("ConvTranspose", ["x", "w", "b"], ["y"], kernel_shape=[4, 4],
                         strides=[2, 2], pads=[1, 1, 1, 1])],
     [1, 8, 4, 5], [("y", [1, 16, 8, 10])], [weights("w", 8, 16, 4, 4), weights("b", 16)])
case("deconv_s1_dilated", [N("ConvTranspose", ["x", "w"], ["y"], kernel_shape=[3, 3],
                             dilations=[2, 2])],
     [1, 8, 4, 4], [("y", [1, 8, 8, 8])], [weights("w", 8, 8, 3, 3)])
# output_shape and auto_pad SAME_*: ONNX's total padding (here 1) split with
# the larger half at the start, or at the end for SAME_UPPER; an
# output_shape past the unpadded output as output padding
case("deconv_output_shape", [N("ConvTranspose", ["x", "w"], ["y"], kernel_shape=[3, 3],
                               strides=[2, 2], output_shape=[8, 8])],
     [1, 8, 4, 4], [("y", [1, 8, 8, 8])], [weights("w", 8, 8, 3, 3)])
case("deconv_output_shape_outpad", [N("ConvTranspose", ["x", "w"], ["y"], kernel_shape=[2, 2],
                                      strides=[3, 2], output_shape=[12, 9])],
     [1, 8, 4, 4], [("y", [1, 8, 12, 9])], [weights("w", 8, 8, 2, 2)])
case("deconv_same_upper", [N("ConvTranspose", ["x", "w"], ["y"], kernel_shape=[3, 3],
                             strides=[2, 2], auto_pad="SAME_UPPER")],
     [1, 8, 4, 4], [("y", [1, 8, 8, 8])], [weights("w", 8, 8, 3, 3)])
case("deconv_same_lower", [N("ConvTranspose", ["x", "w"], ["y"], kernel_shape=[3, 3],
                             strides=[2, 2], auto_pad="SAME_LOWER")],
     [1, 8, 4, 4], [("y", [1, 8, 8, 8])], [weights("w", 8, 8, 3, 3)])

# ---- refused: (name, model, what the message must name) ----
BAD = [
    ("resize_cubic_tf_nn", model("bad", [N("Resize", ["x", "roi", "sc"], ["y"], mode="cubic",
                                          coordinate_transformation_mode="tf_half_pixel_for_nn")],
                                 X, [("y", [1, 16, 10, 14])], [ROI, scales("sc", 2, 2)]),
     ["resize_y", "tf_half_pixel_for_nn", "with nearest"]),
    ("resize_crop", model("bad", [N("Resize", ["x", "roi", "sc"], ["y"], mode="linear",
                                    coordinate_transformation_mode="tf_crop_and_resize")],
                          X, [("y", [1, 16, 10, 14])], [ROI, scales("sc", 2, 2)]),
     ["resize_y", "tf_crop_and_resize", "half_pixel"]),
    ("resize_channels", model("bad", [N("Resize", ["x", "roi", "sc"], ["y"])],
                              X, [("y", [1, 32, 5, 7])], [ROI, const("sc", np.array(
                                  [1, 2, 1, 1], np.float32))]),
     ["resize_y", "scales for N and C"]),
    ("deconv_group", model("bad", [N("ConvTranspose", ["x", "w"], ["y"], group=2,
                                     kernel_shape=[2, 2], strides=[2, 2])],
                           [1, 8, 4, 4], [("y", [1, 8, 8, 8])], [weights("w", 8, 4, 2, 2)]),
     ["convtranspose_y", "group 2", "supported: 1"]),
    ("deconv_output_shape", model("bad", [N("ConvTranspose", ["x", "w"], ["y"],
                                            kernel_shape=[2, 2], strides=[2, 2],
                                            output_shape=[12, 8])],
                                  [1, 8, 4, 4], [("y", [1, 8, 12, 8])],
                                  [weights("w", 8, 8, 2, 2)]),
     ["convtranspose_y", "output size 12 along axis 0", "output padding below the stride"]),
    ("pad_wrap", model("bad", [N("Pad", ["x", "pd"], ["y"], mode="wrap")], [1, 8, 3, 4],
                       [("y", [1, 8, 5, 6])], [ints("pd", [0, 0, 1, 1, 0, 0, 1, 1])], opset=19),
     ["pad_y", "wrap", "constant, reflect, edge"]),
    ("split_uneven", model("bad", [N("Split", ["x"], ["a", "b"], axis=1)], [1, 7, 3, 4],
                           [("a", [1, 3, 3, 4]), ("b", [1, 4, 3, 4])]),
     ["split_a", "equal parts"]),
    ("d2s_mode", model("bad", [N("DepthToSpace", ["x"], ["y"], blocksize=2, mode="XYZ")],
                       [1, 8, 3, 4], [("y", [1, 2, 6, 8])]),
     ["depthtospace_y", "mode 'XYZ'", "DCR, CRD"]),
    ("resize_computed_scales", model("bad", [N("Relu", ["x"], ["r"]),
                                             N("Reshape", ["r", "shp"], ["sx"]),
                                             N("Resize", ["x", "roi", "sx"], ["y"])],
                                     [1, 1, 1, 4], [("y", [1, 1, 1, 4])],
                                     [ROI, ints("shp", [4])]),
     ["resize_y", "scales is not a constant"]),
    ("resize_antialias", model("bad", [N("Resize", ["x", "roi", "sc"], ["y"], mode="linear",
                                         antialias=1)],
                               X, [("y", [1, 16, 2, 3])], [ROI, scales("sc", 0.5, 0.5)],
                               opset=18),
     ["resize_y", "antialias 1", "supported: 0"]),
    ("deconv_auto_pad", model("bad", [N("ConvTranspose", ["x", "w"], ["y"], kernel_shape=[3, 3],
                                        strides=[2, 2], auto_pad="SAME")],
                              [1, 8, 4, 4], [("y", [1, 8, 8, 8])], [weights("w", 8, 8, 3, 3)]),
     ["convtranspose_y", "auto_pad 'SAME'", "NOTSET, VALID, SAME_UPPER, SAME_LOWER"]),
    ("pad_negative", model("bad", [N("Pad", ["x", "pd"], ["y"])], [1, 8, 4, 4],
                           [("y", [1, 8, 3, 4])], [ints("pd", [0, 0, -1, 0, 0, 0, 0, 0])]),
     ["pad_y", "negative pads"]),
    ("conv_dilated_too_wide", model("bad", [N("Conv", ["x", "w"], ["y"], dilations=[16, 1],
                                              kernel_shape=[3, 3])],
                                    [1, 8, 40, 8], [("y", [1, 8, 8, 6])],
                                    [weights("w", 8, 8, 3, 3)]),
     ["conv_y", "dilations 16,1", "at most 31x31"]),
]


if RKBARE == "--seeds":
    for name, m, _, _, _ in CASES:
        if name in SEEDS:
            onnx.save(m, os.path.join(TMP, "spatial_%s.onnx" % name))
    sys.exit(0)


def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def cosine(a, b):
    a, b = a.astype(np.float64).ravel(), b.astype(np.float64).ravel()
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-30))


bad = 0
for name, m, x_shape, exact, cpu_ops in CASES:
    if ONLY and name not in ONLY:
        continue
    d = os.path.join(TMP, name)
    os.makedirs(os.path.join(d, "calib"))
    onnx.save(m, os.path.join(d, "m.onnx"))
    for i in range(4):
        np.save(os.path.join(d, "calib", "%d.npy" % i),
                rng.standard_normal(x_shape).astype(np.float32))
    np.save(os.path.join(d, "x.npy"), rng.standard_normal(x_shape).astype(np.float32))
    outs = [o.name for o in m.graph.output]
    ref = run("node", "tests/onnx/ort_run.js", d + "/m.onnx", "--input", "x=%s/x.npy" % d,
              "--output-dir", d + "/fp32")
    if ref.returncode:
        print("spatial: %s: onnxruntime failed: %s" % (name, ref.stderr.strip()))
        bad += 1
        continue
    line = []
    for prec in ("int8", "fp16"):
        args = ["--calib", d + "/calib", "--save-qdq", d + "/q.onnx"] if prec == "int8" else \
            ["--precision", "fp16"]
        c = run(RKBARE, "compile", d + "/m.onnx", "-o", "%s/%s.rkb" % (d, prec), *args)
        r = c if c.returncode else run(RKBARE, "infer", "%s/%s.rkb" % (d, prec), "--input",
                                       "x=%s/x.npy" % d, "--output-dir", "%s/%s" % (d, prec))
        if r.returncode:
            print("spatial: %s %s: %s" % (name, prec, (r.stderr or r.stdout).strip()))
            bad += 1
            continue
        if cpu_ops is not None:
            info = run(RKBARE, "info", "%s/%s.rkb" % (d, prec)).stdout
            n_cpu = info.count(" on the CPU")
            want = cpu_ops[0 if prec == "int8" else 1]
            if n_cpu != want:
                line.append("%s: %d CPU ops, %d expected FAIL" % (prec, n_cpu, want))
                bad += 1
        gate = 0.98 if prec == "int8" else 0.999
        worst = min(cosine(np.load("%s/%s/%s.npy" % (d, prec, o)),
                           np.load("%s/fp32/%s.npy" % (d, o))) for o in outs)
        note = "%s cos %.5f" % (prec, worst)
        if worst < gate:
            note += " < %.3f FAIL" % gate
            bad += 1
        if prec == "int8" and exact:
            q = run("node", "tests/onnx/ort_run.js", d + "/q.onnx", "--input", "x=%s/x.npy" % d,
                    "--output-dir", d + "/qdq")
            same = not q.returncode and all(
                np.array_equal(np.load("%s/int8/%s.npy" % (d, o)),
                               np.load("%s/qdq/%s.npy" % (d, o))) for o in outs)
            note += ", = int8 rearrangement" if same else ", int8 NOT exact FAIL"
            bad += not same
        line.append(note)
    print("spatial: %-42s %s" % (name, "; ".join(line)))

for name, m, words in BAD:
    if ONLY and name not in ONLY:
        continue
    d = os.path.join(TMP, "bad_" + name)
    os.makedirs(d)
    onnx.save(m, d + "/m.onnx")
    np.save(d + "/c.npy", rng.standard_normal([int(v.dim_value) for v in
                                               m.graph.input[0].type.tensor_type.shape.dim])
            .astype(np.float32))
    os.makedirs(d + "/calib")
    os.rename(d + "/c.npy", d + "/calib/0.npy")
    for args in (["--calib", d + "/calib"], ["--precision", "fp16"]):
        c = run(RKBARE, "compile", d + "/m.onnx", "-o", d + "/m.rkb", *args)
        msg = (c.stderr + c.stdout).strip()
        if not c.returncode or any(w not in msg for w in words):
            print("spatial: bad %s (%s) not refused as expected: rc %d: %s"
                  % (name, args[0], c.returncode, msg))
            bad += 1
    if not ONLY or name in ONLY:
        print("spatial: refused %-26s %s" % (name, msg.splitlines()[-1][:110] if msg else ""))
print("spatial: %d case(s) failed" % bad if bad else
      "spatial: every case within its gate, int8 moves exact, bad input refused")
sys.exit(1 if bad else 0)
