#!/bin/sh
# Board-run generators' register values (allbilly/rk3588
# experimental/kernel_6_18/*.py, reproduced in tests/data/board_*.regcmd) in
# `rkbare sim` against numpy (tests/cli/board_streams.py): the streams the
# model runs must match.
set -eu
cd "$(dirname "$0")/../.."
make --no-print-directory -s host >/dev/null
exec /usr/bin/python3 tests/cli/board_streams.py build/host/rkbare \
	tests/data/board_pool.regcmd tests/data/board_pool_multicore.regcmd \
	tests/data/board_conv_gemm.regcmd
