#!/bin/sh
# Activations and element-wise ops, int8 (calibrated) and fp16 (models from
# tests/onnx/ewise_gen.py, fixed seed): every activation on a graph input;
# Add, Sub, Mul, Div, Max, Min, PRelu on two maps, a map and a [1,C,1,1]
# vector, a scalar, a per-channel constant, a constant first, a [1,1,H,W]
# constant; a standalone BatchNormalization; and a network of them between
# convolutions (ReLU6 fused, hard-swish, squeeze-and-excitation, a residual
# add); the built-in CPU ops on fp16 maps as on int8 ones; and chains of
# element-wise ops between convolutions, each one table in int8 (the op
# counts say so); the fp16 activations the DPU's lookup table holds over
# [-20, 20], across both its tables and past them (on the NPU: the op
# counts say so). Judged by tests/onnx/ewise_check.py against onnxruntime
# fp32 (cosine >= 0.98 int8, >= 0.999 fp16 per output), each fp16
# activation against numpy's ONNX definition within the table's bound, and,
# in int8, each node's output against numpy's exact computation on its own
# quantised inputs (1 LSB).
# Then models the importer must refuse, each naming the node and what is
# supported.
set -eu
cd "$(dirname "$0")/../.."
RKBARE=build/host/rkbare
sh scripts/setup-npm.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 tests/onnx/ewise_gen.py "$tmp"
for m in unary binary net cpu chain wide long; do
	d="$tmp/$m"
	"$RKBARE" compile "$d/m.onnx" --calib "$d/calib" --save-qdq "$d/q.onnx" -o "$d/i8.rkb" \
		>"$d/i8.log"
	"$RKBARE" compile "$d/m.onnx" --precision fp16 -o "$d/f16.rkb" >"$d/f16.log"
	/usr/bin/python3 tests/onnx/ewise_check.py snap "$d"
	args=""
	for f in "$d"/xs/*.npy; do
		n=$(basename "$f" .npy)
		args="$args --input $n=$f"
	done
	# shellcheck disable=SC2086
	"$RKBARE" infer "$d/i8.rkb" $args --output-dir "$d/i8" >/dev/null
	# shellcheck disable=SC2086
	"$RKBARE" infer "$d/f16.rkb" $args --output-dir "$d/f16" >/dev/null
	# shellcheck disable=SC2086
	node tests/onnx/ort_run.js "$d/m.onnx" $args --output-dir "$d/ort" 2>/dev/null
	/usr/bin/python3 tests/onnx/ewise_check.py judge "$d"
done
# each chain of element-wise ops between the convolutions is one table: the
# DPU's lookup table for the two of one table, the CPU's for the one with
# per-channel constants (a table per channel)
ops=$(grep "^rkbare compile: NPU " "$tmp/chain/i8.log")
case "$ops" in
*"NPU 5 op(s)"*"CPU 1 op(s)"*) echo "ewise: chain: three convolutions, three tables ($ops)" ;;
*)
	echo "ewise: chain: expected NPU 5 op(s) and CPU 1 op(s) (one table a chain, two on" \
		"the lookup table): $ops"
	exit 1
	;;
esac
"$RKBARE" compile "$tmp/chain/m.onnx" --calib "$tmp/chain/calib" --no-fusion \
	-o "$tmp/chain/cpu.rkb" | grep -q "^rkbare compile: NPU 3 op(s).*CPU 3 op(s)" ||
	{ echo "ewise: chain: --no-fusion should keep the int8 tables on the CPU"; exit 1; }
# int8: the seven activations of one map are tables on the DPU's lookup
# table, one task each, but never two in a row (the table is one per core):
# every other one stays the CPU's
ops=$(grep "^rkbare compile: NPU " "$tmp/wide/i8.log")
case "$ops" in
*"NPU 4 op(s)"*"CPU 3 op(s)"*) echo "ewise: wide: int8 tables on the lookup table ($ops)" ;;
*)
	echo "ewise: wide: expected 4 int8 tables on the NPU, 3 on the CPU between: $ops"
	exit 1
	;;
esac
# fp16: the seven activations the DPU's lookup table holds run there, two
# tasks each (runtime/npu_fn.h); --no-fusion keeps them CPU ops
ops=$(grep "^rkbare compile: NPU " "$tmp/wide/f16.log")
case "$ops" in
*"NPU 7 op(s)"*"CPU 0 op(s)"*) echo "ewise: wide: fp16 activations on the lookup table ($ops)" ;;
*)
	echo "ewise: wide: expected the 7 fp16 activations on the NPU: $ops"
	exit 1
	;;
esac
grep -q "14 tasks" "$tmp/wide/f16.log" || { echo "ewise: wide: expected 14 tasks"; cat "$tmp/wide/f16.log"; exit 1; }
# a map wider than the DPU's cube takes the CPU's function instead
grep -q "^rkbare compile: NPU 0 op(s).*CPU 1 op(s)" "$tmp/long/f16.log" ||
	{ echo "ewise: long: a 8200-wide Sigmoid should be a CPU op"; cat "$tmp/long/f16.log"; exit 1; }
# each op's two tasks stay on one core when the model is spread over three;
# each int8 table's task uploads its own table on whichever core runs it
for p in f16 i8; do
	"$RKBARE" infer "$tmp/wide/$p.rkb" --input "x=$tmp/wide/xs/x.npy" --core 0,1,2 \
		--output-dir "$tmp/wide/${p}c3" >/dev/null
	for f in "$tmp/wide/$p"/*.npy; do
		cmp -s "$f" "$tmp/wide/${p}c3/$(basename "$f")" ||
			{ echo "ewise: wide: $p $(basename "$f") differs on three cores"; exit 1; }
	done
done
"$RKBARE" compile "$tmp/wide/m.onnx" --precision fp16 --no-fusion -o "$tmp/wide/cpu.rkb" |
	grep -q "^rkbare compile: NPU 0 op(s).*CPU 7 op(s)" ||
	{ echo "ewise: wide: --no-fusion should keep the activations on the CPU"; exit 1; }
# refusals: each names the node and what is supported
WHO=ewise
. tests/onnx/refuse.sh
refuse gelu_mode "gelu_bad" "approximate" "'none', 'tanh'"
refuse lower_rank "add_rank2" "operand 'r" "1x5x6" "lower rank is not supported"
refuse bcast "mul_bcast" "[1,20,5,6] and [1,20,4,1]" "equal extents or 1"
refuse legacy_axis "add_axis1" "broadcast from axis 1" "B aligned with A's last axes"
refuse bn_training "bn_train" "training_mode" "supported: 0"
echo "ewise: unsupported attributes and broadcasts refused naming node and attribute"
