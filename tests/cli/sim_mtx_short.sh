#!/bin/sh
# Matmuls with M = 1, 2, 3 (and 4 for contrast) in the three types, from
# the register values of the board-run mtx512/rk3588-npu generator
# (tests/cli/mtx_stream.py; M = 2, 3 with the vendor captures' signed
# surface stride), run through `rkbare sim` against numpy; our compiler's
# stream for each shape is word-equal to the generator's; and the
# generator's single-task form for weights larger than the CBUF (M = 1,
# K = N = 1024 int8, weights streamed) runs exact too.
set -eu
cd "$(dirname "$0")/../.."
RKBARE=build/host/rkbare
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
run() {	# TYPE M K N OURTYPE
	len=$(/usr/bin/python3 tests/cli/mtx_stream.py "$tmp" "$1" "$2" "$3" "$4" 20261124)
	if ! "$RKBARE" sim --regcmd "$tmp/s.regcmd" --load 0x10000000="$tmp/a.bin" \
		--load 0x20000000="$tmp/b.bin" --save 0x30000000:"$len"="$tmp/c.bin" \
		>/dev/null 2>"$tmp/err" || ! cmp -s "$tmp/c.bin" "$tmp/want.bin"; then
		echo "mtx_short: $1 M=$2 K=$3 N=$4: not exact"; sed 's/^/  /' "$tmp/err"
		fails=$((fails + 1))
		return
	fi
	if [ -n "${5:-}" ]; then
		"$RKBARE" regcmd matmul --type "$5" --m "$2" --k "$3" --n "$4" | grep -v "^#" | \
			cut -c1-16 | tr a-f A-F \
			> "$tmp/ours"
		# The one departure, by name: in a task that ends the chain MTX
		# leaves an empty qword where we write PC_BASE_ADDRESS = 0 (both
		# run: the stream above ran with MTX's).
		sed '105s/^0000000000000000$/0101000000000010/' "$tmp/s.regcmd" > "$tmp/mtx"
		if ! cmp -s "$tmp/ours" "$tmp/mtx"; then
			echo "mtx_short: $1 M=$2 K=$3 N=$4: our stream differs:"
			diff "$tmp/mtx" "$tmp/ours" | head -6
			fails=$((fails + 1))
			return
		fi
	fi
	echo "mtx_short: $1 M=$2 K=$3 N=$4: exact${5:+, our stream word-equal}"
}
for m in 1 2 3 4; do
	run int8 "$m" 64 64 int8:int32
	run fp16 "$m" 64 32 fp16:fp32
	run fp16h "$m" 32 32 fp16:fp16
done
run int8 1 1024 1024
[ "$fails" -eq 0 ]
