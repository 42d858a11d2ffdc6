#!/bin/sh
# The kernels with SIMD paths under every level the host has: make test's
# plain run of the unit tests covers the best (or what RKBARE_SIMD allows);
# this runs the conversion tests (test_layout: NCHW/NHWC <-> NC1HWC2,
# uint8 <-> int8, fp16) and the model's tests (test_sim_exec: the int8
# convolution) again with RKBARE_SIMD set to each level below it, each
# against the tests' own CPU references (test_lower_conv loops over the
# levels itself). Checks an unknown RKBARE_SIMD value warns and changes
# nothing, then prints the one line of the levels exercised.
set -u
cd "$(dirname "$0")/../.."
B=build/host/tests
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

level_of() { sed -n 's/^SIMD level: //p' "$1" | head -1; }

if ! "$B/test_layout" >"$tmp/top" 2>&1; then
	cat "$tmp/top"
	echo "FAIL: test_layout"
	exit 1
fi
top=$(level_of "$tmp/top")
[ -n "$top" ] || { echo "FAIL: test_layout printed no SIMD level"; exit 1; }
ran=""
for level in portable avx2 avx512; do
	[ "$level" = "$top" ] && break
	for t in test_layout test_sim_exec; do
		if ! RKBARE_SIMD=$level "$B/$t" >"$tmp/out" 2>&1; then
			cat "$tmp/out"
			echo "FAIL: $t with RKBARE_SIMD=$level"
			exit 1
		fi
	done
	RKBARE_SIMD=$level "$B/test_layout" >"$tmp/out" 2>&1
	if [ "$(level_of "$tmp/out")" != "$level" ]; then
		echo "FAIL: RKBARE_SIMD=$level selected $(level_of "$tmp/out")"
		exit 1
	fi
	ran="$ran $level"
done
# an unknown value is ignored: the CPU's best, whatever this run's cap
env -u RKBARE_SIMD "$B/test_layout" >"$tmp/best" 2>&1
best=$(level_of "$tmp/best")
RKBARE_SIMD=sse9 "$B/test_layout" >"$tmp/out" 2>&1
if ! grep -q "RKBARE_SIMD=sse9 is not one of portable, avx2, avx512" "$tmp/out" ||
   [ "$(level_of "$tmp/out")" != "$best" ]; then
	cat "$tmp/out"
	echo "FAIL: RKBARE_SIMD=sse9 did not warn and keep the CPU's $best"
	exit 1
fi
echo "SIMD paths exercised:$ran $top"
