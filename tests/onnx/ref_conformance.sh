#!/bin/sh
# The float32 CPU reference (rkbare onnx-ref) against the published expected
# outputs of the ONNX conformance node tests (Debian's libonnx-testdata) for
# the float ops the importer handles: every test it runs must match
# (rtol 1e-4, atol 1e-5); a test it refuses must be refused with a reason,
# and the list of refusals is printed. Fails if fewer than MIN_PASS run.
set -eu
cd "$(dirname "$0")/../.."
RKBARE=build/host/rkbare
DATA=/usr/share/libonnx-testdata/data/node
OPS='conv_|convtranspose|resize|depthtospace|spacetodepth|split|slice|maxpool|averagepool|globalaveragepool|globalmaxpool|gemm|matmul_|add|sub|mul|div|relu|leakyrelu|sigmoid|tanh|hardsigmoid|clip|concat|reshape|flatten|transpose|softmax|batchnorm|identity|dropout|constant_pad|edge_pad|reflect_pad'
MIN_PASS=90
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ls -d "$DATA"/test_* | grep -E "/test_($OPS)" > "$tmp/list"
/usr/bin/python3 - "$tmp" <<'PY'
import sys, os, glob
import numpy as np
import onnx
from onnx import numpy_helper
tmp = sys.argv[1]
for i, d in enumerate(l.strip() for l in open(os.path.join(tmp, "list"))):
    m = onnx.load(os.path.join(d, "model.onnx"))
    inits = {t.name for t in m.graph.initializer}
    names = [v.name for v in m.graph.input if v.name not in inits]
    out = os.path.join(tmp, str(i)); os.makedirs(out)
    ok = True
    args = []
    try:
        for k, pb in enumerate(sorted(glob.glob(os.path.join(d, "test_data_set_0", "input_*.pb")))):
            t = onnx.TensorProto(); t.ParseFromString(open(pb, "rb").read())
            a = numpy_helper.to_array(t)
            np.save(os.path.join(out, "in%d.npy" % k), a)
            args.append("--input %s=%s/in%d.npy" % (names[k], out, k))
        for k, pb in enumerate(sorted(glob.glob(os.path.join(d, "test_data_set_0", "output_*.pb")))):
            t = onnx.TensorProto(); t.ParseFromString(open(pb, "rb").read())
            np.save(os.path.join(out, "want_%s.npy" % m.graph.output[k].name), numpy_helper.to_array(t))
    except Exception:
        # test data that is not plain tensors (sequences, optionals)
        args = ["--not-a-tensor-test"]
    open(os.path.join(out, "args"), "w").write(" ".join(args))
PY

i=0
while read -r d; do
	out="$tmp/$i"
	# shellcheck disable=SC2046
	if "$RKBARE" onnx-ref "$d/model.onnx" $(cat "$out/args") --output-dir "$out/got" \
		> /dev/null 2> "$out/err"; then
		echo ran > "$out/status"
	else
		echo refused > "$out/status"
	fi
	i=$((i + 1))
done < "$tmp/list"

/usr/bin/python3 - "$tmp" "$MIN_PASS" <<'PY'
import sys, os, glob
import numpy as np
tmp = sys.argv[1]
passed, wrong, refused = 0, [], []
for i, d in enumerate(l.strip() for l in open(os.path.join(tmp, "list"))):
    out = os.path.join(tmp, str(i)); name = os.path.basename(d)
    if open(os.path.join(out, "status")).read().strip() == "refused":
        err = open(os.path.join(out, "err")).read().strip().split(": ", 2)[-1]
        refused.append("%s: %s" % (name, err)); continue
    bad = False
    for want in glob.glob(os.path.join(out, "want_*.npy")):
        w = np.load(want)
        g = np.load(os.path.join(out, "got", os.path.basename(want)[5:]))
        if w.shape != g.shape or not np.allclose(g, w, rtol=1e-4, atol=1e-5):
            bad = True
    if bad:
        wrong.append(name)
    else:
        passed += 1
for r in refused:
    print("  refused " + r)
for w in wrong:
    print("ref_conformance: WRONG %s" % w)
print("ref_conformance: %d passed, %d refused, %d wrong" % (passed, len(refused), len(wrong)))
sys.exit(1 if wrong or passed < int(sys.argv[2]) else 0)
PY
