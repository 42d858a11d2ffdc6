/* SPDX-License-Identifier: MIT */
/*
 * Chains of matmuls and element-wise adds on one-row activations (M = 1: a
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
 *   rkb_chain_finish(c);                     lower, link, verify: once
 *   loop: write inputs; rkb_chain_run(c, 0); read outputs; CPU steps; ...
 *   rkb_chain_destroy(c);
 *
 * A stage is the ops given it, in the order given, as one chain of tasks on
 * one core: each op reads what the ops before it in the stage wrote (a
 * residual add, then a matmul of the sum), and the CPU steps of the caller
 * (attention, softmax, RoPE, SiLU, the RMSNorm scalar) go between stages.
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
