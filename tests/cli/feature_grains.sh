#!/bin/sh
# Every task the lowering emits writes CNA CONV_CON2 feature_grains as its
# input rows + 1, as the board-run generators do: never wrapped by the
# field's 10 bits, so a map taller than 1022 rows is cut into tasks that
# fit (compiler/lower_tile.c; docs/HARDWARE.md §9, item 6). Convolutions
# and matmuls (M on the height) below, at and past the limit, read from
# `rkbare regcmd`'s disassembly.
set -eu
cd "$(dirname "$0")/../.."
make --no-print-directory -s host >/dev/null
RKBARE=build/host/rkbare
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
check() {
	"$RKBARE" regcmd "$@" >"$tmp"
	/usr/bin/python3 - "$tmp" "$*" <<'PY'
import re
import sys
grains, heights = [], []
for line in open(sys.argv[1]):
    m = re.search(r"CNA\.CONV_CON2 .*feature_grains=(\S+)", line)
    if m:
        grains.append(int(m.group(1), 0))
    m = re.search(r"CNA\.DATA_SIZE0 .*datain_height=(\S+)", line)
    if m:
        heights.append(int(m.group(1), 0))
if not grains or len(grains) != len(heights):
    sys.exit("feature_grains: %s: %d CONV_CON2 and %d DATA_SIZE0 writes" %
             (sys.argv[2], len(grains), len(heights)))
bad = [(g, h) for g, h in zip(grains, heights) if g != h + 1]
if bad:
    sys.exit("feature_grains: %s: feature_grains, height %s (want height + 1)" %
             (sys.argv[2], bad[:4]))
print("feature_grains: %s: %d task(s), rows %s" % (sys.argv[2], len(heights),
                                                  "+".join(str(h) for h in heights)))
PY
}
check conv --h 1022 --w 1 --c 16 --oc 16 --k 1
check conv --h 2040 --w 1 --c 16 --oc 16 --k 1
check conv --h 1500 --w 2 --c 16 --oc 16 --k 3 --same
check matmul --type int8:int32 --m 1500 --k 32 --n 32
check matmul --type fp16:fp32 --m 2047 --k 32 --n 16
