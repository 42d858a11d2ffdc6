/* SPDX-License-Identifier: MIT */
/*
 * Running a verified model: compile once, run many.
 *
 * rkb_ctx_create() does everything that depends only on the model: it
 * allocates the activation arena, the constants and the command stream
 * from the DMA pool, lowers every op into one chained program (on one
 * core; in stages of per-core ranges on several) and prepares the submits.
 * A run is then rkb_input_set() (convert into the arena), rkb_run() (one
 * kick per core and stage, polled) and rkb_output_get() (convert out of
 * the arena): no lowering, no allocation.
 */
#ifndef RKBARE_RUNTIME_MODEL_RUN_H
#define RKBARE_RUNTIME_MODEL_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/npu/npu.h"
#include "runtime/dma_pool.h"
#include "runtime/model.h"

struct rkb_ctx;

/* How user data at the graph edge is given. */
struct rkb_io_fmt {
	enum rkb_io_kind kind;	/* float32, int8 (quantised) or uint8 (quantised + 128) */
	bool nhwc;		/* channels last; else the ONNX (NCHW) order */
};

/* What the last run did. */
struct rkb_run_stats {
	uint32_t tasks;
	uint32_t kicks;
	uint64_t hw_ticks;	/* hal_counter ticks, kick to completion */
	uint32_t regcmd_bytes;	/* the command stream built at create */
	uint32_t dma_bytes;	/* DMA pool bytes the context holds */
};

/* rkb_ctx_create flags: the activation arena (RKB_CTX_ARENA_OUTSIDE) or
 * the constants (RKB_CTX_CONSTANTS_OUTSIDE) come from the caller
 * (rkb_ctx_set_arena, rkb_ctx_set_constants) before the first run; nothing
 * is lowered until both are there. */
#define RKB_CTX_ARENA_OUTSIDE		(1u << 0)
#define RKB_CTX_CONSTANTS_OUTSIDE	(1u << 1)

/*
 * Verifies blob (which must outlive the context), allocates from pool and
 * builds the job for the cores in core_mask (0: core 0; several: the model
 * spread over them, rkb_ctx_set_cores). Those cores must be powered.
 * flags: RKB_CTX_* or 0. Returns an rkb_status with a message in err; on failure nothing
 * stays allocated.
 */
int rkb_ctx_create(struct npu_dev *dev, struct dma_pool *pool, const void *blob,
		   size_t size, uint32_t core_mask, uint32_t flags, struct rkb_ctx **out,
		   char *err, size_t err_len);
void rkb_ctx_destroy(struct rkb_ctx *c);

const struct rkb_model *rkb_ctx_model(const struct rkb_ctx *c);

/* Elements of input / output i at the graph edge (the product of its dims). */
size_t rkb_io_elems(const struct rkb_io *io);

int rkb_input_set(struct rkb_ctx *c, uint32_t index, const void *data, size_t bytes,
		  const struct rkb_io_fmt *fmt);
/* One inference: rkb_run_start, then rkb_run_wait. */
int rkb_run(struct rkb_ctx *c);
/* Kick the job and return at once: the CPU is free while the NPU runs
 * (on several cores, every stage but the last runs to its end first).
 * Until rkb_run_wait, inputs and outputs of the context are refused
 * (RKB_E_BUSY): the NPU owns the arena. */
int rkb_run_start(struct rkb_ctx *c);
/* Poll the started job to its end (bounded by the driver's timeout) and
 * give its status; RKB_OK when nothing runs. */
int rkb_run_wait(struct rkb_ctx *c);
bool rkb_run_busy(const struct rkb_ctx *c);
int rkb_output_get(struct rkb_ctx *c, uint32_t index, void *data, size_t bytes,
		   const struct rkb_io_fmt *fmt);
void rkb_ctx_stats(const struct rkb_ctx *c, struct rkb_run_stats *st);

/* Output `index` converted from `native`, a copy of its tensor's arena bytes
 * (rkb_output_native_bytes of them) taken after a run: what rkb_output_get
 * does from the arena itself. Lets a caller keep a frame's outputs while
 * the next frame runs. */
size_t rkb_output_native_bytes(const struct rkb_ctx *c, uint32_t index);
int rkb_output_convert(struct rkb_ctx *c, uint32_t index, const void *native, void *data,
		       size_t bytes, const struct rkb_io_fmt *fmt);

/* One stage of a run: a kick (its NPU tasks, on one or more cores) or a
 * CPU op, covering ops [first_op, first_op + n_ops); ticks (hal_counter)
 * of its last run, kick to completion for a kick. */
struct rkb_stage_info {
	uint32_t first_op, n_ops;
	bool cpu;
	uint32_t tasks;
	uint64_t ticks;
};

/* The stages of the program, up to max of them into out; returns how many
 * there are. */
uint32_t rkb_ctx_stages(const struct rkb_ctx *c, struct rkb_stage_info *out, uint32_t max);

/*
 * Profiling: a stage (one kick) for every op, so that rkb_ctx_stages gives
 * each op's own time; off again, ops chain as few kicks as they can. The
 * program is lowered again; the outputs do not change. On failure nothing
 * changes.
 */
int rkb_ctx_set_per_op(struct rkb_ctx *c, bool on, char *err, size_t err_len);

/*
 * Run on the cores of core_mask from now on (each powered). From one core
 * to another the program is unchanged; to or from several cores the ops
 * are cut and lowered again (model_run.c), as at create. Outputs are the
 * same bit for bit on any mask.
 */
int rkb_ctx_set_cores(struct rkb_ctx *c, uint32_t core_mask, char *err, size_t err_len);
/*
 * Dynamic shapes: run with the model's input shape set `set` (the
 * container's SHAPES, docs/FORMAT.md; set 0 at create). The program is
 * lowered again for the new shapes (as at create; runs do not lower);
 * edges bound to the caller's memory (rkb_ctx_bind) are unbound, as their
 * sizes change. On failure nothing changes.
 */
int rkb_ctx_set_shape(struct rkb_ctx *c, uint32_t set, char *err, size_t err_len);
/* rkb_ctx_set_cores() with one core. */
int rkb_ctx_set_core(struct rkb_ctx *c, unsigned int core);

/*
 * Zero copy: input or output `index` lives in the caller's buffer (cpu and
 * its NPU address phys; at least the tensor's native NC1HWC2 int8 bytes,
 * rkb_output_native_bytes for an output, 64-byte aligned) instead of the
 * arena. The program is lowered again with the new address and the buffer
 * joins what the DMA verifier allows and what each kick cleans and
 * invalidates. rkb_input_set / rkb_output_get keep working (they convert
 * into and out of the buffer); a caller may also fill and read it in the
 * native layout itself, padded channels zero. cpu NULL moves the tensor
 * back into the arena. On failure nothing changes.
 */
int rkb_ctx_bind(struct rkb_ctx *c, bool output, uint32_t index, void *cpu, uint32_t phys,
		 size_t size, char *err, size_t err_len);

/*
 * The activation arena (rknn's internal memory: model.plan.arena_bytes,
 * 64-byte aligned) or the constants (weights, biases, multipliers:
 * model.const_bytes, 64-byte aligned) in the caller's buffer from now on.
 * The arena is zeroed (inputs set before are gone), the constants copied
 * in; the program is lowered again, the pool's buffer freed. On failure
 * nothing changes. The buffer must outlive the context.
 */
int rkb_ctx_set_arena(struct rkb_ctx *c, void *cpu, uint32_t phys, size_t size, char *err,
		      size_t err_len);
int rkb_ctx_set_constants(struct rkb_ctx *c, void *cpu, uint32_t phys, size_t size, char *err,
			  size_t err_len);
/*
 * The pool buffer holding the context's constants, handed to the caller,
 * who frees it (dma_pool_free) after the context is destroyed; the context
 * keeps using it. For constants shared with other contexts without a
 * second copy. RKB_E_ARG when the context does not own its constants.
 */
int rkb_ctx_take_constants(struct rkb_ctx *c, struct dma_buf *out);

/* The bytes of tensor t (NC1HWC2 int8, CPU view): in the arena or in the
 * caller's bound buffer. */
void *rkb_tensor_data(struct rkb_ctx *c, uint32_t tensor);

/*
 * Debugging (`rkbare compare`): tap, when not NULL, is called after each
 * stage of a run has finished, with the ops it ran, and may read what they
 * wrote with rkb_tensor_read. Tensors share arena bytes by liveness, so
 * only with a stage per op (rkb_ctx_set_per_op) is every op's output still
 * there when its tap comes. NULL, the default, is the normal run.
 */
typedef void (*rkb_stage_tap)(void *user, struct rkb_ctx *c, uint32_t first_op,
			      uint32_t n_ops);
void rkb_ctx_set_tap(struct rkb_ctx *c, rkb_stage_tap tap, void *user);
/* Tensor `tensor` as float32 in C, H, W order (c·h·w values; n the room in
 * out): int8 dequantised, int32 sums scaled, fp16 widened. RKB_E_ARG for a
 * bad tensor or room, or while the NPU owns the arena. */
int rkb_tensor_read(struct rkb_ctx *c, uint32_t tensor, float *out, size_t n);

#endif /* RKBARE_RUNTIME_MODEL_RUN_H */
