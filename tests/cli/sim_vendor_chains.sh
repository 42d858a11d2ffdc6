#!/bin/sh
# The vendor runtime's live-captured register streams (allbilly/rk3588
# experimental/rknn/, transcribed in tests/data/vendor_*.regcmd): every
# chain of the 1-, 2- and 3-core forms, relocated into our buffers, runs in
# `rkbare sim` on its core and matches numpy (tests/cli/vendor_chains.py).
set -eu
cd "$(dirname "$0")/../.."
make --no-print-directory -s host >/dev/null
fails=0
for f in tests/data/vendor_*.regcmd; do
	/usr/bin/python3 tests/cli/vendor_chains.py build/host/rkbare "$f" || fails=$((fails + 1))
done
[ "$fails" -eq 0 ]
