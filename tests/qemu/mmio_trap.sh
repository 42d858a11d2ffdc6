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

# Only 32-bit accesses are emulated: a 64-bit LDR into the window is
# refused by the decoder and reported as the external abort it is.
run_qemu "$IMG_DIR/Image" "rkbare.selftest=mmio-wide"
expect_nonzero
expect_line "is not a 32-bit LDR/STR without writeback"
expect_line "class  Data Abort (same EL) (EC 0x25)"
expect_line "synchronous external abort, FSC 0x10, read"
expect_line "FAR    0x00000000fdab0000"
