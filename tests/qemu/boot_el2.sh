#!/bin/sh
# Enter at EL2 (virtualization=on, as U-Boot enters on RK3588): the image
# drops to EL1 and runs the same way, MMIO trap included.
. "$(dirname "$0")/lib.sh"

run_qemu "$IMG_DIR/Image" "rkbare.selftest=mmio" -machine virtualization=on
expect_status 0
expect_line "exception level: EL1 (entered at EL2)"
expect_line "timer: 62500000 Hz"
expect_line "selftest: FP/SIMD registers preserved"
