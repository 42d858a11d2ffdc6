#!/bin/sh
# Board-run generators' register values (allbilly/rk3588
# experimental/kernel_6_18/*.py, experimental/gemm_int8.py, reproduced in
# tests/data/board_*.regcmd) in `rkbare sim` against numpy
# (tests/cli/board_streams.py): the streams the model runs must match. Then
# the row-major GEMM reading (sim/ASSUMPTIONS.md A31) refuses what it does
# not cover: a notch that makes the DPU write an atom twice, and
# group_line_off with a surface stride.
set -u
CMD=sim
. "$(dirname "$0")/lib.sh"
/usr/bin/python3 tests/cli/board_streams.py "$rk" --strict \
	tests/data/board_pool.regcmd tests/data/board_pool_multicore.regcmd \
	tests/data/board_conv_gemm.regcmd tests/data/board_gemm.regcmd ||
	failures=$((failures + 1))

# gemm_int8.py 32x32x32: DPU notch 7 (lines of 8 atoms) -> 3, CNA DMA_CON2 0 -> 4
awk '/^#! case gemm_int8_32x32x32/{f=1;next} /^#! case/{f=0} f && !/^#/' \
	tests/data/board_gemm.regcmd >"$tmp/g.regcmd"
sed 's/^1001000700074038$/1001000300034038/' "$tmp/g.regcmd" >"$tmp/notch.regcmd"
expect 1 "writes an atom twice" --regcmd "$tmp/notch.regcmd"
sed 's/^0201000000001080$/0201000000041080/' "$tmp/g.regcmd" >"$tmp/surf.regcmd"
expect 1 "group_line_off with a 1-pixel row / surface stride 4" --regcmd "$tmp/surf.regcmd"
[ "$failures" -eq 0 ]
