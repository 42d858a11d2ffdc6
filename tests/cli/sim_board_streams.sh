#!/bin/sh
# Board-run generators' register values (allbilly/rk3588
# experimental/kernel_6_18/*.py, experimental/gemm_int8.py, reproduced in
# tests/data/board_*.regcmd) in `rkbare sim` against numpy
# (tests/cli/board_streams.py): every stream must run and match. Then
# the row-major GEMM reading (sim/ASSUMPTIONS.md A31) refuses what it does
# not cover: a notch that makes the DPU write an atom twice, and
# group_line_off with a surface stride; the element-wise streams at the
# TRM's reset state (A36) and the LUT without its upload (A35) are refused;
# int4 (A40) beyond what the board-run int4 matmul writes is refused by name.
set -u
CMD=sim
. "$(dirname "$0")/lib.sh"
/usr/bin/python3 tests/cli/board_streams.py "$rk" --strict \
	tests/data/board_pool.regcmd tests/data/board_pool_multicore.regcmd \
	tests/data/board_conv_gemm.regcmd tests/data/board_gemm.regcmd \
	tests/data/board_gemm_tall.regcmd tests/data/board_elementwise.regcmd \
	tests/data/board_silu.regcmd tests/data/board_int4.regcmd || failures=$((failures + 1))

# gemm_int8.py 32x32x32: DPU notch 7 (lines of 8 atoms) -> 3, CNA DMA_CON2 0 -> 4
awk '/^#! case gemm_int8_32x32x32/{f=1;next} /^#! case/{f=0} f && !/^#/' \
	tests/data/board_gemm.regcmd >"$tmp/g.regcmd"
sed 's/^1001000700074038$/1001000300034038/' "$tmp/g.regcmd" >"$tmp/notch.regcmd"
expect 1 "writes an atom twice" --regcmd "$tmp/notch.regcmd"
sed 's/^0201000000001080$/0201000000041080/' "$tmp/g.regcmd" >"$tmp/surf.regcmd"
expect 1 "group_line_off with a 1-pixel row / surface stride 4" --regcmd "$tmp/surf.regcmd"

# elementwise.py's add as written, without the earlier task's BS/BN/EW_CVT
# state: BS at its reset value 0 selects a reserved ALU algorithm
awk '/^#! case add /{f=1;next} /^#! case/{f=0} f && !/^#/' \
	tests/data/board_elementwise.regcmd |
	grep -v -e '^1001000000534040$' -e '^1001000000534060$' -e '^1001000000014078$' \
	>"$tmp/add_reset.regcmd"
expect 1 "BS_CFG 0x0: ALU algorithm 0 is reserved" --regcmd "$tmp/add_reset.regcmd"

# silu.py without its table upload: the LUT reads entries never written
awk '/^#! case silu /{f=1;next} /^#! case/{f=0} f && !/^#/' tests/data/board_silu.regcmd |
	grep -v -e '4100$' -e '4104$' >"$tmp/silu_bare.regcmd"
expect 1 "entry 0 of the LE table is read but was not written" \
	--regcmd "$tmp/silu_bare.regcmd"
# ... and with one entry too many: a write past the end of a table
awk '/^#! case silu /{f=1;next} /^#! case/{f=0} f && !/^#/' tests/data/board_silu.regcmd |
	sed '0,/^1001000300004100$/s//1001000300004100\n1001000000004104/' \
	>"$tmp/silu_over.regcmd"
expect 1 "a write went past entry 512" --regcmd "$tmp/silu_over.regcmd"

# gen_matmul_int4 4x64x64 with DPU out_precision 4 (int32), and with CNA
# proc_precision 0 under int4 data: no board-run stream writes either
awk '/^#! case int4_4x64x64/{f=1;next} /^#! case/{f=0} f && !/^#/' \
	tests/data/board_int4.regcmd >"$tmp/i4.regcmd"
sed 's/^1001380000064010$/1001980000064010/' "$tmp/i4.regcmd" >"$tmp/i4_out32.regcmd"
expect 1 "int4 data is modelled only from the CORE to an int16 output" \
	--regcmd "$tmp/i4_out32.regcmd"
sed 's/^020100000360100c$/020100000060100c/' "$tmp/i4.regcmd" >"$tmp/i4_mixed.regcmd"
expect 1 "CNA in/proc precision 6/0" --regcmd "$tmp/i4_mixed.regcmd"
[ "$failures" -eq 0 ]
