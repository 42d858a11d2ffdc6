/* SPDX-License-Identifier: MIT */
/*
 * The rknn model context, shared by the files that implement rknn_api.h:
 * rknn_api.c (init, queries, inputs, runs, outputs) and rknn_mem.c (memory
 * the application gives: zero copy, internal and weight memory, weights
 * shared with duplicates). Nothing outside runtime/ includes it.
 */
#ifndef RKBARE_RUNTIME_RKNN_CTX_H
#define RKBARE_RUNTIME_RKNN_CTX_H

#include <stdbool.h>
#include <stdint.h>

#include "rknn_api.h"
#include "runtime/dma_pool.h"
#include "runtime/model_run.h"

struct rknn_ctx {
	rknn_context handle;		/* rknn_handle.h */
	struct rkb_ctx *rkb;
	/* The container the context reads (names, strings): the runtime's
	 * copy, shared with duplicates (model_copy), or with
	 * RKNN_FLAG_MODEL_BUFFER_ZERO_COPY the caller's buffer (model_copy
	 * NULL), which the caller keeps alive. */
	const void *model;
	uint32_t model_size;
	struct model_copy *model_copy;
	uint32_t flags;
	float *staging;			/* one edge tensor as float32 */
	size_t staging_elems;
	void **out_bufs;		/* outputs allocated by rknn_outputs_get */
	/* RKNN_FLAG_ASYNC_MASK: rknn_run returns with the frame running; the
	 * outputs of the frame before are kept here (NC1HWC2 copies) for
	 * rknn_outputs_get while the next one runs. */
	void **kept;
	bool kept_valid;
	uint64_t kept_frame;
	/* A frame rknn_run started whose outputs are not kept yet: in flight,
	 * or already ended within rknn_run (a model ending in a CPU op). */
	bool frame_pending;
	int kept_status;		/* the status of the kept frame's run */
	uint64_t frame_id;
	char *perf;			/* the PERF_DETAIL text */
	/* rknn_set_io_mem: the memory each input, then each output, is bound
	 * to (NULL: the arena). */
	rknn_tensor_mem **bound;
	uint32_t n_edges;		/* inputs + outputs */
	/* rknn_set_internal_mem / rknn_set_weight_mem: the caller's memory
	 * holding the arena / the constants (NULL: the pool's). */
	rknn_tensor_mem *internal, *weights;
	/* The constants shared with duplicates (rknn_dup_context), or NULL. */
	struct shared_weights *shared;
};

/* Constants one context and its duplicates read: freed with the last
 * (users under rknn_device_lock, as model_copy's). */
struct shared_weights {
	struct dma_buf buf;
	unsigned int users;
};

/* The runtime's copy of a container, freed with the last context on it. */
struct model_copy {
	void *bytes;
	unsigned int users;
};

/* The context behind h, with its busy flag taken: 0 or an RKNN_ERR_*
 * code, with a message naming who (rknn_handle.h). */
int rknn_ctx_enter(rknn_context h, const char *who, struct rknn_ctx **c);
void rknn_ctx_leave(rknn_context h);
/* An rkb_status as the rknn error code. */
int rknn_status(int rkb);
/* A context (with its handle) on model, which is copy->bytes (the context
 * then counts as one of its users) or, copy NULL, the caller's buffer;
 * rkb_flags adds RKB_CTX_* flags (a duplicate's constants come from its
 * original: RKB_CTX_CONSTANTS_OUTSIDE). */
int rknn_ctx_create(const void *model, uint32_t size, uint32_t flags, uint32_t rkb_flags,
		    struct model_copy *copy, struct rknn_ctx **out);
/* Frees c and what it holds; its handle, if it has one, dies. */
void rknn_ctx_free(struct rknn_ctx *c);
/* Async: wait for the frame in flight and keep its outputs (and status). */
void rknn_finish_frame(struct rknn_ctx *c);
/* *slot (memory the context holds bound) lets go of it: the binding count
 * drops (rknn_destroy_mem) and the slot is emptied. NULL slots are fine. */
void rknn_release_mem(rknn_tensor_mem **slot);
/* Every memory c holds bound is still live (not destroyed while bound):
 * else RKNN_ERR_PARAM_INVALID, with a message naming who. */
int rknn_ctx_check_mem(const struct rknn_ctx *c, const char *who);
/* One context fewer reads sw: freed with the last. */
void rknn_shared_put(struct shared_weights *sw);

#endif /* RKBARE_RUNTIME_RKNN_CTX_H */
