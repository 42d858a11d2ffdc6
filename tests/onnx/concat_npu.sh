#!/bin/sh
# Concat of two maps on the CPU between NPU stages (runtime/cpu_ops.c
# "Concat"): float models (fixed seed) where a 3x3 convolution and a 1x1
# convolution with ReLU of the same input are concatenated along the
# channels, the rows or the columns, then convolved; calibrated to int8 by
# rkbare compile, so each branch reaches the Concat in its own quantisation
# and is requantised to the output's. Compared with onnxruntime running the
# same QDQ models: every output within 1 LSB.
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
H, W = 6, 10
for name, axis, c2 in (("channels", 1, 5), ("rows", 2, 8), ("columns", 3, 8)):
    c = 8 + c2 if axis == 1 else 8
    oh, ow = (2 * H if axis == 2 else H), (2 * W if axis == 3 else W)
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["a"], kernel_shape=[3, 3],
                         pads=[1, 1, 1, 1], name="conv3x3"),
        helper.make_node("Conv", ["x", "w2", "b2"], ["b"], kernel_shape=[1, 1], name="conv1x1"),
        helper.make_node("Relu", ["b"], ["br"], name="relu"),
        helper.make_node("Concat", ["a", "br"], ["cat"], axis=axis, name="concat"),
        helper.make_node("Conv", ["cat", "w3", "b3"], ["y"], kernel_shape=[1, 1], name="head"),
    ]
    g = helper.make_graph(nodes, name,
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, H, W])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, oh, ow])],
                          [w("w1", 8, 3, 3, 3), w("b1", 8), w("w2", c2, 3, 1, 1), w("b2", c2),
                           w("w3", 4, c, 1, 1), w("b3", 4)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    os.makedirs("%s/%s/calib" % (d, name))
    onnx.save(m, "%s/%s/m.onnx" % (d, name))
    for i in range(4):
        np.save("%s/%s/calib/%d.npy" % (d, name, i),
                rng.standard_normal((1, 3, H, W)).astype(np.float32))
    np.save("%s/%s/x.npy" % (d, name), rng.standard_normal((1, 3, H, W)).astype(np.float32))
PY
bad=0
for t in channels rows columns; do
	dir="$tmp/$t"
	"$RKBARE" compile "$dir/m.onnx" --calib "$dir/calib" --save-qdq "$dir/q.onnx" \
		-o "$dir/m.rkb" >/dev/null
	if ! "$RKBARE" info "$dir/m.rkb" | grep -q "Concat.* on the CPU"; then
		echo "concat: $t: no Concat CPU op in the container"
		bad=$((bad + 1))
		continue
	fi
	mkdir "$dir/npu" "$dir/ort"
	"$RKBARE" infer "$dir/m.rkb" --input "x=$dir/x.npy" --output-dir "$dir/npu" >/dev/null
	node tests/onnx/ort_run.js "$dir/q.onnx" --input "x=$dir/x.npy" --output-dir "$dir/ort" \
		2>/dev/null
	/usr/bin/python3 tests/onnx/ort_lsb.py "$dir/q.onnx" "$dir/npu/y.npy" "$dir/ort/y.npy" y \
		"concat: along the $(printf %-8s "$t")" || bad=$((bad + 1))
done
[ "$bad" -eq 0 ]
