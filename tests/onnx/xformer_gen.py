#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Float models of transformer pieces and of a fixed batch (fixed seeds),
for tests/onnx/xformer_npu.sh.

usage: xformer_gen.py DIR

Writes DIR/<model>/m.onnx, calib/*.npy (calibration inputs) and x/*.npy
(the inputs of the run), and DIR/bad/<model>.onnx with calibration inputs
in DIR/bad/<model>_calib, models the importer must refuse:
  ln_spelled  LayerNorm as exporters spell it on [1, T, C] tokens:
              ReduceMean / Sub / Pow 2 / ReduceMean / Add eps / Sqrt / Div,
              Mul gamma, Add beta; and with the square as Mul(d, d);
  ln_op       the LayerNormalization operator (opset 17) on [1, T, C] and
              on [1, 2, T, C], a MatMul + Relu on its tokens, and over
              several axes (from axis 1 of [1, T, C] and [1, 2, T, C], from
              axis 0 of a [T, C] matrix);
  attention   a multi-head self-attention block on [1, T, C] tokens: Linear
              q, k, v, heads split by Reshape / Transpose, MatMul of two
              computed operands (Q . K^T, softmax . V), Softmax on the last
              axis, heads merged, a Linear, a residual Add, and an MLP with
              GELU spelled with Erf (x . 0.5 . (1 + Erf(x / sqrt 2)));
  softmax     Softmax on each axis of a [1, C, H, W] map and of an [A, B, C]
              tensor;
  reduce      ReduceMean, ReduceSum, ReduceMax over each axis of a map;
  gather      Gather at constant indices: several along the rows, one along
              the columns (the axis dropped), a rank-5 split as attention's
              q, k, v ([1, T, 3, heads, D], Transpose, Gather), a
              one-element Gather and Squeeze, an Unsqueeze;
  batch2      a convolution network exported with a fixed batch of 2.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

T, C, HEADS = 12, 24, 4
D = C // HEADS
N_CALIB = 12


class G:
    """A graph under construction."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.n = [], [], 0

    def name(self, kind):
        self.n += 1
        return "%s_%d" % (kind, self.n)

    def const(self, v, kind="c"):
        n = self.name(kind)
        self.inits.append(numpy_helper.from_array(np.asarray(v), n))
        return n

    def op(self, t, ins, out=None, **attrs):
        o = out or self.name(t.lower())
        self.nodes.append(helper.make_node(t, ins, [o], name=self.name("n_" + t), **attrs))
        return o

    def linear(self, x, cin, cout):
        w = (self.rng.standard_normal((cin, cout)) / np.sqrt(cin)).astype(np.float32)
        b = self.rng.uniform(-0.1, 0.1, cout).astype(np.float32)
        return self.op("Add", [self.op("MatMul", [x, self.const(w, "w")]), self.const(b, "b")])

    def layernorm(self, x, c, square_by_mul=False, out=None):
        mean = self.op("ReduceMean", [x], axes=[-1])
        d = self.op("Sub", [x, mean])
        sq = self.op("Mul", [d, d]) if square_by_mul else \
            self.op("Pow", [d, self.const(np.float32(2))])
        var = self.op("ReduceMean", [sq], axes=[-1])
        std = self.op("Sqrt", [self.op("Add", [var, self.const(np.float32(1e-5))])])
        y = self.op("Div", [d, std])
        gamma = self.rng.uniform(0.5, 1.5, c).astype(np.float32)
        beta = self.rng.uniform(-0.2, 0.2, c).astype(np.float32)
        return self.op("Add", [self.op("Mul", [y, self.const(gamma, "gamma")]),
                               self.const(beta, "beta")], out)

    def gelu(self, x):
        e = self.op("Erf", [self.op("Div", [x, self.const(np.float32(np.sqrt(2.0)))])])
        p = self.op("Add", [e, self.const(np.float32(1.0))])
        return self.op("Mul", [self.op("Mul", [x, p]), self.const(np.float32(0.5))])

    def save(self, d, name, inputs, outputs, opset, data, bad=False):
        """inputs: {name: shape}; data: {name: sampler(rng) -> array}."""
        vi = lambda n, s: helper.make_tensor_value_info(n, TensorProto.FLOAT, s)
        g = helper.make_graph(self.nodes, name, [vi(n, s) for n, s in inputs.items()],
                              [helper.make_tensor_value_info(o, TensorProto.FLOAT, None)
                               for o in outputs], self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="rkbare xformer_gen.py")
        m.ir_version = 8
        m = onnx.shape_inference.infer_shapes(m)
        if not bad:
            onnx.checker.check_model(m, full_check=True)
        base = os.path.join(d, "bad") if bad else os.path.join(d, name)
        calib = os.path.join(base, name + "_calib") if bad else os.path.join(base, "calib")
        os.makedirs(calib, exist_ok=True)
        onnx.save(m, os.path.join(base, name + ".onnx") if bad else os.path.join(base, "m.onnx"))
        rng = np.random.default_rng(len(name))
        for k in range(N_CALIB):
            for n, s in inputs.items():
                sub = os.path.join(calib, n)
                os.makedirs(sub, exist_ok=True) if len(inputs) > 1 else None
                path = os.path.join(sub, "%d.npy" % k) if len(inputs) > 1 else \
                    os.path.join(calib, "%d.npy" % k)
                np.save(path, data[n](rng, s))
        if not bad:
            os.makedirs(os.path.join(base, "x"), exist_ok=True)
            for n, s in inputs.items():
                np.save(os.path.join(base, "x", n + ".npy"), data[n](rng, s))


def tokens(rng, s):
    """Token activations: a per-channel offset and spread, as after a stem."""
    off = rng.uniform(-1, 1, s[-1])
    return (rng.standard_normal(s) * rng.uniform(0.5, 2.0, s[-1]) + off).astype(np.float32)


def normal(rng, s):
    return rng.standard_normal(s).astype(np.float32)


def ln_spelled(d):
    g = G(1)
    a = g.layernorm("x", C, out="ln_pow")
    g.layernorm(g.op("Relu", [a]), C, square_by_mul=True, out="ln_mul")
    g.save(d, "ln_spelled", {"x": [1, T, C]}, ["ln_pow", "ln_mul"], 13, {"x": tokens})


def ln_op(d):
    g = G(2)
    for x, shape, out in (("x", [1, T, C], "ln3"), ("y", [1, 2, T, C], "ln4")):
        g.op("LayerNormalization", [x, g.const(g.rng.uniform(0.5, 1.5, C).astype(np.float32)),
                                    g.const(g.rng.uniform(-0.2, 0.2, C).astype(np.float32))],
             out, axis=-1, epsilon=1e-5)
    # a ReLU MLP on the normalised tokens (the activation after a CPU MatMul)
    g.op("Relu", [g.op("MatMul", ["ln3", g.const((g.rng.standard_normal((C, 2 * C)) /
                                                   np.sqrt(C)).astype(np.float32), "w")])],
         "mlp")
    # over more axes than the last: the tokens and features of [1, T, C]
    # (axis 1), the whole of [1, 2, T, C] past the batch (axis 1), and the
    # two axes of a [T, C] matrix (axis 0; Scale and B in its order)
    for x, axis, scale, out in (("x", 1, [T, C], "ln3_tc"), ("y", 1, [2, T, C], "ln4_all"),
                                ("z", 0, [T, C], "ln2_all")):
        g.op("LayerNormalization", [x, g.const(g.rng.uniform(0.5, 1.5, scale).astype(np.float32)),
                                    g.const(g.rng.uniform(-0.2, 0.2, scale).astype(np.float32))],
             out, axis=axis, epsilon=1e-5)
    g.save(d, "ln_op", {"x": [1, T, C], "y": [1, 2, T, C], "z": [T, C]},
           ["ln3", "ln4", "mlp", "ln3_tc", "ln4_all", "ln2_all"], 17,
           {"x": tokens, "y": tokens, "z": tokens})


def attention(d):
    g = G(3)

    def heads(t):	# [1, T, C] -> [1, heads, T, D]
        r = g.op("Reshape", [t, g.const(np.array([1, T, HEADS, D], np.int64))])
        return g.op("Transpose", [r], perm=[0, 2, 1, 3])

    h = g.layernorm("x", C)
    q = g.op("Mul", [heads(g.linear(h, C, C)), g.const(np.float32(D ** -0.5))])
    k = heads(g.linear(h, C, C))
    v = heads(g.linear(h, C, C))
    s = g.op("MatMul", [q, g.op("Transpose", [k], perm=[0, 1, 3, 2])], "scores")
    a = g.op("Softmax", [s], "attn", axis=-1)
    o = g.op("Transpose", [g.op("MatMul", [a, v], "context")], perm=[0, 2, 1, 3])
    o = g.linear(g.op("Reshape", [o, g.const(np.array([1, T, C], np.int64))]), C, C)
    x = g.op("Add", ["x", o], "resid")
    m = g.linear(g.gelu(g.linear(g.layernorm(x, C), C, 2 * C)), 2 * C, C)
    g.op("Add", [x, m], "y")
    g.save(d, "attention", {"x": [1, T, C]}, ["scores", "attn", "context", "y"], 13,
           {"x": tokens})


def softmax(d):
    g = G(4)
    outs = []
    for x, rank in (("x", 4), ("t", 3)):
        for axis in range(1 if rank == 4 else 0, rank):
            outs.append(g.op("Softmax", [x], "sm%d_%d" % (rank, axis), axis=axis))
    g.save(d, "softmax", {"x": [1, 10, 6, 7], "t": [3, 5, 9]}, outs, 13,
           {"x": normal, "t": normal})


def reduce(d):
    g = G(5)
    outs = []
    for axis in (1, 2, 3):
        outs.append(g.op("ReduceMean", ["x"], "mean%d" % axis, axes=[axis]))
        outs.append(g.op("ReduceMax", ["x"], "max%d" % axis, axes=[axis]))
        outs.append(g.op("ReduceSum", ["x", g.const(np.array([axis], np.int64))],
                         "sum%d" % axis))
    # without keepdims (PyTorch's default): the rank drops, a Reshape after
    # the reduction (onnx_fold.c)
    outs.append(g.op("ReduceMax", ["x"], "max_flat", axes=[3], keepdims=0))
    outs.append(g.op("ReduceMean", ["x"], "mean_flat", axes=[1], keepdims=0))
    g.save(d, "reduce", {"x": [1, 10, 6, 7]}, outs, 13, {"x": normal})


def gather(d):
    g = G(6)
    g.op("Gather", ["x", g.const(np.array([0, 3, 5], np.int64))], "rows", axis=2)
    g.op("Gather", ["x", g.const(np.int64(-2))], "col", axis=3)
    # attention's q, k, v: [1, T, 3C] -> [1, T, 3, heads, D] -> [3, 1, heads, T, D]
    t = g.op("Reshape", ["t", g.const(np.array([1, T, 3, HEADS, D], np.int64))])
    t = g.op("Transpose", [t], perm=[2, 0, 3, 1, 4])
    for i in range(3):
        g.op("Gather", [t, g.const(np.int64(i))], "qkv%d" % i, axis=0)
    # as Paddle writes it: a one-element Gather, then Squeeze; and an Unsqueeze
    k = g.op("Gather", [t, g.const(np.array([1], np.int64))], axis=0)
    g.op("Squeeze", [k, g.const(np.array([0], np.int64))], "k_squeezed")
    g.op("Unsqueeze", ["col", g.const(np.array([3], np.int64))], "col4")
    g.save(d, "gather", {"x": [1, 6, 8, 10], "t": [1, T, 3 * C]},
           ["rows", "col", "qkv0", "qkv1", "qkv2", "k_squeezed", "col4"], 13,
           {"x": normal, "t": normal})


def batch2(d):
    g = G(7)

    def conv(x, cin, cout, s):
        w = (g.rng.standard_normal((cout, cin, 3, 3)) * np.sqrt(2.0 / (cin * 9))).astype(
            np.float32)
        return g.op("Relu", [g.op("Conv", [x, g.const(w, "w"),
                                            g.const(g.rng.uniform(-0.1, 0.1, cout).astype(
                                                np.float32), "b")],
                                  kernel_shape=[3, 3], strides=[s, s], pads=[1, 1, 1, 1])])

    g.op("Conv", [conv(conv("x", 3, 16, 2), 16, 16, 1),
                  g.const((g.rng.standard_normal((8, 16, 1, 1)) * 0.3).astype(np.float32))],
         "y", kernel_shape=[1, 1])
    g.save(d, "batch2", {"x": [2, 3, 16, 16]}, ["y"], 13, {"x": normal})


def bad(d):
    # LayerNormalization whose Mean output is read
    g = G(10)
    g.nodes.append(helper.make_node("LayerNormalization", ["x", g.const(np.ones((C,), np.float32))],
                                    ["ln_y", "ln_mean"], name="n_ln_mean", axis=-1))
    g.save(d, "ln_mean", {"x": [1, T, C]}, ["ln_y", "ln_mean"], 17, {"x": tokens}, bad=True)
    # ReduceMean over the batch axis alone (the identity)
    g = G(11)
    g.op("ReduceMean", ["x"], "mean_batch", axes=[0])
    g.save(d, "reduce_batch", {"x": [1, 4, 5, 6]}, ["mean_batch"], 13, {"x": normal},
           bad=True)
    # MatMul of a rank-4 A by a rank-3 B
    g = G(13)
    g.op("MatMul", ["a", "b"], "mm_rank")
    g.save(d, "matmul_rank", {"a": [1, 2, 5, 6], "b": [2, 6, 3]}, ["mm_rank"], 13,
           {"a": normal, "b": normal}, bad=True)
    # a fixed batch of 2 baked into a Reshape: no one-image graph
    g = G(14)
    g.op("Reshape", [g.op("Relu", ["x"]), g.const(np.array([2, 4, 30], np.int64))], "baked")
    g.save(d, "batch_baked", {"x": [2, 4, 5, 6]}, ["baked"], 13, {"x": normal}, bad=True)
    # a fixed batch whose Softmax runs across the images
    g = G(16)
    g.op("Softmax", [g.op("Relu", ["x"])], "across", axis=0)
    g.save(d, "batch_softmax", {"x": [2, 4, 5, 6]}, ["across"], 13, {"x": normal}, bad=True)
    # two inputs of different fixed batches
    g = G(15)
    g.op("Relu", ["x"], "rx")
    g.op("Relu", ["y"], "ry")
    g.save(d, "batch_mixed", {"x": [2, 4, 5, 6], "y": [3, 4, 5, 6]}, ["rx", "ry"], 13,
           {"x": normal, "y": normal}, bad=True)
    # rank 5 [1, A, B, H, W]: A and B share the map's channels, so a
    # computed operand spanning one alone, or a Split along one, is refused
    g = G(17)
    g.op("Add", [g.op("Relu", ["x"]), g.op("Relu", ["y"])], "ab_apart")
    g.save(d, "rank5_apart", {"x": [1, 2, 3, 4, 5], "y": [1, 2, 1, 4, 5]}, ["ab_apart"], 13,
           {"x": normal, "y": normal}, bad=True)
    g = G(18)
    g.nodes.append(helper.make_node("Split", [g.op("Relu", ["x"])], ["half0", "half1"],
                                    name="n_split_a", axis=1))
    g.save(d, "rank5_split", {"x": [1, 2, 3, 4, 5]}, ["half0", "half1"], 13, {"x": normal},
           bad=True)


def main(d):
    for f in (ln_spelled, ln_op, attention, softmax, reduce, gather, batch2, bad):
        f(d)


if __name__ == "__main__":
    main(sys.argv[1])
