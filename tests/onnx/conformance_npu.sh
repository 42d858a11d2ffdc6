#!/bin/sh
# ONNX conformance on the NPU model (tests/onnx/conformance_npu.py): every
# supported node test of libonnx-testdata passes, and the generated table
# equals docs/CONFORMANCE.md, so no test changes from passed to unsupported
# (or back) unnoticed. After a deliberate change: make conformance-doc.
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
exit $status
