#!/bin/sh
# Transformer pieces and a fixed batch, int8 (calibrated) and fp16 (models
# from tests/onnx/xformer_gen.py, fixed seeds): LayerNorm spelled out and as
# the operator, multi-head attention (MatMul of two computed operands,
# Softmax, GELU spelled with Erf), Softmax on each axis, ReduceMean / Sum /
# Max on each axis, Gather at constant indices (attention's rank-5 q, k, v
# split included), and a network exported with a fixed batch of 2 (compiled
# for one image, run twice). Judged by tests/onnx/xformer_check.py against
# onnxruntime fp32 (cosine >= 0.98 int8, >= 0.999 fp16 per output). Then
# models the importer must refuse, each naming the node, the attribute or
# input and what is supported.
set -eu
cd "$(dirname "$0")/../.."
RKBARE=build/host/rkbare
sh scripts/setup-npm.sh
make --no-print-directory -s host >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 tests/onnx/xformer_gen.py "$tmp"
bad=0
for m in ln_spelled ln_op attention softmax reduce gather batch2; do
	d="$tmp/$m"
	"$RKBARE" compile "$d/m.onnx" --calib "$d/calib" -o "$d/i8.rkb" >"$d/i8.log"
	"$RKBARE" compile "$d/m.onnx" --precision fp16 -o "$d/f16.rkb" >"$d/f16.log"
	args=""
	for f in "$d"/x/*.npy; do
		args="$args --input $(basename "$f" .npy)=$f"
	done
	# shellcheck disable=SC2086
	"$RKBARE" infer "$d/i8.rkb" $args --output-dir "$d/i8" >/dev/null
	# shellcheck disable=SC2086
	"$RKBARE" infer "$d/f16.rkb" $args --output-dir "$d/f16" >/dev/null
	# shellcheck disable=SC2086
	node tests/onnx/ort_run.js "$d/m.onnx" $args --output-dir "$d/ort" 2>/dev/null
	/usr/bin/python3 tests/onnx/xformer_check.py "$d" "$m" || bad=1
done
# the int8 attention block against onnxruntime on its QDQ model (its
# LayerNormalization at opset 17, its Gelu spelled out again for opset 13)
d="$tmp/attention"
"$RKBARE" compile "$d/m.onnx" --calib "$d/calib" --pow2-scales --save-qdq "$d/qdq.onnx" \
	-o "$d/p2.rkb" >/dev/null
"$RKBARE" infer "$d/p2.rkb" --input "x=$d/x/x.npy" --output-dir "$d/p2" >/dev/null
node tests/onnx/ort_run.js "$d/qdq.onnx" --input "x=$d/x/x.npy" --output-dir "$d/qdq" 2>/dev/null
/usr/bin/python3 tests/onnx/xformer_check.py "$d" attention qdq || bad=1
# the spelled-out LayerNorms and GELU became one node each
for p in i8 f16; do
	grep -q "folded .* 2 activations" "$tmp/ln_spelled/$p.log" ||
		{ echo "xformer: ln_spelled ($p): the two LayerNorms were not folded"; bad=1; }
	grep -q "folded .* 3 activations" "$tmp/attention/$p.log" ||
		{ echo "xformer: attention ($p): two LayerNorms and a GELU not folded"; bad=1; }
	grep -q "fixed batch of 2: compiled for one image" "$tmp/batch2/$p.log" ||
		{ echo "xformer: batch2 ($p): no note of the fixed batch"; bad=1; }
done
[ "$bad" -eq 0 ] || exit 1
# refusals: each names the node (or input) and what is supported
WHO=xformer
. tests/onnx/refuse.sh
refuse ln_mean "(LayerNormalization)" "output 1 (Mean / InvStdDev) is read"
refuse reduce_batch "(ReduceMean)" "attribute axes" "the batch axis alone"
refuse matmul_rank "(MatMul)" "A of rank 3 or 4 times B of its rank or 2"
refuse batch_baked "fixed batch of 2" "one image"
refuse batch_softmax "(Softmax)" "attribute axis reaches across the images" "batch of 2"
refuse batch_mixed "inputs 'x' and 'y'" "fixed batches 2 and 3"
refuse rank5_apart "(Add)" "spans one of A and B" "supported: both, or neither, or a constant"
refuse rank5_split "(Split)" "axis 1 of a rank-5 tensor" "nor A or B of [1,A,B,H,W]"
echo "xformer: unsupported attributes, operand ranks and batches refused naming node," \
	"attribute or input"
