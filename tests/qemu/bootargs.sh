#!/bin/sh
# Boot arguments reach the image through /chosen/bootargs (QEMU -append):
# echoed, parsed, unknown rkbare.* keys warned about, bad input refused.
. "$(dirname "$0")/lib.sh"

run_qemu "$IMG_DIR/Image" 'rkbare.bogus=1 other="a b" rkbare.fault=poll=2'
expect_status 0
expect_line 'bootargs: "rkbare.bogus=1 other="a b" rkbare.fault=poll=2"'
expect_line "unknown option 'rkbare.bogus' ignored"
expect_no_line "unknown option 'other'"
expect_line "NPU model faults: poll=2"

run_qemu "$IMG_DIR/Image" 'rkbare.model="unterminated'
expect_status 2
expect_line "bootargs: unterminated quote"

run_qemu "$IMG_DIR/Image" 'rkbare.fault=melt'
expect_status 2
expect_line "invalid rkbare.fault='melt'"

run_qemu "$IMG_DIR/Image" 'rkbare.selftest=nonsense'
expect_status 2
expect_line "unknown test 'nonsense'"

# A terminal escape in the command line (ESC [2J clears the screen) is
# refused, and neither the echo of the line nor the error sends the ESC
# byte to the console: it reads \x1b.
esc=$(printf '\033')
run_qemu "$IMG_DIR/Image" "rkbare.app=${esc}[2Jx"
expect_status 2
expect_line 'bootargs: "rkbare.app=\x1b[2Jx"'
expect_line "control character in value (byte 0x1b) at column 12"
expect_no_line "$esc"
