#!/bin/sh
# Hybrid quantisation (rkbare compile --keep-float / --keep-float-auto) on a
# float model built here (fixed seed): x -> Conv -> Relu (r1) -> Conv (c2)
# -> Sigmoid (s) -> Mul(r1, s) (m) -> Conv (y), calibrated on random
# batches. Each container is run by the runtime on the NPU model and
# compared with onnxruntime running the QDQ model it was compiled from
# (--save-qdq; its float ops in fp32, rkbare's in fp16): cosine >= 0.9999.
# `rkbare info` must show the ops that compute or read the kept tensor in
# fp16 and the conversions at their edges: r1 kept makes x an fp16 input
# (only float ops read it) and converts r1's readers' outputs to int8; c2
# kept leaves x int8. The conversions run in the DPU (NPU convert ops); with
# --no-fusion the same ones are the CPU's Cast, and that container too must
# meet the cosine. Its engines line must split the NPU's MACs between int8
# and fp16 as the ops it lists add up (when both run). The QDQ file --save-qdq writes names its fp16 nodes in its
# metadata (rkbare.fp16_nodes), so compiling it gives the same container
# byte for byte; so does the file without it (as onnxruntime's quantiser
# leaves excluded nodes: their float weights mark them); a name there that
# no node computes is refused.
# Refused by name: an unknown tensor, a tensor fused into its
# producer's op (the first Conv's output, which the Relu takes), a count
# above the quantised activations, --keep-float with --precision fp16 or
# with a model already quantised, a count that is no number.
set -eu
cd "$(dirname "$0")/../.."
RKBARE=build/host/rkbare
sh scripts/setup-npm.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/calib"
/usr/bin/python3 - "$tmp" <<'PY'
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
d = sys.argv[1]
rng = np.random.default_rng(20261126)
C, H = 8, 12
def conv(name, x, y, cin, cout, k):
    w = (rng.standard_normal((cout, cin, k, k)) * np.sqrt(2.0 / (cin * k * k))).astype(np.float32)
    b = (rng.standard_normal(cout) * 0.1).astype(np.float32)
    inits = [numpy_helper.from_array(w, name + "_w"), numpy_helper.from_array(b, name + "_b")]
    return helper.make_node("Conv", [x, name + "_w", name + "_b"], [y], name=name,
                            pads=[k // 2] * 4), inits
n1, i1 = conv("conv1", "x", "c1", C, 16, 3)
n2, i2 = conv("conv2", "r1", "c2", 16, 16, 1)
n3, i3 = conv("conv3", "m", "y", 16, 4, 1)
nodes = [n1, helper.make_node("Relu", ["c1"], ["r1"], name="relu"), n2,
         helper.make_node("Sigmoid", ["c2"], ["s"], name="sigmoid"),
         helper.make_node("Mul", ["r1", "s"], ["m"], name="mul"), n3]
g = helper.make_graph(nodes, "hybrid",
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, C, H, H])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, H, H])],
                      i1 + i2 + i3)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), d + "/m.onnx")
for i in range(4):
    np.save("%s/calib/%d.npy" % (d, i), rng.standard_normal((1, C, H, H)).astype(np.float32))
np.save(d + "/x.npy", rng.standard_normal((1, C, H, H)).astype(np.float32))
PY
for keep in r1 c2; do
	"$RKBARE" compile "$tmp/m.onnx" --calib "$tmp/calib" --keep-float "$keep" \
		--save-qdq "$tmp/$keep.onnx" -o "$tmp/$keep.rkb" >/dev/null
	"$RKBARE" infer "$tmp/$keep.rkb" --input "x=$tmp/x.npy" --output-dir "$tmp/npu_$keep" \
		>/dev/null
	"$RKBARE" compile "$tmp/m.onnx" --calib "$tmp/calib" --keep-float "$keep" --no-fusion \
		-o "$tmp/${keep}_cpu.rkb" >/dev/null
	"$RKBARE" infer "$tmp/${keep}_cpu.rkb" --input "x=$tmp/x.npy" \
		--output-dir "$tmp/cpu_$keep" >/dev/null
	"$RKBARE" info "$tmp/${keep}_cpu.rkb" >"$tmp/${keep}_cpu.info"
	node tests/onnx/ort_run.js "$tmp/$keep.onnx" --input "x=$tmp/x.npy" \
		--output-dir "$tmp/ort_$keep" 2>/dev/null
	"$RKBARE" info "$tmp/$keep.rkb" >"$tmp/$keep.info"
	"$RKBARE" compile "$tmp/$keep.onnx" -o "$tmp/${keep}_again.rkb" >/dev/null
	cmp -s "$tmp/$keep.rkb" "$tmp/${keep}_again.rkb" ||
		{ echo "keep_float: $keep: its QDQ file compiles to another container"; exit 1; }
	# without the metadata, as onnxruntime's quantiser leaves excluded
	# nodes: the float weights mark the same groups
	/usr/bin/python3 - "$tmp/$keep.onnx" "$tmp/${keep}_plain.onnx" <<'PY'
import sys
import onnx
m = onnx.load(sys.argv[1])
del m.metadata_props[:]
onnx.save(m, sys.argv[2])
PY
	"$RKBARE" compile "$tmp/${keep}_plain.onnx" -o "$tmp/${keep}_plain.rkb" >/dev/null
	cmp -s "$tmp/$keep.rkb" "$tmp/${keep}_plain.rkb" ||
		{ echo "keep_float: $keep: its QDQ file without metadata compiles otherwise"; exit 1; }
done
echo "keep_float: each QDQ file --save-qdq wrote compiles to the same container, with or" \
	"without its metadata"
/usr/bin/python3 - "$tmp" <<'PY'
import sys
import onnx
d = sys.argv[1]
m = onnx.load(d + "/r1.onnx")
for p in m.metadata_props:
    if p.key == "rkbare.fp16_nodes":
        p.value = p.value.replace("r1", "nosuch", 1)
onnx.save(m, d + "/bad_meta.onnx")
PY
/usr/bin/python3 - "$tmp" <<'PY'
import re
import sys
import numpy as np
d = sys.argv[1]
bad = 0
# the maps each kept tensor must make fp16 (its readers' outputs before
# their casts to int8, an int8 input cast for them), and whether x is
expect = {"r1": ({"r1", "c2", "m", "s"}, True), "c2": ({"c2", "s", "r1"}, False)}
def cosine(a, b):
    return a @ b / (np.linalg.norm(a) * np.linalg.norm(b))


for keep, (fp16_names, x_fp16) in expect.items():
    b = np.load("%s/ort_%s/y.npy" % (d, keep)).astype(np.float64).ravel()
    cos, cos_cpu = (cosine(np.load("%s/%s_%s/y.npy" % (d, run, keep)).astype(np.float64).ravel(),
                           b) for run in ("npu", "cpu"))
    info = open("%s/%s.info" % (d, keep)).read()
    info_cpu = open("%s/%s_cpu.info" % (d, keep)).read()
    # tensor lines: index, name, c x h x w, (c_mem n), element type
    kinds = {m.group(1): m.group(2) for m in
             re.finditer(r"^\s+\d+ (\S+)\s+\d+ x\s+\d+ x\s+\d+ \(c_mem\s+\d+\) (\w+)", info, re.M)}
    # a map's float form before its QuantizeLinear is <name>_float
    fp16 = {re.sub("_float$", "", n) for n, k in kinds.items() if k == "fp16"}
    # op lines: index, engine, kind
    converts = len(re.findall(r"^\s+\d+ NPU convert\b", info, re.M))
    casts = len(re.findall(r"\bCast\b", info))
    cpu_casts = len(re.findall(r"\bCast\b", info_cpu))
    cpu_converts = len(re.findall(r"^\s+\d+ NPU convert\b", info_cpu, re.M))
    ok = cos >= 0.9999 and cos_cpu >= 0.9999 and fp16_names <= fp16 and \
        (("x" in fp16) == x_fp16) and converts > 0 and casts == 0 and \
        cpu_casts == converts and cpu_converts == 0
    print("keep_float: --keep-float %s: cosine %.6f with onnxruntime on its QDQ model "
          "(%.6f with --no-fusion); fp16 tensors %s; %d conversions in the DPU (%d CPU Casts "
          "with --no-fusion)%s" % (keep, cos, cos_cpu, " ".join(sorted(fp16)), converts,
                                   cpu_casts, "" if ok else "  FAIL"))
    bad += not ok
    # the engines line's int8 / fp16 split of the NPU's MACs, against the
    # ops info lists: a convolution's products (output elements x window x
    # input channels, one for depthwise), a pool's window taps, one per
    # output element otherwise; the precision is the op's input's
    shape = {int(m.group(1)): (int(m.group(2)) * int(m.group(3)) * int(m.group(4)), m.group(5),
                               int(m.group(2))) for m in
             re.finditer(r"^\s+(\d+) \S+\s+(\d+) x\s+(\d+) x\s+(\d+) \(c_mem\s+\d+\) (\w+)",
                         info, re.M)}
    want = {"int8": 0, "fp16": 0}
    for m in re.finditer(r"^\s+\d+ NPU (\w+)\s+(dw )?(?:\+\w+ )?(\d+)(?: \+ \d+)? -> (\d+)"
                         r"(?:\s+(\d+)x(\d+))?", info, re.M):
        kind, dw, a, o, kh, kw = m.groups()
        n = shape[int(o)][0]
        if kind in ("conv", "pool"):
            n *= int(kh) * int(kw) * (shape[int(a)][2] if kind == "conv" and not dw else 1)
        want["fp16" if shape[int(a)][1] == "fp16" else "int8"] += n
    line = re.search(r"^engines: .* of (\d+) MACs;.*$", info, re.M)
    split = re.search(r"NPU int8 ([\d.]+) %, fp16 ([\d.]+) %", line.group(0))
    total = int(line.group(1))
    share = {k: 100.0 * v / total for k, v in want.items()}
    if want["int8"] and want["fp16"]:
        ok = split is not None and abs(float(split.group(1)) - share["int8"]) <= 0.051 and \
            abs(float(split.group(2)) - share["fp16"]) <= 0.051
    else:
        ok = split is None
    print("keep_float: --keep-float %s: NPU MACs int8 %.1f %%, fp16 %.1f %% of %d; engines "
          "line: %s%s" % (keep, share["int8"], share["fp16"], total,
                          split.group(0) if split else "no split", "" if ok else "  FAIL"))
    bad += not ok
sys.exit(1 if bad else 0)
PY
# refusals
refuse() {
	want=$1
	shift
	if "$RKBARE" compile "$@" -o "$tmp/bad.rkb" >"$tmp/bad.log" 2>&1; then
		echo "keep_float: taken: $*"
		exit 1
	fi
	grep -q -- "$want" "$tmp/bad.log" ||
		{ echo "keep_float: '$*' refused without naming '$want':"; cat "$tmp/bad.log"; exit 1; }
}
refuse "--keep-float nosuch: no tensor of the graph has that name" \
	"$tmp/m.onnx" --calib "$tmp/calib" --keep-float nosuch
refuse "--keep-float c1: not a quantised activation" \
	"$tmp/m.onnx" --calib "$tmp/calib" --keep-float c1
refuse "--keep-float-auto 99: the graph has" "$tmp/m.onnx" --calib "$tmp/calib" \
	--keep-float-auto 99
refuse "--keep-float does not apply" "$tmp/m.onnx" --precision fp16 --keep-float r1
refuse "--keep-float do not apply" "$tmp/r1.onnx" --keep-float r1
refuse "--keep-float-auto x: a count" "$tmp/m.onnx" --calib "$tmp/calib" --keep-float-auto x
refuse "metadata rkbare.fp16_nodes names 'nosuch', the first output of no node" \
	"$tmp/bad_meta.onnx"
echo "keep_float: refused by name: unknown and fused tensors, too many, fp16 and quantised" \
	"models, a metadata name no node computes"
