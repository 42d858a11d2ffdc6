#!/bin/sh
# A client of rknn_api.h alone (examples/rknn_classify.c: init from a
# buffer, query, NHWC uint8 input, run, float outputs, release, destroy),
# built against the host library, on the container the boot image embeds
# and the image's own 32 samples as uint8 pixels: its printed classes and
# accuracy must be the image's under QEMU, line for line.
. "$(dirname "$0")/lib.sh"

DATA=$ROOT/build/models/fmnist
CLIENT=$ROOT/build/host/cli/rknn_classify
make -s --no-print-directory -C "$ROOT" build/host/cli/rknn_classify >/dev/null ||
	fail "building the client"
run_qemu "$IMG_DIR/Image" ""
expect_status 0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$OUT" "$OUT.raw"' EXIT
# the samples are pixels / 255 (float32 NCHW): the same pixels as uint8 NHWC
/usr/bin/python3 - "$DATA" "$tmp" <<'PY' || fail "converting the samples"
import sys
import numpy as np
d, t = sys.argv[1], sys.argv[2]
x = np.load(d + "/test.npy")
px = np.round(x * 255.0)
assert np.abs(px / 255.0 - x).max() < 1e-6, "the samples are not whole pixels"
px.transpose(0, 2, 3, 1).astype(np.uint8).tofile(t + "/images.u8")
np.load(d + "/labels.npy").astype(np.uint8).tofile(t + "/labels.u8")
PY
"$CLIENT" "$DATA/fmnist.rkb" "$tmp/images.u8" "$tmp/labels.u8" > "$tmp/client" ||
	fail "the client failed"
grep '^model: sample\|^model: accuracy' "$tmp/client" > "$tmp/want"
[ "$(wc -l < "$tmp/want")" -eq 9 ] || fail "the client printed $(wc -l < "$tmp/want") lines"
while IFS= read -r line; do
	expect_line "$line"
done < "$tmp/want"
echo "rknn_client: $(grep 'model: accuracy' "$tmp/client"), 8 classes: the QEMU image's"
