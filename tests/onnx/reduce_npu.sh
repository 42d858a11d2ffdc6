#!/bin/sh
# ONNX's ten reductions (Reduce{Mean,Sum,Max,Min,Prod,SumSquare,L1,L2,
# LogSum,LogSumExp}) after a convolution, over one axis, several and all of
# a [1, C, H, W] map, with and without keepdims, axes an attribute (opset
# 13) or an input (opset 18; the QDQ file spells them opset 13's way):
# models from tests/onnx/reduce_gen.py (fixed seed). Each compiled in int8
# (calibrated) and fp16 and run by `rkbare infer` on the NPU model. Judged
# by onnxruntime: int8 within 1 LSB of it running the QDQ model we wrote
# (unfused: DequantizeLinear -> float op -> QuantizeLinear), fp16 within
# 2^-8 of the largest magnitude of its output on the float model. Then the
# reductions the importer refuses, each naming the node and attribute.
set -eu
cd "$(dirname "$0")/../.."
RKBARE=build/host/rkbare
sh scripts/setup-npm.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 tests/onnx/reduce_gen.py "$tmp"
for d in "$tmp"/Reduce*; do
	op=$(basename "$d")
	"$RKBARE" compile "$d/m.onnx" --calib "$d/calib" --save-qdq "$d/q.onnx" -o "$d/i8.rkb" \
		>/dev/null
	"$RKBARE" compile "$d/m.onnx" --precision fp16 -o "$d/f16.rkb" >/dev/null
	for p in i8 f16; do
		"$RKBARE" infer "$d/$p.rkb" --input "x=$d/x.npy" --output-dir "$d/$p" >/dev/null
	done
	node tests/onnx/ort_run.js "$d/q.onnx" --input "x=$d/x.npy" --output-dir "$d/qdq" \
		2>/dev/null
	node tests/onnx/ort_run.js "$d/m.onnx" --input "x=$d/x.npy" --output-dir "$d/fp32" \
		2>/dev/null
	/usr/bin/python3 - "$d" "$op" <<'PY'
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

d, op = sys.argv[1], sys.argv[2]
q = onnx.load(os.path.join(d, "q.onnx"))
inits = {i.name: numpy_helper.to_array(i) for i in q.graph.initializer}
scale = next(float(inits[n.input[1]]) for n in q.graph.node
             if n.op_type == "DequantizeLinear" and n.output[0] == "y")
i8 = np.load(os.path.join(d, "i8", "y.npy")).astype(np.float64)
qdq = np.load(os.path.join(d, "qdq", "y.npy")).astype(np.float64)
f16 = np.load(os.path.join(d, "f16", "y.npy")).astype(np.float64)
ref = np.load(os.path.join(d, "fp32", "y.npy")).astype(np.float64)
ok = i8.shape == qdq.shape == f16.shape == ref.shape
lsb = float(np.abs(i8 - qdq).max() / scale) if ok else float("inf")
rel = float(np.abs(f16 - ref).max() / np.abs(ref).max()) if ok else float("inf")
print("reduce: %s -> %s: int8 %.2f LSB of onnxruntime on the QDQ model, fp16 %.2g of the "
      "largest output" % (op, "x".join(map(str, ref.shape)), lsb, rel))
if not ok or lsb > 1.0 + 1e-6 or rel > 2.0 ** -8:
    print("reduce: %s: outside the bounds (int8 1 LSB, fp16 2^-8)" % op)
    sys.exit(1)
PY
done
# refusals: the message names the node's operator and the attribute
refuse() {
	if "$RKBARE" compile "$tmp/refuse/$1.onnx" --precision fp16 -o "$tmp/r.rkb" \
		>/dev/null 2>"$tmp/err"; then
		echo "reduce: $1: compiled, but should be refused"
		exit 1
	fi
	grep -q "$2" "$tmp/err" || {
		echo "reduce: $1: the refusal does not name $2:"
		cat "$tmp/err"
		exit 1
	}
	echo "reduce: $1 refused: $(tail -1 "$tmp/err")"
}
refuse noop "(ReduceSum): attribute noop_with_empty_axes"
refuse batch "(ReduceL2): attribute axes"
