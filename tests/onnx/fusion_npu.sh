#!/bin/sh
# Conv + residual Add in one NPU op (the DPU's EW stage adds the other map,
# read per pixel; docs/FORMAT.md, sim/ASSUMPTIONS.md A34). Models of
# tests/onnx/fusion_gen.py (fixed seed):
# - three ResNet-style residual blocks (identity and projection shortcuts,
#   with and without a Relu after the Add), in fp16 and in int8 with
#   per-tensor weight scales (the calibration's QDQ model rewritten per
#   tensor: per-channel scales keep the EW stage busy and are not fused):
#   compiled with and without --no-fusion, each run by the runtime on the
#   NPU model against onnxruntime fp32 (cosine >= 0.999 fp16, >= 0.98 int8),
#   and the fused stream must have fewer tasks, as many fewer as Adds fused;
# - one-block int8 QDQ models (3x3 + Relu, 1x1 stride 2 without activation,
#   3x3 + Clip(0, 6), a 3x3 whose input needs several row-band tasks; zero
#   points and scales of their own), each output within 1 LSB of the fused
#   op's exact definition (fusion_check.py exact).
set -eu
cd "$(dirname "$0")/../.."
RKBARE=build/host/rkbare
PY=/usr/bin/python3
sh scripts/setup-npm.sh
make --no-print-directory -s host >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

$PY tests/onnx/fusion_gen.py "$tmp"
"$RKBARE" compile "$tmp/m.onnx" --calib "$tmp/calib" --save-qdq "$tmp/q_channel.onnx" \
	-o "$tmp/channel.rkb" >/dev/null
$PY tests/onnx/fusion_gen.py pertensor "$tmp/q_channel.onnx" "$tmp/q.onnx"
node tests/onnx/ort_run.js "$tmp/m.onnx" --input "x=$tmp/x.npy" --output-dir "$tmp/fp32" \
	2>/dev/null

# tasks PRECISION MODEL ARGS...: compiles both ways, runs both, prints the tasks
tasks() {
	p=$1
	model=$2
	shift 2
	for v in fused plain; do
		if [ "$v" = fused ]; then
			"$RKBARE" compile "$model" "$@" -o "$tmp/$p.$v.rkb" >"$tmp/$p.$v.log"
		else
			"$RKBARE" compile "$model" "$@" --no-fusion -o "$tmp/$p.$v.rkb" >"$tmp/$p.$v.log"
		fi
		"$RKBARE" infer "$tmp/$p.$v.rkb" --input "x=$tmp/x.npy" --output-dir "$tmp/$p.$v" \
			>/dev/null
		sed -n 's/.* \([0-9]*\) tasks,.*/\1/p' "$tmp/$p.$v.log" >"$tmp/$p.$v.tasks"
	done
}
tasks fp16 "$tmp/m.onnx" --precision fp16
tasks int8 "$tmp/q.onnx"
$PY tests/onnx/fusion_check.py cosine 0.999 "$tmp/fp32/out.npy" "$tmp/fp16.fused/out.npy" \
	"$tmp/fp16.plain/out.npy"
$PY tests/onnx/fusion_check.py cosine 0.98 "$tmp/fp32/out.npy" "$tmp/int8.fused/out.npy" \
	"$tmp/int8.plain/out.npy"
# the three blocks' Adds fused: three tasks fewer in each precision
for p in fp16 int8; do
	fused=$(cat "$tmp/$p.fused.tasks")
	plain=$(cat "$tmp/$p.plain.tasks")
	echo "fusion: $p: $fused tasks fused, $plain with --no-fusion"
	if [ -z "$fused" ] || [ "$fused" -ne $((plain - 3)) ]; then
		echo "fusion: $p: expected three tasks fewer when fused"
		exit 1
	fi
	"$RKBARE" info "$tmp/$p.fused.rkb" | grep -c " NPU conv .* + " >"$tmp/$p.n"
	[ "$(cat "$tmp/$p.n")" -eq 3 ] || { echo "fusion: $p: not three conv ops with a residual"; exit 1; }
done
# per-channel weights: nothing fused (the EW stage applies the scales)
if "$RKBARE" info "$tmp/channel.rkb" | grep -q " NPU conv .* + "; then
	echo "fusion: a per-channel convolution took a residual"
	exit 1
fi

$PY tests/onnx/fusion_gen.py exact "$tmp/exact"
for i in 0 1 2 3; do
	e="$tmp/exact/e$i"
	"$RKBARE" compile "$e.onnx" -o "$e.rkb" >"$e.log"
	"$RKBARE" info "$e.rkb" | grep -q " NPU conv .* + " ||
		{ echo "fusion: e$i: not fused"; exit 1; }
	"$RKBARE" infer "$e.rkb" --input "x=${e}_x.npy" --input "r=${e}_r.npy" \
		--output-dir "$e.out" >/dev/null
	$PY tests/onnx/fusion_check.py exact "$e.onnx" "${e}_x.npy" "${e}_r.npy" "$e.out/y.npy"
done
# the last one in row bands: each band reads its own rows of the residual
grep -q " 1 ops, [2-9][0-9]* tasks," "$tmp/exact/e3.log" ||
	{ echo "fusion: e3: one task; the row-band case is not exercised"; exit 1; }
echo "fusion: PASS"
