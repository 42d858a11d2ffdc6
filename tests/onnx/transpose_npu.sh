#!/bin/sh
# Transposes on the CPU between NPU stages (runtime/cpu_ops.c "Transpose"):
# float models (fixed seed) of a convolution, a Transpose of its [1,C,H,W]
# output by each of five permutations — rows and columns, channels and rows,
# channels and columns, to channels-last and a cycle — and a convolution on
# the result, calibrated to int8 by rkbare compile; and a QDQ model that
# transposes an [A,B,C] tensor while requantising it. Compared with
# onnxruntime running the same QDQ models: every output within 1 LSB.
set -eu
cd "$(dirname "$0")/../.."
RKBARE=build/host/rkbare
sh scripts/setup-npm.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 - "$tmp" <<'PY'
import os
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
d = sys.argv[1]
rng = np.random.default_rng(20261125)
def w(name, *shape):
    return numpy_helper.from_array((rng.standard_normal(shape) * 0.3).astype(np.float32), name)
def save(name, nodes, inputs, outputs, inits):
    g = helper.make_graph(nodes, name, inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    os.makedirs("%s/%s/calib" % (d, name))
    onnx.save(m, "%s/%s/m.onnx" % (d, name))
C, H, W = 8, 6, 10
for name, perm in (("hw", [0, 1, 3, 2]), ("ch", [0, 2, 1, 3]), ("cw", [0, 3, 2, 1]),
                   ("nhwc", [0, 2, 3, 1]), ("cycle", [0, 3, 1, 2])):
    t = [[1, C, H, W][i] for i in perm]
    save(name,
         [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], kernel_shape=[3, 3],
                           pads=[1, 1, 1, 1], name="conv1"),
          helper.make_node("Transpose", ["c1"], ["t"], perm=perm, name="transpose"),
          helper.make_node("Conv", ["t", "w2", "b2"], ["y"], kernel_shape=[1, 1], name="conv2")],
         [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, H, W])],
         [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5, t[2], t[3]])],
         [w("w1", C, 3, 3, 3), w("b1", C), w("w2", 5, t[1], 1, 1), w("b2", 5)])
    for i in range(4):
        np.save("%s/%s/calib/%d.npy" % (d, name, i),
                rng.standard_normal((1, 3, H, W)).astype(np.float32))
    np.save("%s/%s/x.npy" % (d, name), rng.standard_normal((1, 3, H, W)).astype(np.float32))
# [A,B,C] transposed (2, 0, 1) from one quantisation to another
c = lambda n, v, t=np.float32: numpy_helper.from_array(np.array(v, t), n)
save("requant",
     [helper.make_node("QuantizeLinear", ["x", "s1", "z1"], ["xq"]),
      helper.make_node("DequantizeLinear", ["xq", "s1", "z1"], ["xd"]),
      helper.make_node("Transpose", ["xd"], ["t"], perm=[2, 0, 1], name="transpose"),
      helper.make_node("QuantizeLinear", ["t", "s2", "z2"], ["tq"]),
      helper.make_node("DequantizeLinear", ["tq", "s2", "z2"], ["y"])],
     [helper.make_tensor_value_info("x", TensorProto.FLOAT, [5, 7, 9])],
     [helper.make_tensor_value_info("y", TensorProto.FLOAT, [9, 5, 7])],
     [c("s1", 0.02), c("z1", 3, np.int8), c("s2", 0.031), c("z2", -11, np.int8)])
np.save("%s/requant/x.npy" % d, rng.uniform(-2, 2, (5, 7, 9)).astype(np.float32))
PY
bad=0
for t in hw ch cw nhwc cycle requant; do
	dir="$tmp/$t"
	if [ "$t" = requant ]; then
		"$RKBARE" compile "$dir/m.onnx" -o "$dir/m.rkb" >/dev/null
		cp "$dir/m.onnx" "$dir/q.onnx"
	else
		"$RKBARE" compile "$dir/m.onnx" --calib "$dir/calib" --save-qdq "$dir/q.onnx" \
			-o "$dir/m.rkb" >/dev/null
	fi
	if ! "$RKBARE" info "$dir/m.rkb" | grep -q "Transpose.* on the CPU"; then
		echo "transpose: $t: no Transpose CPU op in the container"
		bad=$((bad + 1))
		continue
	fi
	mkdir "$dir/npu" "$dir/ort"
	"$RKBARE" infer "$dir/m.rkb" --input "x=$dir/x.npy" --output-dir "$dir/npu" >/dev/null
	node tests/onnx/ort_run.js "$dir/q.onnx" --input "x=$dir/x.npy" --output-dir "$dir/ort" \
		2>/dev/null
	/usr/bin/python3 tests/onnx/ort_lsb.py "$dir/q.onnx" "$dir/npu/y.npy" "$dir/ort/y.npy" y \
		"transpose: $(printf %-7s "$t")" || bad=$((bad + 1))
done
[ "$bad" -eq 0 ]
