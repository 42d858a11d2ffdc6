#!/bin/sh
# rkbare quantize on the project's Fashion-MNIST model, checked by others:
# python3-onnx's checker accepts the QDQ model; numpy re-derives the
# documented weight scheme (int8 per output channel, symmetric, scale
# max|w|/127) from the float weights and finds the same integers (ties may
# round either way: 1 LSB); onnxruntime runs the QDQ model on the 10k test
# images within 1 point of the float model's accuracy.
set -eu
cd "$(dirname "$0")/../.."
RKBARE=build/host/rkbare
MODEL=models/fashion_mnist/fmnist_cnn.onnx
sh scripts/setup-npm.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/calib"
/usr/bin/python3 - "$tmp/calib" <<'PY'
import gzip, sys
import numpy as np
raw = gzip.open("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz").read()[16:]
x = np.frombuffer(raw, np.uint8).reshape(-1, 1, 28, 28).astype(np.float32) / 255
idx = np.random.default_rng(20261124).choice(len(x), 200, replace=False)
np.save(sys.argv[1] + "/a.npy", x[idx[:100]])
np.save(sys.argv[1] + "/b.npy", x[idx[100:]])
PY
"$RKBARE" quantize "$MODEL" --calib "$tmp/calib" -o "$tmp/q.onnx"
/usr/bin/python3 - "$MODEL" "$tmp/q.onnx" <<'PY'
import sys
import numpy as np
import onnx
from onnx import numpy_helper
f, q = onnx.load(sys.argv[1]), onnx.load(sys.argv[2])
onnx.checker.check_model(q)
qi = {t.name: numpy_helper.to_array(t) for t in q.graph.initializer}
bad = 0
for t in f.graph.initializer:
    if not t.name.startswith("w"):
        continue
    w = numpy_helper.to_array(t)
    scale = np.abs(w.reshape(w.shape[0], -1)).max(1) / 127
    want = np.round(w / scale.reshape((-1,) + (1,) * (w.ndim - 1)))
    got = qi[t.name + "_quantized"].astype(np.float64)
    if np.abs(got - want).max() > 1 or not np.allclose(qi[t.name + "_scale"], scale, rtol=1e-6):
        print("quantize: weights %s differ from the documented scheme" % t.name); bad += 1
ops = [n.op_type for n in q.graph.node]
print("quantize: %d QuantizeLinear, %d DequantizeLinear" % (ops.count("QuantizeLinear"),
                                                          ops.count("DequantizeLinear")))
sys.exit(1 if bad else 0)
PY
node tests/onnx/fmnist_accuracy.js "$MODEL" "$tmp/q.onnx" | tee "$tmp/acc"
awk 'NR == 1 { f = $2 } NR == 2 { q = $2 }
     END { printf "quantize: float %.4f, int8 QDQ %.4f\n", f, q; exit !(q >= f - 0.01) }' "$tmp/acc"

# Two float inputs (Add): a subdirectory of --calib per input, file i of
# each one sample; each input's QuantizeLinear scale covers its own range
# (span / 255, as an asymmetric uint8 range does; y's is 8 times x's).
# Refused by name: unequal file counts, a missing subdirectory.
mkdir -p "$tmp/two/calib/x" "$tmp/two/calib/y" "$tmp/two/short/x" "$tmp/two/short/y" \
	"$tmp/two/none/x"
/usr/bin/python3 - "$tmp/two" <<'PY'
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper
d = sys.argv[1]
vi = lambda n: helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, 4, 6, 6])
g = helper.make_graph([helper.make_node("Add", ["x", "y"], ["s"])], "add", [vi("x"), vi("y")],
                      [vi("s")])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), d + "/add.onnx")
rng = np.random.default_rng(20261125)
for i in range(3):
    for name, amp in (("x", 1.0), ("y", 8.0)):
        a = (rng.standard_normal((1, 4, 6, 6)) * amp).astype(np.float32)
        np.save("%s/calib/%s/%d.npy" % (d, name, i), a)
        if i < 2 or name == "x":
            np.save("%s/short/%s/%d.npy" % (d, name, i), a)
        if name == "x":
            np.save("%s/none/x/%d.npy" % (d, i), a)
PY
"$RKBARE" quantize "$tmp/two/add.onnx" --calib "$tmp/two/calib" -o "$tmp/two/q.onnx"
/usr/bin/python3 - "$tmp/two" <<'PY'
import sys
import numpy as np
import onnx
from onnx import numpy_helper
d = sys.argv[1]
q = onnx.load(d + "/q.onnx")
onnx.checker.check_model(q)
inits = {i.name: numpy_helper.to_array(i) for i in q.graph.initializer}
scale = {n.input[0]: float(inits[n.input[1]]) for n in q.graph.node
         if n.op_type == "QuantizeLinear" and n.input[0] in ("x", "y")}
for name in ("x", "y"):
    r = [np.load("%s/calib/%s/%d.npy" % (d, name, i)) for i in range(3)]
    span = max(float(a.max()) for a in r) - min(float(a.min()) for a in r)
    # an asymmetric uint8 range covers the input's own span
    if not (span / 255 * 0.99 <= scale[name] <= span / 255 * 1.1):
        print("quantize: input %s scale %g for a span of %g" % (name, scale[name], span))
        sys.exit(1)
print("quantize: two inputs, each quantised on its own range (x %.4g, y %.4g)" %
      (scale["x"], scale["y"]))
PY
# --calib-percentile 99: each input's range runs from its 1st to its 99th
# percentile per file (numpy's nearest-below rank), averaged over the
# files: the scale numpy derives so, not the extremes'; a bad value refused.
"$RKBARE" quantize "$tmp/two/add.onnx" --calib "$tmp/two/calib" --calib-percentile 99 \
	-o "$tmp/two/p.onnx"
/usr/bin/python3 - "$tmp/two" <<'PY'
import sys
import numpy as np
import onnx
from onnx import numpy_helper
d = sys.argv[1]
q = onnx.load(d + "/p.onnx")
inits = {i.name: numpy_helper.to_array(i) for i in q.graph.initializer}
scale = {n.input[0]: float(inits[n.input[1]]) for n in q.graph.node
         if n.op_type == "QuantizeLinear" and n.input[0] in ("x", "y")}
for name in ("x", "y"):
    r = [np.sort(np.load("%s/calib/%s/%d.npy" % (d, name, i)).ravel()) for i in range(3)]
    k = int(0.01 * (r[0].size - 1))
    lo = np.mean([a[k] for a in r])
    hi = np.mean([a[a.size - 1 - k] for a in r])
    span = max(hi, 0) - min(lo, 0)
    full = max(float(a[-1]) for a in r) - min(float(a[0]) for a in r)
    if not (span / 255 * 0.99 <= scale[name] <= span / 255 * 1.01) or scale[name] >= full / 255:
        print("quantize: percentile scale of %s %g, numpy %g (extremes %g)" %
              (name, scale[name], span / 255, full / 255))
        sys.exit(1)
print("quantize: --calib-percentile 99 scales x %.4g, y %.4g as numpy derives them" %
      (scale["x"], scale["y"]))
PY
# A bounded function's output keeps its whole interval under a percentile
# (Sigmoid [0, 1], Tanh [-1, 1], as TFLite fixes Logistic's): calibration
# inputs that never drive them near the top would otherwise cut it off.
mkdir -p "$tmp/bound/calib"
/usr/bin/python3 - "$tmp/bound" <<'PY'
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper
d = sys.argv[1]
vi = lambda n: helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, 4, 6, 6])
g = helper.make_graph([helper.make_node("Sigmoid", ["x"], ["s"]),
                       helper.make_node("Tanh", ["x"], ["t"])], "bound", [vi("x")],
                      [vi("s"), vi("t")])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), d + "/b.onnx")
rng = np.random.default_rng(20261126)
for i in range(3):
    np.save("%s/calib/%d.npy" % (d, i),
            rng.uniform(-2.0, 0.5, (1, 4, 6, 6)).astype(np.float32))
PY
"$RKBARE" quantize "$tmp/bound/b.onnx" --calib "$tmp/bound/calib" --calib-percentile 99 \
	-o "$tmp/bound/q.onnx"
/usr/bin/python3 - "$tmp/bound" <<'PY'
import sys
import numpy as np
import onnx
from onnx import numpy_helper
d = sys.argv[1]
q = onnx.load(d + "/q.onnx")
inits = {i.name: numpy_helper.to_array(i) for i in q.graph.initializer}
params = {n.input[0]: (float(inits[n.input[1]]), int(inits[n.input[2]]))
          for n in q.graph.node if n.op_type == "QuantizeLinear"}
for name, lo, hi in (("s", 0.0, 1.0), ("t", -1.0, 1.0)):
    got = [v for k, v in params.items() if k.startswith(name + "_")]
    scale = np.float32((hi - lo) / 255)
    zp = int(np.clip(np.round(-128 - lo / scale), -128, 127))
    if len(got) != 1 or not np.isclose(got[0][0], scale, rtol=1e-6) or got[0][1] != zp:
        print("quantize: %s's parameters %s, the interval [%g, %g] gives (%g, %d)" %
              (name, got, lo, hi, scale, zp))
        sys.exit(1)
print("quantize: Sigmoid and Tanh outputs take [0, 1] and [-1, 1] under a percentile")
PY
# An opset-9 model (as PaddlePaddle exports them): the QDQ model is written
# in opset 13, Unsqueeze's and Squeeze's axes attributes become inputs and a
# Softmax over the last axis keeps its meaning (onnxruntime runs the file,
# within int8's error of the float model); a Softmax over another axis,
# which opset 9 flattens from, is refused naming the node. Weights below
# float's normal range (a pruned channel) and zero weights quantise with
# scale 1 to zeros.
mkdir -p "$tmp/old/calib"
/usr/bin/python3 - "$tmp/old" <<'PY'
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
d = sys.argv[1]
rng = np.random.default_rng(20261126)
w = rng.standard_normal((3, 4, 1, 1)).astype(np.float32)
w[1] = np.float32(1e-40)	# subnormal: a scale of 1e-40 / 127 is no normal float
w[2] = 0
vi = lambda n, s: helper.make_tensor_value_info(n, TensorProto.FLOAT, s)
for name, axis in (("old", 3), ("axis1", 1)):
    g = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["c"], name="conv"),
         helper.make_node("Unsqueeze", ["c"], ["u"], axes=[0], name="unsq"),
         helper.make_node("Squeeze", ["u"], ["s"], axes=[0], name="sq"),
         helper.make_node("Softmax", ["s"], ["y"], axis=axis, name="softmax")],
        name, [vi("x", [1, 4, 6, 6])], [vi("y", [1, 3, 6, 6])],
        [numpy_helper.from_array(w, "w")])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 9)]),
              "%s/%s.onnx" % (d, name))
for i in range(3):
    np.save("%s/calib/%d.npy" % (d, i), rng.uniform(-1, 1, (1, 4, 6, 6)).astype(np.float32))
PY
"$RKBARE" quantize "$tmp/old/old.onnx" --calib "$tmp/old/calib" -o "$tmp/old/q.onnx"
node tests/onnx/ort_run.js "$tmp/old/old.onnx" --input "x=$tmp/old/calib/0.npy" \
	--output-dir "$tmp/old/fp32" 2>/dev/null
node tests/onnx/ort_run.js "$tmp/old/q.onnx" --input "x=$tmp/old/calib/0.npy" \
	--output-dir "$tmp/old/qdq" 2>/dev/null
/usr/bin/python3 - "$tmp/old" <<'PY'
import sys
import numpy as np
import onnx
from onnx import numpy_helper
d = sys.argv[1]
q = onnx.load(d + "/q.onnx")
onnx.checker.check_model(q)
inits = {i.name: numpy_helper.to_array(i) for i in q.graph.initializer}
nodes = {n.op_type: n for n in q.graph.node}
bad = []
if [o.version for o in q.opset_import if o.domain in ("", "ai.onnx")] != [13]:
    bad.append("opset %s" % [o.version for o in q.opset_import])
for op in ("Unsqueeze", "Squeeze"):
    n = nodes[op]
    if n.attribute or len(n.input) != 2 or list(inits.get(n.input[1], [])) != [0]:
        bad.append("%s spelled %s" % (op, n))
scale, wq = inits["w_scale"], inits["w_quantized"]
if scale[1] != 1 or scale[2] != 1 or wq[1:].any():
    bad.append("scales %s, rows 1 and 2 of the weights %s" % (scale, wq[1:].ravel()))
a, b = np.load(d + "/qdq/y.npy"), np.load(d + "/fp32/y.npy")
if np.abs(a - b).max() > 0.05:
    bad.append("onnxruntime on the QDQ model differs from fp32 by %g" % np.abs(a - b).max())
if bad:
    print("quantize: opset 9:", "; ".join(bad))
    sys.exit(1)
print("quantize: opset 9 written as 13 (Squeeze, Unsqueeze axes inputs), subnormal and "
      "zero weights at scale 1; onnxruntime within %.4f of fp32" % np.abs(a - b).max())
PY
if "$RKBARE" quantize "$tmp/old/axis1.onnx" --calib "$tmp/old/calib" -o "$tmp/old/b.onnx" \
	>"$tmp/old/axis1.log" 2>&1; then
	echo "quantize: an opset-9 Softmax over axis 1 of a rank-4 input was taken"
	exit 1
fi
grep -q "node 'softmax' (Softmax): the model imports opset 9, where the op flattens from axis 1" \
	"$tmp/old/axis1.log" || { echo "quantize: opset-9 Softmax:"; cat "$tmp/old/axis1.log"; exit 1; }
for v in 50 100 abc; do
	if "$RKBARE" quantize "$tmp/two/add.onnx" --calib "$tmp/two/calib" --calib-percentile "$v" \
		-o "$tmp/two/b.onnx" >"$tmp/two/pct.log" 2>&1; then
		echo "quantize: --calib-percentile $v was taken"
		exit 1
	fi
	grep -q -- "--calib-percentile $v: a number above 50 and below 100" "$tmp/two/pct.log" ||
		{ echo "quantize: --calib-percentile $v:"; cat "$tmp/two/pct.log"; exit 1; }
done
for bad in short none; do
	if "$RKBARE" quantize "$tmp/two/add.onnx" --calib "$tmp/two/$bad" -o "$tmp/two/b.onnx" \
		> "$tmp/two/$bad.log" 2>&1; then
		echo "quantize: --calib $bad was taken"
		exit 1
	fi
done
grep -q "input 'y' has 2 files, 'x' 3" "$tmp/two/short.log" &&
	grep -q "cannot open directory '.*/none/y'" "$tmp/two/none.log" ||
	{ echo "quantize: refusals do not name the input:"; cat "$tmp/two/"*.log; exit 1; }
echo "quantize: refused by name: unequal file counts, a missing input directory"
