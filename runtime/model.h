/* SPDX-License-Identifier: MIT */
/*
 * A model container (model_format.h) after verification: every offset,
 * size, shape, parameter and cross-reference checked, so the runtime
 * (model_run.h) can trust it. The records are copied out of the blob
 * (aligned, host order); strings and constants stay in the blob, which must
 * outlive the model.
 */
#ifndef RKBARE_RUNTIME_MODEL_H
#define RKBARE_RUNTIME_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "compiler/lower_conv.h"
#include "compiler/lower_eltwise.h"
#include "compiler/lower_pool.h"
#include "runtime/model_format.h"

/* Status codes of the model layer; negative, each naming one kind of
 * defect so callers and tests can tell them apart. */
enum rkb_status {
	RKB_OK = 0,
	RKB_E_TRUNCATED = -1,	/* the blob is shorter than a field says */
	RKB_E_MAGIC = -2,
	RKB_E_VERSION = -3,
	RKB_E_CHECKSUM = -4,
	RKB_E_HEADER = -5,	/* header field (size, target, flags, reserved) */
	RKB_E_SECTION = -6,	/* section table or a section's bounds */
	RKB_E_STRING = -7,
	RKB_E_TENSOR = -8,
	RKB_E_IO = -9,
	RKB_E_OP = -10,		/* op parameters the lowering refuses or that disagree */
	RKB_E_PLAN = -11,	/* arena placement or liveness overlap */
	RKB_E_NOMEM = -12,
	RKB_E_NPU = -13,	/* the NPU job failed */
	RKB_E_TIMEOUT = -14,
	RKB_E_ARG = -15,	/* an API argument */
	RKB_E_DMA = -16,	/* a task would touch memory the context does not own */
	RKB_E_BUSY = -17,	/* a run is in flight (rkb_run_start without rkb_run_wait),
				 * or another context kept the cores (NPU_CORE_WAIT_MS) */
	RKB_E_CPU_OP = -18,	/* a CPU op's implementation failed the run */
};

const char *rkb_strerror(int status);

/* The records of one input shape set (model_format.h rkb_shape_set). */
struct rkb_shape {
	struct rkb_tensor *tensors;
	uint32_t n_tensors;
	struct rkb_op *ops;
	uint32_t n_ops;
	struct rkb_io *inputs, *outputs;
	struct rkb_plan plan;
};

/*
 * tensors, ops, inputs, outputs and plan are those of the selected shape
 * set (rkb_model_select_shape; set 0 after loading); n_inputs and
 * n_outputs, names, kinds and layouts of the edges are the same in every
 * set.
 */
struct rkb_model {
	const uint8_t *blob;
	size_t size;
	uint16_t version_minor;
	const char *strings;
	uint32_t strings_bytes;
	struct rkb_tensor *tensors;
	uint32_t n_tensors;
	struct rkb_op *ops;
	uint32_t n_ops;
	struct rkb_io *inputs, *outputs;
	uint32_t n_inputs, n_outputs;
	const uint8_t *constants;
	uint32_t const_bytes;
	struct rkb_plan plan;
	const char *user;		/* NULL when absent */
	uint32_t user_bytes;
	const struct rkb_view *views;	/* the VIEWS section (every set's), or NULL */
	uint32_t n_views;
	struct rkb_shape *shapes;	/* n_shapes >= 1 */
	uint32_t n_shapes, shape;	/* shape: the selected set */
	uint32_t max_arena_bytes;	/* the largest plan of all sets */
};

/*
 * Verifies blob and fills m. On failure returns an rkb_status, writes a
 * message naming the field to err (when err_len) and leaves nothing
 * allocated.
 */
int rkb_model_load(const void *blob, size_t size, struct rkb_model *m, char *err,
		   size_t err_len);
void rkb_model_unload(struct rkb_model *m);
/* Make shape set k (< n_shapes) the model's records. */
void rkb_model_select_shape(struct rkb_model *m, uint32_t k);

/* The element type of a tensor in the NPU's terms (layout.h). */
static inline enum npu_precision rkb_tensor_prec(const struct rkb_tensor *t)
{
	return t->dtype == RKB_DT_INT32 ? NPU_PREC_INT32 :
	       t->dtype == RKB_DT_FP16 ? NPU_PREC_FP16 : NPU_PREC_INT8;
}

static inline const char *rkb_model_str(const struct rkb_model *m, uint32_t off)
{
	return m->strings + off;
}

/* What an op is, for messages and listings: "conv", "add", "pool", or a
 * CPU op's type ("Softmax"). */
const char *rkb_op_kind(const struct rkb_model *m, const struct rkb_op *op);

/* NPU addresses of one op's operands (arena and constant bases added). */
struct rkb_op_addrs {
	uint32_t in[2], out;
	uint32_t weights, bias, mult, scratch;
};

/* CRC-32 (IEEE 802.3, reflected, init and final xor 0xffffffff). */
uint32_t rkb_crc32(const void *data, size_t len);

#endif /* RKBARE_RUNTIME_MODEL_H */
