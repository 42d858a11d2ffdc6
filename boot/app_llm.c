/* SPDX-License-Identifier: MIT */
/*
 * rkbare.app=llm: the Llama-style decoder of examples/llm (llm_decoder.h)
 * in both weight flavours on a powered NPU: 4 prompt tokens, then 12
 * greedy ones, printed with the kicks each token took and the time per
 * token (under QEMU, the NPU model's time: not the chip's). The tokens are
 * those tests/llm/llm_ref.py (numpy) decodes; tests/qemu/llm_app.sh
 * compares them.
 */
#include <stdio.h>

#include "boot/app.h"
#include "hal.h"
#include "rkbare/rkb_chain.h"
#include "examples/llm/llm_decoder.h"

#define LLM_APP_NEW_TOKENS	12u

static const unsigned int llm_prompt[] = { 1, 2, 3, 4 };

static int llm_run(struct npu_dev *npu, struct dma_pool *pool, enum llm_flavour flavour,
		   const char *name)
{
	unsigned int n_prompt = sizeof(llm_prompt) / sizeof(llm_prompt[0]);
	unsigned int steps = n_prompt + LLM_APP_NEW_TOKENS;
	struct llm_config cfg;
	struct rkb_chain_stats st;
	struct llm *m;
	uint64_t t0;
	int token = 0;

	llm_config_default(&cfg, flavour);
	if (llm_create(&m, &cfg, npu, pool)) {
		printf("app: llm %s: cannot create the decoder\n", name);
		return -1;
	}
	printf("app: llm %s: tokens", name);
	t0 = hal_counter();
	for (unsigned int i = 0; i < steps; i++) {
		token = llm_step(m, i < n_prompt ? llm_prompt[i] : (unsigned int)token, NULL);
		if (token < 0) {
			printf("\napp: llm %s: step %u failed (%d)\n", name, i, token);
			llm_destroy(m);
			return -1;
		}
		printf("%s%d", i ? "," : " ", token);
	}
	t0 = hal_counter() - t0;
	llm_stats(m, &st);
	printf("\napp: llm %s: %u layers, %u steps, %llu kicks, %llu per token "
	       "(1 + %llu per layer), %llu us per token\n", name, cfg.layers, steps,
	       (unsigned long long)st.kicks, (unsigned long long)(st.kicks / steps),
	       (unsigned long long)((st.kicks / steps - 1) / cfg.layers),
	       (unsigned long long)(t0 * 1000000u / hal_counter_freq() / steps));
	llm_destroy(m);
	return 0;
}

int app_llm_run(struct npu_dev *npu, struct dma_pool *pool)
{
	int rc = llm_run(npu, pool, LLM_W8A8, "w8a8");

	if (llm_run(npu, pool, LLM_FP16_INT4, "int4"))
		rc = -1;
	return rc;
}
