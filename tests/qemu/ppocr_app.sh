#!/bin/sh
# PP-OCRv4 text detection in the image under QEMU (make run
# MODEL=ppocr_det): the int8 container the build compiles, created once and
# run on both halves of the photographed page, each map post-processed by
# the DB example (examples/ppocr_det) in the image. Its boxes must equal
# those of the same container run by the host tool (rkbare infer, then
# ppocr_db), which tests/onnx/ppocr_det.sh holds against onnxruntime. The
# default image is rebuilt afterwards for the tests that follow.
. "$(dirname "$0")/lib.sh"

DATA=$ROOT/build/models/ppocr_det
BOOT_TIMEOUT=300
model_image ppocr_det
run_qemu "$IMG_DIR/Image" ""
expect_status 0
expect_line "model: 'PP-OCRv4 det int8'"

"$ROOT/build/host/rkbare" infer "$DATA/ppocr_det.rkb" --input "x=$DATA/test.npy" \
	--output-dir "$TMP/host" >/dev/null || fail "rkbare infer"
/usr/bin/python3 - "$TMP" <<'PY' || fail "splitting the host's maps"
import os
import sys
import numpy as np
d = sys.argv[1]
maps = np.load(os.path.join(d, "host", "sigmoid_0.tmp_0.npy"))
for i in range(maps.shape[0]):
    np.save(os.path.join(d, "map%d.npy" % i), maps[i:i + 1])
PY
for i in 0 1; do
	"$ROOT/build/host/cli/ppocr_db" "$TMP/map$i.npy" >"$TMP/db$i" || fail "ppocr_db"
	grep "^box " "$TMP/db$i" >"$TMP/boxes$i" || true
	expect_line "model: sample $i: $(wc -l <"$TMP/boxes$i") text box(es)"
	while IFS= read -r line; do
		expect_line "model:   $line"
	done <"$TMP/boxes$i"
done
echo "ppocr_app: $(grep -c 'model:   box' "$OUT") boxes on QEMU, as the host tool;" \
	"$(sed -n 's/^model: \([0-9]* inference(s), [0-9]* us each\).*/\1/p' "$OUT")"
