#!/bin/sh
# Dynamic shapes: a float model (fixed seed) whose input height and width
# are symbolic — convolutions (one SAME_UPPER, whose pads depend on the
# size), a pool, a Sigmoid on the CPU, a global average pool and a
# classifier — calibrated to int8 and compiled for three input shape sets
# (rkbare compile --shape-set). Each shape is run by rkbare infer (which
# picks the set its input fits) and compared with onnxruntime running the
# QDQ model we calibrated, with the same symbolic input: within 1 LSB.
# A client written against rknn_api.h alone (tests/onnx/rknn_dyn_client.c)
# switches sets with rknn_set_input_shapes, back to set 0 last, and must
# give rkbare infer's outputs. Refused, naming the set and the node: a Gemm
# whose weights depend on the input size (it reads every position); and a
# --shape-set naming no input, an input of no set's shape.
set -eu
cd "$(dirname "$0")/../.."
RKBARE=build/host/rkbare
CLIENT=build/host/cli/rknn_dyn_client
make -s --no-print-directory "$CLIENT" >/dev/null
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
def model(path, nodes, inits, out_dims):
    g = helper.make_graph(nodes, "dyn",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                         [1, 3, "h", "w"])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_dims)],
                          inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.save(m, path)
head = [
    helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", kernel_shape=[3, 3],
                     pads=[1, 1, 1, 1]),
    helper.make_node("Relu", ["c1"], ["r1"], name="relu"),
    helper.make_node("MaxPool", ["r1"], ["p1"], name="pool", kernel_shape=[2, 2],
                     strides=[2, 2]),
    helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], name="conv2", kernel_shape=[3, 3],
                     strides=[2, 2], auto_pad="SAME_UPPER"),
    helper.make_node("Sigmoid", ["c2"], ["s2"], name="sigmoid"),
]
inits = [w("w1", 16, 3, 3, 3), w("b1", 16), w("w2", 24, 16, 3, 3), w("b2", 24)]
model("%s/m.onnx" % d, head + [
    helper.make_node("GlobalAveragePool", ["s2"], ["g"], name="gap"),
    helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
    helper.make_node("Gemm", ["f", "w3", "b3"], ["y"], name="fc", transB=1),
], inits + [w("w3", 10, 24), w("b3", 10)], [1, 10])
# the classifier reads every position: its weights depend on H and W
model("%s/flat.onnx" % d, head + [
    helper.make_node("Flatten", ["s2"], ["f"], name="flatten"),
    helper.make_node("Gemm", ["f", "w3", "b3"], ["y"], name="fc", transB=1),
], inits + [w("w3", 10, 24 * 8 * 8), w("b3", 10)], [1, 10])
for i in range(8):
    np.save("%s/calib/%d.npy" % (d, i), rng.standard_normal((1, 3, 32, 32)).astype(np.float32))
for name, h, wd in (("s0", 32, 32), ("s1", 20, 28), ("s2", 64, 48)):
    x = rng.standard_normal((1, 3, h, wd)).astype(np.float32)
    np.save("%s/%s.npy" % (d, name), x)
    x.tofile("%s/%s.f32" % (d, name))
np.save("%s/odd.npy" % d, rng.standard_normal((1, 3, 30, 30)).astype(np.float32))
PY
sets="--shape-set x=1x3x32x32 --shape-set x=1x3x20x28 --shape-set x=1x3x64x48"
# shellcheck disable=SC2086
"$RKBARE" compile "$tmp/m.onnx" --calib "$tmp/calib" --save-qdq "$tmp/q.onnx" \
	-o "$tmp/m.rkb" $sets | tail -1
"$RKBARE" info "$tmp/m.rkb" > "$tmp/info"
if ! grep -q '^shape sets: 3' "$tmp/info"; then
	echo "dynamic_shapes: rkbare info lists no 3 shape sets:"
	cat "$tmp/info"
	exit 1
fi
# onnxruntime runs our calibrated QDQ model with the input symbolic again
/usr/bin/python3 - "$tmp" <<'PY'
import sys
import onnx
d = sys.argv[1]
m = onnx.load("%s/q.onnx" % d)
dims = m.graph.input[0].type.tensor_type.shape.dim
dims[2].dim_param, dims[3].dim_param = "h", "w"
del m.graph.value_info[:]
onnx.save(m, "%s/qd.onnx" % d)
PY
for s in s0 s1 s2; do
	mkdir "$tmp/npu_$s" "$tmp/ort_$s"
	"$RKBARE" infer "$tmp/m.rkb" --input "x=$tmp/$s.npy" --output-dir "$tmp/npu_$s" >/dev/null
	node tests/onnx/ort_run.js "$tmp/qd.onnx" --input "x=$tmp/$s.npy" \
		--output-dir "$tmp/ort_$s" 2>/dev/null
done
"$CLIENT" "$tmp/m.rkb" 3 "1x3x20x28:$tmp/s1.f32:$tmp/rknn_s1.f32" \
	"1x3x64x48:$tmp/s2.f32:$tmp/rknn_s2.f32" "1x3x32x32:$tmp/s0.f32:$tmp/rknn_s0.f32"
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
for s in ("s0", "s1", "s2"):
    npu = np.load(os.path.join(d, "npu_" + s, "y.npy"))
    ort = np.load(os.path.join(d, "ort_" + s, "y.npy"))
    rk = np.fromfile(os.path.join(d, "rknn_" + s + ".f32"), dtype=np.float32)
    lsb = float(np.max(np.abs(npu - ort))) / scale
    same = rk.size == npu.size and np.array_equal(rk, npu.ravel())
    print("dynamic_shapes: %s input %s: %.2f LSB from onnxruntime; rknn client %s" %
          (s, "x".join(str(v) for v in np.load(os.path.join(d, s + ".npy")).shape), lsb,
           "the same" if same else "DIFFERENT"))
    bad += lsb > 1.0 + 1e-3 or not same
sys.exit(1 if bad else 0)
PY
# shellcheck disable=SC2086
if "$RKBARE" compile "$tmp/flat.onnx" --calib "$tmp/calib" -o "$tmp/flat.rkb" $sets \
	> "$tmp/flat.log" 2>&1 || ! grep -q "shape set 1 (x=1x3x20x28): node 'fc'" "$tmp/flat.log"
then
	echo "dynamic_shapes: weights that depend on the input size were not refused:"
	cat "$tmp/flat.log"
	exit 1
fi
if "$RKBARE" compile "$tmp/m.onnx" --calib "$tmp/calib" -o "$tmp/bad.rkb" \
	--shape-set y=1x3x8x8 > "$tmp/name.log" 2>&1 || ! grep -q "no input 'y'" "$tmp/name.log"
then
	echo "dynamic_shapes: a --shape-set naming no input was not refused:"
	cat "$tmp/name.log"
	exit 1
fi
mkdir "$tmp/odd"
if "$RKBARE" infer "$tmp/m.rkb" --input "x=$tmp/odd.npy" --output-dir "$tmp/odd" \
	> "$tmp/odd.log" 2>&1 || ! grep -q "shape does not match" "$tmp/odd.log"; then
	echo "dynamic_shapes: an input of no set's shape was not refused:"
	cat "$tmp/odd.log"
	exit 1
fi
echo "dynamic_shapes: refused: size-dependent weights, an unknown input, a shape of no set"
