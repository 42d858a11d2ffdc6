#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Run the vendor runtime's live-captured register streams in `rkbare sim`
and compare every output with numpy.

usage: vendor_chains.py RKBARE DATAFILE [SEED]

DATAFILE (tests/data/vendor_*.regcmd) holds a capture's regcmd window
verbatim plus '#!' lines: the model the stream computes, the buffers (IOVA,
size), the window's IOVA, the vendor's task descriptors and the scratch
copy of its closing PPU task. The descriptors hold several chains, each
ended by a tail without PC_BASE_ADDRESS: the vendor's regcmd for 1, 2 and
3 cores, in that order (one chain per core).

Each buffer is moved to an address of our own (the IOVAs lie in the model's
MMIO hole), every address field of the stream with it; an entry holding a
buffer address in any other register fails the test (a missed relocation).
Then, per core count, one job runs each core's chain on its core through the
driver (`--verify`: every address the tasks can touch lies in the buffers),
as the vendor submits them, and the result is compared with a numpy
convolution of the same data (random fp16, fixed seed) in the layouts of
docs/HARDWARE.md §5.1 and §5.4. The closing PPU task (a 1x1 max pool of 32
int8 values, TRM RKNN_ppu_*) must copy its source.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

# Where each buffer goes (below the model's MMIO hole at 0xF0000000).
RELOC = {"input": 0x10000000, "weight": 0x20000000, "output": 0x30000000}
# (target, register) of every address field a stream can carry
# (include/rkbare/npu_regs.def): PC BASE_ADDRESS, CNA FEATURE_DATA_ADDR and
# DCOMP_ADDR0, DPU DST_BASE_ADDR, DPU_RDMA SRC/BS/BN/EW_BASE_ADDR, PPU
# DST_BASE_ADDR, PPU_RDMA SRC_BASE_ADDR.
ADDR_REGS = {(0x0101, 0x0010), (0x0201, 0x1070), (0x0201, 0x1110), (0x1001, 0x4020),
             (0x2001, 0x5018), (0x2001, 0x5020), (0x2001, 0x502C), (0x2001, 0x5038),
             (0x4001, 0x6070), (0x8001, 0x701C)}
PC, PC_BASE, OP_EN = 0x0101, 0x0010, 0x0081
PPU_ENABLES = 0x60  # PPU and PPU_RDMA in the op-enable mask (HARDWARE.md §3.4)
TAIL = 4  # next PC_BASE_ADDRESS, PC_REGISTER_AMOUNTS, marker, op-enable
FP16_C2 = 8  # fp16 channels per 16-byte atom (HARDWARE.md §5.1)
OUT_FILL = 0xFF  # fp16 0xFFFF is a NaN: an element never written shows


def fail(msg):
    print("vendor_chains: " + msg)
    sys.exit(1)


def parse(path):
    meta, q = {"task": []}, []
    for line in open(path):
        line = line.strip()
        if line.startswith("#!"):
            key, *args = line[2:].split()
            if key == "task":
                meta["task"].append((int(args[0], 16), int(args[1]), int(args[2], 16)))
            elif key == "buffer":
                meta.setdefault("buffer", {})[args[0]] = (int(args[1], 16), int(args[2], 16))
            else:
                meta[key] = args
        elif line and not line.startswith("#"):
            q.append(int(line, 16))
    return meta, q


def fields(e):
    return e >> 48, (e >> 16) & 0xFFFFFFFF, e & 0xFFFF


def entry(target, value, reg):
    return (target << 48) | (value << 16) | reg


def chains(meta, q, window):
    """Chains of the descriptors, each a list of (start index, entries)."""
    at = {a: (a - window) // 8 for a, _, _ in meta["task"]}
    desc = {a: (n, en) for a, n, en in meta["task"]}
    nxt, targeted = {}, set()
    for a, n, en in meta["task"]:
        i = at[a]
        t = q[i + n:i + n + TAIL]
        if len(t) < TAIL or fields(t[3])[0] != OP_EN or fields(t[3])[1] != en:
            fail("task 0x%08x: no tail with op-enable 0x%x after %d entries" % (a, en, n))
        tgt, val, reg = fields(t[0])
        nxt[a] = val if (tgt, reg) == (PC, PC_BASE) else 0
        if nxt[a]:
            if nxt[a] not in desc:
                fail("task 0x%08x chains to 0x%08x, no descriptor" % (a, nxt[a]))
            targeted.add(nxt[a])
    out = []
    for a, _, _ in meta["task"]:
        if a in targeted:
            continue
        c = [a]
        while nxt[c[-1]]:
            c.append(nxt[c[-1]])
        # a chain's PC_REGISTER_AMOUNTS carry the core count less one in
        # bits 16+ (the only per-group difference besides CONV_CON2 bits 24+)
        hi = {fields(q[at[x] + desc[x][0] + 1])[1] >> 16 for x in c[:-1]}
        out.append((c, hi))
    if len(out) != 6:
        fail("%d chains, expected 1 + 2 + 3" % len(out))
    groups = [out[0:1], out[1:3], out[3:6]]
    for cores, g in enumerate(groups, 1):
        for c, hi in g:
            if hi and hi != {cores - 1}:
                fail("chain 0x%08x: PC_REGISTER_AMOUNTS bits 16+ %s in the %d-core group"
                     % (c[0], sorted(hi), cores))
    return [[c for c, _ in g] for g in groups], at, desc


def relocate(meta, v, why):
    for name, (base, size) in meta["buffer"].items():
        if base <= v < base + size:
            return RELOC[name] + v - base
    fail("%s: 0x%08x lies in no buffer" % (why, v))


def chain_stream(meta, q, at, desc, chain):
    """The relocated entries from the chain's first task to its last tail."""
    lo = at[chain[0]]
    hi = max(at[a] + desc[a][0] + TAIL for a in chain)
    s = []
    for i in range(lo, hi):
        tgt, val, reg = fields(q[i])
        owned = any(at[a] <= i < at[a] + desc[a][0] + TAIL for a in chain)
        if not owned:
            s.append(0)  # another chain's entries: not this run's stream
            continue
        if (tgt, reg) in ADDR_REGS and val:
            val = relocate(meta, val, "entry %d" % i)
        elif any(b <= val < b + n for b, n in meta["buffer"].values()):
            fail("entry %d (0x%016x) holds a buffer address in a register the "
                 "test does not relocate" % (i, q[i]))
        s.append(entry(tgt, val, reg))
    return s


def model_args(meta):
    kind, prec, *kv = meta["model"]
    p = dict(x.split("=") for x in kv)
    if kind != "conv" or prec != "fp16":
        fail("model %s %s: only fp16 convolutions are captured" % (kind, prec))
    return {k: int(v) for k, v in p.items()}


def conv_data(p, rng):
    c, h, w, oc, k, s = p["c"], p["h"], p["w"], p["oc"], p["k"], p["stride"]
    if p["pad"]:
        fail("padding not in the captures")
    x = rng.standard_normal((c, h, w)).astype(np.float16)
    wt = (rng.standard_normal((oc, c, k, k)) / np.sqrt(c * k * k)).astype(np.float16)
    oh, ow = (h - k) // s + 1, (w - k) // s + 1
    # NC1HWC2 (HARDWARE.md §5.1); channels past c are padding (zero here)
    c1 = -(-c // FP16_C2)
    xn = np.zeros((c1 * FP16_C2, h, w), np.float16)
    xn[:c] = x
    xn = xn.reshape(c1, FP16_C2, h, w).transpose(0, 2, 3, 1)
    # fp16 weights [OC/16][IC/32][kh][kw][16 oc][32 ic] (HARDWARE.md §5.4)
    og, ig = 16, 32
    if oc % og or c % ig:
        fail("weights: oc %d / ic %d not whole groups" % (oc, c))
    wn = wt.reshape(oc // og, og, c // ig, ig, k, k).transpose(0, 2, 4, 5, 1, 3)
    # reference: float64 sums of the fp16 values
    xd, wd = x.astype(np.float64), wt.astype(np.float64)
    ref = np.zeros((oc, oh, ow))
    bound = np.zeros((oc, oh, ow))
    for ky in range(k):
        for kx in range(k):
            patch = xd[:, ky:ky + s * (oh - 1) + 1:s, kx:kx + s * (ow - 1) + 1:s]
            ref += np.einsum("oc,chw->ohw", wd[:, :, ky, kx], patch)
            bound += np.einsum("oc,chw->ohw", np.abs(wd[:, :, ky, kx]), np.abs(patch))
    return xn.tobytes(), wn.tobytes(), ref, bound, (oc, oh, ow)


def read_output(raw, shape, surface):
    """NC1HWC2 with surfaces of `surface` atoms (H x W unless the vendor pads them)."""
    oc, oh, ow = shape
    a = np.frombuffer(raw, np.float16)[: oc // FP16_C2 * surface * FP16_C2]
    a = a.reshape(oc // FP16_C2, surface, FP16_C2)[:, : oh * ow].reshape(oc // FP16_C2, oh, ow,
                                                                         FP16_C2)
    return a.transpose(0, 3, 1, 2).reshape(oc, oh, ow).astype(np.float64)


def main():
    rk, path = sys.argv[1], sys.argv[2]
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 20261126
    meta, q = parse(path)
    window = int(meta["window"][0], 16)
    groups, at, desc = chains(meta, q, window)
    p = model_args(meta)
    rng = np.random.default_rng(seed)
    xin, wts, ref, bound, shape = conv_data(p, rng)
    src, dst, nbytes = (int(x, 0) for x in meta["copy"])
    in_base, in_size = meta["buffer"]["input"]
    w_base, _ = meta["buffer"]["weight"]
    out_base, out_size = meta["buffer"]["output"]
    # the weight buffer up to the stream: weights, then the PPU scratch
    wbuf = bytearray(rng.integers(0, 256, window - w_base, dtype=np.uint8).tobytes())
    wbuf[: len(wts)] = wts
    ibuf = bytearray(in_size)
    ibuf[: len(xin)] = xin
    name = os.path.basename(path)
    fails = 0
    with tempfile.TemporaryDirectory() as d:
        open(d + "/in.bin", "wb").write(ibuf)
        open(d + "/w.bin", "wb").write(wbuf)
        for cores, group in enumerate(groups, 1):
            open(d + "/out.bin", "wb").write(bytes([OUT_FILL]) * out_size)
            # one job, each core's chain on its core, as the vendor submits
            cmd = [rk, "sim", "--verify"]
            for core, chain in enumerate(group):
                s = chain_stream(meta, q, at, desc, chain)
                open("%s/s%d.regcmd" % (d, core), "w").write("".join("%016x\n" % e for e in s))
                cmd += ["--regcmd", "%s/s%d.regcmd" % (d, core), "--core", str(core),
                        "--regcmd-addr", hex(relocate(meta, chain[0], "chain"))]
            cmd += ["--load", "%#x=%s/in.bin" % (RELOC["input"], d),
                    "--load", "%#x=%s/w.bin" % (RELOC["weight"], d),
                    "--load", "%#x=%s/out.bin" % (RELOC["output"], d),
                    "--save", "%#x:%d=%s/out.bin" % (RELOC["output"], out_size, d),
                    "--save", "%#x:%d=%s/dst.bin" % (relocate(meta, dst, "copy"), nbytes, d)]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode:
                print("%s: %d-core job: rkbare sim failed:\n%s" % (name, cores, r.stderr.strip()))
                fails += 1
                continue
            ran = "completed: %d task(s) on core%s" % (
                sum(len(c) for c in group), "s 0x%x" % ((1 << cores) - 1) if cores > 1 else " 0")
            if ran not in r.stdout:
                print("%s: %d-core job: rkbare sim did not report '%s':\n%s"
                      % (name, cores, ran, r.stdout.strip()))
                fails += 1
            # every core's closing PPU task copies the same scratch bytes
            got = open(d + "/dst.bin", "rb").read()
            want = bytes(wbuf[src - w_base:src - w_base + nbytes])
            if any(desc[c[-1]][1] & PPU_ENABLES for c in group) and got != want:
                print("%s: %d-core job: the PPU task's copy differs" % (name, cores))
                fails += 1
            got = read_output(open(d + "/out.bin", "rb").read(), shape,
                              p.get("out_surface", shape[1] * shape[2]))
            # fp32 accumulation in any order, then one fp16 rounding
            tol = bound * 2.0 ** -20 + np.abs(ref) * 2.0 ** -11 + 2.0 ** -24
            bad = ~(np.abs(got - ref) <= tol)
            if bad.any():
                i = tuple(np.argwhere(bad)[0])
                print("%s: %d core(s): %d of %d outputs differ, first (c,y,x)=%s got %r "
                      "want %r" % (name, cores, bad.sum(), bad.size, i, got[i], ref[i]))
                fails += 1
            else:
                print("%s: %d core(s) in one job, %d task(s): %d outputs match numpy"
                      % (name, cores, sum(len(c) for c in group), bad.size))
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
