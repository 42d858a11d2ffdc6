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
# C is pre-filled with NaNs so an unwritten result cannot pass. Every core:
# each one has its own power domain, clocks and resets to bring up.
for core in 0 1 2; do
	build/host/rkbare sim --regcmd tests/data/mtx_matmul_fp16_4x32x16.regcmd --core "$core" \
		--load 0x10000000="$tmp/a.bin" --load 0x20000000="$tmp/b.bin" \
		--load 0x30000000="$tmp/c_fill.bin" \
		--save 0x30000000:256="$tmp/c.bin"
	"$data" check "$tmp/c.bin"
	rm "$tmp/c.bin"
done

# The same task twice in one PC kick, chained as HARDWARE.md §3.5 describes:
# task 0's tail points at task 1 (64-byte aligned: 108 qwords → +0x380)
# with PC_REGISTER_AMOUNTS = ceil(108 / 2) - 1 = 53; task 1 writes its
# result at C + 0x1000.
stream=tests/data/mtx_matmul_fp16_4x32x16.regcmd
{
	grep -v '^#' "$stream" | sed -n '1,104p'
	echo 0101080003800010	# PC_BASE_ADDRESS = 0x08000380
	echo 0101000000350014	# PC_REGISTER_AMOUNTS = 53
	grep -v '^#' "$stream" | sed -n '107,108p'
	printf '0000000000000000\n%.0s' 1 2 3 4
	grep -v '^#' "$stream" | sed 's/^1001300000004020/1001300010004020/'
} >"$tmp/chain.regcmd"
build/host/rkbare sim --regcmd "$tmp/chain.regcmd" --regcmd-addr 0x08000000 \
	--load 0x10000000="$tmp/a.bin" --load 0x20000000="$tmp/b.bin" \
	--load 0x30000000="$tmp/c_fill.bin" --load 0x30001000="$tmp/c_fill.bin" \
	--save 0x30000000:256="$tmp/c0.bin" --save 0x30001000:256="$tmp/c1.bin" >"$tmp/out"
grep -q '^completed: 2 task(s) on core 0, 1 kick(s), task counter 2$' "$tmp/out"
"$data" check "$tmp/c0.bin"
"$data" check "$tmp/c1.bin"
