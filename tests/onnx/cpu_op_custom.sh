#!/bin/sh
# An application's own CPU op from ONNX to a run: a QDQ model (fixed seed)
# with a node of a custom domain, "Negate", between a convolution and a
# pool, compiled with `rkbare compile --cpu-op Negate`; a client built
# against librkbare.a (tests/onnx/cpu_op_client.c) registers Negate and runs
# the container. Compared with numpy computing the same QDQ graph: the
# convolution and the pool as onnxruntime's QLinear arithmetic would (one
# requantisation each), hence within 1 LSB; the Negate exactly.
set -eu
cd "$(dirname "$0")/../.."
RKBARE=build/host/rkbare
CLIENT=build/host/cli/cpu_op_client
make -s --no-print-directory "$CLIENT" >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 - "$tmp" <<'PY'
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
d = sys.argv[1]
rng = np.random.default_rng(20261125)
C, H = 16, 6
s = {"x": 0.02, "c": 0.05, "n": 0.05}
z = {"x": 5, "c": -3, "n": 3}
w = rng.integers(-60, 61, (C, C, 1, 1)).astype(np.int8)
ws = 0.01
def const(name, v):
    return numpy_helper.from_array(np.asarray(v), name)
inits = [const("w_q", w), const("w_s", np.float32(ws)), const("w_z", np.int8(0))]
nodes = []
def qdq(src, key, out):
    inits.extend([const(key + "_s", np.float32(s[key])), const(key + "_z", np.int8(z[key]))])
    nodes.append(helper.make_node("QuantizeLinear", [src, key + "_s", key + "_z"], [key + "_q"]))
    nodes.append(helper.make_node("DequantizeLinear", [key + "_q", key + "_s", key + "_z"], [out]))
qdq("x", "x", "xd")
nodes.append(helper.make_node("DequantizeLinear", ["w_q", "w_s", "w_z"], ["wd"]))
nodes.append(helper.make_node("Conv", ["xd", "wd"], ["c"], name="conv", kernel_shape=[1, 1]))
qdq("c", "c", "cd")
nodes.append(helper.make_node("Negate", ["cd"], ["n"], name="negate", domain="org.example"))
qdq("n", "n", "y")
g = helper.make_graph(nodes, "custom",
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, C, H, H])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, C, H, H])],
                      inits)
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13),
                                        helper.make_opsetid("org.example", 1)])
m.ir_version = 8
onnx.save(m, "%s/m.onnx" % d)
x = rng.uniform(-2.5, 2.5, (1, C, H, H)).astype(np.float32)
x.tofile("%s/x.f32" % d)
def q(v, k):
    return np.clip(np.rint(v / s[k]) + z[k], -128, 127)
qx = q(x, "x")
acc = np.einsum("oc,nchw->nohw", w[:, :, 0, 0].astype(np.int64), (qx - z["x"]).astype(np.int64))
qc = q(acc * s["x"] * ws, "c")
qn = q(-(qc - z["c"]) * s["c"], "n")
((qn - z["n"]) * s["n"]).astype(np.float32).tofile("%s/want.f32" % d)
PY
if "$RKBARE" compile "$tmp/m.onnx" -o "$tmp/no.rkb" > "$tmp/no.log" 2>&1; then
	echo "cpu_op_custom: a custom op compiled without --cpu-op"
	exit 1
fi
"$RKBARE" compile "$tmp/m.onnx" --cpu-op Negate -o "$tmp/m.rkb" > "$tmp/compile.log"
tail -1 "$tmp/compile.log"
"$CLIENT" "$tmp/m.rkb" "$tmp/x.f32" "$tmp/y.f32"
/usr/bin/python3 - "$tmp" <<'PY'
import sys
import numpy as np
d = sys.argv[1]
got = np.fromfile("%s/y.f32" % d, np.float32)
want = np.fromfile("%s/want.f32" % d, np.float32)
lsb = float(np.max(np.abs(got - want))) / 0.05
print("cpu_op_custom: Negate registered by the client; %d outputs within %.2f LSB of numpy"
      % (got.size, lsb))
sys.exit(0 if got.size == want.size and lsb <= 1.0 + 1e-3 else 1)
PY
