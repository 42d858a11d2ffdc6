#!/bin/sh
# The host tool on hostile models and inputs (hardening round 2): each case
# was a crash, an over-read, a hang or a silent loss once. Every case runs on
# the sanitised build (build/host) and the optimised one (build/host-opt),
# which must both refuse it with the same named message (exit 2, or 1 where
# the command ran), or do what the case says; never a crash or a report.
# The models are written here by python3-onnx; .npy files by hand.
set -u
cd "$(dirname "$0")/../.."
make --no-print-directory -s host host-opt > /dev/null || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0

/usr/bin/python3 - "$tmp" <<'PY' || exit 1
import sys, os
import numpy as np, onnx
from onnx import helper as h, TensorProto as T, numpy_helper as nh
out = sys.argv[1]
rng = np.random.RandomState(20261126)

def save(name, nodes, inputs, outputs, inits, opset=13):
    g = h.make_graph(nodes, "g", inputs, outputs, inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)])
    m.ir_version = 8
    open(os.path.join(out, name + ".onnx"), "wb").write(m.SerializeToString())

X = lambda shape, dt=T.FLOAT, name="x": h.make_tensor_value_info(name, dt, shape)
Y = lambda name="y", dt=T.FLOAT: h.make_tensor_value_info(name, dt, None)
F = lambda name, a: nh.from_array(np.asarray(a, np.float32), name)
I8 = lambda name, a: nh.from_array(np.asarray(a, np.int8), name)
W = lambda name, shape: F(name, rng.randn(*shape) * 0.1)
qw = I8("wq", rng.randint(-100, 100, (4, 3, 3, 3)))

def qdq(name, conv_attrs, w_axis=None, ws=0.01, w_float=False):
    dq = {} if w_axis is None else {"axis": w_axis}
    inits = [F("s", 0.02), I8("z", 0), F("ws", ws), I8("wz", 0) if np.ndim(ws) == 0 else
             I8("wz", np.zeros(np.shape(ws))), qw, W("wf", (4, 3, 3, 3))]
    nodes = [h.make_node("QuantizeLinear", ["x", "s", "z"], ["xq"]),
             h.make_node("DequantizeLinear", ["xq", "s", "z"], ["xd"]),
             h.make_node("DequantizeLinear", ["wq", "ws", "wz"], ["w"], **dq),
             h.make_node("Conv", ["xd", "wf" if w_float else "w"], ["c"], **conv_attrs),
             h.make_node("QuantizeLinear", ["c", "s", "z"], ["cq"]),
             h.make_node("DequantizeLinear", ["cq", "s", "z"], ["y"])]
    save(name, nodes, [X([1, 3, 8, 8])], [Y()], inits)

k3 = dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1])
# H1: a QDQ model whose weights are refused before they are read; a Conv
# with float weights between DequantizeLinear and QuantizeLinear is a float
# op (fp16 between casts, as tests/onnx/keep_float.sh runs them): accepted
qdq("qdq_float_weights", k3, w_float=True)
qdq("qdq_axis_oob", k3, w_axis=7, ws=[0.01] * 4)
qdq("qdq_axis_neg", k3, w_axis=-9, ws=[0.01] * 4)
qdq("qdq_axis1", k3, w_axis=1, ws=[0.01] * 3)
qdq("qdq_axis_m4", k3, w_axis=-4, ws=[0.01, 0.02, 0.03, 0.04])	# = axis 0: accepted
# H2: kernel_shape other than the weights'
qdq("qdq_kernel5", dict(kernel_shape=[5, 5], pads=[2, 2, 2, 2]))
save("conv_kernel5", [h.make_node("Conv", ["x", "w"], ["y"], kernel_shape=[5, 5], pads=[2] * 4)],
     [X([1, 3, 8, 8])], [Y()], [W("w", (4, 3, 3, 3))])
ql = [F("s", 0.02), I8("z", 0), qw, F("ws", 0.01), I8("wz", 0), F("ys", 0.05), I8("yz", 0)]
for k in (1, 5):
    save("qlinearconv_kernel%d" % k, [h.make_node("QLinearConv", ["x", "s", "z", "wq", "ws", "wz",
         "ys", "yz"], ["y"], kernel_shape=[k, k], pads=[k // 2] * 4)],
         [X([1, 3, 8, 8], T.INT8)], [Y(dt=T.INT8)], ql)
# M3: subgraphs nested 200 deep (If in If ...)
leaf = h.make_graph([h.make_node("Relu", ["x"], ["q"])], "s", [], [Y("q")])
sub = leaf
for i in range(200):	# one nested branch a level: the file grows linearly
    sub = h.make_graph([h.make_node("If", ["c"], ["q"], then_branch=sub, else_branch=leaf)],
                       "s%d" % i, [], [Y("q")])
save("nested_if", [h.make_node("If", ["c"], ["y"], then_branch=sub, else_branch=leaf)],
     [X([1, 3, 8, 8])], [Y()], [nh.from_array(np.array(True), "c")])
# M4: float reference operands
save("gemm_short_bias", [h.make_node("Gemm", ["x", "w", "b"], ["y"])], [X([1, 64])], [Y()],
     [W("w", (64, 10)), W("b", (7,))])
bn = [W("sc", (3,)), W("bi", (3,)), W("mn", (3,)), F("vr", np.ones(2))]
save("bn_short_var", [h.make_node("BatchNormalization", ["x", "sc", "bi", "mn", "vr"], ["y"])],
     [X([1, 3, 8, 8])], [Y()], bn)
save("bn_two_inputs", [h.make_node("BatchNormalization", ["x", "sc"], ["y"])],
     [X([1, 3, 8, 8])], [Y()], bn[:1])
save("clip_empty_min", [h.make_node("Clip", ["x", "mn"], ["y"])], [X([1, 3, 8, 8])], [Y()],
     [F("mn", np.zeros(0))])
for op in ("AveragePool", "MaxPool"):
    save(op + "_pads", [h.make_node(op, ["x"], ["y"], kernel_shape=[2, 2], pads=[2, 0, 0, 0])],
         [X([1, 3, 8, 8])], [Y()], [])
# L1: non-finite weights and biases
for nm, w, b in (("conv_w_nan", np.nan, 0.0), ("conv_w_inf", np.inf, 0.0),
                 ("conv_b_nan", 0.5, np.nan)):
    save(nm, [h.make_node("Conv", ["x", "w", "b"], ["y"], kernel_shape=[3, 3], pads=[1] * 4)],
         [X([1, 3, 8, 8])], [Y()], [F("w", np.full((4, 3, 3, 3), w)), F("b", np.full(4, b))])
# L3: two outputs that would be one file, and a name with '/' in it
save("same_file", [h.make_node("Relu", ["x"], ["out/1"]),
                   h.make_node("MaxPool", ["x"], ["out:1"], kernel_shape=[1, 1])],
     [X([1, 3, 8, 8])], [Y("out/1"), Y("out:1")], [])
save("slash_name", [h.make_node("Relu", ["x"], ["../up"])], [X([1, 3, 8, 8])], [Y("../up")], [])
# L5: a quantised model given --precision fp16
save("uint8_input", [h.make_node("DequantizeLinear", ["x", "s"], ["y"])], [X([1, 3, 8, 8], T.UINT8)],
     [Y()], [F("s", 0.1)])
# L8: an escape sequence in an output name
save("escape_name", [h.make_node("Relu", ["x"], ["y\x1b[31m"])], [X([1, 3, 8, 8])],
     [Y("y\x1b[31m")], [])
# L9: a Conv of a uint8 tensor; Flatten alone (nothing for the NPU)
save("conv_uint8_x", [h.make_node("Conv", ["x", "w"], ["y"], kernel_shape=[3, 3])],
     [X([1, 3, 8, 8], T.UINT8)], [Y()], [W("w", (4, 3, 3, 3))])
save("flatten_only", [h.make_node("Flatten", ["x"], ["y"], axis=0)], [X([1, 3, 8, 8])], [Y()], [])
# a plain float model for the inputs below
save("relu", [h.make_node("Relu", ["x"], ["y"])], [X([1, 3, 8, 8])], [Y()], [])
os.makedirs(os.path.join(out, "calib"))
np.save(os.path.join(out, "calib", "c0.npy"), rng.rand(1, 3, 8, 8).astype(np.float32))
np.save(os.path.join(out, "x.npy"), rng.rand(1, 3, 8, 8).astype(np.float32))
np.save(os.path.join(out, "x64.npy"), rng.rand(1, 64).astype(np.float32))
os.makedirs(os.path.join(out, "calib64"))
np.save(os.path.join(out, "calib64", "c0.npy"), rng.rand(1, 64).astype(np.float32))
np.save(os.path.join(out, "xu8.npy"), rng.randint(0, 255, (1, 3, 8, 8)).astype(np.uint8))

def npy(name, header, data=b""):
    hdr = header + " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    open(os.path.join(out, name + ".npy"), "wb").write(
        b"\x93NUMPY\x01\x00" + len(hdr).to_bytes(2, "little") + hdr.encode() + data)
# M2: the header ends inside descr (the reader once ran past it)
for i, tail in enumerate(("'", "'<", "'<f")):
    npy("descr_end%d" % i, "{'shape': (1, 3, 8, 8), 'fortran_order': False, 'descr': " + tail)
# M5: elements x 4 bytes wraps to 768 bytes, which the file holds
npy("wrap", "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, 3, 8, 8), }"
    % (2 ** 62 // 192 + 1), bytes(768))
PY

# check NAME WANT PATTERN ARGS...: `rkbare ARGS` on both builds exits WANT
# with PATTERN on stderr and no sanitizer report
check() {
	name=$1 want=$2 pattern=$3
	shift 3
	for b in host host-opt; do
		rc=0
		timeout 60 "build/$b/rkbare" "$@" > "$tmp/out" 2> "$tmp/err" || rc=$?
		if [ "$rc" -ne "$want" ] || { [ -n "$pattern" ] && ! grep -q -- "$pattern" "$tmp/err"; } ||
		   grep -q "Sanitizer\|runtime error" "$tmp/err"; then
			echo "hostile_models: $name ($b): exit $rc (want $want, '$pattern'):"
			sed 's/^/    /' "$tmp/err" | head -5
			fail=1
		fi
	done
}
compile() {	# NAME WANT PATTERN [OPTIONS]: compile $tmp/NAME.onnx
	n=$1 w=$2 p=$3
	shift 3
	check "$n" "$w" "$p" compile "$tmp/$n.onnx" -o "$tmp/$n.rkb" "$@"
}
ref() {		# NAME WANT PATTERN: onnx-ref $tmp/NAME.onnx on x.npy
	check "$1 (onnx-ref)" "$2" "$3" onnx-ref "$tmp/$1.onnx" --input "x=$tmp/x.npy" \
		--output-dir "$tmp/ref"
}

compile qdq_float_weights 0 ""
compile qdq_axis_oob 2 "has axis 7, outside \[-4, 4)"
compile qdq_axis_neg 2 "has axis -9, outside \[-4, 4)"
compile qdq_axis1 2 "quantised along axis 1, the NPU needs the output-channel axis 0"
compile qdq_axis_m4 0 ""
compile qdq_kernel5 2 "kernel_shape 5x5 differs from the weights' 3x3"
compile conv_kernel5 2 "kernel_shape 5x5 differs from the weights' 3x3" --precision fp16
compile conv_kernel5 2 "kernel_shape 5x5 differs from the weights' 3x3" --calib "$tmp/calib"
ref conv_kernel5 2 "kernel_shape 5x5 differs from the weights' 3x3"
compile qlinearconv_kernel1 2 "kernel_shape 1x1 differs from the weights' 3x3"
compile qlinearconv_kernel5 2 "kernel_shape 5x5 differs from the weights' 3x3"
compile nested_if 2 "messages nest deeper than" --precision fp16
check nested_if 2 "messages nest deeper than" onnx-dump "$tmp/nested_if.onnx"
check "gemm_short_bias (onnx-ref)" 2 "bias C does not broadcast to the (M, N) output" \
	onnx-ref "$tmp/gemm_short_bias.onnx" --input "x=$tmp/x64.npy" --output-dir "$tmp/ref"
compile gemm_short_bias 2 "bias C does not broadcast" --calib "$tmp/calib64"
ref bn_short_var 2 "scale, B, mean and var must each be 1-D of the channel count"
ref bn_two_inputs 2 "(BatchNormalization): a required input is missing"
ref AveragePool_pads 2 "(AveragePool): pads (2,0,0,0) are not smaller than the 2x2 kernel"
ref clip_empty_min 2 "(Clip): min, max or constant_value is not one value"
ref MaxPool_pads 2 "(MaxPool): pads (2,0,0,0) are not smaller than the 2x2 kernel"
compile AveragePool_pads 2 "pads (2,0,0,0) are not smaller" --calib "$tmp/calib"
compile conv_w_nan 2 "weights 'w' holds nan at 0: not a finite number" --calib "$tmp/calib"
compile conv_w_inf 2 "weights 'w' holds inf at 0: not a finite number" --calib "$tmp/calib"
compile conv_b_nan 2 "bias 'b' holds nan at 0: not a finite number" --calib "$tmp/calib"
compile conv_b_nan 2 "bias 'b' holds nan at 0: not a finite number" --precision fp16
compile uint8_input 2 "is a quantised model (int8/uint8 inputs or quantisation nodes)" \
	--precision fp16
compile relu 2 "fp16 takes a float32 model as it is: --calib does not apply" --precision fp16 \
	--calib "$tmp/calib"
compile conv_uint8_x 2 "input 'x' is uint8; the operator takes a float tensor"
compile flatten_only 2 "the graph has no op to run" --precision fp16

# L3: one file per output, or a refusal naming both
compile same_file 0 "" --precision fp16
check same_file 1 "outputs 'out/1' and 'out:1' would both be written to" \
	infer "$tmp/same_file.rkb" --input "x=$tmp/x.npy" --output-dir "$tmp/o"
check "same_file (onnx-ref)" 1 "outputs 'out/1' and 'out:1' would both be written to" \
	onnx-ref "$tmp/same_file.onnx" --input "x=$tmp/x.npy" --output-dir "$tmp/o"
compile slash_name 0 "" --precision fp16
check slash_name 0 "" infer "$tmp/slash_name.rkb" --input "x=$tmp/x.npy" --output-dir "$tmp/s/i"
check "slash_name (onnx-ref)" 0 "" onnx-ref "$tmp/slash_name.onnx" --input "x=$tmp/x.npy" \
	--output-dir "$tmp/s/r"
for d in i r; do
	if [ "$(ls -A "$tmp/s/$d")" != ".._up.npy" ] || [ -e "$tmp/s/up.npy" ]; then
		echo "hostile_models: slash_name: output '../up' left $tmp/s/$d"; fail=1
	fi
done

# issue 20: output directories and files' directories are created (mkdir -p)
compile relu 0 "" --precision fp16
check "infer --output-dir a/b" 0 "" infer "$tmp/relu.rkb" --input "x=$tmp/x.npy" \
	--output-dir "$tmp/new/a/b"
check "onnx-ref --output-dir a/b" 0 "" onnx-ref "$tmp/relu.onnx" --input "x=$tmp/x.npy" \
	--output-dir "$tmp/new/c/d"
check "compile -o a/b/m.rkb" 0 "" compile "$tmp/relu.onnx" --precision fp16 -o "$tmp/new/e/m.rkb"
for f in new/a/b/y.npy new/c/d/y.npy new/e/m.rkb; do
	[ -s "$tmp/$f" ] || { echo "hostile_models: $f was not written"; fail=1; }
done
touch "$tmp/plain"
check "infer --output-dir FILE/x" 1 "cannot create .*plain/x: Not a directory" infer \
	"$tmp/relu.rkb" --input "x=$tmp/x.npy" --output-dir "$tmp/plain/x"

# L8: names reach the terminal escaped
compile escape_name 0 "" --precision fp16
for b in host host-opt; do
	"build/$b/rkbare" info "$tmp/escape_name.rkb" > "$tmp/out" 2>&1
	if grep -q "$(printf '\033')" "$tmp/out" || ! grep -qF "'y\\x1b[31m'" "$tmp/out"; then
		echo "hostile_models: info ($b) prints the escape raw:"; cat -v "$tmp/out"; fail=1
	fi
done

# M2, M5, L4: .npy inputs through infer, onnx-ref and --calib
for n in descr_end0 descr_end1 descr_end2; do
	check "$n (infer)" 2 "element type .* is not supported" infer "$tmp/relu.rkb" \
		--input "x=$tmp/$n.npy" --output-dir "$tmp/o"
	check "$n (onnx-ref)" 2 "element type .* is not supported" onnx-ref "$tmp/relu.onnx" \
		--input "x=$tmp/$n.npy" --output-dir "$tmp/o"
done
mkdir "$tmp/cw" && cp "$tmp/wrap.npy" "$tmp/cw/"
check "wrap (infer)" 2 "elements of 4 bytes exceed the" infer "$tmp/relu.rkb" \
	--input "x=$tmp/wrap.npy" --output-dir "$tmp/o"
check "wrap (--calib)" 2 "elements of 4 bytes exceed the" compile "$tmp/relu.onnx" \
	--calib "$tmp/cw" -o "$tmp/o.rkb"
mkfifo "$tmp/fifo"
check "fifo (infer)" 2 "not a regular file" infer "$tmp/relu.rkb" --input "x=$tmp/fifo" \
	--output-dir "$tmp/o"
check "fifo (onnx-ref model)" 2 "not a regular file" onnx-ref "$tmp/fifo" \
	--input "x=$tmp/x.npy" --output-dir "$tmp/o"

[ "$fail" -eq 0 ] && echo "hostile_models: every case refused by name or handled, both builds"
[ "$fail" -eq 0 ]
