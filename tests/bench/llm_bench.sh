#!/bin/sh
# The LLM decoding section of docs/BENCHMARKS.md (section 10): callgrind
# counts of the CPU work of examples/llm's decoder outside the NPU (the
# optimised host build over the NPU model, whose instructions behind the MMIO
# accessors are subtracted as in section 1), its kicks, and the predicted
# decode rates of Qwen2-0.5B- and TinyLLaMA-1.1B-shaped models from the
# TRM's MAC rates and a measured DDR bandwidth.
#
#   sh tests/bench/llm_bench.sh            the section on stdout
#   sh tests/bench/llm_bench.sh --update   replace it in docs/BENCHMARKS.md
#                                          (make bench-llm)
set -eu
cd "$(dirname "$0")/../.."
B=build/host-opt/bench/llm_decode
DOC=docs/BENCHMARKS.md
make -s host-opt "$B" >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cg_ir() {	# FILE FUNCTION: inclusive instructions of FUNCTION
	callgrind_annotate --inclusive=yes --threshold=100 --auto=no "$1" 2>/dev/null |
		awk -v f="$2" '{ gsub(",", "", $1) } $0 ~ (":" f " \\[") { s += $1 } END { printf "%.0f\n", s }'
}
# calls from anywhere to FUNCTION (callgrind's calls= lines under cfn=; a
# compressed name "(id) name" is defined where it first appears, fn= or cfn=)
cg_calls() {
	awk -v f="$2" '
		/^fn=/ { s = substr($0, 4); if (match(s, /^\([0-9]+\) /))
				name[substr(s, 1, RLENGTH - 1)] = substr(s, RLENGTH + 1) }
		/^cfn=/ { s = substr($0, 5); if (match(s, /^\([0-9]+\)/)) {
				id = substr(s, 1, RLENGTH); rest = substr(s, RLENGTH + 2)
				if (rest != "") name[id] = rest; cur = name[id] } else cur = s }
		/^calls=/ { split(substr($0, 7), a, " "); if (cur == f) n += a[1] }
		END { printf "%.0f\n", n }' "$1"
}
# measure NAME ARGS...: CPU instructions of llm_step outside the NPU, those
# of the driver's submits, MMIO accesses, and the run's summary line
measure() {
	name=$1
	shift
	valgrind --tool=callgrind --callgrind-out-file="$tmp/$name.cg" --collect-atstart=no \
		--toggle-collect=llm_step "$B" "$@" > "$tmp/$name.out" 2>/dev/null
	f=$tmp/$name.cg
	mmio=$(( $(cg_ir "$f" hal_write32) + $(cg_ir "$f" hal_read32) ))
	echo "$name cpu $(( $(cg_ir "$f" llm_step) - mmio ))" >> "$tmp/m"
	echo "$name submit $(( $(cg_ir "$f" npu_submit) - mmio ))" >> "$tmp/m"
	echo "$name mmio $(( $(cg_calls "$f" hal_write32) + $(cg_calls "$f" hal_read32) ))" >> "$tmp/m"
	echo "$name line $(grep '^llm:' "$tmp/$name.out")" >> "$tmp/m"
}
QWEN="--hidden 896 --heads 14 --kv-heads 2 --inter 4864 --vocab 32"
TINY="--hidden 2048 --heads 32 --kv-heads 4 --inter 5632 --vocab 32"
echo "llm_bench: the example's model" >&2
measure ex_w8a8 --flavour w8a8
measure ex_int4 --flavour int4
measure ex_w8a8_long --flavour w8a8 --tokens 44
measure ex_w8a8_vocab --flavour w8a8 --vocab 8160
echo "llm_bench: Qwen2-0.5B-shaped layers" >&2
for l in 1 2; do
	# shellcheck disable=SC2086
	measure qwen_w8a8_$l --flavour w8a8 $QWEN --layers $l --prompt 1 --tokens 1
	# shellcheck disable=SC2086
	measure qwen_int4_$l --flavour int4 $QWEN --layers $l --prompt 1 --tokens 1
done
echo "llm_bench: TinyLLaMA-1.1B-shaped layers" >&2
for l in 1 2; do
	# shellcheck disable=SC2086
	measure tiny_w8a8_$l --flavour w8a8 $TINY --layers $l --prompt 1 --tokens 0
	# shellcheck disable=SC2086
	measure tiny_int4_$l --flavour int4 $TINY --layers $l --prompt 1 --tokens 0
done

/usr/bin/python3 - "$tmp/m" > "$tmp/section" <<'PY'
import re
import sys

m = {}
for line in open(sys.argv[1]):
    name, key, val = line.rstrip("\n").split(" ", 2)
    m.setdefault(name, {})[key] = val if key == "line" else int(val)


def steps(name):
    return int(re.search(r"(\d+) steps", m[name]["line"]).group(1))


def kicks(name):
    return int(re.search(r"(\d+) kicks", m[name]["line"]).group(1))


def tasks(name):
    return int(re.search(r"(\d+) tasks", m[name]["line"]).group(1))


# The A76 figures of section 1.
GHZ, IPC = 2.4, 1.5


def us(instr):
    return instr / (GHZ * 1e3 * IPC)


def n(v):
    return f"{v:,.0f}"


# The example: per token, per kick, per projection (5 a layer and the head).
ex = {}
for fl in ("w8a8", "int4"):
    k = f"ex_{fl}"
    s = steps(k)
    ex[fl] = dict(cpu=m[k]["cpu"] / s, submit=m[k]["submit"] / kicks(k),
                  mmio=m[k]["mmio"] / kicks(k), kicks=kicks(k) / s, mm=m[k]["cpu"] / s / 11)
# Attention's growth with the position: cost(p) = c0 + c1 p summed over the
# steps of two runs of 16 and 48 steps (2 layers of 4 heads of 64).
n1, n2 = steps("ex_w8a8"), steps("ex_w8a8_long")
t1, t2 = m["ex_w8a8"]["cpu"], m["ex_w8a8_long"]["cpu"]
s1, s2 = n1 * (n1 - 1) / 2, n2 * (n2 - 1) / 2
c1 = (t2 - t1 * n2 / n1) / (s2 - s1 * n2 / n1)
att_per = c1 / (2 * 4 * 64)          # per layer, head, position and head dim
logit = (m["ex_w8a8_vocab"]["cpu"] - t1) / n1 / (8160 - 512)
# Per layer of the shaped models: two layer counts, the same steps.
lay = {}
for key in ("qwen_w8a8", "qwen_int4", "tiny_w8a8", "tiny_int4"):
    a, b = f"{key}_1", f"{key}_2"
    lay[key] = dict(cpu=(m[b]["cpu"] - m[a]["cpu"]) / steps(a),
                    tasks=tasks(b) - tasks(a))

MODELS = [
    # name, hidden, layers, inter, heads, kv heads, head dim, vocab, RKLLM tok/s, shaped key
    ("Qwen2-0.5B", 896, 24, 4864, 14, 2, 64, 151936, 41.6, "qwen"),
    ("TinyLLaMA-1.1B", 2048, 22, 5632, 32, 4, 64, 32000, 24.4, "tiny"),
]
# Kicks a layer: one in both flavours (llm_decoder.h).
KICKS_PER_LAYER = {"w8a8": 1, "int4": 1}
# Contexts the CPU's attention is taken at: RKLLM's benchmark runs 64 prompt
# tokens and 256 new ones in a context of at most 320.
CTX_SHORT, CTX = 64, 320
BW_MEAS, BW_THEO = 17e9, 34.1e9
MAC_INT8, MAC_FP16, NPU_HZ = 1024, 512, 1e9
KICK_US_VENDOR = 167
rows, cpu_rows = [], []
for name, h, L, inter, hd, kvh, d, vocab, rkllm, key in MODELS:
    layer_w = h * (hd + 2 * kvh) * d + hd * d * h + 2 * h * inter + inter * h
    macs = L * layer_w + h * vocab
    # per flavour: kicks, CPU per token at a context (per layer as measured
    # at the shape, attention at ctx, the head's logits), driver work
    fl = {}
    for f in ("w8a8", "int4"):
        kick_n = 1 + KICKS_PER_LAYER[f] * L
        per_layer = lay[f"{key}_{f}"]["cpu"]
        cpu_at = (lambda pl: lambda ctx: L * (pl + att_per * hd * d * ctx) + logit * vocab)(per_layer)
        fl[f] = dict(kicks=kick_n, cpu_at=cpu_at, submit=kick_n * ex[f]["submit"],
                     mmio=kick_n * ex[f]["mmio"], per_layer=per_layer)
        label = "w8a8" if f == "w8a8" else "fp16 × int4"
        cpu_rows.append(f"| {name} | {label} | {kick_n} | {n(per_layer)} | "
                        f"{n(att_per * hd * d * CTX)} | {n(logit * vocab)} | "
                        f"{n(cpu_at(CTX))} ({us(cpu_at(CTX)) / 1e3:.2f} ms; at {CTX_SHORT}: "
                        f"{us(cpu_at(CTX_SHORT)) / 1e3:.2f} ms) | "
                        f"{n(fl[f]['submit'])} + {fl[f]['mmio']:.0f} MMIO | "
                        f"{kick_n * KICK_US_VENDOR / 1e3:.1f} ms |")
    for flav, f, wbytes, rate in (("w8a8", "w8a8", 1.0, MAC_INT8),
                                  ("fp16 × int4 as rkbare runs it (B in fp16)", "int4", 2.0,
                                   MAC_FP16),
                                  ("int4 weights read natively (not lowered)", "int4", 0.5,
                                   MAC_FP16)):
        wb = macs * wbytes
        t_comp1 = macs / (rate * NPU_HZ)
        t_mem, t_mem_theo = wb / BW_MEAS, wb / BW_THEO
        t_cpu = lambda ctx: us(fl[f]["cpu_at"](ctx) + fl[f]["submit"]) * 1e-6
        pred = lambda cores, tm, ctx: 1 / (max(t_comp1 / cores, tm) + t_cpu(ctx))
        rows.append(f"| {name} | {flav} | {wb / 1e6:,.0f} MB | {macs / 1e6:,.0f} M | "
                    f"{t_comp1 * 1e3:.2f} / {t_comp1 / 3 * 1e3:.2f} ms | "
                    f"{t_mem * 1e3:.1f} ms | {pred(1, t_mem, CTX):.1f} / {pred(3, t_mem, CTX):.1f} "
                    f"({pred(1, t_mem, CTX_SHORT):.1f}) | {pred(1, t_mem_theo, CTX):.1f} / "
                    f"{pred(3, t_mem_theo, CTX):.1f} | {rkllm if flav == 'w8a8' else ''} |")

ex_rows = "\n".join(
    f"| {fl} | {ex[fl]['kicks']:.0f} (1 + {KICKS_PER_LAYER[fl]} per layer) | {n(ex[fl]['cpu'])} ({us(ex[fl]['cpu']):.1f} us) "
    f"| {n(ex[fl]['mm'])} | {n(ex[fl]['submit'])} | {ex[fl]['mmio']:.1f} |"
    for fl in ("w8a8", "int4"))
print(f"""## 10. LLM decoding: examples/llm on rkb_chain

The decoder of `examples/llm` (llm_decoder.h: RMSNorm folded into the next weights, Q/K/V/O,
RoPE, attention with a KV cache and SwiGLU, greedy decoding; w8a8 and fp16 × int4 group 128)
on `rkb_chain` (include/rkbare/rkb_chain.h): per token one kick for Q/K/V of the first layer,
then one per layer: O + residual + RMSNorm + gate/up + SiLU · up + down + residual + the
next layer's Q/K/V (or the head), the norm and SiLU through the DPU's lookup table in fp16
(`rkb_chain_rmsnorm`, `rkb_chain_swiglu`), w8a8 converting its int8 maps to fp16 and back
around them in the DPU (`rkb_chain_convert`, UNSURE: sim/ASSUMPTIONS.md A41) — with the CPU
between kicks for attention with RoPE and the first norm's 1 / rms. On one core, measured
(`llm: ... kicks` below and in `tests/llm/llm_decode.sh`).

CPU instructions outside the NPU (x86-64, the optimised host build): `valgrind --tool=callgrind
--collect-atstart=no --toggle-collect=llm_step build/host-opt/bench/llm_decode --flavour F
[sizes]`, minus the inclusive instructions of `hal_write32` / `hal_read32` (the NPU model
behind the MMIO seam), as section 1; the A76 estimate at {GHZ} GHz, IPC {IPC}. The submit:
`npu_submit` less the same accesses, per kick; MMIO: calls to the accessors per kick (on
silicon each is one load or store to the NPU's registers; polling reads while the NPU runs
are waiting, not work, and the model answers at once, so they are not in this count).

The example's model (hidden 256, 2 layers, 4 heads / 2 K/V heads of 64, intermediate 512,
vocabulary 512; 4 prompt tokens and 12 decoded; per projection: the per-token figure over its
11 projections, 5 a layer and the head):

| flavour | kicks per token | CPU instructions per token | per projection | submit per kick | MMIO per kick |
|---|---|---|---|---|---|
{ex_rows}

The per-projection figure is the CPU steps' share (norm scalars, dequantisation, attention, SiLU,
quantisation) spread over the projections, not call overhead: a kick costs the driver's submit
alone, where a call of `rknn_matmul_run` (section 1) also converts and checks its memory.

Qwen2-0.5B- and TinyLLaMA-1.1B-shaped layers, measured at their sizes (`--hidden 896 --heads 14
--kv-heads 2 --inter 4864` and `--hidden 2048 --heads 32 --kv-heads 4 --inter 5632`, 1 and 2
layers, the difference): per layer {n(lay['qwen_w8a8']['cpu'])} and
{n(lay['tiny_w8a8']['cpu'])} instructions in w8a8, {n(lay['qwen_int4']['cpu'])} and
{n(lay['tiny_int4']['cpu'])} in fp16 × int4 (the MLP's norm and SiLU on the NPU in both);
{lay['qwen_w8a8']['tasks']} and {lay['tiny_w8a8']['tasks']} NPU tasks in w8a8,
{lay['qwen_int4']['tasks']} and {lay['tiny_int4']['tasks']} in fp16 × int4. Attention grows with the
context: {att_per:.2f} instructions per head, position and head dimension (from 16 and 48 steps
of the example); the head costs {logit:.1f} per logit (vocabulary 512 and 8160). Per token at a
context of {CTX}:

| model | flavour | kicks | CPU per layer | attention per layer at {CTX} | head | CPU per token (A76) | submits: driver instructions + MMIO | {KICK_US_VENDOR} us per submit (vendor's Linux driver) |
|---|---|---|---|---|---|---|---|---|
{chr(10).join(cpu_rows)}

The submit overhead bare-metal is the driver's {n(ex['w8a8']['submit'])} instructions and
{ex['w8a8']['mmio']:.0f} register accesses per kick in w8a8 ({n(ex['int4']['submit'])} and
{ex['int4']['mmio']:.0f} in fp16 × int4; a kick cleans and invalidates every vector of the
chain, the steps' scratch ones too) (the driver checks the job, programs the PC, kicks and reads the status;
cache maintenance of the vectors is no work on the host) — well
under a millisecond per token for the whole model — against the
{KICK_US_VENDOR} us a blocking submit costs through the vendor's Linux driver (section 1), which
for one submit per matmul (~7 per layer, ~170 per token for 24 layers) would be ~28 ms per
token, more than a whole token at RKLLM's published rate.

Predicted decode rate: per token the larger of compute (the TRM's {MAC_INT8} int8 / {MAC_FP16}
fp16 MACs per cycle and core at 1 GHz, the rated clock; rkbare runs the NPU at 198 MHz,
section 7.3 of HARDWARE.md, and would be compute-bound there) and weight traffic (every weight
read once per token at M = 1: decoding is bound by DDR), plus the CPU time above (A76, one
thread, attention at a context of {CTX}, RKLLM's benchmark's largest). DDR: 17 GB/s, the low end of the 17–22 GB/s sequential bandwidth measured on an
RK3588 module (Turing Pi RK1 benchmarks, turingpi.com/?p=721854; CPU copies, not the NPU's
reads), and 34.1 GB/s, LPDDR4x-4266 on four 16-bit channels, theoretical. Three cores share
the DDR: they shorten the compute bound only, and rkb_chain runs a layer's dependent chain on
one core (rkb_chain.h, "Kicks"). Not measured on a board; the NPU's DMA efficiency at M = 1 is
unknown and MAC-array use at one row may be far below the rate assumed.

| model | weights | read per token | MACs per token | compute bound, 1 / 3 cores | DDR bound at 17 GB/s | predicted tok/s at 17 GB/s, 1 / 3 cores (1 core, context {CTX_SHORT}) | at 34.1 GB/s, 1 / 3 cores | RKLLM w8a8, RK3588 (published) |
|---|---|---|---|---|---|---|---|---|
{chr(10).join(rows)}

Weights read per token count every projection and the head (Qwen2 ties its embedding to
the head; the embedding lookup itself reads one row). rkbare's fp16 × int4 runs B dequantised
to fp16 (rknn_matmul_api.h, HARDWARE.md §5.7: the CNA reads one precision and rkbare does not
lower native int4), so it reads twice the bytes of w8a8; native int4 weights would read a
quarter of fp16's. RKLLM's published w8a8 rates (airockchip/rknn-llm README, "Model Performance Benchmark", 64
prompt tokens and 256 new ones, context at most 320, maximum CPU and NPU clocks; 41.6 and
24.4 tok/s as issue 22 quotes them for RKLLM 1.3, 24.21 for TinyLLaMA-1.1B in the 1.1.0
table) imply about 20 GB/s (Qwen2-0.5B) and 25 GB/s (TinyLLaMA-1.1B) of weights per second:
a DDR-bound decoder whose CPU work overlaps the NPU's or is small. rkbare's CPU steps are
plain scalar C run between the kicks (the x86 counts above; attention is most of them at
long contexts, and NEON or the NPU would shrink it), so they add to the DDR time instead of
hiding under it.
""")
PY
if [ "${1:-}" = "--update" ]; then
	/usr/bin/python3 - "$DOC" "$tmp/section" <<'PY'
import sys
doc, sec = open(sys.argv[1]).read(), open(sys.argv[2]).read()
head = doc.split("## 10. LLM decoding", 1)[0].rstrip("\n")
open(sys.argv[1], "w").write(head + "\n\n" + sec)
PY
	echo "llm_bench: $DOC section 10 updated" >&2
else
	cat "$tmp/section"
fi
