#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Judges one model of tests/onnx/xformer_npu.sh: each output of the int8
(i8/) and fp16 (f16/) runs against onnxruntime fp32 (ort/) by cosine
similarity, gates 0.98 and 0.999; with `qdq`, the int8 run with power-of-two
scales (p2/) against onnxruntime on the QDQ model the calibration wrote
(qdq/), which computes the same quantised ops: gate 0.9999.

usage: xformer_check.py DIR NAME [qdq]
"""
import glob
import os
import sys

import numpy as np

GATE = {"i8": 0.98, "f16": 0.999}
QDQ_GATE = {"p2": 0.9999}


def main(d, name, qdq=False):
    bad = 0
    gates = QDQ_GATE if qdq else GATE
    for ref in sorted(glob.glob(os.path.join(d, "qdq" if qdq else "ort", "*.npy"))):
        o = os.path.basename(ref)[:-4]
        want = np.load(ref).astype(np.float64)
        for p, gate in gates.items():
            got = np.load(os.path.join(d, p, o + ".npy")).astype(np.float64)
            if got.shape != want.shape:
                print("xformer: %s %s %s: shape %s, onnxruntime's %s" % (name, p, o, got.shape,
                                                                       want.shape))
                bad += 1
                continue
            a, b = want.ravel(), got.ravel()
            cos = a @ b / (np.linalg.norm(a) * np.linalg.norm(b))
            ok = cos >= gate
            bad += not ok
            print("xformer: %-10s %-4s %-8s cosine %.5f (gate %.4g) max |error| %.4g %s" % (
                name, p, o, cos, gate, np.abs(a - b).max(), "PASS" if ok else "FAIL"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3:] == ["qdq"]))
