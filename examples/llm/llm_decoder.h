/* SPDX-License-Identifier: MIT */
/*
 * A Llama-style decoder on rkb_chain (include/rkbare/rkb_chain.h): token
 * embedding, per layer RMSNorm → Q/K/V → RoPE → attention over a KV cache
 * (grouped heads) → O + residual, RMSNorm → SwiGLU MLP (gate, up, down) +
 * residual; a final RMSNorm and the LM head; greedy decoding, one token
 * (one row) per step. Random weights from a fixed seed (llm_rand below;
 * tests/llm/llm_ref.py draws the same ones), in two flavours:
 *
 *   LLM_W8A8      int8 weights, one scale per output channel, int8
 *                 activations with static scales (LLM_S_* in
 *                 llm_decoder.c): Q/K/V and the head give raw int32 sums
 *                 that the CPU scales; O, gate, up and down are
 *                 requantised to int8 by the DPU, O and down added to the
 *                 int8 residual there.
 *   LLM_FP16_INT4 int4 weights, one scale per 128 rows of a column (group
 *                 128), dequantised once to fp16; fp16 activations, the
 *                 residual stream fp16 on the NPU.
 *
 * RMSNorm's gamma is folded into the weights that follow it (before they
 * are quantised). The norm before attention has its per-row 1 / rms
 * applied by the CPU to the Q/K/V matmul's output (a scalar of the row, it
 * commutes with the matmul; the CPU reads Q/K/V for attention anyway). The
 * norm before the MLP and SiLU · up run on the NPU in fp16
 * (rkb_chain_rmsnorm, rkb_chain_swiglu: the DPU's lookup table); w8a8
 * converts h to fp16 for the norm, the normalised h back to int8 for
 * gate/up, their int8 outputs to fp16 for SiLU · up and that to int8 for
 * down (rkb_chain_convert: 1 / rms needs about 10 bits, which no int8 map
 * carries). So a layer is one kick:
 *     stage 0        Q/K/V of layer 0 (on the embedded token)
 *     stage l + 1    O_l, h = x + O_l, RMSNorm(h), gate/up_l, SiLU · up,
 *                    down_l, x = h + down_l, then Q/K/V of layer l + 1, or
 *                    the LM head after the last layer
 * with the CPU between them (attention with RoPE and the cache after the
 * Q/K/V): per token one kick and one per layer, all on one core
 * (rkb_chain.h, "Kicks").
 *
 * Compile once, run many: weights, RoPE tables and the command stream are
 * made by llm_create; llm_step touches only the activations and the cache.
 */
#ifndef RKBARE_EXAMPLES_LLM_DECODER_H
#define RKBARE_EXAMPLES_LLM_DECODER_H

#include <stdint.h>

struct npu_dev;
struct dma_pool;

enum llm_flavour { LLM_W8A8, LLM_FP16_INT4 };

struct llm_config {
	enum llm_flavour flavour;
	unsigned int hidden, layers, heads, kv_heads, head_dim, inter, vocab, max_seq;
	uint64_t seed;
};

/* The example's model: hidden 256, 2 layers, 4 heads of 64 sharing 2 K/V
 * heads, intermediate 512, vocabulary 512, 64 positions, seed 2024. */
void llm_config_default(struct llm_config *cfg, enum llm_flavour flavour);

struct llm;

/* dev and pool: both NULL for the rknn APIs' device (rkb_chain_config).
 * 0, or an RKNN_ERR_* code with a message. */
int llm_create(struct llm **out, const struct llm_config *cfg, struct npu_dev *dev,
	       struct dma_pool *pool);

/* Feed `token` at the next position; logits (cfg.vocab floats) may be NULL.
 * Returns the greedy next token (the first of equal maxima), or a negative
 * RKNN_ERR_* code. */
int llm_step(struct llm *m, unsigned int token, float *logits);

/* The w8a8 flavour's int8 vectors of one layer as its kick left them, for
 * a reference to check op by op (tests/llm/llm_ref.py --trace): the
 * attention output the CPU quantised (heads · head_dim values), O, h = x +
 * O, the normalised h (hidden), gate, up, SiLU · up (inter), down and x =
 * h + down (hidden). */
enum llm_trace_vec {
	LLM_TR_ATT, LLM_TR_O, LLM_TR_H, LLM_TR_H_NORM, LLM_TR_GATE, LLM_TR_UP, LLM_TR_MLP,
	LLM_TR_DOWN, LLM_TR_X, LLM_TR_COUNT
};

typedef void (*llm_trace_fn)(void *ctx, unsigned int layer,
			     const int8_t *const vec[LLM_TR_COUNT]);

/* Call fn after every layer's kick of every step (w8a8 only; NULL: none). */
void llm_set_trace(struct llm *m, llm_trace_fn fn, void *ctx);

/* Kicks and NPU work so far (rkb_chain_get_stats). */
struct rkb_chain_stats;
void llm_stats(const struct llm *m, struct rkb_chain_stats *stats);

void llm_destroy(struct llm *m);

/* The weights' random numbers: value idx of tensor `stream`, uniform on
 * [-1, 1) in steps of 2^-23 (splitmix64 of seed, stream and idx). */
float llm_rand(uint64_t seed, uint32_t stream, uint64_t idx);

#endif /* RKBARE_EXAMPLES_LLM_DECODER_H */
