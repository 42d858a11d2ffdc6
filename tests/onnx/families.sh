#!/bin/sh
# The network families users deploy, as architecture-faithful graphs
# (tests/onnx/families_gen.py: MobileNetV2, MobileNetV3, ResNet-18 with
# unfused BatchNormalization, YOLOv8n backbone + neck + detect head, YOLOv5s
# with its export's rank-5 box decoding, a PP-OCR-rec-like transformer
# block, a segmentation head; He-initialised random weights, fixed seeds),
# each compiled in fp16 and in int8 (calibrated on four photographs), run
# by the runtime on the NPU model on a fifth, against onnxruntime fp32 on
# the float model. Gate per output:
# cosine >= 0.999 (fp16), >= 0.98 (int8). Each op's int8 output is then
# held against an exact reference: compiled again with --pow2-scales (every
# requantisation a shift the NPU and onnxruntime round alike), `rkbare
# compare` reads each op's output (one stage per op) against onnxruntime
# running the QDQ model the calibration wrote, every tensor a graph output
# (all_tensors.py): each op whose inputs are exactly onnxruntime's (graph
# inputs, or outputs 0 LSB apart) at most 1 LSB apart. An op downstream of a
# 1-LSB difference (a rounding the NPU makes the other way) is only
# reported, as is an op whose output is no ONNX tensor (a step of a CPU op
# chain); the dataflow is read from `rkbare info`. A third container is
# int8 with 10 activations left in fp16 (--keep-float-auto, hybrid
# quantisation): held to the int8 gate against fp32 and, per output, to
# cosine >= 0.998 against onnxruntime running the QDQ model it was compiled
# from (its float ops in fp32, rkbare's in fp16).
# One summary line per family and precision: PASS, or FAIL (a gate missed,
# or the compile's refusal named: every family compiles). Exit 1 if any
# family fails, else 0.
set -eu
cd "$(dirname "$0")/../.."
RKBARE=build/host/rkbare
FAMILIES="${FAMILIES:-mobilenet_v2 mobilenet_v3 resnet18 yolov8n yolov5s ppocr_rec seg_head}"
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
	[ -f "$tmp/$f/int8.refused" ] && continue
	"$RKBARE" compile "$tmp/$f.onnx" --calib "$tmp/$f/calib" --keep-float-auto 10 \
		--save-qdq "$tmp/$f/hybrid_qdq.onnx" -o "$tmp/$f/hybrid.rkb" >"$tmp/$f/hybrid.log"
	"$RKBARE" infer "$tmp/$f/hybrid.rkb" --input "x=$tmp/$f/x.npy" \
		--output-dir "$tmp/$f/hybrid" >/dev/null
	node tests/onnx/ort_run.js "$tmp/$f/hybrid_qdq.onnx" --input "x=$tmp/$f/x.npy" \
		--output-dir "$tmp/$f/hybrid_qdq" 2>/dev/null
	"$RKBARE" compile "$tmp/$f.onnx" --calib "$tmp/$f/calib" --pow2-scales \
		--save-qdq "$tmp/$f/qdq.onnx" -o "$tmp/$f/pow2.rkb" >/dev/null
	/usr/bin/python3 tests/onnx/all_tensors.py "$tmp/$f/qdq.onnx" "$tmp/$f/qdq_all.onnx"
	node tests/onnx/ort_run.js "$tmp/$f/qdq_all.onnx" --input "x=$tmp/$f/x.npy" \
		--output-dir "$tmp/$f/qdq" --rkbare-names 2>/dev/null
	"$RKBARE" compare "$tmp/$f/qdq.onnx" "$tmp/$f/pow2.rkb" --input "x=$tmp/$f/x.npy" \
		--ref-dir "$tmp/$f/qdq" >"$tmp/$f/lsb.txt"
	"$RKBARE" info "$tmp/$f/pow2.rkb" >"$tmp/$f/pow2.info"
done
/usr/bin/python3 - "$tmp" $FAMILIES <<'PY'
import glob
import os
import re
import sys
import numpy as np
d, families = sys.argv[1], sys.argv[2:]
GATE = {"fp16": 0.999, "int8": 0.98, "hybrid": 0.98}
QDQ_AGREE = 0.998	# hybrid against onnxruntime on its own QDQ model
bad = 0


def per_op(f):
    """compare's "= N LSB" per op, gated where the op's inputs were exact."""
    lsb = {}		# op -> LSB apart, None without an ONNX tensor
    for l in open(os.path.join(d, f, "lsb.txt")):
        m = re.match(r"op +(\d+) .*?(?:= (\S+) LSB|\(no reference[^)]*\))$", l.rstrip())
        if m:
            lsb[int(m.group(1))] = float(m.group(2)) if m.group(2) else None
    ins, producer = {}, {}
    for l in open(os.path.join(d, f, "pow2.info")):
        m = re.match(r" +(\d+) (?:NPU|CPU) .*? (\d+)(?: \+ (\d+))? -> (\d+)", l)
        if m:
            k = int(m.group(1))
            ins[k] = [int(t) for t in m.group(2, 3) if t is not None]
            producer[int(m.group(4))] = k
    if not lsb or set(lsb) != set(ins):
        return False, "compare lists ops %s, info %s" % (sorted(lsb), sorted(ins))
    exact = lambda t: t not in producer or lsb[producer[t]] == 0
    iso = [k for k in ins if lsb[k] is not None and all(exact(t) for t in ins[k])]
    down = [k for k in ins if lsb[k] is not None and k not in iso]
    far = [k for k in iso if lsb[k] > 1.0]
    worst = lambda ks: max([lsb[k] for k in ks] or [0])
    return not far, ("%d ops; %d with exact inputs, at most %g LSB (gate 1)%s; %d after an op "
                     "1 LSB apart or without an ONNX tensor, at most %g LSB; %d without an "
                     "ONNX tensor" %
                     (len(ins), len(iso), worst(iso), ", beyond: ops %s" % far if far else "",
                      len(down), worst(down), len(ins) - len(iso) - len(down)))

for f in families:
    for p in ("fp16", "int8", "hybrid"):
        refused = os.path.join(d, f, p + ".refused")
        if p == "hybrid" and os.path.exists(os.path.join(d, f, "int8.refused")):
            continue
        if os.path.exists(refused):
            why = open(refused).read().strip().replace(d + "/", "")
            print("families: %-12s %s FAIL (compile refused: %s)" % (f, p, why))
            bad += 1
            continue
        res = []
        for ref in sorted(glob.glob(os.path.join(d, f, "fp32", "*.npy"))):
            name = os.path.basename(ref)
            b = np.load(ref).astype(np.float64).ravel()
            a = np.load(os.path.join(d, f, p, name)).astype(np.float64).ravel()
            cos = np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))
            ok = cos >= GATE[p]
            if p == "hybrid":
                q = np.load(os.path.join(d, f, "hybrid_qdq", name)).astype(np.float64).ravel()
                agree = np.dot(a, q) / (np.linalg.norm(a) * np.linalg.norm(q))
                print("families: %-12s hybrid %s cosine %.5f with onnxruntime on its QDQ "
                      "model (gate %g)" % (f, name[:-4], agree, QDQ_AGREE))
                ok = ok and agree >= QDQ_AGREE
            res.append((name[:-4], cos, np.abs(a - b).max(), ok))
        ok = all(r[3] for r in res)
        bad += not ok
        engines = [l.split(": ", 1)[1].strip() for l in open(os.path.join(d, f, p + ".log"))
                   if l.startswith("rkbare compile: NPU ")]
        print("families: %-12s %s %s (gate cosine >= %g) %s; %s" % (
            f, p, "PASS" if ok else "FAIL", GATE[p],
            ", ".join("%s cosine %.5f max |error| %.4g" % r[:3] for r in res),
            engines[0] if engines else "no NPU/CPU line"))
        if p == "int8":
            ok, line = per_op(f)
            bad += not ok
            print("families: %-12s int8 %s per op (pow2 scales) against the QDQ model: %s" %
                  (f, "PASS" if ok else "FAIL", line))
sys.exit(1 if bad else 0)
PY
