#!/bin/sh
# The judge does not depend on the CPU. The Fashion-MNIST model quantised by
# rkbare quantize (QDQ) runs in onnxruntime twice on 20 test images: on this
# CPU, and under qemu-x86_64 emulating a Haswell (AVX2 and FMA, no AVX-512,
# no VNNI: the CPUs on which onnxruntime's fused integer kernels are tens
# of LSB off). The judge (ort_run.js, graph optimisations off) must give the
# same logits within 1 LSB on both; the fused runs are printed beside, not
# gated. Skipped (exit 77) on hosts that are not x86-64.
set -eu
cd "$(dirname "$0")/../.."
RKBARE=build/host/rkbare
if [ "$(uname -m)" != x86_64 ]; then
	echo "judge_isa: skipped: the emulated Haswell runs x86-64 node only on x86-64 hosts"
	exit 77
fi
sh scripts/setup-npm.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 models/fashion_mnist/data.py "$tmp" 20 > /dev/null
"$RKBARE" quantize models/fashion_mnist/fmnist_cnn.onnx --calib "$tmp/calib" -o "$tmp/q.onnx" \
	> /dev/null
NODE=$(command -v node)
# Haswell without the system features user-mode TCG does not emulate
HASWELL=Haswell-v4,-pcid,-x2apic,-tsc-deadline,-invpcid,-spec-ctrl
for mode in judge fused; do
	flag=""
	[ $mode = fused ] && flag=--fused
	"$NODE" tests/onnx/ort_run.js "$tmp/q.onnx" $flag --input image="$tmp/test.npy" \
		--output-dir "$tmp/$mode.here"
	qemu-x86_64 -cpu "$HASWELL" "$NODE" tests/onnx/ort_run.js "$tmp/q.onnx" $flag \
		--input image="$tmp/test.npy" --output-dir "$tmp/$mode.avx2"
done
/usr/bin/python3 - "$tmp" <<'PY'
import sys
import numpy as np
import onnx
from onnx import numpy_helper
d = sys.argv[1]
m = onnx.load(d + "/q.onnx")
init = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
scale = [float(init[n.input[1]]) for n in m.graph.node
         if n.op_type == "DequantizeLinear" and n.output[0] == "logits"][0]
lsb = {}
for mode in ("judge", "fused"):
    a, b = (np.load("%s/%s.%s/logits.npy" % (d, mode, cpu)) for cpu in ("here", "avx2"))
    lsb[mode] = float(np.abs(a - b).max()) / scale
print("judge_isa: this CPU vs an AVX2-only CPU: judge (unfused) %.2f LSB apart, "
      "fused integer kernels %.2f LSB apart" % (lsb["judge"], lsb["fused"]))
sys.exit(0 if lsb["judge"] <= 1 + 1e-3 else 1)
PY
