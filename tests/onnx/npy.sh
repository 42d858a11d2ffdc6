#!/bin/sh
# tools/onnx/npy.c against numpy: files numpy writes (every supported type,
# ranks 0 to 4, format versions 1.0 and 2.0) are read and written back
# identical in type, shape and values; damaged files are refused.
set -eu
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/in" "$tmp/out"
make --no-print-directory -s host cli-helpers >/dev/null
/usr/bin/python3 - "$tmp/in" <<'PY'
import sys, os
import numpy as np
d = sys.argv[1]
rng = np.random.default_rng(7)
types = ["<f4", "<f2", "<f8", "|i1", "|u1", "<i2", "<i4", "<i8", "|b1"]
shapes = [(), (5,), (3, 4), (1, 3, 2, 2), (2, 1, 28, 28), (0, 3)]
for t in types:
    for s in shapes:
        a = (rng.standard_normal(s) * 100).astype(t)
        np.save(os.path.join(d, "ok_%s_%s.npy" % (t[1:], "x".join(map(str, s)) or "scalar")), a)
a = rng.standard_normal((2, 3)).astype("<f4")
with open(os.path.join(d, "ok_v2.npy"), "wb") as f:
    np.lib.format.write_array(f, a, version=(2, 0))
good = open(os.path.join(d, "ok_f4_3x4.npy"), "rb").read()
open(os.path.join(d, "bad_truncated.npy"), "wb").write(good[:-3])
open(os.path.join(d, "bad_magic.npy"), "wb").write(b"\x00" + good[1:])
np.save(os.path.join(d, "bad_bigendian.npy"), np.arange(4, dtype=">i4"))
np.save(os.path.join(d, "bad_fortran.npy"), np.asfortranarray(np.ones((2, 3), "<f4")))
np.save(os.path.join(d, "bad_complex.npy"), np.ones(3, np.complex64))
PY
build/host/cli/npy_copy "$tmp/out" "$tmp"/in/*.npy > "$tmp/log"
/usr/bin/python3 - "$tmp/in" "$tmp/out" "$tmp/log" <<'PY'
import sys, os
import numpy as np
din, dout, log = sys.argv[1:]
refused = {l.split(":")[0].rsplit("/", 1)[1] for l in open(log) if ": refused:" in l}
bad = 0
for name in sorted(os.listdir(din)):
    if name.startswith("bad_"):
        if name not in refused:
            print("npy: %s was not refused" % name); bad += 1
        continue
    a = np.load(os.path.join(din, name))
    try:
        b = np.load(os.path.join(dout, name))
    except Exception as e:
        print("npy: %s: %s" % (name, e)); bad += 1; continue
    if a.dtype != b.dtype or a.shape != b.shape or not np.array_equal(a, b, equal_nan=False):
        print("npy: %s changed: %s%s -> %s%s" % (name, a.dtype, a.shape, b.dtype, b.shape)); bad += 1
print("npy: %d files checked, %d refused as expected, %d wrong" % (len(os.listdir(din)), len(refused), bad))
sys.exit(1 if bad else 0)
PY
