#!/bin/sh
# The default application under QEMU: the unchanged driver brings the NPU
# model up through trapped MMIO, runs int8 matmuls on each core and on all
# three, and the image checks them against its CPU product. Injected faults
# must end in the documented recovery (timeout or DMA error → core reset →
# the same job exact) or, for bring-up faults, in a named probe error.
. "$(dirname "$0")/lib.sh"

expect_all_exact() {
	for job in "core 0" "core 1" "core 2" "cores 0-2"; do
		expect_line "app: $job: int8 matmul 16x64x96 in"
	done
	expect_no_line "MISMATCH"
	expect_line "app: all NPU results exact"
	expect_status 0
}

run_qemu "$IMG_DIR/Image" ""
expect_line "npu: cores 0x7 up (version 0x46495245)"
expect_no_line "job failed"
expect_all_exact

run_qemu "$IMG_DIR/Image" "rkbare.fault=hang"
expect_line "npu: core 0: job timed out"
expect_line "app: core 0: job failed (-2); injected fault, core reset, running again"
expect_all_exact

run_qemu "$IMG_DIR/Image" "rkbare.fault=late,core=2"
expect_line "npu: core 2: job timed out"
expect_all_exact

run_qemu "$IMG_DIR/Image" "rkbare.fault=dma_write,core=1"
expect_line "npu: core 1: DMA write error"
expect_all_exact

run_qemu "$IMG_DIR/Image" "rkbare.fault=half_status"
expect_no_line "job failed"
expect_all_exact

run_qemu "$IMG_DIR/Image" "rkbare.fault=bad_version"
expect_line "app: NPU bring-up failed: unexpected NPU version"
expect_nonzero

# Two one-shot faults: the job fails twice, says so, and then runs exact.
run_qemu "$IMG_DIR/Image" "rkbare.fault=hang,dma_read"
expect_line "app: core 0: job failed (-2); injected fault, core reset, running again"
expect_line "app: core 0: job failed (-1); injected fault, core reset, running again"
expect_no_line "WRONG"
expect_all_exact

# reset_stuck names its own core: a different core= is a contradiction.
run_qemu "$IMG_DIR/Image" "rkbare.fault=reset_stuck=1,core=0"
expect_line "reset_stuck names its own core"
expect_nonzero

run_qemu "$IMG_DIR/Image" "rkbare.fault=reset_stuck=2"
expect_line "npu: core 2 reset release"
expect_line "app: NPU bring-up failed"
expect_nonzero
