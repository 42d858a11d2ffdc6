#!/bin/sh
# The NPU window is not backed in QEMU: a read of core 0's PC VERSION
# register (0xfdab0000) faults, the data-abort handler decodes the LDR,
# the NPU model answers, and execution resumes with q0-q31 intact. With the
# NPU unpowered at reset the model answers 0 (silicon would hang the bus).
. "$(dirname "$0")/lib.sh"

run_qemu "$IMG_DIR/Image" "rkbare.selftest=mmio"
expect_status 0
expect_line "selftest: MMIO read 0xfdab0000 = 0x00000000 (1 trapped access)"
expect_line "selftest: FP/SIMD registers preserved"
