#!/bin/sh
# The host tool against a hostile user (each case a bug once found): extreme
# and non-finite quantisation scales refused or clamped without undefined
# behaviour (the tool is built with UBSan's float-cast-overflow and
# float-divide-by-zero), buffers that would wrap past 4 GiB refused, a heavy
# stream bounded by --timeout-ms, non-regular files, octal-looking and
# space-padded numbers, and program addresses refused alike by regcmd and sim.
set -u
cd "$(dirname "$0")/../.."
R=build/host/rkbare
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

# expect STATUS TEXT -- command...: exit status and a stderr/stdout line
expect() {
	want=$1 text=$2
	shift 3
	"$@" > "$tmp/out" 2>&1
	got=$?
	if [ "$got" -ne "$want" ] || ! grep -qF -- "$text" "$tmp/out" ||
	   grep -q "runtime error" "$tmp/out"; then
		echo "hostile_args: '$*': status $got (want $want), output:"
		head -20 "$tmp/out" | sed "s/^/  | /"
		fails=$((fails + 1))
	fi
}

expect 0 "" -- $R regcmd conv --h 4 --w 4 --c 8 --oc 8 --k 1 --in-scale 1e-30 \
	--out-scale 1e-30 --out-zp -1 --act relu6
expect 0 "" -- $R regcmd add --h 4 --w 4 --c 8 --a-scale 1e-30 --b-scale 1e-30 \
	--out-scale 1e-30 --out-zp -1 --act relu6
expect 2 "outside the range of a float" -- $R regcmd add --h 4 --w 4 --c 8 --b-scale inf
expect 2 "outside the range of a float" -- $R regcmd conv --h 4 --w 4 --c 8 --oc 8 --k 1 \
	--w-scale 1e-38
expect 2 "runs past 4 GiB" -- $R regcmd conv --h 200 --w 200 --c 16 --oc 16 --k 1 \
	--out-addr 0xFFFF0000
expect 2 "runs past 4 GiB" -- $R regcmd matmul --type int8:int32 --m 64 --k 4096 --n 4096 \
	--c-addr 0xFFF10000
expect 2 "is not a 32-bit unsigned number" -- $R regcmd matmul --type int8:int32 --m 010 \
	--k 32 --n 32
expect 2 "is not a 32-bit unsigned number" -- $R regcmd matmul --type int8:int32 --m " 8" \
	--k 32 --n 32
expect 2 "must be non-zero and 16-byte aligned" -- $R regcmd matmul --type int8:int32 \
	--m 4 --k 32 --n 32 --regcmd-addr 0
expect 2 "must be non-zero and 16-byte aligned" -- $R regcmd matmul --type int8:int32 \
	--m 4 --k 32 --n 32 --regcmd-addr 0x1

S=tests/data/mtx_matmul_fp16_4x32x16.regcmd
expect 2 "must be non-zero and 16-byte aligned" -- $R sim --regcmd $S --regcmd-addr 0
expect 2 "is not a regular file" -- $R sim --regcmd $S --load 0x10000000=/dev/zero
expect 2 "is not a regular file" -- $R sim --regcmd /tmp
expect 2 "expected 1.." -- $R sim --regcmd $S --timeout-ms 010
: > "$tmp/empty"
expect 2 "the file is empty" -- $R sim --regcmd $S --load 0x10000000="$tmp/empty"
# /proc files report size 0 but have contents: read to the end
expect 0 "completed" -- $R sim --regcmd $S --load 0x10000000=/proc/version

# A 512x512x64 -> 64 3x3 convolution (9.7 G MAC) against a 1 ms timeout:
# the model stops when one core would have run out of time, and says so.
$R regcmd conv --h 512 --w 512 --c 64 --oc 64 --k 3 --same > "$tmp/big.regcmd"
expect 1 "work budget" -- $R sim --regcmd "$tmp/big.regcmd" --timeout-ms 1

echo "hostile_args: $fails failed"
[ "$fails" -eq 0 ]
