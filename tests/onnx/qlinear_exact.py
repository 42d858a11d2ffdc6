#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The exact judge of one-node integer models: QLinearConv, ConvInteger and
MatMulInteger computed as the ONNX operator definitions say, in exact
integer and rational arithmetic (numpy int64 sums, Python fractions for the
requantisation), so the result does not depend on the CPU.

usage: qlinear_exact.py MODEL.onnx X.npy OUT.npy

QLinearConv: y = saturate(round((sum (x - x_zp)(w - w_zp) + bias)
                                 * x_scale * w_scale / y_scale) + y_zp),
the scales taken exactly as the float32 values the model stores and the
rounding half to even (QuantizeLinear's). ConvInteger / MatMulInteger: the
int32 sums of (x - x_zp)(w - w_zp). Padding contributes zero to the sums.
"""
import sys
from fractions import Fraction

import numpy as np
import onnx
from onnx import numpy_helper


def attrs(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def operand(inits, node, i, default=None):
    if i >= len(node.input) or not node.input[i]:
        return default
    return inits[node.input[i]]


def conv_sums(x, w, a):
    """int64 sums of a grouped 2-D convolution of zero-point-free operands."""
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    group = a.get("group", 1)
    sh, sw = a.get("strides", [1, 1])
    if a.get("dilations", [1, 1]) != [1, 1]:
        raise SystemExit("qlinear_exact: dilations are not supported")
    pt, pl, pb, pr = a.get("pads", [0, 0, 0, 0])
    xp = np.zeros((n, c, h + pt + pb, wd + pl + pr), np.int64)
    xp[:, :, pt:pt + h, pl:pl + wd] = x
    oh = (h + pt + pb - kh) // sh + 1
    ow = (wd + pl + pr - kw) // sw + 1
    y = np.zeros((n, m, oh, ow), np.int64)
    mg = m // group
    for g in range(group):
        xs = xp[:, g * cg:(g + 1) * cg]
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, :, i:i + sh * oh:sh, j:j + sw * ow:sw]	# n, cg, oh, ow
                y[:, g * mg:(g + 1) * mg] += np.einsum(
                    "nchw,mc->nmhw", patch, w[g * mg:(g + 1) * mg, :, i, j])
    return y


def per_channel(v, m):
    v = np.asarray(v).reshape(-1)
    return np.broadcast_to(v, (m,)) if v.size == 1 else v


def requantise(acc, multipliers, y_zp, dtype):
    """round half to even of acc * multiplier (per output channel), exactly."""
    info = np.iinfo(dtype)
    out = np.empty(acc.shape, np.int64)
    for ch, mult in enumerate(multipliers):
        num, den = mult.numerator, mult.denominator
        a = acc[:, ch].astype(object) * num
        q = a // den
        r = a - q * den
        # r in [0, den): above half rounds up, exactly half rounds to even
        up = (2 * r > den) | ((2 * r == den) & (q % 2 == 1))
        out[:, ch] = (q + up).astype(np.int64)
    return np.clip(out + int(y_zp), info.min, info.max).astype(dtype)


def main():
    model_path, x_path, out_path = sys.argv[1:4]
    model = onnx.load(model_path)
    if len(model.graph.node) != 1:
        raise SystemExit("qlinear_exact: one node expected")
    node = model.graph.node[0]
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    x = np.load(x_path)
    a = attrs(node)
    if node.op_type == "QLinearConv":
        x_scale, x_zp = operand(inits, node, 1), operand(inits, node, 2)
        w, w_scale, w_zp = operand(inits, node, 3), operand(inits, node, 4), operand(inits, node, 5)
        y_scale, y_zp = operand(inits, node, 6), operand(inits, node, 7)
        bias = operand(inits, node, 8)
        m = w.shape[0]
        wz = w.astype(np.int64) - per_channel(w_zp, m).astype(np.int64).reshape(m, 1, 1, 1)
        acc = conv_sums(x.astype(np.int64) - int(x_zp), wz, a)
        if bias is not None:
            acc += bias.astype(np.int64).reshape(1, m, 1, 1)
        mult = [Fraction(float(np.float32(x_scale))) * Fraction(float(ws)) /
                Fraction(float(np.float32(y_scale))) for ws in per_channel(w_scale, m)]
        y = requantise(acc, mult, y_zp, np.asarray(y_zp).dtype)
    elif node.op_type in ("ConvInteger", "MatMulInteger"):
        w = operand(inits, node, 1)
        x_zp = operand(inits, node, 2, np.array(0))
        w_zp = operand(inits, node, 3, np.array(0))
        xz = x.astype(np.int64) - int(x_zp)
        if node.op_type == "ConvInteger":
            m = w.shape[0]
            wz = w.astype(np.int64) - per_channel(w_zp, m).astype(np.int64).reshape(m, 1, 1, 1)
            y = conv_sums(xz, wz, a)
        else:
            wz = w.astype(np.int64) - per_channel(w_zp, w.shape[1]).astype(np.int64)
            y = xz @ wz
        y = y.astype(np.int32)
    else:
        raise SystemExit("qlinear_exact: %s is not supported" % node.op_type)
    np.save(out_path, y)


if __name__ == "__main__":
    main()
