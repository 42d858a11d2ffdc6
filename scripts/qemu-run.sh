#!/bin/sh
# Boots an image under QEMU (virt, cortex-a76) and returns the image's own
# exit status (semihosting SYS_EXIT; docs/BOOT.md). `make run` calls it.
# usage: qemu-run.sh IMAGE "BOOTARGS" [QEMU FLAGS...]
set -u
image=$1
args=$2
shift 2
timeout 60 "${QEMU:-qemu-system-aarch64}" "$@" -kernel "$image" -append "$args"
status=$?
if [ "$status" -eq 124 ]; then
	echo "qemu-run: no exit within 60 s" >&2
else
	echo "qemu-run: image exit status $status"
fi
exit "$status"
