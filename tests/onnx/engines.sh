#!/bin/sh
# Where ops run: `rkbare compile` prints how many ops and what share of the
# multiply-accumulates run on the NPU and on the CPU, `rkbare info` each
# op's engine. Checked against counts made from the ONNX graphs with
# python3-onnx: the MobileNetV2 family graph (tests/onnx/families_gen.py;
# all on the NPU: its convolutions' products, one per element of the
# residual Adds, the global pool's window) and a classifier whose Softmax is
# a CPU op (the Gemm's 10 x 16 products on the NPU, Softmax's 10 elements on
# the CPU).
set -eu
cd "$(dirname "$0")/../.."
RKBARE=build/host/rkbare
sh scripts/setup-images.sh
make --no-print-directory -s host >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/calib"
/usr/bin/python3 tests/onnx/families_gen.py "$tmp" build/testdata/skimage
/usr/bin/python3 - "$tmp" <<'PY'
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
d = sys.argv[1]
rng = np.random.default_rng(19)
nodes = [helper.make_node("Gemm", ["x", "w", "b"], ["logits"], transB=1),
         helper.make_node("Softmax", ["logits"], ["y"], axis=1)]
inits = [numpy_helper.from_array(rng.standard_normal((10, 16)).astype(np.float32), "w"),
         numpy_helper.from_array(rng.standard_normal(10).astype(np.float32), "b")]
g = helper.make_graph(nodes, "softmax", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                         [1, 16])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], inits)
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
m.ir_version = 8
onnx.save(m, d + "/softmax.onnx")
for i in range(2):
    np.save("%s/calib/%d.npy" % (d, i), rng.standard_normal((1, 16)).astype(np.float32))
# MobileNetV2's work counted on the graph
m = onnx.shape_inference.infer_shapes(onnx.load(d + "/mobilenet_v2.onnx"))
shape = {v.name: [x.dim_value for x in v.type.tensor_type.shape.dim]
         for v in list(m.graph.value_info) + list(m.graph.input) + list(m.graph.output)}
init = {i.name: i for i in m.graph.initializer}
macs = 0
for n in m.graph.node:
    out = int(np.prod(shape[n.output[0]]))
    if n.op_type == "Conv":
        w = init[n.input[1]].dims
        macs += out * w[1] * w[2] * w[3]
    elif n.op_type == "Gemm":
        macs += out * init[n.input[1]].dims[1]
    elif n.op_type == "Add":
        macs += out
    elif n.op_type == "GlobalAveragePool":
        macs += int(np.prod(shape[n.input[0]]))
open(d + "/mnv2_macs", "w").write("%d\n" % macs)
PY
"$RKBARE" compile "$tmp/mobilenet_v2.onnx" --calib "$tmp/mobilenet_v2/calib" -o "$tmp/m2.rkb" \
	>"$tmp/m2.log"
"$RKBARE" compile "$tmp/softmax.onnx" --calib "$tmp/calib" -o "$tmp/sm.rkb" >"$tmp/sm.log"
"$RKBARE" info "$tmp/m2.rkb" >"$tmp/m2.info"
"$RKBARE" info "$tmp/sm.rkb" >"$tmp/sm.info"
/usr/bin/python3 - "$tmp" <<'PY'
import re
import sys
d = sys.argv[1]
bad = 0
def engines(log):
    for line in open(log):
        m = re.match(r"rkbare compile: NPU (\d+) op\(s\), ([0-9.]+) % of (\d+) MACs; "
                     r"CPU (\d+) op\(s\), ([0-9.]+) %", line)
        if m:
            print("engines: " + line.strip())
            return int(m.group(1)), float(m.group(2)), int(m.group(3)), \
                int(m.group(4)), float(m.group(5))
    raise SystemExit("engines: %s: no NPU/CPU line" % log)
def info_ops(path):
    return [l.split()[1:3] for l in open(path) if re.match(r"^ +\d+ (NPU|CPU) ", l)]
want = int(open(d + "/mnv2_macs").read())
npu, npu_share, total, cpu, cpu_share = engines(d + "/m2.log")
ops = info_ops(d + "/m2.info")
if (cpu, npu_share) != (0, 100.0) or total != want or npu != len(ops) or \
        any(e != "NPU" for e, _ in ops):
    print("engines: MobileNetV2: %d NPU / %d CPU ops, %g MACs (the graph: %d), info %s" %
          (npu, cpu, total, want, ops))
    bad += 1
npu, npu_share, total, cpu, cpu_share = engines(d + "/sm.log")
ops = info_ops(d + "/sm.info")
if (npu, cpu, total) != (1, 1, 170) or abs(cpu_share - 100.0 * 10 / 170) > 0.05 or \
        ops != [["NPU", "conv"], ["CPU", "Softmax"]]:
    print("engines: Gemm + Softmax: %d NPU / %d CPU ops, %g MACs, CPU %g %%, info %s" %
          (npu, cpu, total, cpu_share, ops))
    bad += 1
sys.exit(1 if bad else 0)
PY
