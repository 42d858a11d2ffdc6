/* SPDX-License-Identifier: MIT */
/* A Llama-style decoder on rkb_chain (llm_decoder.h). */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "hal.h"
#include "rknn_api.h"
#include "rkbare/rkb_chain.h"
#include "compiler/layout.h"
#include "examples/llm/llm_decoder.h"

/*
 * Static activation scales of the w8a8 flavour (value = scale · q): the
 * command stream requantises O, gate, up and down, converts to and from
 * fp16 around the MLP's norm and SiLU and adds the residual in int8, so
 * these are fixed when it is built. Ranges measured on the float model of
 * the default configuration (tests/llm/llm_ref.py --float-ranges, 16
 * steps): the residual within ±2.1, attention outputs ±1.75, O's ±1.1,
 * the normalised h ±2.9, gate and up ±2.5, SiLU · up ±2.6, down's ±0.48;
 * each range given some headroom.
 */
#define LLM_S_X		(3.0f / 127.0f)		/* residual stream, x and h */
#define LLM_S_ATT	(2.0f / 127.0f)		/* attention output, O's input */
#define LLM_S_O		(1.5f / 127.0f)		/* O's output */
#define LLM_S_HN	(4.0f / 127.0f)		/* RMSNorm(h), gate/up's input */
#define LLM_S_GU	(3.5f / 127.0f)		/* gate's and up's outputs */
#define LLM_S_MLP	(3.0f / 127.0f)		/* SiLU(gate) · up, down's input */
#define LLM_S_D		(0.75f / 127.0f)	/* down's output */
#define LLM_INT8_MAX	127
#define LLM_INT4_MIN	(-8)
#define LLM_INT4_MAX	7
#define LLM_GROUP	128u			/* int4 weight group (rows) */
#define LLM_LEN_ALIGN	32u			/* rkb_chain's tensor lengths */
#define LLM_RMS_EPS	1e-5f
/* The MLP's RMSNorm on the NPU (both flavours): the largest rms its table
 * is made for (rkb_chain_rmsnorm); the residual stream's stays below 2.1
 * (the ranges above), and its table is exact to about 1e-3 down to 4 / 32. */
#define LLM_RMS_MAX	4.0f
#define LLM_ROPE_THETA	10000.0
/* gamma = 1 + LLM_GAMMA_SPREAD · u: norms that are not all ones, so that
 * folding them into the weights is exercised */
#define LLM_GAMMA_SPREAD 0.25f

/* Random streams (llm_rand): per model, then LLM_LAYER_STREAMS per layer. */
enum { LLM_ST_EMBED, LLM_ST_FINAL_NORM, LLM_ST_HEAD, LLM_ST_LAYER0 = 16 };
enum { LLM_ST_ATTN_NORM, LLM_ST_WQ, LLM_ST_WK, LLM_ST_WV, LLM_ST_WO, LLM_ST_MLP_NORM,
       LLM_ST_WG, LLM_ST_WU, LLM_ST_WD, LLM_LAYER_STREAMS = 16 };

/* A matmul of the model as the CPU sees its output: per-column scale of the
 * raw sums (w8a8: a.scale · w.scale[n]); unused for fp16. */
struct llm_mm {
	float *out_scale;
};

struct llm_layer {
	struct llm_mm qkv;
};

/* The LM head in column blocks of at most this many (rkb_chain's largest N). */
#define LLM_HEAD_CHUNK	RKB_CHAIN_MAX_LEN

struct llm {
	struct llm_config cfg;
	struct rkb_chain *chain;
	bool w8a8;
	unsigned int q_n, kv_n, qkv_n, pos;
	/* chain tensors; w8a8's MLP also has fp16 copies of h, gate and up,
	 * SiLU · up in fp16 and the normalised h in int8 */
	int x, h, hn, qkv, att, o, gate, up, mlp, d;
	int h16, hn8, g16, u16, m16;
	unsigned int head_chunks;
	int *logits;			/* head_chunks tensors of the head's columns */
	struct llm_layer *layers;
	struct llm_mm *head;		/* per chunk */
	float *embed;			/* vocab × hidden */
	float *rope_cos, *rope_sin;	/* max_seq × head_dim / 2 */
	float *k_cache, *v_cache;	/* layers × max_seq × kv_n */
	float *vec, *qkv_f, *att_f, *scores;	/* CPU work vectors */
	llm_trace_fn trace;
	void *trace_ctx;
};

void llm_config_default(struct llm_config *cfg, enum llm_flavour flavour)
{
	*cfg = (struct llm_config){
		.flavour = flavour, .hidden = 256, .layers = 2, .heads = 4, .kv_heads = 2,
		.head_dim = 64, .inter = 512, .vocab = 512, .max_seq = 64, .seed = 2024,
	};
}

float llm_rand(uint64_t seed, uint32_t stream, uint64_t idx)
{
	uint64_t z = (seed ^ ((uint64_t)stream << 32)) + (idx + 1) * 0x9E3779B97F4A7C15ull;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	z ^= z >> 31;
	/* 24 random bits on [0, 2), minus 1: exact in float */
	return (float)(z >> 40) * (1.0f / 8388608.0f) - 1.0f;
}

static uint32_t layer_stream(unsigned int l, unsigned int which)
{
	return LLM_ST_LAYER0 + l * LLM_LAYER_STREAMS + which;
}

/* Columns [n0, n0 + n) of the K × total float matrix w: stream `st`, scaled
 * by 1 / sqrt(K) (unit-variance outputs for unit-variance inputs) and by
 * the norm gamma[k] folded in (NULL: none). */
static void draw_weights(const struct llm_config *cfg, float *w, unsigned int k,
			 unsigned int total, unsigned int n0, unsigned int n, uint32_t st,
			 const float *gamma)
{
	float amp = (float)(1.0 / sqrt((double)k));

	for (unsigned int r = 0; r < k; r++)
		for (unsigned int j = 0; j < n; j++) {
			float v = llm_rand(cfg->seed, st, (uint64_t)r * n + j) * amp;

			w[(size_t)r * total + n0 + j] = gamma ? gamma[r] * v : v;
		}
}

static void draw_gamma(const struct llm_config *cfg, float *g, unsigned int n, uint32_t st)
{
	for (unsigned int i = 0; i < n; i++)
		g[i] = 1.0f + LLM_GAMMA_SPREAD * llm_rand(cfg->seed, st, i);
}

static float clampf(float v, float lo, float hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/*
 * Quantise the K × N float weights w for the flavour and add the matmul
 * a → out to the chain: w8a8 int8 per column (scale = max |w| / 127),
 * fp16 × int4 per group of LLM_GROUP rows (scale = max |w| / 7), values
 * rint(w / scale) clamped. out_scale (w8a8 raw sums) gets a.scale ·
 * scale[n] when non-NULL.
 */
static int add_matmul(struct llm *m, unsigned int stage, const char *name, int a, float a_scale,
		      int out, const float *w, unsigned int k, unsigned int n, float *out_scale)
{
	unsigned int rows = m->w8a8 ? k : LLM_GROUP, groups = k / rows;
	float qmax = m->w8a8 ? LLM_INT8_MAX : LLM_INT4_MAX, qmin = m->w8a8 ? -qmax : LLM_INT4_MIN;
	size_t count = (size_t)k * n;
	float *scale = malloc((size_t)groups * n * sizeof(float));
	void *q = calloc(m->w8a8 ? count : (count + 1) / 2, 1);
	struct rkb_chain_weights cw = {
		.type = m->w8a8 ? RKB_CHAIN_W_INT8 : RKB_CHAIN_W_INT4, .k = k, .n = n,
		.data = q, .scale = scale, .group_size = m->w8a8 ? 0 : LLM_GROUP,
	};
	int rc = RKNN_ERR_MALLOC_FAIL;

	if (!scale || !q)
		goto out;
	for (unsigned int g = 0; g < groups; g++)
		for (unsigned int j = 0; j < n; j++) {
			float mx = 0.0f, s;

			for (unsigned int r = g * rows; r < (g + 1) * rows; r++)
				mx = fmaxf(mx, fabsf(w[(size_t)r * n + j]));
			s = mx > 0.0f ? mx / qmax : 1.0f;
			scale[(size_t)g * n + j] = s;
			for (unsigned int r = g * rows; r < (g + 1) * rows; r++) {
				size_t i = (size_t)r * n + j;
				int v = (int)clampf(rintf(w[i] / s), qmin, qmax);

				if (m->w8a8)
					((int8_t *)q)[i] = (int8_t)v;
				else
					((uint8_t *)q)[i / 2] |= (uint8_t)((v & 0xF) << (i % 2 ? 4 : 0));
			}
		}
	if (out_scale)
		for (unsigned int j = 0; j < n; j++)
			out_scale[j] = a_scale * scale[j];
	rc = rkb_chain_matmul(m->chain, stage, name, a, &cw, out);
out:
	free(scale);
	free(q);
	return rc;
}

/* The weights of one matmul, drawn and folded: `parts` column blocks of
 * widths n[i] from streams st[i], gamma folded in. */
static float *layer_weights(const struct llm_config *cfg, unsigned int k, unsigned int parts,
			    const unsigned int *n, const uint32_t *st, const float *gamma,
			    unsigned int *total)
{
	float *w;
	unsigned int n0 = 0;

	*total = 0;
	for (unsigned int i = 0; i < parts; i++)
		*total += n[i];
	w = malloc((size_t)k * *total * sizeof(float));
	if (!w)
		return NULL;
	for (unsigned int i = 0; i < parts; i++) {
		draw_weights(cfg, w, k, *total, n0, n[i], st[i], gamma);
		n0 += n[i];
	}
	return w;
}

static int check_config(const struct llm_config *c)
{
	if (!c->hidden || !c->layers || !c->heads || !c->kv_heads || !c->head_dim || !c->inter ||
	    !c->vocab || !c->max_seq) {
		hal_err("llm_create: every size of the config must be non-zero");
		return RKNN_ERR_PARAM_INVALID;
	}
	if (c->heads % c->kv_heads || c->head_dim % 2) {
		hal_err("llm_create: heads (%u) must be a multiple of kv_heads (%u) and head_dim "
			"(%u) even", c->heads, c->kv_heads, c->head_dim);
		return RKNN_ERR_PARAM_INVALID;
	}
	if (c->flavour == LLM_FP16_INT4 &&
	    (c->hidden % LLM_GROUP || c->inter % LLM_GROUP || c->heads * c->head_dim % LLM_GROUP)) {
		hal_err("llm_create: fp16 x int4: hidden, inter and heads * head_dim must be "
			"multiples of the group, %u", LLM_GROUP);
		return RKNN_ERR_PARAM_INVALID;
	}
	if (c->hidden % LLM_LEN_ALIGN || c->inter % LLM_LEN_ALIGN || c->vocab % LLM_LEN_ALIGN ||
	    c->kv_heads * c->head_dim % LLM_LEN_ALIGN || c->hidden > RKB_CHAIN_MAX_LEN ||
	    c->inter > RKB_CHAIN_MAX_LEN ||
	    (c->heads + 2 * c->kv_heads) * c->head_dim > RKB_CHAIN_MAX_LEN) {
		hal_err("llm_create: hidden (%u), inter (%u), vocab (%u) and kv_heads * head_dim "
			"(%u) must be multiples of %u; hidden, inter and (heads + 2 * kv_heads) * "
			"head_dim (%u) at most %u (rkb_chain.h)", c->hidden, c->inter, c->vocab,
			c->kv_heads * c->head_dim, LLM_LEN_ALIGN,
			(c->heads + 2 * c->kv_heads) * c->head_dim, RKB_CHAIN_MAX_LEN);
		return RKNN_ERR_PARAM_INVALID;
	}
	if (c->flavour != LLM_W8A8 && c->flavour != LLM_FP16_INT4) {
		hal_err("llm_create: flavour %d is not LLM_W8A8 or LLM_FP16_INT4", (int)c->flavour);
		return RKNN_ERR_PARAM_INVALID;
	}
	return RKNN_SUCC;
}

/* Columns of head chunk i. */
static unsigned int head_cols(const struct llm *m, unsigned int i)
{
	unsigned int left = m->cfg.vocab - i * LLM_HEAD_CHUNK;

	return left < LLM_HEAD_CHUNK ? left : LLM_HEAD_CHUNK;
}

/* w8a8's fp16 side of the MLP: h and gate/up converted, SiLU · up, and the
 * normalised h back in int8. */
static int w8a8_mlp_tensors(struct llm *m)
{
	const struct llm_config *c = &m->cfg;
	int rc = rkb_chain_tensor(m->chain, "h16", RKB_CHAIN_FP16, c->hidden, 0, &m->h16);

	if (!rc)
		rc = rkb_chain_tensor(m->chain, "h_norm8", RKB_CHAIN_INT8, c->hidden, LLM_S_HN,
				      &m->hn8);
	if (!rc)
		rc = rkb_chain_tensor(m->chain, "gate16", RKB_CHAIN_FP16, c->inter, 0, &m->g16);
	if (!rc)
		rc = rkb_chain_tensor(m->chain, "up16", RKB_CHAIN_FP16, c->inter, 0, &m->u16);
	if (!rc)
		rc = rkb_chain_tensor(m->chain, "mlp16", RKB_CHAIN_FP16, c->inter, 0, &m->m16);
	return rc;
}

static int make_tensors(struct llm *m)
{
	const struct llm_config *c = &m->cfg;
	enum rkb_chain_type act = m->w8a8 ? RKB_CHAIN_INT8 : RKB_CHAIN_FP16;
	enum rkb_chain_type sums = m->w8a8 ? RKB_CHAIN_INT32 : RKB_CHAIN_FP16;
	float k8 = m->w8a8 ? 1.0f : 0.0f;	/* INT8 tensors carry a scale */
	int rc;

	rc = rkb_chain_tensor(m->chain, "x", act, c->hidden, k8 * LLM_S_X, &m->x);
	if (!rc)
		rc = rkb_chain_tensor(m->chain, "h", act, c->hidden, k8 * LLM_S_X, &m->h);
	if (!rc)
		rc = rkb_chain_tensor(m->chain, "h_norm", RKB_CHAIN_FP16, c->hidden, 0, &m->hn);
	if (!rc)
		rc = rkb_chain_tensor(m->chain, "qkv", sums, m->qkv_n, 0, &m->qkv);
	if (!rc)
		rc = rkb_chain_tensor(m->chain, "att", act, m->q_n, k8 * LLM_S_ATT, &m->att);
	if (!rc)
		rc = rkb_chain_tensor(m->chain, "o", act, c->hidden, k8 * LLM_S_O, &m->o);
	if (!rc)
		rc = rkb_chain_tensor(m->chain, "gate", act, c->inter, k8 * LLM_S_GU, &m->gate);
	if (!rc)
		rc = rkb_chain_tensor(m->chain, "up", act, c->inter, k8 * LLM_S_GU, &m->up);
	if (!rc && m->w8a8)
		rc = w8a8_mlp_tensors(m);
	if (!rc)
		rc = rkb_chain_tensor(m->chain, "mlp", act, c->inter, k8 * LLM_S_MLP, &m->mlp);
	if (!rc)
		rc = rkb_chain_tensor(m->chain, "down", act, c->hidden, k8 * LLM_S_D, &m->d);
	for (unsigned int i = 0; !rc && i < m->head_chunks; i++)
		rc = rkb_chain_tensor(m->chain, "logits", sums, head_cols(m, i), 0, &m->logits[i]);
	return rc;
}

/* Q/K/V of layer l (the norm before attention folded in) on x, in `stage`. */
static int add_qkv(struct llm *m, unsigned int l, unsigned int stage, float *gamma)
{
	const struct llm_config *c = &m->cfg;
	unsigned int n[] = { m->q_n, m->kv_n, m->kv_n }, total;
	uint32_t st[] = { layer_stream(l, LLM_ST_WQ), layer_stream(l, LLM_ST_WK),
			  layer_stream(l, LLM_ST_WV) };
	float *w;
	int rc;

	draw_gamma(c, gamma, c->hidden, layer_stream(l, LLM_ST_ATTN_NORM));
	w = layer_weights(c, c->hidden, 3, n, st, gamma, &total);
	if (!w)
		return RKNN_ERR_MALLOC_FAIL;
	rc = add_matmul(m, stage, "qkv", m->x, LLM_S_X, m->qkv, w, c->hidden, total,
			m->layers[l].qkv.out_scale);
	free(w);
	return rc;
}

/* The head after the last layer, the final norm folded in, in column
 * chunks of at most LLM_HEAD_CHUNK (each its own matmul). */
static int add_head(struct llm *m, unsigned int stage, float *gamma)
{
	const struct llm_config *c = &m->cfg;
	unsigned int n[] = { c->vocab }, total;
	uint32_t st[] = { LLM_ST_HEAD };
	float *w, *part = NULL;
	int rc = RKNN_ERR_MALLOC_FAIL;

	draw_gamma(c, gamma, c->hidden, LLM_ST_FINAL_NORM);
	w = layer_weights(c, c->hidden, 1, n, st, gamma, &total);
	if (w && m->head_chunks > 1)
		part = malloc((size_t)c->hidden * LLM_HEAD_CHUNK * sizeof(float));
	if (!w || (m->head_chunks > 1 && !part))
		goto out;
	rc = RKNN_SUCC;
	for (unsigned int i = 0; !rc && i < m->head_chunks; i++) {
		unsigned int cols = head_cols(m, i);

		if (part)
			for (unsigned int k = 0; k < c->hidden; k++)
				memcpy(part + (size_t)k * cols,
				       w + (size_t)k * c->vocab + (size_t)i * LLM_HEAD_CHUNK,
				       cols * sizeof(float));
		rc = add_matmul(m, stage, "lm_head", m->x, LLM_S_X, m->logits[i], part ? part : w,
				c->hidden, cols, m->head[i].out_scale);
	}
out:
	free(part);
	free(w);
	return rc;
}

/* Layer l's stage (llm_decoder.h): O, residual, the MLP's RMSNorm, gate/up,
 * SiLU · up (fp16; w8a8 converting to and from int8 around them), down,
 * residual, then the next layer's Q/K/V or the head. */
static int add_layer(struct llm *m, unsigned int l, float *gamma)
{
	const struct llm_config *c = &m->cfg;
	unsigned int st = l + 1, total;
	unsigned int n_o[] = { c->hidden }, n_i[] = { c->inter };
	uint32_t st_o[] = { layer_stream(l, LLM_ST_WO) }, st_d[] = { layer_stream(l, LLM_ST_WD) };
	uint32_t st_g[] = { layer_stream(l, LLM_ST_WG) }, st_u[] = { layer_stream(l, LLM_ST_WU) };
	int norm_in = m->w8a8 ? m->h16 : m->h, mlp_in = m->w8a8 ? m->hn8 : m->hn;
	float *w = layer_weights(c, m->q_n, 1, n_o, st_o, NULL, &total);
	int rc;

	rc = w ? add_matmul(m, st, "o_proj", m->att, LLM_S_ATT, m->o, w, m->q_n, c->hidden,
			    NULL) : RKNN_ERR_MALLOC_FAIL;
	free(w);
	if (!rc)
		rc = rkb_chain_add(m->chain, st, "attn_residual", m->x, m->o, m->h);
	if (!rc && m->w8a8)
		rc = rkb_chain_convert(m->chain, st, "h_to_fp16", m->h, m->h16);
	if (!rc)
		rc = rkb_chain_rmsnorm(m->chain, st, "mlp_norm", norm_in, LLM_RMS_EPS, LLM_RMS_MAX,
				       m->hn);
	if (!rc && m->w8a8)
		rc = rkb_chain_convert(m->chain, st, "h_norm_to_int8", m->hn, m->hn8);
	if (rc)
		return rc;
	draw_gamma(c, gamma, c->hidden, layer_stream(l, LLM_ST_MLP_NORM));
	w = layer_weights(c, c->hidden, 1, n_i, st_g, gamma, &total);
	rc = w ? add_matmul(m, st, "gate", mlp_in, LLM_S_HN, m->gate, w, c->hidden, total, NULL) :
		 RKNN_ERR_MALLOC_FAIL;
	free(w);
	if (rc)
		return rc;
	w = layer_weights(c, c->hidden, 1, n_i, st_u, gamma, &total);
	rc = w ? add_matmul(m, st, "up", mlp_in, LLM_S_HN, m->up, w, c->hidden, total, NULL) :
		 RKNN_ERR_MALLOC_FAIL;
	free(w);
	if (!rc && m->w8a8)
		rc = rkb_chain_convert(m->chain, st, "gate_to_fp16", m->gate, m->g16);
	if (!rc && m->w8a8)
		rc = rkb_chain_convert(m->chain, st, "up_to_fp16", m->up, m->u16);
	if (!rc)
		rc = rkb_chain_swiglu(m->chain, st, "swiglu", m->w8a8 ? m->g16 : m->gate,
				      m->w8a8 ? m->u16 : m->up, m->w8a8 ? m->m16 : m->mlp);
	if (!rc && m->w8a8)
		rc = rkb_chain_convert(m->chain, st, "mlp_to_int8", m->m16, m->mlp);
	if (rc)
		return rc;
	w = layer_weights(c, c->inter, 1, n_o, st_d, NULL, &total);
	rc = w ? add_matmul(m, st, "down", m->mlp, LLM_S_MLP, m->d, w, c->inter, c->hidden,
			    NULL) : RKNN_ERR_MALLOC_FAIL;
	free(w);
	if (!rc)
		rc = rkb_chain_add(m->chain, st, "mlp_residual", m->h, m->d, m->x);
	if (rc)
		return rc;
	if (l + 1 < c->layers)
		return add_qkv(m, l + 1, st, gamma);
	return add_head(m, st, gamma);
}

static bool alloc_all(struct llm *m)
{
	const struct llm_config *c = &m->cfg;
	size_t cache = (size_t)c->layers * c->max_seq * m->kv_n, half = c->head_dim / 2;
	size_t work = m->qkv_n;		/* Q/K/V, then the logits */

	m->head_chunks = (c->vocab + LLM_HEAD_CHUNK - 1) / LLM_HEAD_CHUNK;
	m->logits = calloc(m->head_chunks, sizeof(*m->logits));
	m->head = calloc(m->head_chunks, sizeof(*m->head));
	if (!m->logits || !m->head)
		return false;

	if (work < c->vocab)
		work = c->vocab;
	m->layers = calloc(c->layers, sizeof(*m->layers));
	m->embed = malloc((size_t)c->vocab * c->hidden * sizeof(float));
	m->rope_cos = malloc(c->max_seq * half * sizeof(float));
	m->rope_sin = malloc(c->max_seq * half * sizeof(float));
	m->k_cache = malloc(cache * sizeof(float));
	m->v_cache = malloc(cache * sizeof(float));
	m->vec = malloc(c->hidden * sizeof(float));
	m->qkv_f = malloc(work * sizeof(float));
	m->att_f = malloc(m->q_n * sizeof(float));
	m->scores = malloc(c->max_seq * sizeof(float));
	if (!m->layers || !m->embed || !m->rope_cos || !m->rope_sin || !m->k_cache ||
	    !m->v_cache || !m->vec || !m->qkv_f || !m->att_f || !m->scores)
		return false;
	if (!m->w8a8)
		return true;
	for (unsigned int l = 0; l < c->layers; l++) {
		m->layers[l].qkv.out_scale = malloc(m->qkv_n * sizeof(float));
		if (!m->layers[l].qkv.out_scale)
			return false;
	}
	for (unsigned int i = 0; i < m->head_chunks; i++) {
		m->head[i].out_scale = malloc(head_cols(m, i) * sizeof(float));
		if (!m->head[i].out_scale)
			return false;
	}
	return true;
}

void llm_destroy(struct llm *m)
{
	if (!m)
		return;
	rkb_chain_destroy(m->chain);
	for (unsigned int l = 0; m->layers && l < m->cfg.layers; l++)
		free(m->layers[l].qkv.out_scale);
	free(m->layers);
	for (unsigned int i = 0; m->head && i < m->head_chunks; i++)
		free(m->head[i].out_scale);
	free(m->head);
	free(m->logits);
	free(m->embed);
	free(m->rope_cos);
	free(m->rope_sin);
	free(m->k_cache);
	free(m->v_cache);
	free(m->vec);
	free(m->qkv_f);
	free(m->att_f);
	free(m->scores);
	free(m);
}

int llm_create(struct llm **out, const struct llm_config *cfg, struct npu_dev *dev,
	       struct dma_pool *pool)
{
	struct rkb_chain_config cc = { .core = 0, .dev = dev, .pool = pool };
	struct llm *m;
	float *gamma;
	size_t half;
	int rc;

	*out = NULL;
	rc = check_config(cfg);
	if (rc)
		return rc;
	m = calloc(1, sizeof(*m));
	if (!m)
		return RKNN_ERR_MALLOC_FAIL;
	m->cfg = *cfg;
	m->w8a8 = cfg->flavour == LLM_W8A8;
	m->q_n = cfg->heads * cfg->head_dim;
	m->kv_n = cfg->kv_heads * cfg->head_dim;
	m->qkv_n = m->q_n + 2 * m->kv_n;
	half = cfg->head_dim / 2;
	gamma = malloc(cfg->hidden * sizeof(float));
	if (!gamma || !alloc_all(m)) {
		rc = RKNN_ERR_MALLOC_FAIL;
		goto fail;
	}
	for (size_t i = 0; i < (size_t)cfg->vocab * cfg->hidden; i++)
		m->embed[i] = llm_rand(cfg->seed, LLM_ST_EMBED, i);
	for (unsigned int p = 0; p < cfg->max_seq; p++)
		for (size_t i = 0; i < half; i++) {
			double angle = p * pow(LLM_ROPE_THETA, -2.0 * (double)i / cfg->head_dim);

			m->rope_cos[p * half + i] = (float)cos(angle);
			m->rope_sin[p * half + i] = (float)sin(angle);
		}
	cc.stages = cfg->layers + 1;	/* Q/K/V of layer 0, then one a layer */
	rc = rkb_chain_create(&m->chain, &cc);
	if (!rc)
		rc = make_tensors(m);
	if (!rc)
		rc = add_qkv(m, 0, 0, gamma);
	for (unsigned int l = 0; !rc && l < cfg->layers; l++)
		rc = add_layer(m, l, gamma);
	if (!rc)
		rc = rkb_chain_finish(m->chain);
	if (rc)
		goto fail;
	free(gamma);
	*out = m;
	return RKNN_SUCC;
fail:
	free(gamma);
	llm_destroy(m);
	return rc;
}

/* ---- a step ---- */

/* Value i of an activation tensor's data p (tensors are read and written
 * in place: rkb_chain_data, once per vector). */
static float load(const struct llm *m, const void *p, size_t i, float scale)
{
	return m->w8a8 ? scale * (float)((const int8_t *)p)[i] :
			 layout_f16_to_f32(((const uint16_t *)p)[i]);
}

static void store(const struct llm *m, void *p, size_t i, float v, float scale)
{
	if (m->w8a8)
		((int8_t *)p)[i] = (int8_t)clampf(rintf(v / scale), -LLM_INT8_MAX, LLM_INT8_MAX);
	else
		((uint16_t *)p)[i] = layout_f32_to_f16(v);
}

/* 1 / rms of the n values of tensor t. */
static float inv_rms(const struct llm *m, int t, unsigned int n, float scale)
{
	const void *p = rkb_chain_data(m->chain, t);
	float ss = 0.0f;

	for (unsigned int i = 0; i < n; i++) {
		float v = load(m, p, i, scale);

		ss += v * v;
	}
	return 1.0f / sqrtf(ss / (float)n + LLM_RMS_EPS);
}

/* The n outputs of a matmul as floats, times the row's 1 / rms r. */
static void sums(const struct llm *m, int t, const struct llm_mm *mm, unsigned int n, float r,
		 float *dst)
{
	const void *p = rkb_chain_data(m->chain, t);

	for (unsigned int i = 0; i < n; i++)
		dst[i] = (m->w8a8 ? (float)((const int32_t *)p)[i] * mm->out_scale[i] :
				    layout_f16_to_f32(((const uint16_t *)p)[i])) * r;
}

/* Rotate pairs (i, i + head_dim / 2) of one head by the position's angles. */
static void rope(const struct llm *m, float *v)
{
	size_t half = m->cfg.head_dim / 2;
	const float *cs = m->rope_cos + m->pos * half, *sn = m->rope_sin + m->pos * half;

	for (size_t i = 0; i < half; i++) {
		float a = v[i], b = v[i + half];

		v[i] = a * cs[i] - b * sn[i];
		v[i + half] = b * cs[i] + a * sn[i];
	}
}

/* Attention of layer l at the current position: q, k, v from qkv_f; k and
 * v appended to the cache; the heads' outputs to att_f. */
static void attention(struct llm *m, unsigned int l)
{
	const struct llm_config *c = &m->cfg;
	unsigned int hd = c->head_dim, group = c->heads / c->kv_heads;
	size_t base = (size_t)l * c->max_seq * m->kv_n;
	float *k_row = m->k_cache + base + (size_t)m->pos * m->kv_n;
	float *v_row = m->v_cache + base + (size_t)m->pos * m->kv_n;
	float inv_sqrt = 1.0f / sqrtf((float)hd);

	for (unsigned int h = 0; h < c->heads; h++)
		rope(m, m->qkv_f + h * hd);
	for (unsigned int h = 0; h < c->kv_heads; h++)
		rope(m, m->qkv_f + m->q_n + h * hd);
	memcpy(k_row, m->qkv_f + m->q_n, m->kv_n * sizeof(float));
	memcpy(v_row, m->qkv_f + m->q_n + m->kv_n, m->kv_n * sizeof(float));
	for (unsigned int h = 0; h < c->heads; h++) {
		const float *q = m->qkv_f + h * hd;
		unsigned int kvh = h / group;
		float top = -INFINITY, total = 0.0f;
		float *o = m->att_f + h * hd;

		for (unsigned int p = 0; p <= m->pos; p++) {
			const float *k = m->k_cache + base + (size_t)p * m->kv_n + kvh * hd;
			float s = 0.0f;

			for (unsigned int i = 0; i < hd; i++)
				s += q[i] * k[i];
			m->scores[p] = s * inv_sqrt;
			top = fmaxf(top, m->scores[p]);
		}
		for (unsigned int p = 0; p <= m->pos; p++) {
			m->scores[p] = expf(m->scores[p] - top);
			total += m->scores[p];
		}
		memset(o, 0, hd * sizeof(float));
		for (unsigned int p = 0; p <= m->pos; p++) {
			const float *v = m->v_cache + base + (size_t)p * m->kv_n + kvh * hd;
			float w = m->scores[p] / total;

			for (unsigned int i = 0; i < hd; i++)
				o[i] += w * v[i];
		}
	}
}

static int run(struct llm *m, unsigned int stage)
{
	int rc = rkb_chain_run(m->chain, stage);

	return rc ? (rc > 0 ? -rc : rc) : 0;
}

static void trace_layer(const struct llm *m, unsigned int l)
{
	const int ids[LLM_TR_COUNT] = {
		[LLM_TR_ATT] = m->att, [LLM_TR_O] = m->o, [LLM_TR_H] = m->h,
		[LLM_TR_H_NORM] = m->hn8, [LLM_TR_GATE] = m->gate, [LLM_TR_UP] = m->up,
		[LLM_TR_MLP] = m->mlp, [LLM_TR_DOWN] = m->d, [LLM_TR_X] = m->x,
	};
	const int8_t *vec[LLM_TR_COUNT];

	for (unsigned int i = 0; i < LLM_TR_COUNT; i++)
		vec[i] = rkb_chain_data(m->chain, ids[i]);
	m->trace(m->trace_ctx, l, vec);
}

void llm_set_trace(struct llm *m, llm_trace_fn fn, void *ctx)
{
	m->trace = fn;
	m->trace_ctx = ctx;
}

int llm_step(struct llm *m, unsigned int token, float *logits)
{
	const struct llm_config *c = &m->cfg;
	void *x = rkb_chain_data(m->chain, m->x), *att = rkb_chain_data(m->chain, m->att);
	float *f = m->qkv_f, r;
	unsigned int best = 0;
	int rc;

	if (token >= c->vocab || m->pos >= c->max_seq) {
		hal_err("llm_step: %s", token >= c->vocab ? "token outside the vocabulary" :
			"the KV cache is full (max_seq)");
		return RKNN_ERR_PARAM_INVALID;
	}
	for (unsigned int i = 0; i < c->hidden; i++)
		store(m, x, i, m->embed[(size_t)token * c->hidden + i], LLM_S_X);
	rc = run(m, 0);
	for (unsigned int l = 0; !rc && l < c->layers; l++) {
		sums(m, m->qkv, &m->layers[l].qkv, m->qkv_n, inv_rms(m, m->x, c->hidden, LLM_S_X), f);
		attention(m, l);
		for (unsigned int i = 0; i < m->q_n; i++)
			store(m, att, i, m->att_f[i], LLM_S_ATT);
		rc = run(m, l + 1);
		if (!rc && m->trace && m->w8a8)
			trace_layer(m, l);
	}
	if (rc)
		return rc;
	r = inv_rms(m, m->x, c->hidden, LLM_S_X);
	for (unsigned int i = 0; i < m->head_chunks; i++)
		sums(m, m->logits[i], &m->head[i], head_cols(m, i), r,
		     f + (size_t)i * LLM_HEAD_CHUNK);
	for (unsigned int i = 1; i < c->vocab; i++)
		if (f[i] > f[best])
			best = i;
	if (logits)
		memcpy(logits, f, c->vocab * sizeof(float));
	m->pos++;
	return (int)best;
}

void llm_stats(const struct llm *m, struct rkb_chain_stats *stats)
{
	rkb_chain_get_stats(m->chain, stats);
}
