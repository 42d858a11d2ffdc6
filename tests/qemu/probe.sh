#!/bin/sh
# The board probe image under QEMU: the NPU model answers, so every probe
# must read ok (the model agreeing, through the real driver, with the
# readings docs/HARDWARE.md and sim/ASSUMPTIONS.md document), the summary
# is printed, a subset runs alone, and an unknown id is an error.
. "$(dirname "$0")/lib.sh"

run_qemu "$IMG_DIR/Image" "rkbare.probe=all"
for id in version A9-m1 A9-m3 A12-ties A15-source A15-ties cores A7-bare A27-int32 A2-pairs \
	A28-fp16-bias A29-fp16-dw A20-fp16-add A34-residual; do
	expect_line "probe $id ok: "
done
expect_no_line " differs: "
expect_no_line " skipped: "
expect_line "---- probe summary (paste into an issue) ----"
expect_line "14 probes: 14 ok, 0 differs, 0 failed, 0 skipped"
expect_no_line "model: "
expect_status 0

run_qemu "$IMG_DIR/Image" "rkbare.probe=A9-m1,cores"
expect_line "probe A9-m1 ok: "
expect_line "probe cores ok: "
expect_no_line "probe version"
expect_line "2 probes: 2 ok"
expect_status 0

run_qemu "$IMG_DIR/Image" "rkbare.probe=nonsense"
expect_line "probe: 'nonsense' names no probe"
expect_nonzero

# A job that does not complete (the model's hang fault) is a failure of its
# own, with the driver's error, never a reading that differs.
run_qemu "$IMG_DIR/Image" "rkbare.probe=all rkbare.fault=hang"
expect_line " failed: the job failed ("
expect_no_line " differs: "
expect_line "0 differs, 1 failed"
expect_nonzero
