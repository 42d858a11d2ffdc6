#!/bin/sh
# The board's CPU cost of the conversions and of the NPU model's portable
# convolution, counted: tests/bench/a64_count.c built with the image's
# flags (make img-cflags) against the image's objects, run under
# qemu-aarch64 -singlestep (one instruction a translation block, each
# logged once it executes: -d exec,nochain). Two sizes of each kernel; the
# difference of the counts over the difference of bytes (or MACs).
# Prints "KEY instructions-per-unit" lines.
set -eu
cd "$(dirname "$0")/../.."
CC=aarch64-linux-gnu-gcc
OBJ=build/rk3588/obj
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flags=$(make -s --no-print-directory BOARD=rk3588 img-cflags)

count() {	# NAME DEFINES...: instructions the program executes
	name=$1
	shift
	# shellcheck disable=SC2086
	$CC $flags -Wno-unused-function -Itests "$@" -static -nostartfiles -Wl,--gc-sections \
		-Wl,--no-warn-rwx-segments -T tests/bench/a64_count.ld tests/bench/a64_count.c \
		$OBJ/compiler/layout.c.o $OBJ/compiler/layout_wide.c.o -o "$tmp/$name"
	qemu-aarch64 -singlestep -d exec,nochain -D /dev/stdout "$tmp/$name" | grep -c '^Trace'

}

# per byte: 64 channels × PIXELS bytes
SMALL=256
BIG=512
# the buffers on 16-byte boundaries (as the runtime's arena), and one byte off
for k in 1:nchw_to_nc1hwc2 2:nhwc_to_nc1hwc2 3:nc1hwc2_to_nchw 4:u8_to_s8; do
	for off in 0 1; do
		a=$(count s -DKERNEL="${k%%:*}" -DPIXELS=$SMALL -DOFFSET=$off)
		b=$(count b -DKERNEL="${k%%:*}" -DPIXELS=$BIG -DOFFSET=$off)
		echo "a64_${k#*:}_off${off}_per_byte $(awk -v a="$a" -v b="$b" \
			-v n=$(( (BIG - SMALL) * 64 )) 'BEGIN { printf "%.2f", (b - a) / n }')"
	done
done
# per MAC: 8 × 8 positions × 3 × 3 × 32 per kernel
a=$(count s -DKERNEL=5 -DKERNELS=16)
b=$(count b -DKERNEL=5 -DKERNELS=32)
echo "a64_conv_per_mac $(awk -v a="$a" -v b="$b" -v n=$(( 16 * 64 * 288 )) \
	'BEGIN { printf "%.2f", (b - a) / n }')"
