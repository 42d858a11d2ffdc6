#!/bin/sh
# A feature map flattened (or reshaped) to a [1, C*H*W] graph output keeps
# ONNX's C, H, W order; only a transposed map or an [M, K] matrix is
# channels-last. A float model (fixed seed): a 3x3 convolution of a 3x5x5
# input to 4 channels, then Flatten / Reshape as the output; compiled to
# int8 (calibrated on its own input) and to fp16. Gates: int8 within 1 LSB
# of onnxruntime running the QDQ model we calibrated, fp16 within 2^-8 of
# the largest magnitude of onnxruntime's float output.
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
for view in ("Flatten", "Reshape"):
    inits = [numpy_helper.from_array((rng.standard_normal((4, 3, 3, 3)) * 0.3).astype(np.float32), "w"),
             numpy_helper.from_array((rng.standard_normal(4) * 0.1).astype(np.float32), "b")]
    if view == "Flatten":
        last = helper.make_node("Flatten", ["c"], ["y"], axis=1)
    else:
        inits.append(numpy_helper.from_array(np.array([1, 100], np.int64), "shape"))
        last = helper.make_node("Reshape", ["c", "shape"], ["y"])
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]), last]
    g = helper.make_graph(nodes, view, [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                      [1, 3, 5, 5])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 100])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.save(m, os.path.join(d, view + ".onnx"))
os.mkdir(os.path.join(d, "calib"))
x = rng.standard_normal((1, 3, 5, 5)).astype(np.float32)
np.save(os.path.join(d, "x.npy"), x)
np.save(os.path.join(d, "calib", "0.npy"), x)
PY
status=0
for view in Flatten Reshape; do
	m="$tmp/$view"
	mkdir "$m.i8" "$m.f16" "$m.q" "$m.ref"
	"$RKBARE" compile "$m.onnx" --calib "$tmp/calib" --save-qdq "$m.qdq.onnx" -o "$m.i8.rkb" \
		>/dev/null
	"$RKBARE" compile "$m.onnx" --precision fp16 -o "$m.f16.rkb" >/dev/null
	"$RKBARE" infer "$m.i8.rkb" --input "x=$tmp/x.npy" --output-dir "$m.i8" >/dev/null
	"$RKBARE" infer "$m.f16.rkb" --input "x=$tmp/x.npy" --output-dir "$m.f16" >/dev/null
	node tests/onnx/ort_run.js "$m.qdq.onnx" --input "x=$tmp/x.npy" --output-dir "$m.q" \
		2>/dev/null
	node tests/onnx/ort_run.js "$m.onnx" --input "x=$tmp/x.npy" --output-dir "$m.ref" \
		2>/dev/null
	/usr/bin/python3 tests/onnx/ort_lsb.py "$m.qdq.onnx" "$m.i8/y.npy" "$m.q/y.npy" y \
		"flatten_output: $view int8" || status=1
	/usr/bin/python3 - "$m.f16/y.npy" "$m.ref/y.npy" "$view" <<'PY' || status=1
import sys
import numpy as np
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
rel = float(np.abs(a - b).max()) / float(np.abs(b).max()) if a.shape == b.shape else float("inf")
print("flatten_output: %s fp16: max |error| %.2g of the largest value" % (sys.argv[3], rel))
sys.exit(0 if rel <= 2.0 ** -8 else 1)
PY
done
exit $status
