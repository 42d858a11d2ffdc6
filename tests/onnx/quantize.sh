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
