#!/bin/sh
# rkbare onnx-dump against python3-onnx's reading (tests/onnx/onnx_dump_ref.py)
# of the ONNX conformance node models (Debian's libonnx-testdata) for the
# ops the importer maps, and of the project's own model: same inputs,
# constants (type, shape, data fingerprint), nodes, attributes and outputs,
# or a refusal by both.
set -eu
cd "$(dirname "$0")/../.."
RKBARE=build/host/rkbare
DATA=/usr/share/libonnx-testdata/data/node
OPS='conv|convinteger|qlinearconv|qlinearmatmul|matmul|matmulinteger|gemm|maxpool|averagepool|globalaveragepool|add|relu|clip|concat|reshape|flatten|softmax|sigmoid|transpose|batchnorm|quantizelinear|dequantizelinear|pad|constant'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ls -d "$DATA"/test_* | grep -E "/test_($OPS)" | sed 's|$|/model.onnx|' > "$tmp/list"
echo models/fashion_mnist/fmnist_cnn.onnx >> "$tmp/list"
mkdir "$tmp/ref"
# shellcheck disable=SC2046
/usr/bin/python3 tests/onnx/onnx_dump_ref.py "$tmp/ref" $(cat "$tmp/list")

i=0; bad=0; read_ok=0; refused=0
while read -r m; do
	if "$RKBARE" onnx-dump "$m" > "$tmp/c.txt" 2> "$tmp/err.txt"; then
		read_ok=$((read_ok + 1))
	else
		echo REFUSED > "$tmp/c.txt"
		refused=$((refused + 1))
	fi
	if ! cmp -s "$tmp/c.txt" "$tmp/ref/$i.txt"; then
		echo "onnx_dump: $m differs from python3-onnx:"
		cat "$tmp/err.txt"
		diff "$tmp/ref/$i.txt" "$tmp/c.txt" | head -10
		bad=$((bad + 1))
	fi
	i=$((i + 1))
done < "$tmp/list"
echo "onnx_dump: $i models, $read_ok read, $refused refused, $bad differ"
[ "$i" -gt 100 ] && [ "$bad" -eq 0 ]
