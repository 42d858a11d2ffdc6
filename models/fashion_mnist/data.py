#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Data the Fashion-MNIST model is built and checked with, from Debian's
dataset-fashion-mnist: calibration batches (training images, fixed seed),
and the first test images with their labels.

usage: data.py OUTDIR [TEST_COUNT]
  OUTDIR/calib/a.npy, b.npy   200 training images, float32 [100,1,28,28] each
  OUTDIR/test.npy             the first TEST_COUNT test images (default 10000)
  OUTDIR/labels.npy           their labels, uint8
"""
import gzip
import os
import sys

import numpy as np

DATA = "/usr/share/datasets/fashion-mnist"
SEED = 20261124
CALIB = 200


def images(name):
    raw = gzip.open(os.path.join(DATA, name)).read()[16:]
    return np.frombuffer(raw, np.uint8).reshape(-1, 1, 28, 28).astype(np.float32) / 255


def main():
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
    os.makedirs(os.path.join(out, "calib"), exist_ok=True)
    x = images("train-images-idx3-ubyte.gz")
    idx = np.random.default_rng(SEED).choice(len(x), CALIB, replace=False)
    np.save(os.path.join(out, "calib", "a.npy"), x[idx[:CALIB // 2]])
    np.save(os.path.join(out, "calib", "b.npy"), x[idx[CALIB // 2:]])
    np.save(os.path.join(out, "test.npy"), images("t10k-images-idx3-ubyte.gz")[:count])
    raw = gzip.open(os.path.join(DATA, "t10k-labels-idx1-ubyte.gz")).read()[8:]
    np.save(os.path.join(out, "labels.npy"), np.frombuffer(raw, np.uint8)[:count])


if __name__ == "__main__":
    main()
