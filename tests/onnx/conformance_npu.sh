#!/bin/sh
# ONNX conformance on the NPU model (tests/onnx/conformance_npu.py): every
# supported node test and PyTorch export of libonnx-testdata passes, and the generated table
# equals docs/CONFORMANCE.md, so no test changes from passed to unsupported
# (or back) unnoticed. After a deliberate change: make conformance-doc.
# Regenerating the table cannot hide a regression: every row listed in
# tests/onnx/conformance_passed.txt must still be "passed".
set -eu
cd "$(dirname "$0")/../.."
sh scripts/setup-npm.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
/usr/bin/python3 tests/onnx/conformance_npu.py "$tmp/CONFORMANCE.md" > "$tmp/log" || status=1
grep -v ": passed (" "$tmp/log" || true
if ! cmp -s "$tmp/CONFORMANCE.md" docs/CONFORMANCE.md; then
	echo "conformance: the results differ from docs/CONFORMANCE.md (make conformance-doc):"
	diff docs/CONFORMANCE.md "$tmp/CONFORMANCE.md" | head -20
	status=1
fi
# rows of the generated table: "| name | result | detail |"
awk -F' [|] ' '/^[|] (test_|pytorch-)/ { sub(/^[|] /, "", $1); print $1 "\t" $2 }' \
	"$tmp/CONFORMANCE.md" > "$tmp/results"
while IFS= read -r row; do
	case $row in "#"* | "") continue ;; esac
	got=$(awk -F'\t' -v r="$row" '$1 == r { print $2 }' "$tmp/results")
	if [ "$got" != passed ]; then
		echo "conformance: $row passed (tests/onnx/conformance_passed.txt), now ${got:-absent}"
		status=1
	fi
done < tests/onnx/conformance_passed.txt
exit $status
