#!/bin/sh
# rkbare onnx-dump on malformed ONNX files: truncations and byte mutations
# (fixed seed) of a real model must end with a message and exit 2, or read
# cleanly (exit 0) when the damage happens to stay valid; never a crash or a
# sanitizer report. Plus named refusals: an empty file, a directory,
# external data, a node reading an undefined tensor.
set -eu
cd "$(dirname "$0")/../.."
RKBARE=build/host/rkbare
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

/usr/bin/python3 - "$tmp" <<'PY'
import random, sys, os
import onnx
from onnx import helper, TensorProto
out = sys.argv[1]
src = open("models/fashion_mnist/fmnist_cnn.onnx", "rb").read()
rng = random.Random(20261124)
for i in range(60):
    cut = rng.randrange(1, len(src))
    open(os.path.join(out, "trunc%d.onnx" % i), "wb").write(src[:cut])
for i in range(140):
    b = bytearray(src)
    for _ in range(rng.randrange(1, 8)):
        # the first 2 KiB hold the graph structure; the rest is mostly weights
        b[rng.randrange(0, 2048)] = rng.randrange(256)
    open(os.path.join(out, "mut%d.onnx" % i), "wb").write(bytes(b))
open(os.path.join(out, "empty.onnx"), "wb").close()
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
g = helper.make_graph([helper.make_node("Relu", ["nowhere"], ["y"])], "g", [x], [y])
onnx.save(helper.make_model(g), os.path.join(out, "undefined_input.onnx"))
w = helper.make_tensor("w", TensorProto.FLOAT, [4], [1, 2, 3, 4])
w.data_location = TensorProto.EXTERNAL
e = w.external_data.add(); e.key = "location"; e.value = "weights.bin"
w.ClearField("float_data")
g = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"])], "g", [x], [y], [w])
onnx.save(helper.make_model(g), os.path.join(out, "external.onnx"))
PY

fail=0
expect_refusal() {	# file, text the message must contain
	if "$RKBARE" onnx-dump "$tmp/$1" > /dev/null 2> "$tmp/err"; then
		echo "onnx_bad_input: $1 was accepted"; fail=1
	elif ! grep -q "$2" "$tmp/err"; then
		echo "onnx_bad_input: $1: message lacks '$2':"; cat "$tmp/err"; fail=1
	fi
}
expect_refusal empty.onnx "a model has 1 to"
expect_refusal undefined_input.onnx "input 'nowhere' is not defined"
expect_refusal external.onnx "tensor 'w': external data is not supported"
mkdir "$tmp/dir.onnx"
expect_refusal dir.onnx "not a regular file"

n=0; refused=0
for f in "$tmp"/trunc*.onnx "$tmp"/mut*.onnx; do
	rc=0
	"$RKBARE" onnx-dump "$f" > /dev/null 2> "$tmp/err" || rc=$?
	n=$((n + 1))
	case $rc in
	0) ;;
	2) refused=$((refused + 1))
	   if ! grep -q "^rkbare onnx-dump: .*: ." "$tmp/err"; then
		echo "onnx_bad_input: $(basename "$f"): exit 2 without a message"; fail=1
	   fi ;;
	*) echo "onnx_bad_input: $(basename "$f"): exit $rc"; cat "$tmp/err"; fail=1 ;;
	esac
done
echo "onnx_bad_input: $n damaged files, $refused refused, the rest read cleanly"
[ "$fail" -eq 0 ]
