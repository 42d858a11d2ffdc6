#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Third-party matmul streams for `rkbare sim`: the register values the
mtx512/rk3588-npu generator (src/npu_matmul.c, run on RK3588 boards)
writes for C = A x B, restated as formulas of M, K, N and the type, in its
entry order and with its single-task tail, plus the data in the documented
native layouts and the expected result.

usage: mtx_stream.py DIR TYPE M K N SEED
  TYPE int8 (int8 x int8 -> int32), fp16 (fp16 -> fp32), fp16h (fp16 -> fp16)
Writes DIR/s.regcmd, a.bin, b.bin, want.bin and prints the --save length.

CNA DMA_CON2.SURF_STRIDE: MTX writes 4 x (M/4 - 1), plus one when
negative (0x0ffffffd for M < 4); for M = 1 that is the dense surface. For
M = 2 and 3 the vendor's captured streams (allbilly/rk3588
experimental/rknn/) write W x (H - 4) instead, the dense surface, and so
does this generator: MTX's value would overlap the surfaces.
"""
import sys

import numpy as np

A_ADDR, B_ADDR, C_ADDR = 0x10000000, 0x20000000, 0x30000000
CNA, CORE, DPU = 0x0201, 0x0801, 0x1001
FIELD28 = 0x0FFFFFFF


def entry(target, reg, value):
    return "%04X%08X%04X" % (target, value & 0xFFFFFFFF, reg)


def stream(t, m, k, n):
    fp16 = t != "int8"
    eb = 2 if fp16 else 1
    data_bank = (m * k * eb + 32767) // 32768
    size_e = {"int8": 7, "fp16": 3, "fp16h": 1}[t]
    surf_mul = {"int8": 8, "fp16": 4, "fp16h": 2}[t]
    data_format = {"int8": 0x80000000, "fp16": 0xA8000002, "fp16h": 0x48000002}[t]
    surf = 4 * (m // 4 - 1) if m >= 4 else (-3 if m == 1 else m - 4)
    e = [entry(DPU, 0x4004, 0xE)]
    e += [entry(CNA, r, v) for r, v in [
        (0x100C, 0x120 if fp16 else 0), (0x1010, (m + 1) << 4), (0x1014, 0x9),
        (0x1020, (1 << 16) | m), (0x1024, ((k - 1) << 16) | k), (0x1028, 1),
        (0x102C, m), (0x1030, k * n * eb), (0x1034, k * eb),
        (0x1038, (1 << 24) | (1 << 16) | n), (0x1040, ((12 - data_bank) << 4) | data_bank),
        (0x1044, (k * eb + 63) // 64), (0x104C, 0xB), (0x1050, 0x10000), (0x1054, 0x10000),
        (0x1058, 0x10000), (0x105C, 0x10000), (0x1060, 0), (0x1064, 0), (0x1068, 0),
        (0x1070, A_ADDR), (0x1074, 0), (0x1078, 0x000F000F), (0x107C, 4),
        (0x1080, surf & FIELD28), (0x1084, (1 << 16) | m), (0x1088, k), (0x1100, 0),
        (0x1104, 0), (0x1110, B_ADDR)]]
    e += [entry(CNA, 0x1140 + 4 * i, 0) for i in range(16)]
    e += [entry(CNA, 0x1180, 0), entry(CNA, 0x1184, 0)]
    e += [entry(CORE, r, v) for r, v in [
        (0x3010, 0x201 if fp16 else 0), (0x3014, (m - 1) << 16), (0x3018, n - 1),
        (0x301C, 0), (0x3030, 0)]]
    e += [entry(DPU, r, v) for r, v in [
        (0x400C, 0x1E4), (0x4010, data_format), (0x4014, 0), (0x4020, C_ADDR),
        (0x4024, m * 16), (0x4030, 0), (0x4034, m - 1), (0x4038, 0),
        (0x403C, ((n - 1) << 16) | (n - 1)), (0x4040, 0x53), (0x4044, 0), (0x4048, 0),
        (0x404C, 0), (0x4050, (size_e << 8) | (size_e << 5) | (size_e << 2) | 2),
        (0x4054, 0), (0x4058, n - 1), (0x405C, (m - 1) << 16), (0x4060, 0x53),
        (0x4064, 0), (0x4068, 0), (0x406C, 0), (0x4070, 0x383), (0x4074, 0),
        (0x4078, 1), (0x407C, 0), (0x4080, 0),
        (0x4084, 0x10001 if t == "fp16h" else 1), (0x4088, 0)]]
    e += [entry(DPU, 0x4090 + 4 * i, 0) for i in range(8)]
    e += [entry(DPU, 0x40C0, (m * surf_mul) << 4), entry(DPU, 0x40C4, 0)]
    e += [entry(DPU, 0x4100 + 4 * i, 0) for i in range(12)]
    assert len(e) == 104
    e += ["0000000000000000", "0101000000000014", "0041000000000000", "00810000000D0008"]
    return e


def main():
    d, t, m, k, n, seed = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:7])
    rng = np.random.default_rng(seed)
    fp16 = t != "int8"
    if fp16:
        # small integers: every product and sum is exact in fp32 (and the
        # fp16 result in fp16), whatever the order of the sums
        a = rng.integers(-3, 4, (m, k)).astype(np.float16)
        b = rng.integers(-3, 4, (k, n)).astype(np.float16)
        want = a.astype(np.float32) @ b.astype(np.float32)
        want = want.astype(np.float16) if t == "fp16h" else want
        c2a, og, ig = 8, 16, 32
    else:
        a = rng.integers(-128, 128, (m, k)).astype(np.int8)
        b = rng.integers(-128, 128, (k, n)).astype(np.int8)
        want = a.astype(np.int32) @ b.astype(np.int32)
        c2a, og, ig = 16, 32, 32
    # A native (K/C2, M, C2); B native (N/og, K/32, og, 32); C (N/C2, M, C2)
    an = a.reshape(m, k // c2a, c2a).transpose(1, 0, 2)
    bn = b.T.reshape(n // og, og, k // ig, ig).transpose(0, 2, 1, 3)
    c2c = 8 if t == "fp16h" else 4
    wn = want.reshape(m, n // c2c, c2c).transpose(1, 0, 2)
    open(d + "/s.regcmd", "w").write("\n".join(stream(t, m, k, n)) + "\n")
    an.tobytes() and open(d + "/a.bin", "wb").write(np.ascontiguousarray(an).tobytes())
    open(d + "/b.bin", "wb").write(np.ascontiguousarray(bn).tobytes())
    open(d + "/want.bin", "wb").write(np.ascontiguousarray(wn).tobytes())
    print(wn.nbytes)


if __name__ == "__main__":
    main()
