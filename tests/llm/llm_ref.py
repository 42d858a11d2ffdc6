#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""numpy reference of the Llama-style decoder of examples/llm, written apart
from the C code from its specification (examples/llm/llm_decoder.h):

  weights   splitmix64(seed ^ stream << 32 + (idx + 1) * golden), top 24 bits
            on [0, 2) minus 1, times 1 / sqrt(K); RMSNorm gammas 1 + u / 4,
            folded into the next weights (row k times gamma[k]) before
            quantisation
  w8a8      int8 weights per output channel (max |w| / 127), int8
            activations with the static scales below; Q/K/V's and the
            head's raw int32 sums scaled on the CPU; O, gate, up and down
            requantised to int8 (real-valued requantisation, halves rounded
            up), O and down added to the int8 residual; the MLP's RMSNorm
            and SiLU . up in fp16 between conversions: int8 q to fp16 as
            fp16(q * fp16(scale)), fp16 x to int8 as x * fp16(1 / scale)
            rounded to nearest (halves to even) and saturated to -128..127
            (rkb_chain_convert); the norm and SiLU computed exactly here
            (TOL below)
  int4      int4 weights per group of 128 rows (max |w| / 7), dequantised
            to fp16(scale * q); fp16 activations, every NPU output rounded
            to fp16, sums in fp32; the MLP's RMSNorm and SiLU computed
            exactly here (the C decoder runs them through the NPU's lookup
            tables: TOL below)
  step      x = embed[token]; per layer r = 1 / rms(x), q/k/v = (x W) * r,
            RoPE (rotate-half, theta 10000), attention over the cache with
            grouped K/V heads, h = x + att W_o, r_h = 1 / rms(h),
            m = silu(g) * u with g, u = (h W_gu) * r_h, x = h + m W_d;
            logits = (x W_head) * r; greedy argmax (first maximum)

  llm_ref.py --flavour w8a8|int4 [--prompt 1,2,3,4] [--tokens 12] [--vocab 512]
             [--compare LOGITS --c-tokens T,T,...] [--trace TRACE] [--float-ranges]

With --compare, the C decoder's logits (float32, vocab per step) and its
tokens are checked: every token equal, every logit within the tolerance
TOL below. Exit status 0 when they match.

With --trace (w8a8), the decode is checked op by op instead: each int8
vector of each layer of each step (llm_decode --trace: attention output, O,
h, the normalised h, gate, up, SiLU . up, down, x) is computed here from
the C decoder's own inputs to that op and must be within one step of it
(OP_LSB below), with at most OP_FLIP_SHARE of a vector's values one step
off; the logits are computed here from the C decoder's last x and must be
within LOGIT_TOL of its logits, and every token their greedy choice. A
free-running comparison cannot be exact for this flavour: its int8 maps
are rounded after fp16 steps (the norm and SiLU through the NPU's lookup
tables, fp32 sums in the NPU's order), so the smallest difference moves
some values by one int8 step, which the later layers carry on (measured:
logits within about 0.05 of a free-running reference whose norm differs
by 1e-3 or whose SiLU by 1e-4 — more than the 0.01 between the top two
logits of some steps).
"""
import argparse
import sys

import numpy as np

HIDDEN, LAYERS, HEADS, KV_HEADS, HEAD_DIM, INTER, VOCAB, MAX_SEQ, SEED = \
    256, 2, 4, 2, 64, 512, 512, 64, 2024
GROUP = 128
EPS = np.float32(1e-5)
THETA = 10000.0
# Static activation scales of the w8a8 flavour (the example's configuration).
S_X, S_ATT, S_O, S_HN, S_GU, S_MLP, S_D = (np.float32(v) / np.float32(127)
                                           for v in (3.0, 2.0, 1.5, 4.0, 3.5, 3.0, 0.75))
ST_EMBED, ST_FINAL_NORM, ST_HEAD, ST_LAYER0 = 0, 1, 2, 16
(ST_ATTN_NORM, ST_WQ, ST_WK, ST_WV, ST_WO, ST_MLP_NORM, ST_WG, ST_WU,
 ST_WD) = range(9)
LAYER_STREAMS = 16
# Logit tolerance, absolute (logits lie within about +-2.5). w8a8: the
# integer sums are exact on both sides and the requantisations are modelled
# with the NPU's rounding, so what differs is the order of the float sums of
# the CPU steps (RMS, attention, softmax; about 1e-6 relative) and libm vs
# numpy in exp/cos/sin; such a difference can move an activation that the
# CPU quantises at a rounding boundary by one int8 step (2/127 at most),
# which reaches a logit through weights of at most 1/16 times a gamma of at
# most 1.25: 0.01 bounds a few such moves (measured: below 1e-5). int4:
# every NPU output is rounded to fp16 after fp32 sums taken in another
# order, which can differ by one fp16 step; one step of a logit near 2.4
# is 0.002 and of the residual near 2 is 0.002, which the next layers
# carry on. The int4 flavour's MLP RMSNorm and SiLU run through the DPU's
# lookup tables (rkb_chain.h: 1 / rms within 2.5e-3 relative, silu within
# 7e-4 absolute) where this reference computes them exactly: each hidden
# value of the MLP input moves by at most 2.5e-3 of itself, each SiLU by 7e-4
# times |up| (up within about +-3), and the down projection (weights
# about 1/sqrt(512) per term) averages those independent errors, which
# reach a logit through two layers' residual: 0.005 (measured: 0.0017).
TOL = {"w8a8": 0.01, "int4": 0.005}
# --trace: every op's int8 output within one step of this reference's from
# the same inputs (the NPU's requantisation multipliers, its lookup tables
# and fp16 roundings against the real-valued ones here). Only values near a
# rounding boundary can move: the norm's 2.5e-3 of a typical |h_norm| of 1
# against a step of 4/127 reaches 8 % of them at most (measured: 0.3 % of
# h_norm and of SiLU . up, none elsewhere); a larger share would be a
# systematic error, not rounding.
OP_LSB = 1
OP_FLIP_SHARE = 0.08
# The logits from the C decoder's last x: the same integer sums, scaled by
# 1 / rms in another summation order (about 1e-6 relative).
LOGIT_TOL = 1e-4

M64 = np.uint64(0xFFFFFFFFFFFFFFFF)


def rand(stream, count):
    """llm_rand(seed, stream, idx) for idx = 0 .. count-1."""
    with np.errstate(over="ignore"):
        idx = np.arange(count, dtype=np.uint64)
        z = (np.uint64(SEED) ^ (np.uint64(stream) << np.uint64(32))) + \
            (idx + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    u = (z >> np.uint64(40)).astype(np.float32) * np.float32(1.0 / 8388608.0)
    return u - np.float32(1.0)


def weights(stream, k, n, gamma=None):
    amp = np.float32(1.0 / np.sqrt(np.float64(k)))
    w = rand(stream, k * n).reshape(k, n) * amp
    return w if gamma is None else gamma[:, None] * w


def gamma_of(stream):
    return np.float32(1.0) + np.float32(0.25) * rand(stream, HIDDEN)


def lstream(layer, which):
    return ST_LAYER0 + layer * LAYER_STREAMS + which


class Matmul:
    """A weight matrix as the flavour stores it."""

    def __init__(self, w, flavour):
        self.flavour = flavour
        if flavour == "w8a8":
            s = np.abs(w).max(axis=0) / np.float32(127)
            s[s == 0] = 1
            self.q = np.clip(np.rint(w / s), -127, 127).astype(np.int64)
            self.s = s.astype(np.float32)
        elif flavour == "int4":
            k, n = w.shape
            g = w.reshape(k // GROUP, GROUP, n)
            s = np.abs(g).max(axis=1) / np.float32(7)
            s[s == 0] = 1
            q = np.clip(np.rint(g / s[:, None, :]), -8, 7)
            self.w16 = (s[:, None, :] * q.astype(np.float32)).astype(np.float16).reshape(k, n)
        else:
            self.w = w

    def sums(self, a):
        """w8a8: int64 sums of an int8 vector; int4: fp16 output of an
        fp16 vector; float: float32."""
        if self.flavour == "w8a8":
            return a.astype(np.int64) @ self.q
        if self.flavour == "int4":
            return (a.astype(np.float32) @ self.w16.astype(np.float32)).astype(np.float16)
        return a @ self.w


def q8(v, s):
    return np.clip(np.rint(v / s), -127, 127).astype(np.int64)


def to_fp16(q, s):
    """An int8 map into fp16 in the DPU: the integer times the scale
    rounded to fp16, the product (exact in fp32) rounded once to fp16."""
    return (q.astype(np.float32) * np.float32(np.float16(s))).astype(np.float16)


def to_int8(x, s):
    """An fp16 map into int8 in the DPU: times 1 / scale rounded to fp16
    (the product exact in fp32), to nearest with halves to even,
    saturated."""
    v = x.astype(np.float32) * np.float32(np.float16(np.float32(1) / s))
    return np.clip(np.rint(v), -128, 127).astype(np.int64)


def requant(v, s):
    """The DPU's per-channel requantisation read as real arithmetic, halves
    up (its multiplier truncation, sim/ASSUMPTIONS.md A12), saturated to
    int8."""
    return np.clip(np.floor(v / s + np.float32(0.5)), -128, 127).astype(np.int64)


class Model:
    def __init__(self, flavour):
        self.flavour = flavour
        self.embed = rand(ST_EMBED, VOCAB * HIDDEN).reshape(VOCAB, HIDDEN)
        self.layers = []
        q_n, kv_n = HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM
        for l in range(LAYERS):
            ga, gm = gamma_of(lstream(l, ST_ATTN_NORM)), gamma_of(lstream(l, ST_MLP_NORM))
            qkv = np.concatenate([weights(lstream(l, ST_WQ), HIDDEN, q_n, ga),
                                  weights(lstream(l, ST_WK), HIDDEN, kv_n, ga),
                                  weights(lstream(l, ST_WV), HIDDEN, kv_n, ga)], axis=1)
            gu = np.concatenate([weights(lstream(l, ST_WG), HIDDEN, INTER, gm),
                                 weights(lstream(l, ST_WU), HIDDEN, INTER, gm)], axis=1)
            self.layers.append({
                "qkv": Matmul(qkv, flavour),
                "o": Matmul(weights(lstream(l, ST_WO), q_n, HIDDEN), flavour),
                "gu": Matmul(gu, flavour),
                "d": Matmul(weights(lstream(l, ST_WD), INTER, HIDDEN), flavour),
            })
        self.head = Matmul(weights(ST_HEAD, HIDDEN, VOCAB, gamma_of(ST_FINAL_NORM)), flavour)
        half = HEAD_DIM // 2
        ang = np.arange(MAX_SEQ)[:, None] * THETA ** (-2.0 * np.arange(half) / HEAD_DIM)
        self.cos, self.sin = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)
        self.k_cache = np.zeros((LAYERS, MAX_SEQ, kv_n), np.float32)
        self.v_cache = np.zeros((LAYERS, MAX_SEQ, kv_n), np.float32)
        self.pos = 0
        self.ranges = {}

    def track(self, name, v):
        self.ranges[name] = max(self.ranges.get(name, 0.0), float(np.abs(v).max()))

    # residual / activation vectors: their real values
    def real(self, v, s):
        return v.astype(np.float32) * s if self.flavour == "w8a8" else v.astype(np.float32)

    def scaled(self, mm, raw, a_scale, r):
        if self.flavour == "w8a8":
            return raw.astype(np.float32) * (a_scale * mm.s) * r
        return raw.astype(np.float32) * r

    def rope(self, v):
        half = HEAD_DIM // 2
        a, b = v[..., :half].copy(), v[..., half:].copy()
        c, s = self.cos[self.pos], self.sin[self.pos]
        return np.concatenate([a * c - b * s, b * c + a * s], axis=-1)

    def attention(self, l, qkv):
        q_n, kv_n = HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM
        q = self.rope(qkv[:q_n].reshape(HEADS, HEAD_DIM))
        k = self.rope(qkv[q_n:q_n + kv_n].reshape(KV_HEADS, HEAD_DIM))
        self.k_cache[l, self.pos] = k.reshape(-1)
        self.v_cache[l, self.pos] = qkv[q_n + kv_n:]
        keys = self.k_cache[l, :self.pos + 1].reshape(-1, KV_HEADS, HEAD_DIM)
        vals = self.v_cache[l, :self.pos + 1].reshape(-1, KV_HEADS, HEAD_DIM)
        out = np.zeros((HEADS, HEAD_DIM), np.float32)
        for h in range(HEADS):
            kvh = h // (HEADS // KV_HEADS)
            sc = keys[:, kvh] @ q[h] / np.float32(np.sqrt(HEAD_DIM))
            p = np.exp(sc - sc.max())
            out[h] = (p / p.sum()) @ vals[:, kvh]
        return out.reshape(-1)

    def act(self, v, s):
        """An activation the CPU hands to the NPU."""
        if self.flavour == "w8a8":
            return q8(v, s)
        if self.flavour == "int4":
            return v.astype(np.float16)
        return v

    def add(self, a, sa, b, sb, s_out):
        if self.flavour == "w8a8":
            # the DPU's OUT_CVT with cvt_round 0: ties to even (TRM,
            # sim/ASSUMPTIONS.md A12)
            return np.clip(np.rint((a * sa + b * sb) / s_out), -128, 127).astype(np.int64)
        if self.flavour == "int4":
            return (a.astype(np.float32) + b.astype(np.float32)).astype(np.float16)
        return a + b

    def inv_rms(self, v):
        return np.float32(1) / np.sqrt(np.mean(v * v, dtype=np.float32) + EPS)

    def mlp_w8a8(self, L, h):
        """RMSNorm, gate/up and SiLU . up of the w8a8 flavour: the int8
        residual h into fp16, normalised, back into int8 for gate/up, whose
        requantised outputs go into fp16 for SiLU . up, which goes back into
        int8 for down."""
        h16 = to_fp16(h, S_X).astype(np.float32)
        hn = (h16 * self.inv_rms(h16)).astype(np.float16)
        hn8 = to_int8(hn, S_HN)
        raw = L["gu"].sums(hn8).astype(np.float32) * (S_HN * L["gu"].s)
        gu = requant(raw, S_GU)
        g = to_fp16(gu[:INTER], S_GU).astype(np.float32)
        u = to_fp16(gu[INTER:], S_GU).astype(np.float32)
        m16 = (g / (np.float32(1) + np.exp(-g)) * u).astype(np.float16)
        return to_int8(m16, S_MLP)

    def step(self, token):
        w8 = self.flavour == "w8a8"
        x = self.act(self.embed[token], S_X)
        for l, L in enumerate(self.layers):
            xr = self.real(x, S_X)
            self.track("x", xr)
            qkv = self.scaled(L["qkv"], L["qkv"].sums(x), S_X, self.inv_rms(xr))
            att_f = self.attention(l, qkv)
            self.track("att", att_f)
            att = self.act(att_f, S_ATT)
            o_raw = L["o"].sums(att)
            if w8:
                o = requant(o_raw.astype(np.float32) * (S_ATT * L["o"].s), S_O)
            else:
                o = o_raw
            self.track("o", self.real(o, S_O))
            h = self.add(x, S_X, o, S_O, S_X)
            hr = self.real(h, S_X)
            self.track("x", hr)
            if w8:
                m = self.mlp_w8a8(L, h)
            else:
                gu = self.scaled(L["gu"], L["gu"].sums(h), S_X, self.inv_rms(hr))
                g, u = gu[:INTER], gu[INTER:]
                self.track("h_norm", hr * self.inv_rms(hr))
                self.track("gate", g)
                self.track("up", u)
                m_f = g / (np.float32(1) + np.exp(-g)) * u
                self.track("mlp", m_f)
                m = self.act(m_f, S_MLP)
            d_raw = L["d"].sums(m)
            if w8:
                d = requant(d_raw.astype(np.float32) * (S_MLP * L["d"].s), S_D)
            else:
                d = d_raw
            self.track("down", self.real(d, S_D))
            x = self.add(h, S_X, d, S_D, S_X)
        xr = self.real(x, S_X)
        logits = self.scaled(self.head, self.head.sums(x), S_X, self.inv_rms(xr))
        self.pos += 1
        return logits.astype(np.float32)


TRACE_NAMES = ("att", "o", "h", "h_norm", "gate", "up", "mlp", "down", "x")


def trace_lengths():
    q_n = HEADS * HEAD_DIM
    return dict(att=q_n, o=HIDDEN, h=HIDDEN, h_norm=HIDDEN, gate=INTER, up=INTER,
                mlp=INTER, down=HIDDEN, x=HIDDEN)


def check_trace(model, path, tokens_in, c_tokens, c_logits):
    """The w8a8 decode op by op (--trace above). Returns (ok, report)."""
    lens = trace_lengths()
    per_layer = sum(lens.values())
    raw = np.fromfile(path, dtype=np.int8).astype(np.int64)
    steps = len(tokens_in)
    if raw.size != steps * LAYERS * per_layer:
        return False, f"{path} holds {raw.size} bytes, expected {steps * LAYERS * per_layer}"
    worst, flips, counts, logit_diff = 0, {}, {}, 0.0
    ok, at = True, 0
    for i, tok in enumerate(tokens_in):
        x = q8(model.embed[tok], S_X)
        for l, L in enumerate(model.layers):
            c = {}
            for name in TRACE_NAMES:
                c[name] = raw[at:at + lens[name]]
                at += lens[name]
            xr = model.real(x, S_X)
            qkv = model.scaled(L["qkv"], L["qkv"].sums(x), S_X, model.inv_rms(xr))
            ref = {"att": q8(model.attention(l, qkv), S_ATT)}
            ref["o"] = requant(L["o"].sums(c["att"]).astype(np.float32) * (S_ATT * L["o"].s), S_O)
            ref["h"] = model.add(x, S_X, c["o"], S_O, S_X)
            h16 = to_fp16(c["h"], S_X).astype(np.float32)
            ref["h_norm"] = to_int8((h16 * model.inv_rms(h16)).astype(np.float16), S_HN)
            gu = requant(L["gu"].sums(c["h_norm"]).astype(np.float32) * (S_HN * L["gu"].s), S_GU)
            ref["gate"], ref["up"] = gu[:INTER], gu[INTER:]
            g = to_fp16(c["gate"], S_GU).astype(np.float32)
            u = to_fp16(c["up"], S_GU).astype(np.float32)
            ref["mlp"] = to_int8((g / (np.float32(1) + np.exp(-g)) * u).astype(np.float16), S_MLP)
            ref["down"] = requant(L["d"].sums(c["mlp"]).astype(np.float32) *
                                  (S_MLP * L["d"].s), S_D)
            ref["x"] = model.add(c["h"], S_X, c["down"], S_D, S_X)
            for name in TRACE_NAMES:
                d = np.abs(ref[name] - c[name])
                worst = max(worst, int(d.max()))
                flips[name] = flips.get(name, 0) + int((d > 0).sum())
                counts[name] = counts.get(name, 0) + d.size
                if d.max() > OP_LSB:
                    j = int(np.argmax(d))
                    print(f"FAIL: step {i} layer {l} {name}[{j}]: C {c[name][j]}, "
                          f"numpy {ref[name][j]}")
                    ok = False
            x = c["x"]
        logits = model.scaled(model.head, model.head.sums(x), S_X, model.inv_rms(model.real(x, S_X)))
        model.pos += 1
        logit_diff = max(logit_diff, float(np.abs(logits - c_logits[i]).max()))
        if int(np.argmax(logits)) != c_tokens[i]:
            print(f"FAIL: step {i}: C token {c_tokens[i]}, numpy's greedy choice "
                  f"{int(np.argmax(logits))}")
            ok = False
    share = {k: flips[k] / counts[k] for k in flips}
    for name, v in share.items():
        if v > OP_FLIP_SHARE:
            print(f"FAIL: {name}: {v:.1%} of its values off (at most "
                  f"{OP_FLIP_SHARE:.0%})")
            ok = False
    if logit_diff > LOGIT_TOL:
        print(f"FAIL: logits from the C decoder's x differ by {logit_diff:.2e} "
              f"(at most {LOGIT_TOL})")
        ok = False
    report = (f"w8a8 op by op: {steps} steps x {LAYERS} layers, every int8 op within "
              f"{worst} step(s) of numpy's from the same inputs; shares off " +
              ", ".join(f"{k} {v:.1%}" for k, v in share.items()) +
              f"; logits within {logit_diff:.1e}; every token numpy's greedy choice")
    return ok, report


def decode(model, prompt, steps):
    """The prompt, then greedy tokens: every step's choice and logits."""
    token, tokens, all_logits = 0, [], []
    for i in range(steps):
        logits = model.step(prompt[i] if i < len(prompt) else token)
        token = int(np.argmax(logits))
        tokens.append(token)
        all_logits.append(logits)
    return tokens, all_logits


def main():
    global VOCAB
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--flavour", choices=("w8a8", "int4"), default="w8a8")
    ap.add_argument("--prompt", default="1,2,3,4")
    ap.add_argument("--tokens", type=int, default=12)
    ap.add_argument("--vocab", type=int, default=VOCAB,
                    help="vocabulary size (the C decoder's --vocab)")
    ap.add_argument("--compare", help="the C decoder's logits file")
    ap.add_argument("--c-tokens", help="the C decoder's tokens, comma-separated")
    ap.add_argument("--trace", help="the C decoder's int8 vectors (w8a8, llm_decode --trace)")
    ap.add_argument("--float-ranges", action="store_true",
                    help="the unquantised model's activation ranges (the static scales' basis)")
    args = ap.parse_args()
    VOCAB = args.vocab
    prompt = [int(t) for t in args.prompt.split(",")]
    model = Model("float" if args.float_ranges else args.flavour)
    steps = len(prompt) + args.tokens
    if args.trace:
        c_logits = np.fromfile(args.compare, dtype=np.float32).reshape(steps, VOCAB)
        c_tokens = [int(t) for t in args.c_tokens.split(",")]
        # step i's input: the prompt, then the token the step before chose
        fed = prompt + c_tokens[len(prompt) - 1:steps - 1]
        ok, report = check_trace(model, args.trace, fed, c_tokens, c_logits)
        print(report if ok else "FAIL: " + report)
        # a second opinion, never gated: this reference free-running
        tokens, all_logits = decode(Model(args.flavour), prompt, steps)
        same = sum(a == b for a, b in zip(tokens, c_tokens))
        first = next((i for i, (a, b) in enumerate(zip(tokens, c_tokens)) if a != b), None)
        upto = steps if first is None else first + 1	# the same inputs so far
        diff = np.abs(np.stack(all_logits[:upto]) - c_logits[:upto]).max()
        print(f"w8a8 free-running (not gated): {same} of {steps} tokens equal"
              + (f", the first difference at step {first}" if first is not None else "")
              + f"; logits within {diff:.3f} up to there")
        return 0 if ok else 1
    tokens, all_logits = decode(model, prompt, steps)
    print("tokens", ",".join(str(t) for t in tokens))
    if args.float_ranges:
        for k, v in sorted(model.ranges.items()):
            print(f"range {k}: {v:.3f}")
        return 0
    if not args.compare:
        return 0
    c_logits = np.fromfile(args.compare, dtype=np.float32)
    if c_logits.size != steps * VOCAB:
        print(f"FAIL: {args.compare} holds {c_logits.size} floats, expected {steps * VOCAB}")
        return 1
    c_logits = c_logits.reshape(steps, VOCAB)
    c_tokens = [int(t) for t in args.c_tokens.split(",")] if args.c_tokens else []
    ok = c_tokens == tokens
    if not ok:
        print(f"FAIL: tokens differ: C {c_tokens}, numpy {tokens}")
    ref = np.stack(all_logits)
    diff = np.abs(c_logits - ref)
    top2 = np.sort(ref, axis=1)[:, -2:]
    margin = float((top2[:, 1] - top2[:, 0]).min())
    print(f"{args.flavour}: max |logit diff| {diff.max():.2e} (tolerance {TOL[args.flavour]}), "
          f"logits in [{ref.min():.2f}, {ref.max():.2f}], smallest top-2 margin {margin:.4f}")
    if diff.max() > TOL[args.flavour]:
        s, v = np.unravel_index(np.argmax(diff), diff.shape)
        print(f"FAIL: step {s} logit {v}: C {c_logits[s, v]:.5f}, numpy {ref[s, v]:.5f}")
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
