#!/bin/sh
# Boot the raw arm64 Image the way U-Boot's booti would be emulated by QEMU
# -kernel: header accepted, x0 = DTB, banner values match what QEMU 7.2
# provides (HARDWARE.md §B.5-5.5), exit status 0 via semihosting.
. "$(dirname "$0")/lib.sh"

run_qemu "$IMG_DIR/Image" ""
expect_status 0
expect_line "rkbare on qemu-virt"
expect_line "exception level: EL1 (entered at EL1)"
# Image payload with >= 256 MiB RAM: DTB at RAM base + 128 MiB.
expect_line "dtb: 0x48000000"
# -m 1G: one bank at the virt RAM base.
expect_line "RAM: 0x40000000-0x7fffffff (1024 MiB)"
expect_line "D-cache line: 64 bytes"
expect_line "timer: 62500000 Hz"
expect_line "DMA region: 0x"
expect_line "rkbare: exit status 0"

# The RAM size really comes from the DTB: boot again with 512 MiB.
QEMU_FLAGS=$(qemu_flags QEMU_MEM=512M)
run_qemu "$IMG_DIR/Image" ""
expect_status 0
expect_line "RAM: 0x40000000-0x5fffffff (512 MiB)"
