#!/bin/sh
# rkbare sim --verify: a third-party matmul stream (the board-run mtx512
# generator's register values, tests/cli/mtx_stream.py) passes with its
# exact --load/--save ranges and runs exact; a --save range 16 bytes short,
# weights never loaded and an output moved into other memory are refused
# before the model runs, each naming the register and its address.
set -eu
cd "$(dirname "$0")/../.."
RKBARE=build/host/rkbare
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
len=$(/usr/bin/python3 tests/cli/mtx_stream.py "$tmp" int8 1 64 64 20261124)
refused() {	# WHAT PATTERN ARGS...
	what=$1 pattern=$2
	shift 2
	if "$RKBARE" sim --verify --regcmd "$tmp/s.regcmd" "$@" >/dev/null 2>"$tmp/err"; then
		echo "sim_verify: $what: accepted"; fails=$((fails + 1))
	elif ! grep -q -- "$pattern" "$tmp/err"; then
		echo "sim_verify: $what: refused without naming '$pattern':"; cat "$tmp/err"
		fails=$((fails + 1))
	else
		echo "sim_verify: $what: refused ($(sed -n 's/.*--verify: //p' "$tmp/err"))"
	fi
}
if "$RKBARE" sim --verify --regcmd "$tmp/s.regcmd" --load 0x10000000="$tmp/a.bin" \
	--load 0x20000000="$tmp/b.bin" --save 0x30000000:"$len"="$tmp/c.bin" >"$tmp/out" \
	2>&1 && grep -q "^verify: " "$tmp/out" && cmp -s "$tmp/c.bin" "$tmp/want.bin"; then
	echo "sim_verify: exact ranges: verified and exact"
else
	echo "sim_verify: exact ranges: refused or wrong:"; cat "$tmp/out"; fails=$((fails + 1))
fi
refused "save range short" "DPU DST_BASE_ADDR 0x30000000" --load 0x10000000="$tmp/a.bin" \
	--load 0x20000000="$tmp/b.bin" --save 0x30000000:$((len - 16))="$tmp/c.bin"
refused "weights not loaded" "CNA DCOMP_ADDR0 (weights) 0x20000000" \
	--load 0x10000000="$tmp/a.bin" --save 0x30000000:"$len"="$tmp/c.bin"
refused "output elsewhere" "DPU DST_BASE_ADDR 0x30000000" --load 0x10000000="$tmp/a.bin" \
	--load 0x20000000="$tmp/b.bin" --save 0x40000000:"$len"="$tmp/c.bin"
[ "$fails" -eq 0 ]
