#!/bin/sh
# The board-run generator streams the model does not run yet
# (tests/data/board_*.regcmd): skipped (77) while the model refuses them,
# each naming the missing feature; one that runs must match numpy.
set -eu
cd "$(dirname "$0")/../.."
make --no-print-directory -s host >/dev/null
exec /usr/bin/python3 tests/cli/board_streams.py build/host/rkbare \
	tests/data/board_elementwise.regcmd tests/data/board_silu.regcmd \
	tests/data/board_gemm_unmodelled.regcmd
