#!/bin/sh
# Runs every unit-test binary and every QEMU test, then prints one closing
# line "N passed, N failed, N skipped" (the totals over all test cases;
# skipped: cmocka's skip(), e.g. the full grids that need RKBARE_TEST_FULL).
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
	# / "[  SKIPPED ] N test(s), listed below:"
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | head -1)
	k=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$out" | head -1)
	p=${p:-0}
	f=${f:-0}
	k=${k:-0}
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL: $t exited with status $rc"
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + k))
	rm -f "$out"
done

for t in $qemu_tests; do
	if sh "$t"; then
		echo "PASS: $t"
		passed=$((passed + 1))
	else
		echo "FAIL: $t"
		failed=$((failed + 1))
	fi
done

echo "wall time: $(( $(date +%s) - start )) s"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
