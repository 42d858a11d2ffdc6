/* SPDX-License-Identifier: MIT */
/* The application the unikernel runs after bring-up. */
#ifndef RKBARE_BOOT_APP_H
#define RKBARE_BOOT_APP_H

#include <stdint.h>

struct bootargs;

/* Runs with the MMU, caches, console and heap up. Returns the exit status
 * of the run (0 = success). */
int app_run(const struct bootargs *args);

struct npu_dev;
struct dma_pool;
/* Runs the embedded model (app_model.c) on the cores of a powered NPU that
 * the mask names (rkbare.cores=, default core 0). */
int app_model_run(struct npu_dev *npu, struct dma_pool *pool, uint32_t cores);

/* The Llama-style decoder (examples/llm) in both weight flavours on core 0
 * of a powered NPU (app_llm.c); 0 when every step ran. */
int app_llm_run(struct npu_dev *npu, struct dma_pool *pool);

/* The board probes (probe.c) named by spec ("all" or a comma list); the
 * NPU powered, the matmul API bound. 0 when none differs. */
int probe_run(const char *spec, struct npu_dev *npu, struct dma_pool *pool);

#endif /* RKBARE_BOOT_APP_H */
