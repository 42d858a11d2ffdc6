#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""ONNX conformance on the NPU model: the published node tests of Debian's
libonnx-testdata for the ops the importer maps (QLinearConv, QLinearMatMul,
MatMulInteger, ConvInteger, Conv, Gemm, MatMul, MaxPool, AveragePool,
GlobalAveragePool, Add, Relu, Clip, BatchNormalization; Sub, Mul, Div, Max,
Min, PRelu with a constant second input; Sigmoid, Tanh, LeakyRelu, HardSigmoid,
HardSwish, Elu, Selu, Softplus, Gelu, Exp, Abs, Neg, Reciprocal, Softsign,
Sqrt, Log, Softmax and LogSoftmax as CPU ops), and every test
of its small PyTorch exports (pytorch-converted: modules, pytorch-operator:
operators; opsets 6 and 12; rows named <directory>/<test>), each compiled
by `rkbare compile` and run by `rkbare infer` through the runtime and the
NPU model.

- Quantised tests (integer inputs): outputs must equal the published
  outputs bit for bit.
- Float tests run as int8 after post-training calibration on the test's own
  inputs: outputs must be within 1 LSB of the output scale of the judge
  (onnxruntime unfused, tests/onnx/ort_run.js)
  running the QDQ model we calibrated (--save-qdq); the error against the
  published float output is reported, not gated.
- Float tests run again compiled with --precision fp16 (a row of their own):
  outputs must be within 2^-8 of the largest magnitude of the published
  output (inputs and weights rounded to fp16's 11 significant bits, sums in
  fp32, the output rounded again: a few 2^-11 relative errors at most); an
  output that depends on input bits fp16 does not hold (Softmax of 10000
  and 10001) is judged against onnxruntime fp32 on the inputs rounded to
  fp16 instead.
- A test the compiler refuses is "unsupported", with the compiler's reason.

usage: conformance_npu.py OUT.md   writes the generated table; the caller
compares it with docs/CONFORMANCE.md, so a test that stops passing (or
starts) cannot go unnoticed. Exit status 1 when a supported test fails.
"""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

DATA = "/usr/share/libonnx-testdata/data"
NODE = os.path.join(DATA, "node")
# Whole small models as PyTorch's exporter wrote them (its modules and
# operators), every test of these directories; named <directory>/<test>.
EXPORTED = ("pytorch-converted", "pytorch-operator")
RKBARE = "build/host/rkbare"
PREFIXES = ("qlinearconv", "qlinearmatmul", "matmulinteger", "convinteger", "conv_",
            "gemm", "matmul_", "maxpool", "averagepool", "globalaveragepool", "add",
            "relu", "sigmoid", "tanh", "softmax",
            # activations and element-wise ops (tools/onnx/import_ewise.c)
            "leakyrelu", "hardsigmoid", "hardswish", "elu", "selu", "softplus", "gelu",
            "prelu", "clip", "sub", "mul", "div", "max_", "min_", "sum_", "mean_", "batchnorm", "instancenorm",
            "exp", "abs", "neg", "reciprocal", "softsign", "logsoftmax", "sqrt", "log",
            "pow",
            # the spatial ops and convolution forms (tools/onnx/import_spatial.c)
            "convtranspose", "depthtospace", "spacetodepth", "split_", "slice", "resize",
            "edge_pad", "reflect_pad",
            # transformer pieces (tools/onnx/import_xformer.c)
            "layer_normalization", "reduce_",
            "gather_", "squeeze", "unsqueeze", "tile", "expand")
QUANTISED_OPS = {"QLinearConv", "QLinearMatMul", "ConvInteger", "MatMulInteger"}
# Ops whose every input is data (feature maps), not a weight.
DATA_OPS = {"Add"}
LSB_TOLERANCE = 1.0
FP16_TOLERANCE = 2.0 ** -8


def load_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, (p.stderr.strip().splitlines() or [""])[-1]


def reason(text):
    """The compiler's message without the tool's prefix and the temp path."""
    text = re.sub(r"^rkbare \w+: ", "", text)
    return re.sub(r"/tmp/\S+", "", text).strip()


def output_scale(qdq_path, name):
    """Scale of the DequantizeLinear that produces graph output `name`."""
    m = onnx.load(qdq_path)
    inits = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    for n in m.graph.node:
        if n.op_type == "DequantizeLinear" and n.output[0] == name:
            return float(np.asarray(inits[n.input[1]]).reshape(-1)[0])
    return None


def one(test, tmp, fp16=False):
    d = os.path.join(DATA, test) if "/" in test else os.path.join(NODE, test)
    model = onnx.load(os.path.join(d, "model.onnx"))
    inits = {i.name for i in model.graph.initializer}
    ins = [i.name for i in model.graph.input if i.name not in inits]
    outs = [o.name for o in model.graph.output]
    data = os.path.join(d, "test_data_set_0")
    feeds = [load_pb(os.path.join(data, "input_%d.pb" % i)) for i in range(len(ins))]
    want = [load_pb(os.path.join(data, "output_%d.pb" % i)) for i in range(len(outs))]
    # The node tests pass weights, biases and quantisation parameters as
    # graph inputs; a deployed model has them constant, and the compiler
    # packs them at compile time. Inputs after the first become initializers
    # holding the test's data, unless the node takes only data (Add).
    keep = len(ins) if all(n.op_type in DATA_OPS for n in model.graph.node) else 1
    for name, a in zip(ins[keep:], feeds[keep:]):
        model.graph.initializer.append(numpy_helper.from_array(a, name))
        model.graph.input.remove(next(i for i in model.graph.input if i.name == name))
    ins, feeds = ins[:keep], feeds[:keep]
    model_path = os.path.join(tmp, "model.onnx")
    onnx.save(model, model_path)
    quantised = (any(n.op_type in QUANTISED_OPS for n in model.graph.node) or
                 any(f.dtype.kind in "iu" for f in feeds))
    args = []
    for name, a in zip(ins, feeds):
        path = os.path.join(tmp, "in_%s.npy" % re.sub(r"\W", "_", name))
        np.save(path, a)
        args += ["--input", "%s=%s" % (name, path)]
    rkb, qdq = os.path.join(tmp, "m.rkb"), os.path.join(tmp, "q.onnx")
    cmd = [RKBARE, "compile", model_path, "-o", rkb]
    if fp16 and quantised:
        return None, ""
    if fp16:
        cmd += ["--precision", "fp16"]
    elif not quantised:
        # one input: its .npy in DIR; several: DIR/<input name>/
        calib = os.path.join(tmp, "calib")
        os.mkdir(calib)
        for name, a in zip(ins, feeds):
            sub = os.path.join(calib, name) if len(ins) > 1 else calib
            os.makedirs(sub, exist_ok=True)
            np.save(os.path.join(sub, "0.npy"), a)
        cmd += ["--calib", calib, "--save-qdq", qdq]
    rc, msg = run(cmd)
    if rc:
        return "unsupported", reason(msg)
    got_dir = os.path.join(tmp, "npu")
    os.mkdir(got_dir)
    rc, msg = run([RKBARE, "infer", rkb, "--output-dir", got_dir] + args +
                  (["--raw"] if quantised else []))
    if rc:
        return "failed", "infer: " + reason(msg)
    if quantised:
        for name, w in zip(outs, want):
            g = np.load(os.path.join(got_dir, name + ".npy"))
            if g.shape != w.shape or not np.array_equal(g.astype(np.int64),
                                                         w.astype(np.int64)):
                diff = (np.abs(g.astype(np.int64) - w.astype(np.int64)).max()
                        if g.shape == w.shape else "shape %s, want %s" % (g.shape, w.shape))
                return "failed", "output %s differs from the published one (max %s)" % (
                    name, diff)
        return "passed", "bit-exact"
    if fp16:
        worst = 0.0
        for name, w in zip(outs, want):
            if np.abs(w).max() > np.finfo(np.float16).max:
                return "unsupported", "output %s reaches %.3g, past fp16's range" % (
                    name, float(np.abs(w).max()))
            g = np.load(os.path.join(got_dir, name + ".npy")).astype(np.float64)
            if g.size != w.size:
                return "failed", "output %s: shape %s, want %s" % (name, g.shape, w.shape)
            top = max(float(np.abs(w).max()), 1e-30)
            worst = max(worst, float(np.abs(g - w.reshape(g.shape)).max()) / top)
        if worst <= FP16_TOLERANCE:
            return "passed", "fp16: max error %.2g of the largest published output value" % worst
        # An output that depends on input bits fp16 does not hold (Softmax of
        # 10000 and 10001) is judged against onnxruntime fp32 on the inputs
        # rounded to fp16, the values the fp16 model computes on.
        ort_dir = os.path.join(tmp, "ort16")
        os.mkdir(ort_dir)
        args16 = []
        for name, a in zip(ins, feeds):
            path = os.path.join(tmp, "in16_%s.npy" % re.sub(r"\W", "_", name))
            np.save(path, a.astype(np.float16).astype(np.float32))
            args16 += ["--input", "%s=%s" % (name, path)]
        rc, msg = run(["node", "tests/onnx/ort_run.js", model_path, "--output-dir", ort_dir] +
                      args16)
        if rc:
            return "failed", "onnxruntime on the fp16-rounded inputs: " + msg
        worst16 = 0.0
        for name in outs:
            g = np.load(os.path.join(got_dir, name + ".npy")).astype(np.float64)
            r = np.load(os.path.join(ort_dir, name + ".npy")).astype(np.float64)
            top = max(float(np.abs(r).max()), 1e-30)
            worst16 = max(worst16, float(np.abs(g - r.reshape(g.shape)).max()) / top)
        verdict = "passed" if worst16 <= FP16_TOLERANCE else "failed"
        return verdict, "fp16: max error %.2g of the largest published output value, %.2g " \
                        "of onnxruntime's on the inputs rounded to fp16" % (worst, worst16)
    ort_dir = os.path.join(tmp, "ort")
    os.mkdir(ort_dir)
    rc, msg = run(["node", "tests/onnx/ort_run.js", qdq, "--output-dir", ort_dir] + args)
    if rc:
        return "failed", "onnxruntime on our QDQ model: " + msg
    worst_lsb, worst_pub = 0.0, 0.0
    for name, w in zip(outs, want):
        g = np.load(os.path.join(got_dir, name + ".npy")).astype(np.float64)
        r = np.load(os.path.join(ort_dir, name + ".npy")).astype(np.float64)
        scale = output_scale(qdq, name)
        if g.shape != r.shape or scale is None:
            return "failed", "output %s: shape %s, onnxruntime %s" % (name, g.shape, r.shape)
        worst_lsb = max(worst_lsb, float(np.abs(g - r).max()) / scale)
        worst_pub = max(worst_pub, float(np.abs(g - w.reshape(g.shape)).max()))
    verdict = "passed" if worst_lsb <= LSB_TOLERANCE + 1e-3 else "failed"
    return verdict, "int8: %.2f LSB of the judge on our QDQ model; max error %.3g " \
                    "against the published float output" % (worst_lsb, worst_pub)


def main():
    out_md = sys.argv[1]
    tests = sorted(t for t in os.listdir(NODE)
                   if t.startswith("test_") and t[5:].startswith(PREFIXES))
    for sub in EXPORTED:
        tests += sorted("%s/%s" % (sub, t) for t in os.listdir(os.path.join(DATA, sub))
                        if t.startswith("test_"))
    rows, failed = [], 0
    for t in tests:
        for fp16 in (False, True):
            with tempfile.TemporaryDirectory() as tmp:
                verdict, why = one(t, tmp, fp16)
            if verdict is None:
                continue	# quantised: no fp16 run
            name = t + (" (fp16)" if fp16 else "")
            failed += verdict == "failed"
            rows.append((name, verdict, why))
            print("conformance: %s: %s (%s)" % (name, verdict, why))
    count = {v: sum(1 for r in rows if r[1] == v) for v in ("passed", "unsupported", "failed")}
    half = {v: sum(1 for r in rows if r[1] == v and r[0].endswith("(fp16)"))
            for v in ("passed", "unsupported", "failed")}
    with open(out_md, "w") as f:
        f.write("# ONNX conformance on the NPU model\n\n"
                "Generated by `tests/onnx/conformance_npu.py` (run by `make test`): the node\n"
                "tests of Debian's libonnx-testdata for the ops the importer maps, and all of\n"
                "its small PyTorch exports (pytorch-converted, pytorch-operator), compiled\n"
                "by `rkbare compile` and run by `rkbare infer` on the NPU model. Quantised\n"
                "tests must equal the published outputs bit for bit; float tests run as\n"
                "int8 calibrated on their own inputs and must be within 1 LSB of\n"
                "onnxruntime running the QDQ model we calibrated unfused (the judge:\n"
                "DequantizeLinear -> float op -> QuantizeLinear), and again compiled\n"
                "with --precision fp16 (rows marked fp16), within 2^-8 of the largest\n"
                "magnitude of the published output (or, for an output that depends on\n"
                "input bits fp16 does not hold, of onnxruntime fp32's on the inputs\n"
                "rounded to fp16).\n\n"
                "%d passed, %d unsupported, %d failed (of them fp16: %d passed, %d\n"
                "unsupported, %d failed).\n\n"
                "| test | result | detail |\n|---|---|---|\n"
                % (count["passed"], count["unsupported"], count["failed"], half["passed"],
                   half["unsupported"], half["failed"]))
        for t, v, why in rows:
            f.write("| %s | %s | %s |\n" % (t, v, why.replace("|", "\\|")))
    print("conformance: %d passed, %d unsupported, %d failed" %
          (count["passed"], count["unsupported"], count["failed"]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
