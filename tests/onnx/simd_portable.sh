#!/bin/sh
# The end-to-end model tests once more with the model's convolutions and the
# layout conversions capped to the portable C paths (RKBARE_SIMD=portable):
# what an arm64 host, or an x86-64 without AVX2, runs. The same gates as
# their default runs, against the same judges.
set -eu
cd "$(dirname "$0")/../.."
export RKBARE_SIMD=portable
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
for t in fmnist_npu qlinearconv_npu blazeface_npu; do
	if sh "tests/onnx/$t.sh" > "$log" 2>&1; then
		echo "simd_portable: $t passes on the portable paths"
	else
		cat "$log"
		echo "simd_portable: $t FAILS on the portable paths"
		status=1
	fi
done
exit $status
