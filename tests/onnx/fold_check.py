#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks one model of fold_gen.py: the folded graph (rkbare onnx-ref
--save-folded) keeps the node counts expect.json gives, and every output
directory given equals onnxruntime's run of the ORIGINAL graph to float32
rounding (the fold reorders float operations: a relative 2e-6 of the
output's magnitude, as a few roundings of a sum of ~100 products; deep
networks set FOLD_REL_TOL).

Usage: fold_check.py EXPECT.json NAME FOLDED.onnx ORT_DIR [OTHER_DIR ...]"""
import collections
import glob
import json
import os
import sys

import numpy as np
import onnx

REL_TOL = float(os.environ.get("FOLD_REL_TOL", "2e-6"))

expect_file, name, folded, ort_dir = sys.argv[1:5]
others = sys.argv[5:]
expect = json.load(open(expect_file))[name]
bad = 0
ops = collections.Counter(n.op_type for n in onnx.load(folded).graph.node)
for op, want in expect["keeps"].items():
    if ops[op] != want:
        print("fold: %s: the folded graph has %d %s nodes, expected %d (%s)"
              % (name, ops[op], op, want, dict(ops)))
        bad = 1
outs = sorted(glob.glob(os.path.join(ort_dir, "*.npy")))
if not outs:
    print("fold: %s: onnxruntime wrote no outputs" % name)
    bad = 1
worst = 0.0
for other in others:
    for f in outs:
        ref = np.load(f)
        got_path = os.path.join(other, os.path.basename(f))
        if not os.path.exists(got_path):
            print("fold: %s: %s has no %s" % (name, other, os.path.basename(f)))
            bad = 1
            continue
        got = np.load(got_path)
        if got.shape != ref.shape:
            print("fold: %s: %s: shape %s, onnxruntime %s" % (name, got_path, got.shape,
                                                             ref.shape))
            bad = 1
            continue
        scale = max(1.0, float(np.abs(ref).max()))
        err = float(np.abs(got.astype(np.float64) - ref).max()) / scale
        worst = max(worst, err)
        if err > REL_TOL:
            print("fold: %s: %s differs from onnxruntime by %.3g of its magnitude (limit %g)"
                  % (name, got_path, err, REL_TOL))
            bad = 1
if not bad:
    print("fold: %-16s folded as expected (%d nodes), outputs within %.2g of onnxruntime's"
          % (name, sum(ops.values()), worst))
sys.exit(bad)
