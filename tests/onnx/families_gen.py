#!/usr/bin/env python3
"""Architecture-faithful test graphs of the network families RK3588 users
deploy, written as their exporters write them (python3-onnx; He-initialised
random weights, fixed seeds; small inputs so the suite stays fast):

  mobilenet_v2  ReLU6 as Clip(0, 6), inverted residuals (1x1 expand,
                depthwise 3x3, linear 1x1 project, residual Add), GAP, Gemm
  mobilenet_v3  HardSwish (the op, and x * HardSigmoid(x) as older exports
                write it), squeeze-and-excitation (GAP, 1x1, Relu, 1x1,
                HardSigmoid, Mul by a [1, C, 1, 1] vector), GAP, Gemm
  resnet18      Conv without bias -> BatchNormalization (unfused) -> Relu,
                MaxPool stem, basic blocks with 1x1 stride-2 downsampling
  yolov8n       Conv + SiLU (x * Sigmoid(x)), C2f (Split, bottlenecks,
                Concat), SPPF (three 5x5 max pools), FPN/PAN neck with
                nearest Resize x2, the detect head (box and class branches,
                Reshape/Concat of the three levels, DFL: Reshape, Transpose,
                Softmax, 1x1 Conv with weights 0..15, Sigmoid on classes)
  yolov5s       YOLOv5 (v6+): Conv + SiLU, a 6x6 stride-2 stem, C3 (two
                1x1 branches, bottlenecks, Concat, 1x1), SPPF, PAN neck with
                nearest Resize x2, and the detect head as its export decodes
                it: per level a 1x1 Conv, Reshape to [1, anchors, outputs,
                H, W], Transpose to [1, anchors, H, W, outputs], Sigmoid,
                Split (2, 2, 1 + classes) on the last axis, xy * 2 + grid,
                times the stride, (wh * 2) ** 2 times the anchors, Concat,
                Reshape to [1, anchors * H * W, outputs], the levels
                concatenated
  ppocr_rec     a PP-OCR-rec-like (SVTR) block: conv stem, tokens by
                Reshape/Transpose, LayerNorm as ReduceMean/Sub/Pow/Sqrt/Div,
                multi-head attention (MatMul of two computed operands,
                Softmax on the last axis), Swish MLP, residual Adds, a
                classifier with Softmax on the last axis
  seg_head      a DeepLab-like head: stride-2 convs, dilated 3x3 convs
                (dilation 2 and 4), Concat, 1x1, bilinear Resize x8

Usage: families_gen.py [--bench] OUTDIR IMAGEDIR
writes OUTDIR/<family>.onnx, OUTDIR/<family>/calib/*.npy (four photographs
of scikit-image's samples, for int8 calibration) and OUTDIR/<family>/x.npy
(a fifth, the test input); each model has one input, x.
--bench writes, the same way, the networks `make bench` sets beside the
vendor's published times, at their real input sizes and full widths:
mobilenet_v2_224 (MobileNetV2 1.0, 224x224, 1000 classes), yolov8n_640
(YOLOv8n's channels, 80 classes, 640x640) and yolov5s_640 (YOLOv5s's
channels and C3 repeats, 80 classes, 640x640, its decoding head).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from PIL import Image

FAMILIES = ("mobilenet_v2", "mobilenet_v3", "resnet18", "yolov8n", "yolov5s", "ppocr_rec",
            "seg_head")


class Graph:
    """A graph under construction: nodes, initialisers, unique names."""

    def __init__(self, name, seed):
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.n = [], [], 0

    def uid(self, kind):
        self.n += 1
        return "%s_%d" % (kind, self.n)

    def const(self, value, kind="c"):
        name = self.uid(kind)
        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def op(self, op_type, inputs, outputs=1, **attrs):
        outs = [self.uid(op_type.lower()) for _ in range(outputs)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, name=self.uid("n_" + op_type),
                                           **attrs))
        return outs[0] if outputs == 1 else outs

    def he(self, shape, fan_in):
        """He initialisation: N(0, 2 / fan_in)."""
        return (self.rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)

    def bias(self, n):
        return self.rng.uniform(-0.1, 0.1, n).astype(np.float32)

    def conv(self, x, cin, cout, k=1, s=1, group=1, dilation=1, bias=True):
        w = self.const(self.he((cout, cin // group, k, k), cin // group * k * k), "w")
        ins = [x, w] + ([self.const(self.bias(cout), "b")] if bias else [])
        pad = dilation * (k - 1) // 2
        return self.op("Conv", ins, kernel_shape=[k, k], strides=[s, s], group=group,
                       pads=[pad] * 4, dilations=[dilation, dilation])

    def bn(self, x, c):
        r = self.rng
        return self.op("BatchNormalization", [
            x, self.const(r.uniform(0.5, 1.5, c).astype(np.float32), "gamma"),
            self.const((r.standard_normal(c) * 0.1).astype(np.float32), "beta"),
            self.const((r.standard_normal(c) * 0.1).astype(np.float32), "mean"),
            self.const(r.uniform(0.5, 1.5, c).astype(np.float32), "var")], epsilon=1e-5)

    def relu6(self, x):
        return self.op("Clip", [x, self.const(np.float32(0)), self.const(np.float32(6))])

    def silu(self, x):
        return self.op("Mul", [x, self.op("Sigmoid", [x])])

    def linear(self, x, cin, cout):
        """A Linear layer as PyTorch exports it on a [.., cin] tensor."""
        w = self.const(self.he((cin, cout), cin), "w")
        return self.op("Add", [self.op("MatMul", [x, w]), self.const(self.bias(cout), "b")])

    def classifier(self, x, cin, n):
        f = self.op("Flatten", [self.op("GlobalAveragePool", [x])], axis=1)
        return self.op("Gemm", [f, self.const(self.he((n, cin), cin), "w"),
                                self.const(self.bias(n), "b")], transB=1)

    def model(self, x_shape, out, opset):
        def make(outputs):
            g = helper.make_graph(self.nodes, self.name, [helper.make_tensor_value_info(
                "x", TensorProto.FLOAT, x_shape)], outputs, self.inits)
            m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)],
                                  producer_name="rkbare families_gen.py")
            m.ir_version = 8
            return m
        # the outputs' shapes as ONNX's shape inference gives them
        known = {v.name: v for v in onnx.shape_inference.infer_shapes(
            make([]), strict_mode=True).graph.value_info}
        m = make([known[o] for o in out])
        onnx.checker.check_model(m, full_check=True)
        return m


def mobilenet_v2(hw=64, full=False):
    g = Graph("mobilenet_v2", 2)
    c = 32 if full else 16
    x = g.relu6(g.conv("x", 3, c, 3, 2))
    # (expansion, out channels, repeats, first stride), MobileNetV2's table
    # (full), or at width 0.5 and without its last, widest stages
    table = ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
             (6, 160, 3, 2), (6, 320, 1, 1)) if full else \
        ((1, 8, 1, 1), (6, 12, 2, 2), (6, 16, 3, 2), (6, 32, 2, 2))
    for t, cout, n, s in table:
        for i in range(n):
            stride, hidden = s if i == 0 else 1, c * t
            y = x if t == 1 else g.relu6(g.conv(x, c, hidden))
            y = g.relu6(g.conv(y, hidden, hidden, 3, stride, group=hidden))
            y = g.conv(y, hidden, cout)
            x = g.op("Add", [x, y]) if stride == 1 and c == cout else y
            c = cout
    last, classes = (1280, 1000) if full else (128, 10)
    x = g.relu6(g.conv(x, c, last))
    return g.model([1, 3, hw, hw], [g.classifier(x, last, classes)], 13)


def mobilenet_v3():
    g = Graph("mobilenet_v3", 3)

    def hswish(x, op):
        # the op (opset 14), or x * HardSigmoid(x) as opset < 14 exports write it
        if op:
            return g.op("HardSwish", [x])
        return g.op("Mul", [x, g.op("HardSigmoid", [x], alpha=1.0 / 6, beta=0.5)])

    def se(x, c):
        r = max(8, c // 4)
        s = g.op("Relu", [g.conv(g.op("GlobalAveragePool", [x]), c, r)])
        s = g.op("HardSigmoid", [g.conv(s, r, c)], alpha=1.0 / 6, beta=0.5)
        return g.op("Mul", [x, s])

    x = hswish(g.conv("x", 3, 16, 3, 2), True)
    c = 16
    # (kernel, expanded, out, SE, hard-swish, stride): MobileNetV3-Small's rows
    rows = ((3, 16, 16, True, False, 2), (3, 72, 24, False, False, 2),
            (3, 88, 24, False, False, 1), (5, 96, 40, True, True, 2),
            (5, 120, 40, True, True, 1), (5, 144, 48, True, True, 1))
    for i, (k, e, cout, use_se, hs, s) in enumerate(rows):
        act = (lambda v: hswish(v, i % 2 == 0)) if hs else (lambda v: g.op("Relu", [v]))
        y = act(g.conv(x, c, e)) if e != c else x
        y = act(g.conv(y, e, e, k, s, group=e))
        if use_se:
            y = se(y, e)
        y = g.conv(y, e, cout)
        x = g.op("Add", [x, y]) if s == 1 and c == cout else y
        c = cout
    x = hswish(g.conv(x, c, 96), True)
    return g.model([1, 3, 64, 64], [g.classifier(x, 96, 10)], 14)


def resnet18():
    g = Graph("resnet18", 18)
    x = g.op("Relu", [g.bn(g.conv("x", 3, 16, 7, 2, bias=False), 16)])
    x = g.op("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    c = 16
    for cout, s in ((16, 1), (32, 2), (64, 2), (128, 2)):
        for i in range(2):
            stride = s if i == 0 else 1
            y = g.op("Relu", [g.bn(g.conv(x, c, cout, 3, stride, bias=False), cout)])
            y = g.bn(g.conv(y, cout, cout, 3, bias=False), cout)
            if stride != 1 or c != cout:
                x = g.bn(g.conv(x, c, cout, 1, stride, bias=False), cout)
            x = g.op("Relu", [g.op("Add", [x, y])])
            c = cout
    return g.model([1, 3, 64, 64], [g.classifier(x, 128, 10)], 13)


def yolov8n(hw=64, full=False):
    g = Graph("yolov8n", 8)
    # classes; DFL bins per box side; width: YOLOv8n's channels (full) or halved
    NC, REG, W = (80, 16, 2) if full else (8, 16, 1)

    def cv(x, cin, cout, k=1, s=1):
        return g.silu(g.conv(x, cin, cout, k, s))

    def c2f(x, cin, cout, n, shortcut):
        h = cout // 2
        y = g.op("Split", [cv(x, cin, 2 * h), g.const(np.array([h, h], np.int64))], 2, axis=1)
        parts = list(y)
        for _ in range(n):
            b = cv(cv(parts[-1], h, h, 3), h, h, 3)
            parts.append(g.op("Add", [parts[-1], b]) if shortcut else b)
        return cv(g.op("Concat", parts, axis=1), (2 + n) * h, cout)

    def sppf(x, c):
        h = c // 2
        y = [cv(x, c, h)]
        for _ in range(3):
            y.append(g.op("MaxPool", [y[-1]], kernel_shape=[5, 5], strides=[1, 1],
                          pads=[2, 2, 2, 2]))
        return cv(g.op("Concat", y, axis=1), 4 * h, c)

    def up(x):
        return g.op("Resize", [x, "", g.const(np.array([1, 1, 2, 2], np.float32))],
                    mode="nearest", coordinate_transformation_mode="asymmetric",
                    nearest_mode="floor")

    # backbone: channels of YOLOv8n (16, 32, 64, 128, 256), halved unless full
    x = cv(cv("x", 3, 8 * W, 3, 2), 8 * W, 16 * W, 3, 2)
    x = c2f(x, 16 * W, 16 * W, 1, True)
    p3 = c2f(cv(x, 16 * W, 32 * W, 3, 2), 32 * W, 32 * W, 2, True)
    p4 = c2f(cv(p3, 32 * W, 64 * W, 3, 2), 64 * W, 64 * W, 2, True)
    p5 = sppf(c2f(cv(p4, 64 * W, 128 * W, 3, 2), 128 * W, 128 * W, 1, True), 128 * W)
    # neck
    n4 = c2f(g.op("Concat", [up(p5), p4], axis=1), 192 * W, 64 * W, 1, False)
    n3 = c2f(g.op("Concat", [up(n4), p3], axis=1), 96 * W, 32 * W, 1, False)
    m4 = c2f(g.op("Concat", [cv(n3, 32 * W, 32 * W, 3, 2), n4], axis=1), 96 * W, 64 * W, 1,
             False)
    m5 = c2f(g.op("Concat", [cv(m4, 64 * W, 64 * W, 3, 2), p5], axis=1), 192 * W, 128 * W, 1,
             False)
    # detect head (YOLOv8's branch widths: box max(16, c0 / 4, 4 REG), class
    # max(c0, NC); 16 and 16 in the halved graph)
    cb, cc = (max(16, 32 * W // 4, 4 * REG), max(32 * W, NC)) if full else (16, 16)
    levels = []
    for f, c in ((n3, 32 * W), (m4, 64 * W), (m5, 128 * W)):
        box = g.conv(cv(cv(f, c, cb, 3), cb, cb, 3), cb, 4 * REG)
        cls = g.conv(cv(cv(f, c, cc, 3), cc, cc, 3), cc, NC)
        y = g.op("Concat", [box, cls], axis=1)
        levels.append(g.op("Reshape", [y, g.const(np.array([1, 4 * REG + NC, -1], np.int64))]))
    y = g.op("Concat", levels, axis=2)
    box, cls = g.op("Split", [y, g.const(np.array([4 * REG, NC], np.int64))], 2, axis=1)
    b = g.op("Reshape", [box, g.const(np.array([1, 4, REG, -1], np.int64))])
    b = g.op("Softmax", [g.op("Transpose", [b], perm=[0, 2, 1, 3])], axis=1)
    dfl = g.const(np.arange(REG, dtype=np.float32).reshape(1, REG, 1, 1), "dfl")
    b = g.op("Reshape", [g.op("Conv", [b, dfl], kernel_shape=[1, 1]),
                         g.const(np.array([1, 4, -1], np.int64))])
    out = g.op("Concat", [b, g.op("Sigmoid", [cls])], axis=1)
    return g.model([1, 3, hw, hw], [out], 13)


def yolov5s(hw=64, full=False):
    g = Graph("yolov5s", 9)
    # classes; width: YOLOv5s's channels (32 .. 512) or a quarter; C3 repeats
    # of the backbone (YOLOv5s's 1, 2, 3, 1, or one each)
    NC, W, REPEATS = (80, 32, (1, 2, 3, 1)) if full else (8, 8, (1, 1, 1, 1))
    NA = 3
    NO = 5 + NC
    # YOLOv5's anchors (pixels) for strides 8, 16, 32
    ANCHORS = ((10, 13, 16, 30, 33, 23), (30, 61, 62, 45, 59, 119),
               (116, 90, 156, 198, 373, 326))

    def cv(x, cin, cout, k=1, s=1):
        return g.silu(g.conv(x, cin, cout, k, s))

    def c3(x, cin, cout, n=1, shortcut=True):
        h = cout // 2
        m = cv(x, cin, h)
        for _ in range(n):
            b = cv(cv(m, h, h), h, h, 3)
            m = g.op("Add", [m, b]) if shortcut else b
        return cv(g.op("Concat", [m, cv(x, cin, h)], axis=1), 2 * h, cout)

    def up(x):
        return g.op("Resize", [x, "", g.const(np.array([1, 1, 2, 2], np.float32))],
                    mode="nearest", coordinate_transformation_mode="asymmetric",
                    nearest_mode="floor")

    # the stem: a 6x6 stride-2 convolution padded by 2
    w = g.const(g.he((W, 3, 6, 6), 3 * 36), "w")
    x = g.silu(g.op("Conv", ["x", w, g.const(g.bias(W), "b")], kernel_shape=[6, 6],
                    strides=[2, 2], pads=[2, 2, 2, 2]))
    x = c3(cv(x, W, 2 * W, 3, 2), 2 * W, 2 * W, REPEATS[0])
    p3 = c3(cv(x, 2 * W, 4 * W, 3, 2), 4 * W, 4 * W, REPEATS[1])
    p4 = c3(cv(p3, 4 * W, 8 * W, 3, 2), 8 * W, 8 * W, REPEATS[2])
    x = c3(cv(p4, 8 * W, 16 * W, 3, 2), 16 * W, 16 * W, REPEATS[3])
    h = cv(x, 16 * W, 8 * W)
    y = [h]
    for _ in range(3):
        y.append(g.op("MaxPool", [y[-1]], kernel_shape=[5, 5], strides=[1, 1],
                      pads=[2, 2, 2, 2]))
    p5 = cv(g.op("Concat", y, axis=1), 32 * W, 16 * W)
    # PAN neck
    h5 = cv(p5, 16 * W, 8 * W)
    n4 = c3(g.op("Concat", [up(h5), p4], axis=1), 16 * W, 8 * W, 1, False)
    h4 = cv(n4, 8 * W, 4 * W)
    o3 = c3(g.op("Concat", [up(h4), p3], axis=1), 8 * W, 4 * W, 1, False)
    o4 = c3(g.op("Concat", [cv(o3, 4 * W, 4 * W, 3, 2), h4], axis=1), 8 * W, 8 * W, 1, False)
    o5 = c3(g.op("Concat", [cv(o4, 8 * W, 8 * W, 3, 2), h5], axis=1), 16 * W, 16 * W, 1,
            False)
    # detect head
    outs = []
    for (f, c), stride, anchors in zip(((o3, 4 * W), (o4, 8 * W), (o5, 16 * W)), (8, 16, 32),
                                       ANCHORS):
        ny = nx = hw // stride
        y = g.op("Reshape", [g.conv(f, c, NA * NO), g.const(np.array([1, NA, NO, ny, nx],
                                                                     np.int64))])
        y = g.op("Sigmoid", [g.op("Transpose", [y], perm=[0, 1, 3, 4, 2])])
        xy, wh, conf = g.op("Split", [y, g.const(np.array([2, 2, NO - 4], np.int64))], 3,
                            axis=4)
        gy, gx = np.meshgrid(np.arange(ny), np.arange(nx), indexing="ij")
        grid = np.broadcast_to(np.stack((gx, gy), 2)[None, None] - 0.5, (1, NA, ny, nx, 2))
        # the anchors expanded over the grid (v6+), or [1, anchors, 1, 1, 2]
        # as v5.0's export holds them (on the last level)
        agrid = np.array(anchors, np.float32).reshape(1, NA, 1, 1, 2)
        if stride != 32:
            agrid = np.broadcast_to(agrid, (1, NA, ny, nx, 2))
        xy = g.op("Mul", [g.op("Add", [g.op("Mul", [xy, g.const(np.float32(2))]),
                                       g.const(grid.astype(np.float32), "grid")]),
                          g.const(np.float32(stride))])
        wh = g.op("Mul", [g.op("Pow", [g.op("Mul", [wh, g.const(np.float32(2))]),
                                       g.const(np.float32(2))]),
                          g.const(agrid.astype(np.float32), "anchor_grid")])
        y = g.op("Concat", [xy, wh, conf], axis=4)
        outs.append(g.op("Reshape", [y, g.const(np.array([1, NA * ny * nx, NO], np.int64))]))
    out = g.op("Concat", outs, axis=1)
    return g.model([1, 3, hw, hw], [out], 13)


def ppocr_rec():
    g = Graph("ppocr_rec", 7)
    C, HEADS, T, NCLS = 32, 4, 64, 24
    D = C // HEADS

    def layernorm(x):
        mean = g.op("ReduceMean", [x], axes=[-1], keepdims=1)
        d = g.op("Sub", [x, mean])
        var = g.op("ReduceMean", [g.op("Pow", [d, g.const(np.float32(2))])], axes=[-1],
                   keepdims=1)
        std = g.op("Sqrt", [g.op("Add", [var, g.const(np.float32(1e-6))])])
        y = g.op("Div", [d, std])
        gamma = g.rng.uniform(0.5, 1.5, C).astype(np.float32)
        return g.op("Add", [g.op("Mul", [y, g.const(gamma, "gamma")]),
                            g.const(g.bias(C), "beta")])

    # stem: [1, 3, 16, 64] -> [1, C, 4, 16] -> tokens [1, T, C]
    x = g.silu(g.conv("x", 3, 16, 3, 2))
    x = g.silu(g.conv(x, 16, C, 3, 2))
    x = g.op("Transpose", [g.op("Reshape", [x, g.const(np.array([1, C, T], np.int64))])],
             perm=[0, 2, 1])
    # attention
    h = layernorm(x)
    qkv = g.op("Reshape", [g.linear(h, C, 3 * C), g.const(np.array([1, T, 3, HEADS, D],
                                                                      np.int64))])
    qkv = g.op("Transpose", [qkv], perm=[2, 0, 3, 1, 4])	# [3, 1, heads, T, D]
    # K as PaddlePaddle's exports split it (Slice, Squeeze), Q and V as
    # PyTorch's (Gather)
    q, v = (g.op("Gather", [qkv, g.const(np.int64(i))], axis=0) for i in (0, 2))
    k = g.op("Squeeze", [g.op("Slice", [qkv] + [g.const(np.array([v], np.int64))
                                                for v in (1, 2, 0)]),
                         g.const(np.array([0], np.int64))])
    q = g.op("Mul", [q, g.const(np.float32(D ** -0.5))])
    att = g.op("Softmax", [g.op("MatMul", [q, g.op("Transpose", [k], perm=[0, 1, 3, 2])])],
               axis=-1)
    o = g.op("Transpose", [g.op("MatMul", [att, v])], perm=[0, 2, 1, 3])
    o = g.linear(g.op("Reshape", [o, g.const(np.array([1, T, C], np.int64))]), C, C)
    x = g.op("Add", [x, o])
    # MLP
    h = g.linear(g.silu(g.linear(layernorm(x), C, 2 * C)), 2 * C, C)
    x = layernorm(g.op("Add", [x, h]))
    out = g.op("Softmax", [g.linear(x, C, NCLS)], axis=-1)
    return g.model([1, 3, 16, 64], [out], 13)


def seg_head():
    g = Graph("seg_head", 11)
    NCLS = 6
    x = g.op("Relu", [g.conv("x", 3, 16, 3, 2)])
    x = g.op("Relu", [g.conv(x, 16, 32, 3, 2)])
    x = g.op("Relu", [g.conv(x, 32, 32, 3, 2)])	# 1/8
    branches = [g.op("Relu", [g.conv(x, 32, 16)])]
    for dil in (2, 4):
        branches.append(g.op("Relu", [g.conv(x, 32, 16, 3, dilation=dil)]))
    x = g.op("Relu", [g.conv(g.op("Concat", branches, axis=1), 48, 32)])
    x = g.conv(x, 32, NCLS)
    out = g.op("Resize", [x, "", g.const(np.array([1, 1, 8, 8], np.float32))],
               mode="linear", coordinate_transformation_mode="half_pixel")
    return g.model([1, 3, 64, 64], [out], 13)


def photo(path, h, w):
    """A photograph as a [1, 3, h, w] input in [-1, 1]."""
    a = np.asarray(Image.open(path).convert("RGB").resize((w, h), Image.BILINEAR), np.float32)
    return (a / 127.5 - 1.0).transpose(2, 0, 1)[None].astype(np.float32)


BENCH = {"mobilenet_v2_224": lambda: mobilenet_v2(224, True),
         "yolov8n_640": lambda: yolov8n(640, True),
         "yolov5s_640": lambda: yolov5s(640, True)}


def main(out, images, bench=False):
    calib = ("chelsea.png", "rocket.jpg", "motorcycle_left.png", "page.png")
    for name in BENCH if bench else FAMILIES:
        m = BENCH[name]() if bench else globals()[name]()
        onnx.save(m, os.path.join(out, name + ".onnx"))
        dims = [d.dim_value for d in m.graph.input[0].type.tensor_type.shape.dim]
        os.makedirs(os.path.join(out, name, "calib"), exist_ok=True)
        for i, f in enumerate(calib):
            np.save(os.path.join(out, name, "calib", "%d.npy" % i),
                    photo(os.path.join(images, f), dims[2], dims[3]))
        np.save(os.path.join(out, name, "x.npy"),
                photo(os.path.join(images, "astronaut.png"), dims[2], dims[3]))


if __name__ == "__main__":
    if sys.argv[1] == "--bench":
        main(sys.argv[2], sys.argv[3], True)
    else:
        main(sys.argv[1], sys.argv[2])
