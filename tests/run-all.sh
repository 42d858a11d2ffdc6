#!/bin/sh
# Runs every unit-test binary and every QEMU test, then prints one closing
# line "N passed, N failed, N skipped" (the totals over all test cases; a
# test script that exits 77 was skipped, and says why).
# Usage: run-all.sh "<unit binaries>" "<qemu test scripts>"
set -u
unit_bins=$1
qemu_tests=$2
passed=0
failed=0
skipped=0
start=$(date +%s)

for t in $unit_bins; do
	out=$(mktemp)
	"$t" >"$out" 2>&1
	rc=$?
	cat "$out"
	# cmocka summary lines: "[  PASSED  ] N test(s)." / "[  FAILED  ] N test(s), listed below:"
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | head -1)
	k=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$out" | head -1)
	p=${p:-0}
	f=${f:-0}
	skipped=$((skipped + ${k:-0}))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL: $t exited with status $rc"
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	rm -f "$out"
done

for t in $qemu_tests; do
	sh "$t"
	rc=$?
	if [ "$rc" -eq 0 ]; then
		echo "PASS: $t"
		passed=$((passed + 1))
	elif [ "$rc" -eq 77 ]; then
		echo "SKIP: $t"
		skipped=$((skipped + 1))
	else
		echo "FAIL: $t"
		failed=$((failed + 1))
	fi
done

echo "wall time: $(( $(date +%s) - start )) s"
ort=$(node -p 'require("./tests/onnx/node_modules/onnxruntime-node/package.json").version' \
	2>/dev/null || echo "not installed")
echo "reference: onnxruntime-node $ort on $(uname -m) (quantised models judged unfused)"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
