#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Run the register values of board-run generators (tests/data/board_*.regcmd,
reproduced from allbilly/rk3588 experimental/kernel_6_18/*.py and
experimental/gemm_int8.py, gemm_int16.py, and from gregordinary/rocket-userspace
gen_matmul_int4) in `rkbare sim` and compare each output with numpy.

usage: board_streams.py RKBARE DATAFILE... [--seed N] [--strict]

Each '#! case NAME key=value...' line starts a stream; its keys say what
the stream computes (pool=, conv=, op=, gemm=, mm4=, silu) and where its buffers
are. The reference is numpy on the same random data (fixed seed), written from
the operation's meaning and the layouts of docs/HARDWARE.md §5, not from
the model.

A case the model refuses is reported as unmodelled with the model's
message, or with --strict fails; a difference fails.
Exit status: 0 all cases ran and matched, 1 a failure, 77 no failure but
some case refused.
"""
import subprocess
import sys
import tempfile

import numpy as np

FP16_C2 = 8  # fp16 channels per 16-byte atom (HARDWARE.md §5.1)
OUT_FILL = 0xFF  # an fp16/fp32 NaN pattern: an element never written shows
IN_SLACK = 4096  # zero bytes after a convolution's input


def parse(path):
    cases, cur = [], None
    for line in open(path):
        line = line.strip()
        if line.startswith("#! case"):
            name, *kv = line[len("#! case"):].split()
            cur = {"name": name, "entries": []}
            for x in kv:
                k, _, v = x.partition("=")
                cur[k] = v
            cases.append(cur)
        elif line and not line.startswith("#"):
            cur["entries"].append(line)
    return cases


def num(c, key):
    return int(c[key], 0)


def fp16_random(rng, shape, lo=-4.0, hi=4.0):
    return rng.uniform(lo, hi, shape).astype(np.float16)


def pool_case(c, rng):
    """A PPU pool from PPU_RDMA over one 8-channel surface (h, w, 8) fp16."""
    h, w, ch, k = num(c, "h"), num(c, "w"), num(c, "c"), num(c, "k")
    if ch != FP16_C2:
        raise SystemExit("%s: only one 8-channel surface" % c["name"])
    x = fp16_random(rng, (h, w, ch))
    oh, ow = h - k + 1, w - k + 1  # stride 1 (2 x 2) or one window (global)
    ref = np.zeros((oh, ow, ch))
    for y in range(oh):
        for xx in range(ow):
            win = x[y:y + k, xx:xx + k].astype(np.float64)
            if c["pool"] == "max":
                ref[y, xx] = win.max(axis=(0, 1))
            else:
                ref[y, xx] = win.sum(axis=(0, 1)) * float(c["scale"])
    # max is exact; the average rounds its fp32 sum once to fp16
    tol = np.abs(ref) * 2.0 ** -10 if c["pool"] == "avg" else np.zeros_like(ref)
    return ({num(c, "in"): x.tobytes()}, [(num(c, "out"), ref.size * 2)],
            lambda outs: (np.frombuffer(outs[0], np.float16).reshape(ref.shape), ref, tol))


def ew_case(c, rng):
    """fp16 a (op) b over n values, one atom per 8 (DPU_RDMA MRDMA and ERDMA)."""
    n = num(c, "n")
    a = fp16_random(rng, n)
    b = fp16_random(rng, n, 0.5, 4.0)  # no division by ~0
    ad, bd = a.astype(np.float64), b.astype(np.float64)
    ref = {"add": ad + bd, "sub": ad - bd, "max": np.maximum(ad, bd), "mul": ad * bd,
           "fdiv": ad / bd}[c["op"]]
    tol = np.abs(ref) * 2.0 ** -10
    return ({num(c, "a"): a.tobytes(), num(c, "b"): b.tobytes()}, [(num(c, "out"), n * 2)],
            lambda outs: (np.frombuffer(outs[0], np.float16), ref, tol))


def silu_case(c, rng):
    """SiLU of n fp16 values through the DPU LUT; the output carries out_scale."""
    n = num(c, "n")
    x = np.linspace(-3.0, 3.0, n).astype(np.float16)
    xd = x.astype(np.float64)
    ref = xd / (1.0 + np.exp(-xd)) * float(c["out_scale"])
    # the script's own check: 0.01 after dividing by the scale
    tol = np.full(n, 0.01 * float(c["out_scale"]))
    return ({num(c, "in"): x.tobytes()}, [(num(c, "out"), n * 2)],
            lambda outs: (np.frombuffer(outs[0], np.float16), ref, tol))


def gemm_case(c, rng):
    """A (rows x align_in, row-major) x B -> C (rows x align_out, row-major):
    fp16 -> fp32, int8 -> int32, int16 -> int32."""
    rows, k, n = num(c, "rows"), num(c, "k"), num(c, "n")
    ai, ao, t = num(c, "align_in"), num(c, "align_out"), c["gemm"]
    dt = {"fp16": np.float16, "int8": np.int8, "int16": np.int16}[t]
    if t == "fp16":
        rnd = lambda shape: fp16_random(rng, shape, -1.0, 1.0)
    else:
        lim = 127 if t == "int8" else 2000  # int16: sums stay in int32
        rnd = lambda shape: rng.integers(-lim, lim + 1, shape).astype(dt)
    a = np.zeros((rows, ai), dt)
    a[:, :k] = rnd((rows, k))
    bt = np.zeros((ao, ai), dt)
    bt[:n, :k] = rnd((n, k))
    # weights (HARDWARE.md §5.4, 1 x 1 kernel): int8 [OC/32][IC/32][32][32],
    # 16-bit [OC/16][IC/32][16][32]
    og = 32 if t == "int8" else 16
    bn = bt.reshape(ao // og, og, ai // 32, 32).transpose(0, 2, 1, 3)
    ad, bd = a.astype(np.float64), bt.astype(np.float64)
    ref = ad @ bd.T
    if t == "fp16":
        tol, odt = (np.abs(ad) @ np.abs(bd).T) * 2.0 ** -20 + 2.0 ** -30, np.float32
    else:
        tol, odt = np.zeros_like(ref), np.int32
    return ({num(c, "a"): a.tobytes(), num(c, "b"): bn.tobytes()}, [(num(c, "out"), ref.size * 4)],
            lambda outs: (np.frombuffer(outs[0], odt).reshape(ref.shape), ref, tol))


def conv_case(c, rng):
    """fp16 convolution, stride 1, no padding, as the CNA reads it: ca
    channels (c real, the rest zero) of a ws-wide input (w real columns),
    NC1HWC2 in (pack=nhwc: packed pixels of c channels, the CNA's ARGB
    input) and out (HARDWARE.md §5.1; output surfaces of out_surface
    atoms); weights [OC/16][IC/32][kh][kw][16][32], depthwise [kh][kw][ca]
    (§5.4)."""
    ch, ca, h, w, ws, oc, kh, kw, dw, surf = (
        num(c, x) for x in ("c", "ca", "h", "w", "ws", "oc", "kh", "kw", "dw", "out_surface"))
    oh, ow = h - kh + 1, w - kw + 1
    if ca % FP16_C2 or ca > 32 or (dw and oc != ch):
        raise SystemExit("%s: whole atoms, one input-channel group" % c["name"])
    x = np.zeros((ca, h, ws), np.float16)
    x[:ch, :, :w] = fp16_random(rng, (ch, h, w), -2.0, 2.0)
    if c.get("pack") == "nhwc":
        # ARGB input (CNA argb_in): pixels of c channels packed row by row
        xn = x[:ch].transpose(1, 2, 0)
    else:
        xn = x.reshape(ca // FP16_C2, FP16_C2, h, ws).transpose(0, 2, 3, 1)
    xd = x.astype(np.float64)
    ref, bound = np.zeros((oc, oh, ow)), np.zeros((oc, oh, ow))
    if dw:
        wt = fp16_random(rng, (ca, kh, kw), -1.0, 1.0)
        wn = wt.transpose(1, 2, 0)
        wd = wt.astype(np.float64)[:, None]  # one input channel per output
    else:
        wt = fp16_random(rng, (oc, ca, kh, kw), -1.0, 1.0)
        # groups of 16 kernels, the last one dense (sim/ASSUMPTIONS.md A10)
        wn = np.concatenate([wt[g:g + 16].transpose(2, 3, 0, 1).ravel()
                             for g in range(0, oc, 16)])
        wd = wt.astype(np.float64)
    for ky in range(kh):
        for kx in range(kw):
            patch = xd[:, ky:ky + oh, kx:kx + ow]
            if dw:
                ref += wd[:oc, 0, ky, kx][:, None, None] * patch[:oc]
                bound += np.abs(wd[:oc, 0, ky, kx])[:, None, None] * np.abs(patch[:oc])
            else:
                ref += np.einsum("oc,chw->ohw", wd[:oc, :, ky, kx], patch)
                bound += np.einsum("oc,chw->ohw", np.abs(wd[:oc, :, ky, kx]), np.abs(patch))
    # fp32 sums in any order, then one fp16 rounding
    tol = bound * 2.0 ** -20 + np.abs(ref) * 2.0 ** -11 + 2.0 ** -24
    # the DPU writes every channel of its cube (DATA_CUBE_CHANNEL), the
    # padding past oc included: the saved range covers them
    cube = [int(e, 16) for e in c["entries"] if int(e, 16) >> 48 == 0x1001 and
            int(e, 16) & 0xFFFF == 0x403C]
    c1 = -(-((((cube[-1] >> 16) & 0x1FFF) + 1) if cube else oc) // FP16_C2)

    def check(outs):
        a = np.frombuffer(outs[0], np.float16)[: c1 * surf * FP16_C2]
        a = a.reshape(c1, surf, FP16_C2)[:, : oh * ow].reshape(c1, oh, ow, FP16_C2)
        return a.transpose(0, 3, 1, 2).reshape(c1 * FP16_C2, oh, ow)[:oc], ref, tol
    # zeros after the input: a one-row input's surface stride is
    # W x (H - 4) (HARDWARE.md §5.2), which the reads may run past
    return ({num(c, "in"): xn.tobytes() + bytes(IN_SLACK), num(c, "wt"): wn.tobytes()},
            [(num(c, "out"), c1 * surf * FP16_C2 * 2)], check)


def pack_nibbles(v):
    """int4 values, two a byte, the even element in the low nibble (§5.7)."""
    u = (v.ravel().astype(np.int16) & 0xF).astype(np.uint8)
    return (u[0::2] | (u[1::2] << 4)).tobytes()


def mm4_case(c, rng):
    """int4 A (K/32, M, 32) x int4 B (N/64, K/32, 64, 32) -> int16 C
    (N/8, M, 8), the sums saturated to int16 (HARDWARE.md §5.7). fill=sat
    draws every value from -8..-5, so that every sum passes 32767."""
    m, k, n = num(c, "m"), num(c, "k"), num(c, "n")
    lo, hi = (-8, -5) if c.get("fill") == "sat" else (-8, 7)
    a = rng.integers(lo, hi + 1, (m, k))
    b = rng.integers(lo, hi + 1, (k, n))
    an = a.reshape(m, k // 32, 32).transpose(1, 0, 2)
    bn = b.T.reshape(n // 64, 64, k // 32, 32).transpose(0, 2, 1, 3)
    ref = np.clip(a.astype(np.int64) @ b.astype(np.int64), -32768, 32767).astype(np.float64)

    def check(outs):
        got = np.frombuffer(outs[0], np.int16).reshape(n // 8, m, 8)
        return got.transpose(1, 0, 2).reshape(m, n), ref, np.zeros_like(ref)
    return ({num(c, "a"): pack_nibbles(an), num(c, "b"): pack_nibbles(bn)},
            [(num(c, "out"), m * n * 2)], check)


KINDS = (("pool", pool_case), ("conv", conv_case), ("op", ew_case), ("silu", silu_case),
         ("gemm", gemm_case), ("mm4", mm4_case))


def run_case(rk, d, c, rng):
    make = next(f for k, f in KINDS if k in c or c["name"] == k)
    loads, saves, check = make(c, rng)
    open(d + "/s.regcmd", "w").write("\n".join(c["entries"]) + "\n")
    cmd = [rk, "sim", "--verify", "--core", c.get("core", "0"), "--regcmd", d + "/s.regcmd"]
    for i, (addr, data) in enumerate(loads.items()):
        open("%s/in%d.bin" % (d, i), "wb").write(data)
        cmd += ["--load", "%#x=%s/in%d.bin" % (addr, d, i)]
    for i, (addr, size) in enumerate(saves):
        open("%s/out%d.bin" % (d, i), "wb").write(bytes([OUT_FILL]) * size)
        cmd += ["--load", "%#x=%s/out%d.bin" % (addr, d, i),
                "--save", "%#x:%d=%s/out%d.bin" % (addr, size, d, i)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        why = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "no message"
        return "unmodelled", "the model refuses it (%s)" % why
    got, ref, tol = check([open("%s/out%d.bin" % (d, i), "rb").read() for i in range(len(saves))])
    got = got.astype(np.float64)
    bad = ~(np.abs(got - ref) <= tol)
    if bad.any():
        i = tuple(np.argwhere(bad)[0])
        return "fail", "%d of %d outputs differ, first %s: got %r want %r" % (
            bad.sum(), bad.size, i, got[i], ref[i])
    return "ok", "%d outputs match numpy" % got.size


def main():
    args, seed = sys.argv[2:], 20261126
    strict = "--strict" in args
    if strict:
        args.remove("--strict")
    if "--seed" in args:
        i = args.index("--seed")
        seed = int(args[i + 1])
        del args[i:i + 2]
    rk, rng = sys.argv[1], np.random.default_rng(seed)
    counts = {"ok": 0, "fail": 0, "unmodelled": 0}
    with tempfile.TemporaryDirectory() as d:
        for path in args:
            name = path.rsplit("/", 1)[-1]
            for c in parse(path):
                status, msg = run_case(rk, d, c, rng)
                if strict and status == "unmodelled":
                    status = "fail"
                counts[status] += 1
                print("%s %s: %s: %s" % (name, c["name"], status, msg))
    if counts["fail"]:
        sys.exit(1)
    sys.exit(77 if counts["unmodelled"] else 0)


if __name__ == "__main__":
    main()
