#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""What the block Golomb-Rice codec of the project's seeds (nnvlc v1, the
int8 path of its encoder) would save on the int8 weights of model
containers, as they are stored: in the NPU's packed layout
(docs/FORMAT.md), zero-point lanes included.

The codec, as the seed describes it: 16 values a block; each signed value
mapped to unsigned (zigzag); per block the Rice order k in 0..5 with the
fewest bits, 16·k remainder bits plus a unary field of Σ(q + 1) bits that
may not exceed 47; a block costing more than 128 bits is stored raw (128
bits); one 8-bit k/length byte per block (the kmap); the payload padded to
16 bytes, after a 16-byte header.

usage: nnvlc_size.py MODEL.rkb ...   prints, per model: the packed weight
bytes, their compressed size, the fraction that is zero lanes, and the
non-zero bytes alone before and after compression (what the codec does for
the values themselves).
"""
import struct
import sys

import numpy as np

MAX_K, MAX_UNARY, BLOCK, RAW_BITS = 5, 47, 16, 128
ALIGN, HEADER = 16, 16
OP_BYTES, OP_WEIGHTS = 128, 88          # rkb_op size and its `weights` range
SEC_OPS, SEC_CONSTANTS = 3, 6


def sections(blob):
    count, offset = struct.unpack_from("<II", blob, 28)   # section_count, _offset
    table = {}
    for i in range(count):
        t, off, size, n = struct.unpack_from("<IIII", blob, offset + 16 * i)
        table[t] = (off, size, n)
    return table


def weights(blob):
    """The packed weights of every op, concatenated (int8)."""
    sec = sections(blob)
    ops_off, _, n_ops = sec[SEC_OPS]
    const_off = sec[SEC_CONSTANTS][0]
    parts = []
    for i in range(n_ops):
        off, size = struct.unpack_from("<II", blob, ops_off + OP_BYTES * i + OP_WEIGHTS)
        if size:
            parts.append(np.frombuffer(blob, np.int8, size, const_off + off))
    return np.concatenate(parts) if parts else np.zeros(0, np.int8)


def compressed_bytes(w):
    pad = (-len(w)) % BLOCK
    v = np.concatenate([w, np.zeros(pad, np.int8)]).astype(np.int16).reshape(-1, BLOCK)
    u = np.where(v >= 0, 2 * v, -2 * v - 1)           # zigzag: 0, -1, 1, -2, ...
    best = np.full(len(u), RAW_BITS, np.int64)
    for k in range(MAX_K + 1):
        unary = ((u >> k) + 1).sum(1)
        bits = np.where(unary <= MAX_UNARY, 16 * k + unary, 1 << 30)
        best = np.minimum(best, bits)
    payload = (int(best.sum()) + 7) // 8
    payload += (-payload) % ALIGN
    return HEADER + len(u) + payload                    # header, kmap, payload


def main():
    for path in sys.argv[1:]:
        with open(path, "rb") as f:
            w = weights(f.read())
        nz = w[w != 0]
        print("%s %d %d %.3f %d %d" % (path, len(w), compressed_bytes(w),
                                       float((w == 0).mean()) if len(w) else 0.0, len(nz),
                                       compressed_bytes(nz)))


if __name__ == "__main__":
    main()
