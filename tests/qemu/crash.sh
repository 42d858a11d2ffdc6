#!/bin/sh
# rkbare.selftest=crash / =undef: the exception vectors print a crash
# report (class, ESR, FAR, ELR, SPSR, registers) and the run fails.
. "$(dirname "$0")/lib.sh"

run_qemu "$IMG_DIR/Image" "rkbare.selftest=crash"
expect_nonzero
expect_line "*** rkbare crash: synchronous exception from current EL, SP_ELx"
# A load from VA 4 GiB, outside the 32-bit VA range: translation fault at
# level 0, read (ESR 0x96000004: EC 0x25, IL, DFSC 0x04; Arm ARM D17.2.37).
expect_line "class  Data Abort (same EL) (EC 0x25)"
expect_line "ESR    0x0000000096000004"
expect_line "FAR    0x0000000100000000"
expect_line "ELR    0x"
expect_line "SPSR   0x"
expect_line "x0  0x0000000100000000"
expect_line "x30 0x"
expect_no_line "rkbare: exit status 0"

run_qemu "$IMG_DIR/Image" "rkbare.selftest=undef"
expect_nonzero
# UDF: EC 0 with IL set (ESR 0x02000000).
expect_line "class  Unknown reason (undefined instruction) (EC 0x00)"
expect_line "ESR    0x0000000002000000"
