#!/bin/sh
# CPU ops between NPU stages: a float model (fixed seed) with Sigmoid after
# a convolution, Tanh after another, and a classifier head ending in
# Softmax, calibrated to int8 by rkbare compile. The NPU runs the
# convolutions, pooling and Gemm; the CPU runs Softmax and, compiled with
# --no-fusion, Sigmoid and Tanh as well (runtime/cpu_ops.c; as compiled by
# default they are tables on the DPU's lookup table). Both containers
# compared with onnxruntime running the QDQ model we calibrated: every
# output within 1 LSB; and on three cores the same outputs as on one, bit
# for bit.
set -eu
cd "$(dirname "$0")/../.."
RKBARE=build/host/rkbare
sh scripts/setup-npm.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/calib"
/usr/bin/python3 - "$tmp" <<'PY'
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
d = sys.argv[1]
rng = np.random.default_rng(20261125)
def w(name, *shape):
    return numpy_helper.from_array((rng.standard_normal(shape) * 0.3).astype(np.float32), name)
nodes = [
    helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", kernel_shape=[3, 3],
                     pads=[1, 1, 1, 1]),
    helper.make_node("Sigmoid", ["c1"], ["s1"], name="sigmoid"),
    helper.make_node("Conv", ["s1", "w2", "b2"], ["c2"], name="conv2", kernel_shape=[1, 1]),
    helper.make_node("Tanh", ["c2"], ["t2"], name="tanh"),
    helper.make_node("GlobalAveragePool", ["t2"], ["g"], name="gap"),
    helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
    helper.make_node("Gemm", ["f", "w3", "b3"], ["logits"], name="fc", transB=1),
    helper.make_node("Softmax", ["logits"], ["y"], name="softmax", axis=1),
]
inits = [w("w1", 16, 8, 3, 3), w("b1", 16), w("w2", 16, 16, 1, 1), w("b2", 16),
         w("w3", 10, 16), w("b3", 10)]
g = helper.make_graph(nodes, "cpu_ops",
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 12, 12])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], inits)
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
m.ir_version = 8
onnx.save(m, "%s/m.onnx" % d)
for i in range(8):
    np.save("%s/calib/%d.npy" % (d, i), rng.standard_normal((1, 8, 12, 12)).astype(np.float32))
for i in range(3):
    np.save("%s/x%d.npy" % (d, i), rng.standard_normal((1, 8, 12, 12)).astype(np.float32))
PY
"$RKBARE" compile "$tmp/m.onnx" --calib "$tmp/calib" --save-qdq "$tmp/q.onnx" -o "$tmp/m.rkb" |
	tail -1
"$RKBARE" compile "$tmp/m.onnx" --calib "$tmp/calib" --no-fusion -o "$tmp/cpu.rkb" | tail -1
# the CPU ops each container has: Softmax; Sigmoid, Tanh and Softmax
for c in m:1 cpu:3; do
	set -- "${c%%:*}" "${c#*:}"
	"$RKBARE" info "$tmp/$1.rkb" > "$tmp/info"
	if [ "$(grep -c ' on the CPU' "$tmp/info")" -ne "$2" ]; then
		echo "cpu_ops: expected $2 CPU op(s) in $1.rkb:"
		cat "$tmp/info"
		exit 1
	fi
	grep '^run:' "$tmp/info"
	for i in 0 1 2; do
		mkdir -p "$tmp/$1_npu$i"
		"$RKBARE" infer "$tmp/$1.rkb" --input "x=$tmp/x$i.npy" --output-dir "$tmp/$1_npu$i" \
			>/dev/null
	done
	mkdir "$tmp/$1_three"
	"$RKBARE" infer "$tmp/$1.rkb" --input "x=$tmp/x0.npy" --output-dir "$tmp/$1_three" \
		--core 0,1,2 >/dev/null
	cmp -s "$tmp/$1_npu0/y.npy" "$tmp/$1_three/y.npy" ||
		{ echo "cpu_ops: $1.rkb: three cores differ from one"; exit 1; }
done
for i in 0 1 2; do
	mkdir "$tmp/ort$i"
	node tests/onnx/ort_run.js "$tmp/q.onnx" --input "x=$tmp/x$i.npy" \
		--output-dir "$tmp/ort$i" 2>/dev/null
done
/usr/bin/python3 - "$tmp" <<'PY'
import os
import sys
import numpy as np
import onnx
from onnx import numpy_helper
d = sys.argv[1]
q = onnx.load(os.path.join(d, "q.onnx"))
inits = {i.name: numpy_helper.to_array(i) for i in q.graph.initializer}
scale = [float(inits[n.input[1]]) for n in q.graph.node
         if n.op_type == "DequantizeLinear" and n.output[0] == "y"][0]
bad = 0
for c in ("m", "cpu"):
    worst = 0.0
    for i in range(3):
        a = np.load("%s/%s_npu%d/y.npy" % (d, c, i))
        b = np.load("%s/ort%d/y.npy" % (d, i))
        worst = max(worst, float(np.max(np.abs(a - b))) / scale)
    print("cpu_ops: %s.rkb: Softmax output within %.2f LSB of onnxruntime on 3 inputs; three "
          "cores = one core" % (c, worst))
    bad += worst > 1.0 + 1e-3
sys.exit(1 if bad else 0)
PY
