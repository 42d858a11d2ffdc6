#!/bin/sh
# Done-when of the NPU model: a stream written from a third-party
# generator's published register values (MTX fp16 → fp32 matmul, M=4 K=32
# N=16; tests/data/mtx_matmul_fp16_4x32x16.regcmd) run through `rkbare sim`
# with the documented data layouts gives the exact matmul result.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
make --no-print-directory -s host cli-helpers >/dev/null

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
data=build/host/cli/mtx_matmul_data

"$data" gen "$tmp"
# C is pre-filled with NaNs so an unwritten result cannot pass.
build/host/rkbare sim --regcmd tests/data/mtx_matmul_fp16_4x32x16.regcmd \
	--load 0x10000000="$tmp/a.bin" --load 0x20000000="$tmp/b.bin" \
	--load 0x30000000="$tmp/c_fill.bin" \
	--save 0x30000000:256="$tmp/c.bin"
"$data" check "$tmp/c.bin"
