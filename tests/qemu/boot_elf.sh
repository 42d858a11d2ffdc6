#!/bin/sh
# Boot the ELF with QEMU -kernel: x0 = 0, so the image must find the DTB
# QEMU wrote at RAM base (HARDWARE.md §B.5) and validate it.
. "$(dirname "$0")/lib.sh"

run_qemu "$IMG_DIR/rkbare.elf" ""
expect_status 0
expect_line "rkbare on qemu-virt"
expect_line "dtb: 0x40000000"
expect_line "RAM: 0x40000000-0x7fffffff (1024 MiB)"
expect_line "rkbare: exit status 0"
