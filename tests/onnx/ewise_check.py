#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Judge of tests/onnx/ewise_npu.sh (models from ewise_gen.py).

usage: ewise_check.py snap DIR      inputs DIR/x/*.npy moved onto the grid of
                                    their int8 quantisation (DIR/q.onnx) as
                                    DIR/xs/*.npy, so the runtime's and numpy's
                                    quantisations of them agree exactly
       ewise_check.py judge DIR     the outputs of the run
                                    (DIR/i8, DIR/f16 from rkbare infer, DIR/ort
                                    from onnxruntime fp32 on the float model)

judge: every output's cosine similarity with onnxruntime fp32 >= 0.98 in int8
and >= 0.999 in fp16; every fp16 activation on a graph input within
FN_TOL · max(1, |x|) plus one fp16 rounding of the ONNX definition in
float64 on its fp16 input (the DPU lookup table's bound, runtime/npu_fn.h,
which the CPU's float functions meet too); and, for every activation /
element-wise node whose
inputs the run shows (graph inputs or outputs, or float tensors the
quantiser left between element-wise ops, computed from theirs), its int8
output within 1 LSB of an exact reference: the ONNX definition evaluated by
numpy in float64 on the node's own quantised inputs (dequantised), quantised
with the output's
scale and zero point (round half to even, saturating), as onnxruntime runs
DequantizeLinear -> op -> QuantizeLinear. Written apart from rkbare's code.
"""
import math
import os
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper

COS_INT8 = 0.98
COS_FP16 = 0.999
# fp16 activations: the DPU lookup table's error bound on g (runtime/npu_fn.h)
FN_TOL = 3e-4
UNARY_FP16 = ("Sigmoid", "Tanh", "HardSigmoid", "HardSwish", "Swish", "Gelu", "LeakyRelu",
              "Elu", "Selu", "Softplus", "Relu", "Exp", "Abs", "Softsign", "Neg",
              "Reciprocal", "Sqrt", "Log")
TOLERANCE_LSB = 1
SELU_ALPHA = 1.67326319217681884765625
SELU_GAMMA = 1.05070102214813232421875

erf = np.vectorize(math.erf)


def attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def reference(node, x):
    """The node's float64 output from float64 inputs x (ONNX definitions)."""
    a = attrs(node)
    op = node.op_type
    v = x[0]
    if op == "Sigmoid":
        return 1.0 / (1.0 + np.exp(-v))
    if op == "Tanh":
        return np.tanh(v)
    if op == "LeakyRelu":
        return np.where(v < 0, a.get("alpha", 0.01) * v, v)
    if op == "HardSigmoid":
        return np.clip(a.get("alpha", 0.2) * v + a.get("beta", 0.5), 0.0, 1.0)
    if op == "HardSwish":
        return v * np.clip(v / 6.0 + 0.5, 0.0, 1.0)
    if op == "Swish":
        return v / (1.0 + np.exp(-a.get("alpha", 1.0) * v))
    if op == "Elu":
        return np.where(v < 0, a.get("alpha", 1.0) * (np.exp(v) - 1.0), v)
    if op == "Selu":
        al, ga = a.get("alpha", SELU_ALPHA), a.get("gamma", SELU_GAMMA)
        return np.where(v <= 0, ga * (al * np.exp(v) - al), ga * v)
    if op == "Softplus":
        return np.logaddexp(0.0, v)
    if op == "Gelu":
        if a.get("approximate", b"none") in (b"tanh", "tanh"):
            return 0.5 * v * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (v + 0.044715 * v ** 3)))
        return 0.5 * v * (1.0 + erf(v / math.sqrt(2.0)))
    if op == "Clip":
        return np.clip(v, x[1] if len(x) > 1 else -np.inf, x[2] if len(x) > 2 else np.inf)
    if op == "Relu":
        return np.maximum(v, 0.0)
    if op == "Exp":
        return np.exp(v)
    if op == "Abs":
        return np.abs(v)
    if op == "Softsign":
        return v / (1.0 + np.abs(v))
    if op == "Neg":
        return -v
    if op == "Reciprocal":
        return 1.0 / v
    if op == "Sqrt":
        return np.sqrt(v)
    if op == "Log":
        return np.log(v)
    if op == "Pow":
        return np.power(v, x[1])
    if op == "Add":
        return v + x[1]
    if op == "Sub":
        return v - x[1]
    if op == "Mul":
        return v * x[1]
    if op == "Div":
        return v / x[1]
    if op == "Max":
        return np.maximum(v, x[1])
    if op == "Min":
        return np.minimum(v, x[1])
    if op == "PRelu":
        return np.where(v < 0, v * x[1], v)
    if op in ("Softmax", "LogSoftmax"):
        e = v - v.max(axis=a.get("axis", -1), keepdims=True)
        s = np.exp(e).sum(axis=a.get("axis", -1), keepdims=True)
        return e - np.log(s) if op == "LogSoftmax" else np.exp(e) / s
    if op == "BatchNormalization":
        sh = (1, -1, 1, 1)
        g, b, m, var = (t.reshape(sh) for t in x[1:5])
        return (v - m) / np.sqrt(var + a.get("epsilon", 1e-5)) * g + b
    return None


class Quant:
    """Each tensor's int8 quantisation in the QDQ model."""

    def __init__(self, qdq):
        inits = {i.name: numpy_helper.to_array(i) for i in qdq.graph.initializer}
        self.p = {}
        # rkbare's QDQ writer names each activation's parameters <name>_scale
        for n in qdq.graph.node:
            if n.op_type == "QuantizeLinear" and n.input[1].endswith("_scale"):
                self.p[n.input[1][:-len("_scale")]] = (float(inits[n.input[1]]),
                                                       int(inits[n.input[2]]))

    def q(self, name, v):
        s, z = self.p[name]
        return np.clip(np.rint(np.asarray(v, np.float64) / s) + z, -128, 127)

    def dq(self, name, q):
        s, z = self.p[name]
        return (q - z) * s


def snap(d):
    quant = Quant(onnx.load(os.path.join(d, "q.onnx")))
    os.makedirs(os.path.join(d, "xs"), exist_ok=True)
    for f in sorted(os.listdir(os.path.join(d, "x"))):
        name = f[:-4]
        v = np.load(os.path.join(d, "x", f))
        np.save(os.path.join(d, "xs", f), quant.dq(name, quant.q(name, v)).astype(np.float32))


def cosine(a, b):
    a, b = a.astype(np.float64).ravel(), b.astype(np.float64).ravel()
    n = np.linalg.norm(a) * np.linalg.norm(b)
    return float(a @ b / n) if n else (1.0 if np.allclose(a, b) else 0.0)


def exact(n, inits, shown, quant, producer):
    """Node n's output from the int8 values the run shows, through the
    float tensors the quantiser left between them (a chain of element-wise
    ops, one table on the NPU's side): None when an input is not known."""
    ins = []
    for t in n.input:
        if t in inits:
            ins.append(inits[t])
        elif t in shown and t in quant.p:
            ins.append(quant.dq(t, shown[t]))
        elif t not in quant.p and t in producer:
            v = exact(producer[t], inits, shown, quant, producer)
            if v is None:
                return None
            ins.append(v)
        else:
            return None
    return reference(n, ins)


def judge(d):
    model = onnx.load(os.path.join(d, "m.onnx"))
    quant = Quant(onnx.load(os.path.join(d, "q.onnx")))
    inits = {i.name: numpy_helper.to_array(i).astype(np.float64) for i in model.graph.initializer}
    outputs = [o.name for o in model.graph.output]
    tag = os.path.basename(os.path.normpath(d))
    bad = 0
    worst = {"int8": 1.0, "fp16": 1.0}
    for o in outputs:
        ref = np.load(os.path.join(d, "ort", o + ".npy"))
        for prec, sub, gate in (("int8", "i8", COS_INT8), ("fp16", "f16", COS_FP16)):
            c = cosine(np.load(os.path.join(d, sub, o + ".npy")), ref)
            worst[prec] = min(worst[prec], c)
            if not c >= gate:
                print("%s: output %s %s cosine %.5f < %g" % (tag, o, prec, c, gate))
                bad += 1
    # fp16: every activation on a graph input within the DPU lookup table's
    # bound (runtime/npu_fn.h: FN_TOL of g, times |x| for the x·g functions)
    # plus one fp16 rounding of the exact value, on whichever engine it runs
    xs = {f[:-4]: np.load(os.path.join(d, "xs", f)) for f in os.listdir(os.path.join(d, "xs"))}
    f16_judged, f16_worst = 0, 0.0
    for n in model.graph.node:
        if n.op_type not in UNARY_FP16 or n.output[0] not in outputs or n.input[0] not in xs:
            continue
        x = xs[n.input[0]].astype(np.float16).astype(np.float64)
        ref = reference(n, [x])
        got = np.load(os.path.join(d, "f16", n.output[0] + ".npy")).astype(np.float64)
        bound = FN_TOL * np.maximum(1.0, np.abs(x)) + np.abs(ref) * 2.0 ** -11
        ratio = float(np.max(np.abs(got - ref) / bound))
        f16_worst = max(f16_worst, ratio)
        f16_judged += 1
        if ratio > 1.0:
            print("%s: node %s (%s) fp16: %.2f times the bound" % (tag, n.name, n.op_type,
                                                                   ratio))
            bad += 1
    if f16_judged:
        print("%s: %d fp16 activations within %.2f of their bound" % (tag, f16_judged,
                                                                      f16_worst))
    # int8 values the run shows: its inputs (on the grid) and outputs
    shown = {}
    for f in os.listdir(os.path.join(d, "xs")):
        shown[f[:-4]] = quant.q(f[:-4], np.load(os.path.join(d, "xs", f)))
    for o in outputs:
        if o in quant.p:
            shown[o] = quant.q(o, np.load(os.path.join(d, "i8", o + ".npy")))
    judged, lsb_worst = 0, 0
    producer = {n.output[0]: n for n in model.graph.node}
    for n in model.graph.node:
        out = n.output[0]
        if out not in outputs or out not in quant.p:
            continue
        ref = exact(n, inits, shown, quant, producer)
        if ref is None:
            continue
        with np.errstate(divide="ignore", invalid="ignore"):
            want = quant.q(out, ref)
        lsb = int(np.max(np.abs(want - shown[out])))
        lsb_worst = max(lsb_worst, lsb)
        judged += 1
        if lsb > TOLERANCE_LSB:
            print("%s: node %s (%s): %d LSB from the exact reference" % (tag, n.name,
                                                                         n.op_type, lsb))
            bad += 1
    print("%s: %d outputs, cosine int8 >= %.4f, fp16 >= %.5f; %d nodes within %d LSB of the "
          "exact int8 reference" % (tag, len(outputs), worst["int8"], worst["fp16"], judged,
                                    lsb_worst))
    return 1 if bad or not judged else 0


def main():
    if sys.argv[1] == "snap":
        snap(sys.argv[2])
        return 0
    return judge(sys.argv[2])


if __name__ == "__main__":
    sys.exit(main())
