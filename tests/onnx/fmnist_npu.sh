#!/bin/sh
# The Fashion-MNIST model end to end on the NPU model: rkbare compile
# calibrates it to int8 and writes the container, rkbare infer runs it
# through the runtime, the driver and sim/; onnxruntime runs the QDQ model
# the same calibration produced (--save-qdq). Gates: every logit within
# 1 LSB of onnxruntime, top-1 accuracy within 0.5 point of it. The float
# model compiled with --precision fp16 runs too: its logits within 2^-8 of
# the largest float logit of their image (onnxruntime on the float model),
# its top-1 accuracy within 0.5 point of the float model's.
# FMNIST_COUNT test images (default 500; `make check-accuracy` runs 10000).
set -eu
cd "$(dirname "$0")/../.."
RKBARE=build/host/rkbare
COUNT=${FMNIST_COUNT:-500}
sh scripts/setup-npm.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 models/fashion_mnist/data.py "$tmp" "$COUNT"
"$RKBARE" compile models/fashion_mnist/fmnist_cnn.onnx --calib "$tmp/calib" \
	--save-qdq "$tmp/q.onnx" -o "$tmp/m.rkb"
"$RKBARE" compile models/fashion_mnist/fmnist_cnn.onnx --precision fp16 -o "$tmp/m16.rkb"
mkdir "$tmp/npu" "$tmp/ort" "$tmp/raw" "$tmp/fp16" "$tmp/fp32"
"$RKBARE" infer "$tmp/m.rkb" --raw --input image="$tmp/test.npy" --output-dir "$tmp/raw"
"$RKBARE" infer "$tmp/m16.rkb" --input image="$tmp/test.npy" --output-dir "$tmp/fp16"
node tests/onnx/ort_run.js models/fashion_mnist/fmnist_cnn.onnx --input image="$tmp/test.npy" \
	--output-dir "$tmp/fp32"
# float outputs (the runtime's dequantisation) on the first 20 images
/usr/bin/python3 -c "import numpy as np, sys; np.save(sys.argv[1], np.load(sys.argv[2])[:20])" \
	"$tmp/few.npy" "$tmp/test.npy"
"$RKBARE" infer "$tmp/m.rkb" --input image="$tmp/few.npy" --output-dir "$tmp/npu"
node tests/onnx/ort_run.js "$tmp/q.onnx" --input image="$tmp/test.npy" --output-dir "$tmp/ort"
/usr/bin/python3 - "$tmp" <<'PY'
import sys
import numpy as np
import onnx
from onnx import numpy_helper
d = sys.argv[1]
m = onnx.load(d + "/q.onnx")
init = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
dq = [n for n in m.graph.node if n.op_type == "DequantizeLinear" and n.output[0] == "logits"][0]
zpt = init[dq.input[2]]
scale, zp = float(init[dq.input[1]]), int(zpt)
# the NPU's raw values are int8: uint8 tensors are shifted by 128
shift = 128 if zpt.dtype == np.uint8 else 0
npu, ort = np.load(d + "/npu/logits.npy"), np.load(d + "/ort/logits.npy")
raw = np.load(d + "/raw/logits.npy").astype(np.int32)
labels = np.load(d + "/labels.npy")
# onnxruntime's quantised logits in the NPU's signed domain
ort_q = np.round(ort / scale).astype(np.int32) + zp - shift
lsb = np.abs(raw - ort_q).max()
acc_npu, acc_ort = (raw.argmax(1) == labels).mean(), (ort.argmax(1) == labels).mean()
print("fmnist_npu: %d images: max |NPU - onnxruntime| = %d LSB, %.2f%% of logits differ, "
      "top-1 agree %.2f%%, accuracy NPU %.4f onnxruntime %.4f"
      % (len(labels), lsb, 100 * (raw != ort_q).mean(),
         100 * (raw.argmax(1) == ort.argmax(1)).mean(), acc_npu, acc_ort))
want = scale * (raw[:len(npu)] - zp + shift)
deq = np.allclose(npu, want, rtol=1e-6, atol=1e-6 * scale)
if not deq:
    print("fmnist_npu: float outputs differ from the dequantised raw ones by %g"
          % np.abs(npu - want).max())
h, f = np.load(d + "/fp16/logits.npy"), np.load(d + "/fp32/logits.npy")
rel = (np.abs(h - f).max(1) / np.abs(f).max(1)).max()
acc_h, acc_f = (h.argmax(1) == labels).mean(), (f.argmax(1) == labels).mean()
print("fmnist_npu: fp16: max |fp16 - fp32| %.2g of the image's largest logit, top-1 agree "
      "%.2f%%, accuracy fp16 %.4f float %.4f"
      % (rel, 100 * (h.argmax(1) == f.argmax(1)).mean(), acc_h, acc_f))
ok = lsb <= 1 and abs(acc_npu - acc_ort) <= 0.005 and deq
ok = ok and rel <= 2.0 ** -8 and abs(acc_h - acc_f) <= 0.005
sys.exit(0 if ok else 1)
PY
