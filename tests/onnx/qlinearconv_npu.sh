#!/bin/sh
# Random QLinearConv models (tests/onnx/qlinearconv_gen.py, fixed seed):
# plain and depthwise, odd channel counts, strides 1-2, asymmetric pads,
# uint8 and int8 activations with zero points away from the middle,
# per-channel and per-tensor weight scales. Each is compiled to a
# container, run through the runtime on the NPU model and compared with the
# exact judge (tests/onnx/qlinear_exact.py: the ONNX definition in integer
# and rational arithmetic): every output within 1 LSB (the NPU requantises
# with a fixed-point multiplier, the definition with the exact one).
# Then random ConvInteger and MatMulInteger models (int32 sums, several
# kernel groups and channel groups, uint8 and int8 weights around their
# zero points): equal to the exact sums. onnxruntime (fused, its integer
# kernels) is printed beside as a second opinion, never gated: on AVX2
# without VNNI its QLinearConv is tens of LSB off.
set -eu
cd "$(dirname "$0")/../.."
RKBARE=build/host/rkbare
COUNT=${QLINEARCONV_COUNT:-24}
sh scripts/setup-npm.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# run_cases DIR TOLERANCE: every case of DIR/cases against the exact judge
run_cases() {
	while read -r name desc; do
		mkdir "$1/$name.npu" "$1/$name.ort"
		if ! "$RKBARE" compile "$1/$name.onnx" -o "$1/$name.rkb" >/dev/null ||
		   ! "$RKBARE" infer "$1/$name.rkb" --raw --input x="$1/${name}_x.npy" \
			--output-dir "$1/$name.npu" >/dev/null ||
		   ! /usr/bin/python3 tests/onnx/qlinear_exact.py "$1/$name.onnx" \
			"$1/${name}_x.npy" "$1/$name.exact.npy" ||
		   ! node tests/onnx/ort_run.js "$1/$name.onnx" --fused --input x="$1/${name}_x.npy" \
			--output-dir "$1/$name.ort"; then
			echo "qlinearconv: $name ($desc): did not run"
			fails=$((fails + 1))
			continue
		fi
		/usr/bin/python3 - "$1/$name.npu/y.npy" "$1/$name.exact.npy" "$1/$name.ort/y.npy" \
			"$name $desc" "$2" <<'PY' || fails=$((fails + 1))
import sys
import numpy as np
a, b, o = (np.load(f) for f in sys.argv[1:4])
def dist(p, q):
    if p.shape != q.shape or p.dtype != q.dtype:
        return -1
    return int(np.abs(p.astype(np.int64) - q.astype(np.int64)).max())
d = dist(a, b)
print("qlinearconv: %s: %s (onnxruntime fused: %d)"
      % (sys.argv[4], "%s %s, want %s %s" % (a.dtype, a.shape, b.dtype, b.shape) if d < 0
         else "max |NPU - exact| %d" % d, dist(o, b)))
sys.exit(0 if 0 <= d <= int(sys.argv[5]) else 1)
PY
	done < "$1/cases"
}
fails=0
mkdir "$tmp/q" "$tmp/int"
/usr/bin/python3 tests/onnx/qlinearconv_gen.py "$tmp/q" 20261124 "$COUNT" > "$tmp/q/cases"
run_cases "$tmp/q" 1
/usr/bin/python3 tests/onnx/qlinearconv_gen.py "$tmp/int" 20261125 12 integer > "$tmp/int/cases"
run_cases "$tmp/int" 0
# Refused by name: weights 255 with zero point 0 (w - w_zp outside int8),
# and a Relu reading a ConvInteger's int32 sums.
/usr/bin/python3 - "$tmp" <<'PY'
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
d = sys.argv[1]
def save(name, nodes, w):
    g = helper.make_graph(nodes, name,
                          [helper.make_tensor_value_info("x", TensorProto.UINT8, [1, 2, 4, 4])],
                          [helper.make_tensor_value_info("y", TensorProto.INT32, [1, 3, 4, 4])],
                          [numpy_helper.from_array(w, "w")])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]),
              "%s/%s.onnx" % (d, name))
save("wide", [helper.make_node("ConvInteger", ["x", "w"], ["y"], name="ci")],
     np.full((3, 2, 1, 1), 255, np.uint8))
save("reads", [helper.make_node("ConvInteger", ["x", "w"], ["s"], name="ci"),
               helper.make_node("Relu", ["s"], ["y"], name="relu")],
     np.ones((3, 2, 1, 1), np.uint8))
PY
if "$RKBARE" compile "$tmp/wide.onnx" -o "$tmp/wide.rkb" > "$tmp/wide.log" 2>&1 ||
   ! grep -q "node 'ci' (ConvInteger): weight 0 minus its zero point is 255, outside int8" \
	"$tmp/wide.log" ||
   "$RKBARE" compile "$tmp/reads.onnx" -o "$tmp/reads.rkb" > "$tmp/reads.log" 2>&1 ||
   ! grep -q "node 'relu' (Relu): reads the int32 output of ConvInteger 'ci'" "$tmp/reads.log"
then
	echo "qlinearconv: integer models not refused by name:"
	cat "$tmp/wide.log" "$tmp/reads.log"
	fails=$((fails + 1))
fi
echo "qlinearconv: $COUNT QLinearConv and 12 integer models, $fails failed"
[ "$fails" -eq 0 ]
