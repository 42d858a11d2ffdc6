#!/bin/sh
# Random QLinearConv models (tests/onnx/qlinearconv_gen.py, fixed seed):
# plain and depthwise, odd channel counts, strides 1-2, asymmetric pads,
# uint8 and int8 activations with zero points away from the middle,
# per-channel and per-tensor weight scales. Each is compiled to a
# container, run through the runtime on the NPU model and compared with
# onnxruntime running the same ONNX file: every output within 1 LSB.
set -eu
cd "$(dirname "$0")/../.."
RKBARE=build/host/rkbare
COUNT=${QLINEARCONV_COUNT:-24}
sh scripts/setup-npm.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 tests/onnx/qlinearconv_gen.py "$tmp" 20261124 "$COUNT" > "$tmp/cases"
fails=0
while read -r name desc; do
	mkdir "$tmp/$name.npu" "$tmp/$name.ort"
	if ! "$RKBARE" compile "$tmp/$name.onnx" -o "$tmp/$name.rkb" >/dev/null ||
	   ! "$RKBARE" infer "$tmp/$name.rkb" --raw --input x="$tmp/${name}_x.npy" \
		--output-dir "$tmp/$name.npu" >/dev/null ||
	   ! node tests/onnx/ort_run.js "$tmp/$name.onnx" --input x="$tmp/${name}_x.npy" \
		--output-dir "$tmp/$name.ort"; then
		echo "qlinearconv: $name ($desc): did not run"
		fails=$((fails + 1))
		continue
	fi
	/usr/bin/python3 - "$tmp/$name.npu/y.npy" "$tmp/$name.ort/y.npy" "$name $desc" <<'PY' ||
import sys
import numpy as np
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
d = np.abs(a.astype(np.int32) - b.astype(np.int32)).max() if a.shape == b.shape else -1
print("qlinearconv: %s: %s" % (sys.argv[3], "shape %s, want %s" % (a.shape, b.shape)
                                if d < 0 else "max |NPU - onnxruntime| %d LSB" % d))
sys.exit(0 if 0 <= d <= 1 else 1)
PY
		fails=$((fails + 1))
done < "$tmp/cases"
echo "qlinearconv: $COUNT models, $fails failed"
[ "$fails" -eq 0 ]
