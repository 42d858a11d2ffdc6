/* SPDX-License-Identifier: MIT */
/* Matmul as a 1×1 convolution (HARDWARE.md §4.8 A, §6.5). */
#include <errno.h>
#include <string.h>

#include "hal.h"
#include "compiler/layout.h"
#include "compiler/lower_conv.h"
#include "compiler/lower_matmul.h"
#include "compiler/lower_tile.h"

/* Largest plain size the 11-bit CNA DATA_SIZE0 height field holds. */
#define MM_MAX_M	2047u
/* Largest N: the 13-bit DPU channel fields (+1). */
#define MM_MAX_CHANNELS	8192u

static const struct {
	const char *name;
	enum lower_mm_type type;
	enum npu_precision in, out;
} mm_types[] = {
	{ "int8:int32", LOWER_MM_INT8_INT32, NPU_PREC_INT8, NPU_PREC_INT32 },
	{ "fp16:fp32", LOWER_MM_FP16_FP32, NPU_PREC_FP16, NPU_PREC_FP32 },
	{ "fp16:fp16", LOWER_MM_FP16_FP16, NPU_PREC_FP16, NPU_PREC_FP16 },
	{ "int4:int16", LOWER_MM_INT4_INT16, NPU_PREC_INT4, NPU_PREC_INT16 },
};

int lower_matmul_type_parse(const char *s, enum lower_mm_type *type)
{
	for (size_t i = 0; i < sizeof(mm_types) / sizeof(mm_types[0]); i++)
		if (!strcmp(s, mm_types[i].name)) {
			*type = mm_types[i].type;
			return 0;
		}
	return -EINVAL;
}

static int mm_precisions(enum lower_mm_type type, enum npu_precision *in,
			 enum npu_precision *out)
{
	for (size_t i = 0; i < sizeof(mm_types) / sizeof(mm_types[0]); i++)
		if (mm_types[i].type == type) {
			*in = mm_types[i].in;
			*out = mm_types[i].out;
			return 0;
		}
	return -EINVAL;
}

int lower_matmul_check(const struct lower_matmul_op *op, struct lower_matmul_shape *shape)
{
	enum npu_precision in, out;
	unsigned int n_group;

	if (mm_precisions(op->type, &in, &out)) {
		hal_err("matmul: unknown type %d", op->type);
		return -EINVAL;
	}
	n_group = layout_kernel_group(in);
	if (!op->m || op->m > MM_MAX_M) {
		hal_err("matmul: M = %u outside 1..%u", op->m, MM_MAX_M);
		return -EINVAL;
	}
	if (!op->k || op->k % LAYOUT_WEIGHT_IC_GROUP || op->k > LOWER_MM_MAX_K) {
		hal_err("matmul: K = %u must be a non-zero multiple of %u up to %u", op->k,
			LAYOUT_WEIGHT_IC_GROUP, LOWER_MM_MAX_K);
		return -EINVAL;
	}
	if (!op->n || op->n % n_group || op->n >= MM_MAX_CHANNELS) {
		hal_err("matmul: N = %u must be a non-zero multiple of %u below %u", op->n,
			n_group, MM_MAX_CHANNELS);
		return -EINVAL;
	}
	if (in == NPU_PREC_INT4 && op->k > LOWER_MM_K_SEGMENT) {
		hal_err("matmul: K = %u: int4 x int4 runs one K segment (at most %u); no "
			"board-run stream adds int4 partial sums", op->k, LOWER_MM_K_SEGMENT);
		return -EINVAL;
	}
	if ((op->a_addr | op->b_addr | op->c_addr | op->scratch_addr) % NPU_ATOM_BYTES) {
		hal_err("matmul: A/B/C/scratch addresses 0x%08x/0x%08x/0x%08x/0x%08x must be "
			"%u-byte aligned", op->a_addr, op->b_addr, op->c_addr, op->scratch_addr,
			NPU_ATOM_BYTES);
		return -EINVAL;
	}
	shape->k_aligned = op->k;
	shape->n_aligned = op->n;
	shape->a_bytes = layout_nc1hwc2_bytes(in, op->m, 1, op->k);
	shape->b_bytes = layout_packed_bytes(in, (size_t)op->k * op->n);
	shape->c_bytes = layout_nc1hwc2_bytes(out, op->m, 1, op->n);
	/* Two partial-sum tensors used in turn (int32 or fp32: 4 bytes). */
	shape->scratch_bytes = op->k > LOWER_MM_K_SEGMENT ?
			       2 * layout_nc1hwc2_bytes(NPU_PREC_INT32, op->m, 1, op->n) : 0;
	return 0;
}

/* The whole-op task: MTX's register set (HARDWARE.md §4.8 A). */
static int mm_full_task(const struct lower_matmul_op *op, struct conv_task *t)
{
	struct lower_matmul_shape shape;
	int ret = lower_matmul_check(op, &shape);

	if (ret)
		return ret;
	if (shape.scratch_bytes && !op->scratch_addr) {
		hal_err("matmul: K = %u spans %u segments and needs a %zu-byte scratch buffer",
			op->k, (op->k + LOWER_MM_K_SEGMENT - 1) / LOWER_MM_K_SEGMENT,
			shape.scratch_bytes);
		return -EINVAL;
	}
	if (rc_check_extent("matmul", "A", op->a_addr, shape.a_bytes) ||
	    rc_check_extent("matmul", "B", op->b_addr, shape.b_bytes) ||
	    rc_check_extent("matmul", "C", op->c_addr, shape.c_bytes) ||
	    (shape.scratch_bytes && rc_check_extent("matmul", "scratch", op->scratch_addr,
						    shape.scratch_bytes)))
		return -ERANGE;
	memset(t, 0, sizeof(*t));
	mm_precisions(op->type, &t->in_prec, &t->out_prec);
	t->in_addr = op->a_addr;
	t->in_w = 1;
	t->in_h_full = op->m;
	t->in_rows = op->m;
	t->in_c = op->k;
	t->in_c_aligned = op->k;
	t->kw = t->kh = t->stride_x = t->stride_y = 1;
	t->weight_addr = op->b_addr;
	t->kernels = op->n;
	t->weight_bytes_per_kernel = (uint32_t)layout_packed_bytes(t->in_prec, op->k);
	t->weight_bytes = t->weight_bytes_per_kernel * op->n;
	t->out_addr = op->c_addr;
	t->out_w = 1;
	t->out_rows = t->out_h_full = op->m;
	t->out_c = t->out_c_aligned = op->n;
	/* fp16: qd_en 1 (MTX); int8 raw accumulators: qd_en 0 (HARDWARE.md §6.5);
	 * int4: 0, as the bit-exact board-run int4 stream writes it (§5.7). */
	t->qd_en = t->in_prec == NPU_PREC_FP16;
	t->out_mult = (struct quant_mult){ .multiplier = 1, .shift = 0 };
	t->ic_segment = LOWER_MM_K_SEGMENT;
	t->scratch_addr = op->scratch_addr;
	return 0;
}

int lower_matmul_task_count(const struct lower_matmul_op *op, size_t *count)
{
	struct conv_task t;
	int ret = mm_full_task(op, &t);

	return ret ? ret : lower_tile_count(&t, count);
}

int lower_matmul(struct rc_program *p, const struct lower_matmul_op *op)
{
	struct conv_task t;
	int ret = mm_full_task(op, &t);

	return ret ? ret : lower_tile(p, &t);
}
