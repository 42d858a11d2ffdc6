/* SPDX-License-Identifier: MIT */
/*
 * Chains of matmuls and element-wise steps on one-row activations (M = 1: a
 * decoding step of a transformer), built into ONE register-command stream
 * when the chain is finished and run stage by stage, one kick per stage:
 * the compile-once rule applied to a transformer layer. A run converts
 * nothing and builds nothing: the caller writes its inputs in place
 * (rkb_chain_data), rkb_chain_run kicks the stage's chain on its core and
 * polls, and the caller reads the outputs in place.
 *
 * Usage:
 *   rkb_chain_create(&c, &cfg);              stages, core, device, pool
 *   rkb_chain_tensor(c, "x", RKB_CHAIN_FP16, 512, 0, &x);   activations
 *   rkb_chain_matmul(c, 0, "q", x, &weights, q);           out = x · W
 *   rkb_chain_add(c, 0, "res", x, q, y);                    out = a + b
 *   rkb_chain_rmsnorm(c, 0, "norm", y, eps, rms_max, n);    out = a / rms(a)
 *   rkb_chain_swiglu(c, 0, "mlp", g, u, m);                 silu(g) ⊙ u
 *   rkb_chain_convert(c, 0, "q", m, m8);                    INT8 ↔ FP16
 *   rkb_chain_finish(c);                     lower, link, verify: once
 *   loop: write inputs; rkb_chain_run(c, 0); read outputs; CPU steps; ...
 *   rkb_chain_destroy(c);
 *
 * A stage is the ops given it, in the order given, as one chain of tasks on
 * one core: each op reads what the ops before it in the stage wrote (a
 * residual add, then a matmul of the sum), and the CPU steps of the caller
 * (attention, softmax, RoPE) go between stages.
 * Tensors may be shared by several stages (a layer's stages reused for the
 * next layer's: the buffers of one decoding step are few).
 *
 * Tensors hold `len` values, len a multiple of 32 (a multiple of every
 * C2 and kernel group, so that a one-row NC1HWC2 map is the plain vector
 * and an op's output is a whole number of kernel groups), up to
 * RKB_CHAIN_MAX_LEN:
 *   RKB_CHAIN_FP16   IEEE half, as uint16_t
 *   RKB_CHAIN_INT8   int8, value = scale · q (symmetric, scale > 0)
 *   RKB_CHAIN_INT32  raw int8 × int8 sums (a matmul's output only)
 *
 * Matmuls, out[n] = Σk a[k] · W[k][n], W given K × N (rknn_matmul's normal
 * B) and packed ONCE by rkb_chain_matmul into the NPU's weight layout:
 *   a FP16, W FP16                 → out FP16 (fp32 accumulation, rounded
 *                                    once to fp16)
 *   a FP16, W INT4 per group       → out FP16: W dequantised once to
 *                                    fp16(scale[k / g][n] · w) (as
 *                                    rknn_matmul's FP16×INT4 types), then
 *                                    fp16 × fp16
 *   a INT8, W INT8 per channel     → out INT32 (raw sums; value =
 *                                    a.scale · scale[n] · sum), or
 *                                    out INT8 requantised by the DPU with
 *                                    the per-channel multipliers of
 *                                    a.scale · scale[n] / out.scale
 * Adds: a + b → out, all FP16 (fp32 inside, one rounding) or all INT8 (the
 * scales of the three tensors, compiler/lower_eltwise.h).
 *
 * The element-wise steps of a decoder layer, FP16 only, through the DPU's
 * lookup table (silu and 1 / sqrt have no other way onto the NPU) — each
 * several tasks of the stage, with scratch tensors of their own:
 *   rkb_chain_rmsnorm  out = a / sqrt(mean(a²) + eps): RMSNorm without its
 *                      gain (fold gamma into the weights that read out).
 *                      s = (a · 2^-p) ⊙ a; y = s · (2^-k everywhere, K = len,
 *                      N = 32) (the mean, scaled by powers of two); r =
 *                      LUT(y) = 2^q / sqrt(mean + eps) in 32 copies;
 *                      b = r · (2^-(5+t) everywhere, K = 32, N = len: the
 *                      copies' average); out = (a · 2^-(q-t)) ⊙ b. The table
 *                      is linear in y (LE 513 entries over [0, Y/16], LO
 *                      over [0, Y], Y the power of two at or above y at
 *                      rms_max): the result is within 2.5e-3 (relative)
 *                      of the exact one for rms(a) in [rms_max / 16,
 *                      rms_max]; below, 1 / rms saturates; above, it is
 *                      extrapolated linearly from the table's end (low).
 *   rkb_chain_swiglu   out = silu(gate) ⊙ up: g = LUT(gate) = 2^11 ·
 *                      silu(gate), then out = (up · 2^-11) ⊙ g. The table
 *                      covers gate in [-16, 16) (LE: 1/32 steps over
 *                      [-8, 8], LO: 1/16 steps; gate rounded to 2^-12),
 *                      silu(x) = x above and 0 below: silu within 7e-4
 *                      (absolute) of the exact one, then two fp16
 *                      roundings.
 * Every intermediate is an fp16 tensor (one rounding per task); the tables'
 * arithmetic is the DPU's (sim/ASSUMPTIONS.md A35: the input rounded to an
 * integer, linear interpolation rounded half up), so a reference computing
 * the functions exactly differs by the bounds above (tests/llm/llm_ref.py's
 * tolerance says how that reaches the logits).
 *
 * Kicks: rkb_chain_run is one npu_submit of the stage's one chain: one PC
 * kick on the chain's core. Several cores: a chain whose ops depend on each
 * other in turn cannot be cut over cores without a join, which only a kick
 * boundary gives; independent chains (another sequence, another model) can
 * run on the other cores at the same time, each with its own rkb_chain.
 *
 * Errors: RKNN_SUCC (0), or RKNN_ERR_PARAM_INVALID with a message naming
 * the argument and field for bad input, RKNN_ERR_MALLOC_FAIL, and for a
 * run RKNN_ERR_TIMEOUT / RKNN_ERR_FAIL. A call that fails frees what it
 * took; a chain whose finish failed can only be destroyed. Not thread-safe:
 * one caller at a time per chain (the device serialises the kicks of
 * several).
 */
#ifndef RKBARE_RKB_CHAIN_H
#define RKBARE_RKB_CHAIN_H

#include <stdint.h>

struct npu_dev;
struct dma_pool;
struct rkb_chain;

enum rkb_chain_type {
	RKB_CHAIN_FP16 = 1,
	RKB_CHAIN_INT8 = 2,
	RKB_CHAIN_INT32 = 3,
};

enum rkb_chain_weight_type {
	RKB_CHAIN_W_FP16 = 1,	/* K × N IEEE half (uint16_t) */
	RKB_CHAIN_W_INT8 = 2,	/* K × N int8, N per-channel scales */
	RKB_CHAIN_W_INT4 = 3,	/* K × N int4 (-8..7), two a byte, the low nibble
				 * first (element i in byte i / 2); per-group
				 * scales, K / group_size × N */
};

/* Largest K or N (a multiple of 32 below the 13-bit DPU channel fields). */
#define RKB_CHAIN_MAX_LEN	8160u

struct rkb_chain_config {
	unsigned int stages;		/* 1..RKB_CHAIN_MAX_STAGES */
	unsigned int core;		/* the core every stage runs on: 0..2 */
	/* The device and pool, or both NULL for those of the rknn APIs
	 * (rknn_matmul_bind's, else the board defaults). */
	struct npu_dev *dev;
	struct dma_pool *pool;
};

#define RKB_CHAIN_MAX_STAGES	256u

struct rkb_chain_weights {
	enum rkb_chain_weight_type type;
	unsigned int k, n;
	const void *data;		/* K × N row-major, read at the call only */
	const float *scale;		/* INT8: N; INT4: (k / group_size) · N + n */
	unsigned int group_size;	/* INT4: 32, 64, 128 or 256, dividing K */
};

struct rkb_chain_stats {
	uint64_t runs;			/* rkb_chain_run calls that kicked */
	uint64_t kicks;			/* PC kicks, every core */
	uint64_t hw_ticks;		/* hal_counter ticks kick → completion seen */
	uint64_t submit_ticks;		/* hal_counter ticks inside the submits */
	uint64_t weight_bytes;		/* packed weights the stream reads */
	uint64_t macs;			/* multiply-accumulates of one pass of every stage */
	unsigned int tasks;		/* NPU tasks of all stages */
};

int rkb_chain_create(struct rkb_chain **chain, const struct rkb_chain_config *cfg);

/* A tensor of len values (scale: INT8 only, else 0); *id names it in the
 * calls below. Zero-filled. */
int rkb_chain_tensor(struct rkb_chain *c, const char *name, enum rkb_chain_type type,
		     unsigned int len, float scale, int *id);

/* out = a · W in `stage`, after the stage's earlier ops. Before finish. */
int rkb_chain_matmul(struct rkb_chain *c, unsigned int stage, const char *name, int a,
		     const struct rkb_chain_weights *w, int out);

/* out = a + b in `stage`, after the stage's earlier ops (out another tensor
 * than a and b). Before finish. */
int rkb_chain_add(struct rkb_chain *c, unsigned int stage, const char *name, int a, int b,
		  int out);

/* out = a in the other precision, in `stage`: a INT8 and out FP16 (out =
 * fp16(q · fp16(a.scale))), or a FP16 and out INT8 (q = x · fp16(1 /
 * out.scale) rounded to the nearest integer, halves to even, saturated to
 * -128..127); the same length, out another tensor than a. One flying DPU
 * task converting in the DPU (sim/ASSUMPTIONS.md A41, UNSURE: no board-run
 * stream shows it; board probes A41-int8-fp16, A41-fp16-int8): its factor
 * — the INT8 tensor's scale up, its inverse down — must lie in fp16's
 * normal range. Before finish. */
int rkb_chain_convert(struct rkb_chain *c, unsigned int stage, const char *name, int a,
		      int out);

/* out = a / sqrt(mean(a²) + eps) in `stage` (all FP16, the same length;
 * out another tensor than a). eps in [0, 1]; rms_max in [1, 512]: the largest
 * rms the table is made for (see above). Before finish. */
int rkb_chain_rmsnorm(struct rkb_chain *c, unsigned int stage, const char *name, int a,
		      float eps, float rms_max, int out);

/* out = silu(gate) ⊙ up in `stage` (all FP16, the same length; out another
 * tensor than gate and up). Before finish. */
int rkb_chain_swiglu(struct rkb_chain *c, unsigned int stage, const char *name, int gate,
		     int up, int out);

/* Lower every stage into the one command stream, link each stage as its own
 * chain and verify every address it can touch (runtime/dma_verify.h). */
int rkb_chain_finish(struct rkb_chain *c);

/* The CPU view of a tensor's values (len of them; NULL for a bad id). The
 * caller writes inputs and reads outputs here between runs. */
void *rkb_chain_data(struct rkb_chain *c, int id);

/* One kick: the stage's chain on the chain's core, polled to completion.
 * After finish. */
int rkb_chain_run(struct rkb_chain *c, unsigned int stage);

void rkb_chain_get_stats(const struct rkb_chain *c, struct rkb_chain_stats *stats);

void rkb_chain_destroy(struct rkb_chain *c);

#endif /* RKBARE_RKB_CHAIN_H */
