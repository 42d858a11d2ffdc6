/* SPDX-License-Identifier: MIT */
/*
 * llm_decode: the decoder of llm_decoder.h on the host (the NPU model
 * behind the HAL). Feeds the prompt one token a step, then decodes
 * greedily, printing each step's token; --logits writes every step's
 * logits (float32, vocab per step) for tests/llm/llm_ref.py to compare,
 * --trace (w8a8) every layer's int8 vectors of every step (llm_set_trace's,
 * in enum llm_trace_vec's order, int8 each) for it to check op by op.
 *
 *   llm_decode [--flavour w8a8|int4] [--prompt 1,2,3] [--tokens N] [--logits FILE]
 *              [--trace FILE]
 *              [--layers L] [--hidden H] [--heads N] [--kv-heads N] [--head-dim D]
 *              [--inter I] [--vocab V] [--max-seq S]
 *
 * The sizes default to llm_config_default's (the model tests/llm checks);
 * others build the same kind of model at other shapes (make bench's
 * Qwen2-0.5B-shaped layers).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hal.h"
#include "rkbare/rkb_chain.h"
#include "examples/llm/llm_decoder.h"

#define MAX_PROMPT 16

static int usage(void)
{
	fprintf(stderr, "usage: llm_decode [--flavour w8a8|int4] [--prompt T,T,...] "
		"[--tokens N] [--logits FILE] [--trace FILE]\n"
		"                  [--layers L] [--hidden H] [--heads N] [--kv-heads N] "
		"[--head-dim D]\n                  [--inter I] [--vocab V] [--max-seq S]\n");
	return 2;
}

static int parse_prompt(const char *s, unsigned int *prompt, unsigned int *n)
{
	char *end;

	*n = 0;
	while (*s) {
		unsigned long v = strtoul(s, &end, 10);

		if (end == s || *n == MAX_PROMPT || (*end && *end != ','))
			return -1;
		prompt[(*n)++] = (unsigned int)v;
		s = *end ? end + 1 : end;
	}
	return *n ? 0 : -1;
}

struct trace_out {
	FILE *f;
	size_t len[LLM_TR_COUNT];
	int err;
};

static void write_trace(void *ctx, unsigned int layer, const int8_t *const vec[LLM_TR_COUNT])
{
	struct trace_out *t = ctx;

	(void)layer;	/* the layers come in order */
	for (unsigned int i = 0; i < LLM_TR_COUNT; i++)
		if (fwrite(vec[i], 1, t->len[i], t->f) != t->len[i])
			t->err = 1;
}

/* The size options and the config field each sets. */
static unsigned int *size_option(struct llm_config *cfg, const char *opt)
{
	static const struct {
		const char *name;
		size_t offset;
	} sizes[] = {
		{ "--layers", offsetof(struct llm_config, layers) },
		{ "--hidden", offsetof(struct llm_config, hidden) },
		{ "--heads", offsetof(struct llm_config, heads) },
		{ "--kv-heads", offsetof(struct llm_config, kv_heads) },
		{ "--head-dim", offsetof(struct llm_config, head_dim) },
		{ "--inter", offsetof(struct llm_config, inter) },
		{ "--vocab", offsetof(struct llm_config, vocab) },
		{ "--max-seq", offsetof(struct llm_config, max_seq) },
	};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (!strcmp(opt, sizes[i].name))
			return (unsigned int *)((char *)cfg + sizes[i].offset);
	return NULL;
}

int main(int argc, char **argv)
{
	enum llm_flavour flavour = LLM_W8A8;
	unsigned int prompt[MAX_PROMPT] = { 1, 2, 3, 4 }, n_prompt = 4, n_new = 12;
	const char *logits_path = NULL, *trace_path = NULL;
	struct trace_out tr = { 0 };
	struct llm_config cfg, sizes;
	struct rkb_chain_stats st;
	struct llm *m;
	FILE *lf = NULL;
	float *logits;
	int token = 0, rc = 1;

	llm_config_default(&sizes, flavour);
	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		unsigned int *size = size_option(&sizes, argv[i]);

		if (size && v) {
			*size = (unsigned int)strtoul(v, NULL, 10);
		} else if (!strcmp(argv[i], "--flavour") && v) {
			if (!strcmp(v, "w8a8"))
				flavour = LLM_W8A8;
			else if (!strcmp(v, "int4"))
				flavour = LLM_FP16_INT4;
			else
				return usage();
		} else if (!strcmp(argv[i], "--prompt") && v) {
			if (parse_prompt(v, prompt, &n_prompt))
				return usage();
		} else if (!strcmp(argv[i], "--tokens") && v) {
			n_new = (unsigned int)strtoul(v, NULL, 10);
		} else if (!strcmp(argv[i], "--logits") && v) {
			logits_path = v;
		} else if (!strcmp(argv[i], "--trace") && v) {
			trace_path = v;
		} else {
			return usage();
		}
		i++;
	}
	cfg = sizes;
	cfg.flavour = flavour;
	if (n_prompt + n_new > cfg.max_seq) {
		fprintf(stderr, "llm_decode: prompt + tokens = %u exceeds the %u positions\n",
			n_prompt + n_new, cfg.max_seq);
		return 2;
	}
	logits = malloc(cfg.vocab * sizeof(float));
	if (!logits)
		return 1;
	if (logits_path && !(lf = fopen(logits_path, "wb"))) {
		perror(logits_path);
		free(logits);
		return 1;
	}
	if (trace_path && !(tr.f = fopen(trace_path, "wb"))) {
		perror(trace_path);
		goto out;
	}
	if (llm_create(&m, &cfg, NULL, NULL)) {
		fprintf(stderr, "llm_decode: cannot create the decoder\n");
		goto out;
	}
	if (tr.f) {
		size_t hidden = cfg.hidden, inter = cfg.inter;
		const size_t len[LLM_TR_COUNT] = {
			[LLM_TR_ATT] = (size_t)cfg.heads * cfg.head_dim, [LLM_TR_O] = hidden,
			[LLM_TR_H] = hidden, [LLM_TR_H_NORM] = hidden, [LLM_TR_GATE] = inter,
			[LLM_TR_UP] = inter, [LLM_TR_MLP] = inter, [LLM_TR_DOWN] = hidden,
			[LLM_TR_X] = hidden,
		};

		memcpy(tr.len, len, sizeof(len));
		llm_set_trace(m, write_trace, &tr);
	}
	for (unsigned int step = 0; step + 1 < n_prompt + n_new + 1; step++) {
		unsigned int in = step < n_prompt ? prompt[step] : (unsigned int)token;

		token = llm_step(m, in, logits);
		if (token < 0) {
			fprintf(stderr, "llm_decode: step %u failed (%d)\n", step, token);
			goto destroy;
		}
		if (lf && fwrite(logits, sizeof(float), cfg.vocab, lf) != cfg.vocab) {
			perror(logits_path);
			goto destroy;
		}
		printf("step %u: in %u -> %d\n", step, in, token);
	}
	llm_stats(m, &st);
	/* per token: stage 0, then one a layer (llm_decoder.h) */
	printf("llm: %u layers, %u steps, %llu kicks (%.1f per token: 1 + %.1f per layer), "
	       "%u tasks, %llu weight bytes, %llu MACs per token\n", cfg.layers,
	       n_prompt + n_new, (unsigned long long)st.kicks,
	       (double)st.kicks / (n_prompt + n_new),
	       ((double)st.kicks / (n_prompt + n_new) - 1.0) / cfg.layers, st.tasks,
	       (unsigned long long)st.weight_bytes, (unsigned long long)st.macs);
	rc = tr.err;
	if (rc)
		perror(trace_path);
destroy:
	llm_destroy(m);
out:
	if (lf && fclose(lf))
		rc = 1;
	if (tr.f && fclose(tr.f))
		rc = 1;
	free(logits);
	return rc;
}
