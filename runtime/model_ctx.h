/* SPDX-License-Identifier: MIT */
/*
 * The context behind model_run.h, shared by the files that implement it:
 * model_run.c (create, the program and its stages, runs), model_mem.c
 * (where tensors, the arena and the constants live) and model_io.c (the
 * conversions at the graph edge). Nothing outside runtime/ includes it.
 */
#ifndef RKBARE_RUNTIME_MODEL_CTX_H
#define RKBARE_RUNTIME_MODEL_CTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler/regcmd.h"
#include "runtime/cpu_ops.h"
#include "runtime/model_run.h"

/* A caller's buffer holding an edge tensor (zero copy). */
struct rkb_binding {
	void *cpu;
	uint32_t phys;
	size_t size;
};

/* One kick, each core's range of the program; or one CPU op. */
struct rkb_stage {
	struct npu_submit sub;
	uint32_t cpu_op;		/* the op run on the CPU, RKB_NONE for a kick */
	uint32_t first_op, n_ops;	/* the ops it runs */
	uint64_t ticks;			/* hal_counter ticks of its last run */
};

struct rkb_ctx {
	struct rkb_model m;
	struct npu_dev *dev;
	struct dma_pool *pool;
	struct dma_buf arena, consts, prog;
	/* From the pool (freed with the context) or the caller's
	 * (rkb_ctx_set_arena, rkb_ctx_set_constants). */
	bool arena_own, consts_own;
	struct rc_task *rc_tasks;
	struct npu_task *tasks;
	struct rc_program p;
	uint32_t core_mask;		/* the cores the program was built for */
	bool per_op;			/* a stage for each op (rkb_ctx_set_per_op) */
	struct rkb_stage *stages;
	uint32_t n_stages;
	const struct rkb_cpu_op **cpu_impl;	/* per op: its CPU implementation, or NULL */
	struct npu_inflight job;	/* the last stage, rkb_run_start .. rkb_run_wait */
	bool running;
	/* Edge tensors in the caller's memory (rkb_ctx_bind): inputs first,
	 * then outputs; cpu NULL = in the arena. */
	struct rkb_binding *binds;
	/* What the driver cleans and invalidates around a kick: the arena and
	 * every bound buffer. */
	struct npu_buf *io_bufs;
	unsigned int n_io_bufs;
	int8_t *staging;	/* one edge tensor in NCHW (int8; int32 sums), for the layout pass */
	size_t staging_bytes;
	struct rkb_run_stats stats;
	rkb_stage_tap tap;		/* rkb_ctx_set_tap: debugging only, else NULL */
	void *tap_user;
};

/* Copy msg into err (if any) and give status back. */
int rkb_ctx_fail(char *err, size_t err_len, int status, const char *msg);

/* The binding of an edge tensor, or NULL when it lives in the arena. */
const struct rkb_binding *rkb_ctx_bound(const struct rkb_ctx *c, uint32_t tensor);
/* The NPU address of tensor t, in the arena or a bound buffer. */
uint32_t rkb_tensor_phys(const struct rkb_ctx *c, uint32_t tensor);

/* Arena and constants are both in place (RKB_CTX_*_OUTSIDE: not yet). */
static inline bool rkb_ctx_has_buffers(const struct rkb_ctx *c)
{
	return c->arena.cpu && (c->consts.cpu || !c->m.const_bytes);
}

/* The arena starts at zero; the constants are copied in and cleaned. */
void rkb_ctx_clear_arena(struct rkb_ctx *c);
void rkb_ctx_fill_constants(struct rkb_ctx *c);

/* Lower the program again for the cores of mask with the buffers as they
 * are now (nothing yet without an arena); on failure no program is left.
 * restore builds the previous configuration back after a failed rebuild. */
int rkb_ctx_rebuild(struct rkb_ctx *c, uint32_t mask, char *err, size_t err_len);
void rkb_ctx_restore(struct rkb_ctx *c, uint32_t mask);

#endif /* RKBARE_RUNTIME_MODEL_CTX_H */
