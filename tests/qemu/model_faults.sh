#!/bin/sh
# The embedded model under injected NPU faults (rkbare.app=model runs only
# the model; rkbare.fault arms the NPU model): a hang, a DMA read or write
# error, completion after the driver gave up, the other bit of a status
# pair, or completion late by a few polls each leave the image's
# predictions and accuracy those of the fault-free run (which
# model_app.sh checks against onnxruntime); a failed job is run once more
# and the image says so; the exit status is 0.
. "$(dirname "$0")/lib.sh"

run_qemu "$IMG_DIR/Image" "rkbare.app=model"
expect_status 0
want=$(mktemp)
trap 'rm -f "$want" "$OUT" "$OUT.raw"' EXIT
grep -E "^model: (sample [0-9]+: class|accuracy)" "$OUT" > "$want"
[ -s "$want" ] || fail "no predictions in the fault-free run"

for spec in hang dma_read dma_write late half_status poll=5; do
	run_qemu "$IMG_DIR/Image" "rkbare.app=model rkbare.fault=$spec"
	expect_status 0
	while IFS= read -r line; do
		expect_line "$line"
	done < "$want"
	case $spec in
	hang|dma_read|dma_write|late)
		expect_line "model: 1 inference(s) run again after a failed NPU job" ;;
	*)	expect_no_line "run again" ;;
	esac
	echo "model_faults: $spec: predictions and accuracy as without the fault"
done
