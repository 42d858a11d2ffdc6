#!/bin/sh
# The image's default model under QEMU: the Fashion-MNIST container the
# build compiled, created once and run on the 32 embedded test images. The
# image's predictions and accuracy must equal onnxruntime's on the QDQ
# model the same calibration produces (rkbare compile --save-qdq).
. "$(dirname "$0")/lib.sh"

DATA=$ROOT/build/models/fmnist
run_qemu "$IMG_DIR/Image" ""
expect_line "model: 'fashion-mnist cnn int8': 6 ops, 6 NPU tasks"
expect_status 0

sh "$ROOT/scripts/setup-npm.sh" >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$OUT" "$OUT.raw"' EXIT
"$ROOT/build/host/rkbare" compile "$ROOT/models/fashion_mnist/fmnist_cnn.onnx" \
	--calib "$DATA/calib" --save-qdq "$tmp/q.onnx" -o "$tmp/m.rkb" >/dev/null ||
	fail "rkbare compile"
node "$ROOT/tests/onnx/ort_run.js" "$tmp/q.onnx" --input image="$DATA/test.npy" \
	--output-dir "$tmp" || fail "onnxruntime"
/usr/bin/python3 - "$tmp/logits.npy" "$DATA/labels.npy" > "$tmp/want" <<'PY'
import sys
import numpy as np
pred, labels = np.load(sys.argv[1]).argmax(1), np.load(sys.argv[2])
for i in range(8):
    print("model: sample %d: class %d (label %d)" % (i, pred[i], labels[i]))
print("model: accuracy %d/%d" % ((pred == labels).sum(), len(labels)))
PY
while IFS= read -r line; do
	expect_line "$line"
done < "$tmp/want"
expect_line "model: core mask 0x1: 1 kick(s), 6 NPU task(s) per inference"
echo "model_app: $(grep 'model: accuracy' "$OUT") on QEMU, as onnxruntime"

# The same model spread over the three cores through the driver and the
# trapped MMIO: the same predictions, several kicks.
run_qemu "$IMG_DIR/Image" "rkbare.app=model rkbare.cores=0,1,2"
expect_status 0
while IFS= read -r line; do
	expect_line "$line"
done < "$tmp/want"
kicks=$(sed -n 's/.*core mask 0x7: \([0-9]*\) kick(s).*/\1/p' "$OUT")
[ "${kicks:-0}" -gt 1 ] || fail "rkbare.cores=0,1,2: ${kicks:-no} kicks per inference"
echo "model_app: on cores 0,1,2 the same predictions, $kicks kicks per inference"
