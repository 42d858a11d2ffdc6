#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Float models of the activations and element-wise ops (fixed seeds), for
tests/onnx/ewise_npu.sh.

usage: ewise_gen.py DIR

Writes DIR/<model>/m.onnx, calib/*.npy (calibration inputs) and x/*.npy
(the inputs of the run) for four models, and DIR/bad/*.onnx (with
calibration inputs in DIR/bad/*_calib), models the importer must refuse:
  unary   every activation on a graph input, each its own output;
  binary  Add, Sub, Mul, Div, Max, Min on two maps of one shape, a map and
          a computed [1,C,1,1] vector (both orders), a scalar, a per-channel
          constant, a constant first, a [1,1,H,W] constant; PRelu with a
          per-channel and a single slope; a standalone BatchNormalization;
  net     the ops between convolutions: ReLU6 fused into a Conv, hard-swish,
          squeeze-and-excitation, BN, a residual add, LeakyRelu, constants,
          every intermediate a graph output so each op can be judged on
          its own quantised input;
  cpu     the built-in CPU ops (Sigmoid, Tanh, Concat, AveragePool without
          the padding, Softmax) on the maps of both precisions;
  chain   activations with a scale and a shift around them between
          convolutions, as PP-LCNetV3 writes them (one value, one per
          channel, a ReLU after): the intermediate tensors are no graph
          outputs, so each chain is one table (one rounding).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

C, H, W = 20, 5, 6	# two int8 channel groups (the second partial), three fp16 ones
N_CALIB = 8
OPSET = 24		# Swish (24), Gelu (20), HardSwish (14)
NET_HW = 16		# 256 cells a channel: the SE product takes the CPU's per-channel tables
WIDE_SPREAD = 20.0	# past the lookup table's [-16, 16)
LONG_W = 8200		# past the DPU cube's 8192


def save(d, name, nodes, inputs, outputs, inits, shapes, rng, positive=(), spread=None):
    os.makedirs(os.path.join(d, name, "calib"))
    os.makedirs(os.path.join(d, name, "x"))
    vi = lambda n, s: helper.make_tensor_value_info(n, TensorProto.FLOAT, s)
    g = helper.make_graph(nodes, name, [vi(n, shapes[n]) for n in inputs],
                          [vi(n, None) for n in outputs], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)])
    m.ir_version = 10
    onnx.save(m, os.path.join(d, name, "m.onnx"))

    def sample(n):
        if spread:
            return rng.uniform(-spread, spread, shapes[n]).astype(np.float32)
        v = rng.standard_normal(shapes[n]).astype(np.float32) * 2.0
        # divisors stay away from zero: 0.5 .. 2.5
        return (0.5 + np.abs(v)).astype(np.float32) if n in positive else v

    # one input: its batches in calib/; several: a subdirectory each
    for n in inputs:
        sub = os.path.join(d, name, "calib", n if len(inputs) > 1 else "")
        os.makedirs(sub, exist_ok=True)
        for i in range(N_CALIB):
            np.save(os.path.join(sub, "%d.npy" % i), sample(n))
    for n in inputs:
        np.save(os.path.join(d, name, "x", "%s.npy" % n), sample(n))


def const(name, a):
    return numpy_helper.from_array(np.asarray(a, dtype=np.float32), name)


def he_weights(rng):
    """A maker of He-initialised convolution weights drawn from rng."""
    def w(name, *shape):
        fan = np.prod(shape[1:])
        return const(name, rng.standard_normal(shape) * np.sqrt(2.0 / fan))
    return w


def unary(d, rng):
    ops = [
        ("Sigmoid", {}), ("Tanh", {}), ("LeakyRelu", {"alpha": 0.1}),
        ("HardSigmoid", {"alpha": 0.25, "beta": 0.4}), ("HardSwish", {}), ("Swish", {}),
        ("Elu", {"alpha": 0.7}), ("Selu", {}), ("Softplus", {}), ("Gelu", {}),
        ("Gelu", {"approximate": "tanh"}), ("Exp", {}), ("Abs", {}), ("Softsign", {}),
        ("Neg", {}),
    ]
    nodes, outs = [], []
    for i, (op, attrs) in enumerate(ops):
        o = "y_%s%d" % (op.lower(), i)
        nodes.append(helper.make_node(op, ["x"], [o], name="%s%d" % (op.lower(), i), **attrs))
        outs.append(o)
    nodes.append(helper.make_node("Clip", ["x", "lo6", "hi6"], ["y_relu6"], name="relu6"))
    nodes.append(helper.make_node("Clip", ["x", "lo", "hi"], ["y_clip"], name="clip"))
    # a Clip to [0, +inf) is a ReLU: on the NPU in both precisions
    nodes.append(helper.make_node("Clip", ["x", "lo6"], ["y_clip_relu"], name="clip_relu"))
    outs += ["y_relu6", "y_clip", "y_clip_relu"]
    inits = [const("lo6", 0.0), const("hi6", 6.0), const("lo", -1.0), const("hi", 2.5)]
    save(d, "unary", nodes, ["x"], outs, inits, {"x": [1, C, H, W]}, rng)


def wide(d, rng):
    """The activations fp16 runs on the DPU's lookup table (runtime/npu_fn.h)
    over inputs across both of its tables and past them: [-20, 20]."""
    ops = [
        ("Sigmoid", {}), ("Tanh", {}), ("HardSigmoid", {"alpha": 0.2, "beta": 0.5}),
        ("HardSwish", {}), ("Swish", {}), ("Gelu", {}), ("Gelu", {"approximate": "tanh"}),
    ]
    nodes, outs = [], []
    for i, (op, attrs) in enumerate(ops):
        o = "y_%s%d" % (op.lower(), i)
        nodes.append(helper.make_node(op, ["x"], [o], name="%s%d" % (op.lower(), i), **attrs))
        outs.append(o)
    save(d, "wide", nodes, ["x"], outs, [], {"x": [1, C, H, W]}, rng, spread=WIDE_SPREAD)


def long_map(d, rng):
    """A Sigmoid over a map wider than the DPU's cube (8192): a CPU op."""
    nodes = [helper.make_node("Sigmoid", ["x"], ["y_sigmoid"], name="sigmoid_long")]
    save(d, "long", nodes, ["x"], ["y_sigmoid"], [], {"x": [1, 2, 1, LONG_W]}, rng)


def binary(d, rng):
    kc = const("kc", rng.standard_normal((1, C, 1, 1)) + 0.1)	# per channel
    kp = const("kp", 0.5 + rng.random((1, C, 1, 1)) * 2.0)		# per channel, positive
    km = const("km", rng.standard_normal((1, 1, H, W)))		# a [1,1,H,W] plane
    slope = const("slope", rng.random((C, 1, 1)) * 0.5)
    inits = [kc, kp, km, slope, const("k", 0.7), const("k1", [0.2]),
             const("gamma", rng.random(C) + 0.5), const("beta", rng.standard_normal(C)),
             const("mean", rng.standard_normal(C) * 0.3), const("var", rng.random(C) + 0.2),
             const("k3", rng.standard_normal(W)), const("k2", rng.standard_normal(8) + 2.0),
             const("two", 2.0)]
    nodes, outs = [], []

    def node(op, ins, tag):
        o = "y_%s_%s" % (op.lower(), tag)
        nodes.append(helper.make_node(op, ins, [o], name="%s_%s" % (op.lower(), tag)))
        outs.append(o)

    for op in ("Add", "Sub", "Mul", "Div", "Max", "Min"):
        div = op == "Div"
        node(op, ["a", "p" if div else "b"], "maps")
        node(op, ["a", "q" if div else "s"], "se")
        node(op, ["k", "a"] if not div else ["a", "k"], "scalar")
        node(op, ["a", "kp" if div else "kc"], "channel")
        node(op, ["km", "a"] if not div else ["a", "km"], "plane")
    node("Sub", ["s", "a"], "se_first")
    node("Div", ["k", "p"], "scalar_first")
    node("Div", ["kp", "p"], "channel_first")
    node("Div", ["s", "p"], "se_maps")
    node("Reciprocal", ["p"], "map")
    node("Sqrt", ["p"], "map")
    node("Log", ["p"], "map")
    # Pow: a positive base to any exponent, a map squared, k to a map
    node("Pow", ["p", "b"], "maps")
    node("Pow", ["a", "two"], "square")
    node("Pow", ["k", "a"], "scalar_first")
    # a Relu after a broadcasting Add: not fused (the Add is a CPU op)
    nodes.append(helper.make_node("Add", ["a", "s"], ["t_add_se"], name="add_se_2"))
    nodes.append(helper.make_node("Relu", ["t_add_se"], ["y_add_se_relu"], name="relu_se"))
    outs.append("y_add_se_relu")
    node("PRelu", ["a", "slope"], "channel")
    node("PRelu", ["a", "k1"], "scalar")
    # maps of rank 3 ([A,B,C] as C x H x W) and 2 ([M,K]: M rows of K channels)
    # with constants of a lower rank: a row vector, one value per channel
    node("Mul", ["m3", "k3"], "rank3_row")
    node("Max", ["m3", "k3"], "rank3_row")
    node("Add", ["m2", "k2"], "rank2_channel")
    node("Div", ["k2", "m2p"], "rank2_first")
    nodes.append(helper.make_node("BatchNormalization", ["a", "gamma", "beta", "mean", "var"],
                                  ["y_bn"], name="bn", epsilon=1e-3))
    outs.append("y_bn")
    shapes = {"a": [1, C, H, W], "b": [1, C, H, W], "p": [1, C, H, W], "s": [1, C, 1, 1],
              "q": [1, C, 1, 1], "m3": [4, H, W], "m2": [H, 8],
              "m2p": [H, 8]}
    save(d, "binary", nodes, list(shapes), outs, inits, shapes, rng,
         positive=("p", "q", "m2p"))


def net(d, rng):
    w = he_weights(rng)
    c0, c = 16, 24
    mk = helper.make_node
    nodes = [
        mk("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", kernel_shape=[3, 3],
           pads=[1, 1, 1, 1]),
        mk("Clip", ["c1", "lo6", "hi6"], ["r1"], name="relu6"),
        mk("HardSwish", ["r1"], ["h1"], name="hswish"),
        mk("GlobalAveragePool", ["h1"], ["g"], name="gap"),
        mk("Conv", ["g", "w2", "b2"], ["c2"], name="se_conv", kernel_shape=[1, 1]),
        mk("HardSigmoid", ["c2"], ["s"], name="se_gate", alpha=1.0 / 6.0, beta=0.5),
        mk("Mul", ["h1", "s"], ["m"], name="se_mul"),
        mk("BatchNormalization", ["m", "gamma", "beta", "mean", "var"], ["bn"], name="bn"),
        mk("Conv", ["bn", "w3", "b3"], ["c3"], name="conv3", kernel_shape=[1, 1]),
        mk("Add", ["c3", "m"], ["a"], name="residual"),
        mk("LeakyRelu", ["a"], ["l"], name="leaky", alpha=0.2),
        mk("Sub", ["l", "kc"], ["e"], name="sub_channel"),
        mk("Div", ["e", "k"], ["dv"], name="div_scalar"),
        mk("Max", ["dv", "kmax"], ["mx"], name="max_scalar"),
        mk("Min", ["mx", "km"], ["mn"], name="min_plane"),
        mk("PRelu", ["mn", "slope"], ["pr"], name="prelu"),
        mk("Swish", ["pr"], ["sw"], name="swish"),
        mk("Conv", ["sw", "w4", "b4"], ["c4"], name="conv4", kernel_shape=[1, 1]),
        # a Clip to [0, +inf) after a convolution: fused as its ReLU
        mk("Clip", ["c4", "lo6"], ["y"], name="relu_clip"),
    ]
    inits = [w("w1", c, c0, 3, 3), const("b1", rng.standard_normal(c) * 0.1),
             w("w2", c, c, 1, 1), const("b2", rng.standard_normal(c) * 0.1),
             w("w3", c, c, 1, 1), const("b3", rng.standard_normal(c) * 0.1),
             w("w4", 8, c, 1, 1), const("b4", rng.standard_normal(8) * 0.1),
             const("lo6", 0.0), const("hi6", 6.0), const("k", 2.5), const("kmax", -0.3),
             const("kc", rng.standard_normal((1, c, 1, 1)) * 0.3),
             const("km", rng.standard_normal((1, 1, NET_HW, NET_HW)) + 1.0),
             const("slope", rng.random((c, 1, 1)) * 0.3),
             const("gamma", rng.random(c) + 0.5), const("beta", rng.standard_normal(c) * 0.2),
             const("mean", rng.standard_normal(c) * 0.2), const("var", rng.random(c) + 0.5)]
    # the ops' inputs and outputs are graph outputs (c1 stays fused with its ReLU6)
    outs = ["y", "r1", "h1", "c2", "s", "m", "bn", "c3", "a", "l", "e", "dv", "mx", "mn",
            "pr", "sw"]
    save(d, "net", nodes, ["x"], outs, inits, {"x": [1, c0, NET_HW, NET_HW]}, rng)


def cpu(d, rng):
    """The built-in CPU ops on the maps of both precisions: Sigmoid, Tanh, a
    Concat of two maps, an AveragePool that leaves the padding out of its
    divisor, a Softmax and a LogSoftmax over the channels."""
    mk = helper.make_node
    nodes = [
        mk("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", kernel_shape=[3, 3],
           pads=[1, 1, 1, 1]),
        mk("Sigmoid", ["c1"], ["s1"], name="sigmoid"),
        mk("Tanh", ["c1"], ["t1"], name="tanh"),
        mk("Concat", ["s1", "t1"], ["cat"], name="concat", axis=1),
        mk("AveragePool", ["cat"], ["ap"], name="avgpool", kernel_shape=[3, 3],
           pads=[1, 1, 1, 1]),
        mk("Softmax", ["ap"], ["y"], name="softmax", axis=1),
        mk("LogSoftmax", ["ap"], ["ls"], name="logsoftmax", axis=1),
    ]
    inits = [const("w1", rng.standard_normal((10, 8, 3, 3)) * 0.3),
             const("b1", rng.standard_normal(10) * 0.1)]
    save(d, "cpu", nodes, ["x"], ["y", "ls", "c1", "s1", "t1", "cat", "ap"], inits,
         {"x": [1, 8, 6, 7]}, rng)


def bad(d):
    os.makedirs(os.path.join(d, "bad"))
    vi = lambda n, s: helper.make_tensor_value_info(n, TensorProto.FLOAT, s)

    def model(name, nodes, inputs, inits=(), opset=OPSET):
        g = helper.make_graph(nodes, name, [vi(n, s) for n, s in inputs], [vi("y", None)],
                              list(inits))
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
        m.ir_version = 10
        onnx.save(m, os.path.join(d, "bad", name + ".onnx"))
        for n, shape in inputs:
            sub = os.path.join(d, "bad", name + "_calib", n if len(inputs) > 1 else "")
            os.makedirs(sub, exist_ok=True)
            np.save(os.path.join(sub, "0.npy"), np.ones(shape, np.float32))

    x = ("x", [1, C, H, W])
    model("gelu_mode", [helper.make_node("Gelu", ["x"], ["y"], name="gelu_bad",
                                         approximate="erf")], [x])
    model("lower_rank", [helper.make_node("Add", ["x", "r"], ["y"], name="add_rank2")],
          [x, ("r", [H, W])])
    model("bcast", [helper.make_node("Mul", ["x", "r"], ["y"], name="mul_bcast")],
          [x, ("r", [1, C, H - 1, 1])])
    # opset 6's broadcast from an axis: [C] along the channels, where numpy's
    # rule would align it with W
    model("legacy_axis", [helper.make_node("Add", ["x", "r"], ["y"], name="add_axis1",
                                           broadcast=1, axis=1)],
          [x], [const("r", np.ones(C))], opset=6)
    model("bn_training", [helper.make_node("BatchNormalization",
                                           ["x", "g", "b", "m", "v"], ["y"], name="bn_train",
                                           training_mode=1)], [x],
          [const(n, np.ones(C)) for n in ("g", "b", "m", "v")])


def chain(d, rng):
    w = he_weights(rng)
    c0, c = 16, 24
    mk = helper.make_node
    nodes = [
        mk("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", kernel_shape=[3, 3],
           pads=[1, 1, 1, 1]),
        mk("HardSwish", ["c1"], ["h1"], name="hswish"),
        mk("Mul", ["h1", "a1"], ["m1"], name="lab_scale"),
        mk("Add", ["m1", "s1"], ["t1"], name="lab_shift"),
        mk("Conv", ["t1", "w2", "b2"], ["c2"], name="conv2", kernel_shape=[1, 1]),
        mk("Mul", ["a2", "c2"], ["m2"], name="scale_first"),
        mk("Sigmoid", ["m2"], ["g2"], name="sigmoid"),
        mk("Mul", ["g2", "ac"], ["p2"], name="channel_scale"),
        mk("Sub", ["p2", "sc"], ["t2"], name="channel_shift"),
        mk("Conv", ["t2", "w3", "b3"], ["c3"], name="conv3", kernel_shape=[1, 1]),
        mk("Tanh", ["c3"], ["h3"], name="tanh"),
        mk("Div", ["h3", "k3"], ["d3"], name="div_scalar"),
        mk("Relu", ["d3"], ["t3"], name="relu_after"),
    ]
    inits = [w("w1", c, c0, 3, 3), const("b1", rng.standard_normal(c) * 0.1),
             w("w2", c, c, 1, 1), const("b2", rng.standard_normal(c) * 0.1),
             w("w3", c, c, 1, 1), const("b3", rng.standard_normal(c) * 0.1),
             const("a1", [0.8]), const("s1", [-0.3]), const("a2", 1.7),
             const("ac", rng.random((1, c, 1, 1)) + 0.5),
             const("sc", rng.standard_normal((c, 1, 1)) * 0.3), const("k3", 0.45)]
    # the convolutions' outputs and the chains' ends are graph outputs
    outs = ["t3", "c1", "t1", "c2", "t2", "c3"]
    save(d, "chain", nodes, ["x"], outs, inits, {"x": [1, c0, NET_HW, NET_HW]}, rng)


def main():
    d = sys.argv[1]
    rng = np.random.default_rng(20261126)
    unary(d, rng)
    binary(d, rng)
    net(d, rng)
    cpu(d, rng)
    chain(d, rng)
    wide(d, rng)
    long_map(d, rng)
    bad(d)


if __name__ == "__main__":
    main()
