#!/bin/sh
# The network families users deploy, as architecture-faithful graphs
# (tests/onnx/families_gen.py: MobileNetV2, MobileNetV3, ResNet-18 with
# unfused BatchNormalization, YOLOv8n backbone + neck + detect head, a
# PP-OCR-rec-like transformer block, a segmentation head; He-initialised
# random weights, fixed seeds), each compiled in fp16 and in int8
# (calibrated on four photographs), run by the runtime on the NPU model on a
# fifth, against onnxruntime fp32 on the float model. Gate per output:
# cosine >= 0.999 (fp16), >= 0.98 (int8).
# One summary line per family and precision: PASS, FAIL, or SKIP naming the
# compile's refusal (an op not imported yet). Exit 1 if any compiled family
# fails its gate, 77 if nothing compiled, else 0.
set -eu
cd "$(dirname "$0")/../.."
RKBARE=build/host/rkbare
FAMILIES="mobilenet_v2 mobilenet_v3 resnet18 yolov8n ppocr_rec seg_head"
sh scripts/setup-npm.sh
sh scripts/setup-images.sh
make --no-print-directory -s host >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 tests/onnx/families_gen.py "$tmp" build/testdata/skimage
for f in $FAMILIES; do
	node tests/onnx/ort_run.js "$tmp/$f.onnx" --input "x=$tmp/$f/x.npy" \
		--output-dir "$tmp/$f/fp32" 2>/dev/null
	for p in fp16 int8; do
		if [ "$p" = fp16 ]; then
			set -- --precision fp16
		else
			set -- --calib "$tmp/$f/calib"
		fi
		# the refusal is the last line compile writes to stderr
		if ! "$RKBARE" compile "$tmp/$f.onnx" "$@" -o "$tmp/$f/$p.rkb" >"$tmp/$f/$p.log" \
			2>"$tmp/$f/$p.err"; then
			grep . "$tmp/$f/$p.err" | tail -1 >"$tmp/$f/$p.refused"
			continue
		fi
		"$RKBARE" infer "$tmp/$f/$p.rkb" --input "x=$tmp/$f/x.npy" --output-dir "$tmp/$f/$p" \
			>/dev/null
	done
done
/usr/bin/python3 - "$tmp" $FAMILIES <<'PY'
import glob
import os
import sys
import numpy as np
d, families = sys.argv[1], sys.argv[2:]
GATE = {"fp16": 0.999, "int8": 0.98}
bad = ran = 0
for f in families:
    for p in ("fp16", "int8"):
        refused = os.path.join(d, f, p + ".refused")
        if os.path.exists(refused):
            why = open(refused).read().strip().replace(d + "/", "")
            print("families: %-12s %s SKIP (compile refused: %s)" % (f, p, why))
            continue
        ran += 1
        res = []
        for ref in sorted(glob.glob(os.path.join(d, f, "fp32", "*.npy"))):
            name = os.path.basename(ref)
            b = np.load(ref).astype(np.float64).ravel()
            a = np.load(os.path.join(d, f, p, name)).astype(np.float64).ravel()
            cos = np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))
            res.append((name[:-4], cos, np.abs(a - b).max(), cos >= GATE[p]))
        ok = all(r[3] for r in res)
        bad += not ok
        engines = [l.split(": ", 1)[1].strip() for l in open(os.path.join(d, f, p + ".log"))
                   if l.startswith("rkbare compile: NPU ")]
        print("families: %-12s %s %s (gate cosine >= %g) %s; %s" % (
            f, p, "PASS" if ok else "FAIL", GATE[p],
            ", ".join("%s cosine %.5f max |error| %.4g" % r[:3] for r in res),
            engines[0] if engines else "no NPU/CPU line"))
sys.exit(1 if bad else 0 if ran else 77)
PY
