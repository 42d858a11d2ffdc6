/* SPDX-License-Identifier: MIT */
/*
 * rknn_matmul_* on rkbare (include/rkbare/rknn_matmul_api.h): contexts
 * with one or several (dynamic) shapes, NPU memory, layout conversion with
 * K/N zero padding and K segments, quantisation parameters, lowering
 * (lower_matmul.c; int8 → int8 through the int8 convolution path for its
 * requantisation) and submission to the driver.
 *
 * Several cores (rknn_matmul_set_core_mask naming two or three): the
 * matmul is split by N, in whole kernel groups (LAYOUT_KERNEL_GROUP_*
 * columns of B, 32 int8 / 16 fp16). Core i of the split computes
 * C[:, n0 .. n0 + ni) = A · B[:, n0 .. n0 + ni) as a matmul of its own:
 * A is read whole by every core, its columns of native B are one
 * contiguous block (B is kernel-group major) and its columns of native C
 * are whole C1 planes (a group is a multiple of C's C2), so no stride
 * changes. The parts are built into one program, each linked as its own
 * chain, and run in one npu_submit: the driver kicks every core, then
 * polls them all. Groups are dealt out as evenly as they go, the lowest
 * cores named taking the remainder. With fewer groups than cores named,
 * only as many cores run as there are groups, the lowest named: N <= 32
 * int8 or N <= 16 fp16 is one group and runs on one core whatever M.
 * M does not enter the split (any M, dynamic shapes included, splits the
 * same way).
 *
 * K above one segment runs on the lowest core named: B is then segment
 * major, so a core's columns are one block per segment rather than one
 * block, and the partial sums go through a single scratch pair; splitting
 * would need strided weights and scratch per core.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "hal.h"
#include "drivers/npu/npu.h"
#include "rkbare/rknn_matmul_api.h"
#include "runtime/dma_pool.h"
#include "runtime/dma_verify.h"
#include "runtime/matmul_types.h"
#include "compiler/layout.h"
#include "compiler/lower_conv.h"
#include "compiler/lower_matmul.h"
#include "compiler/regcmd.h"
#include "runtime/rknn_device.h"
#include "runtime/rknn_handle.h"

/*
 * K beyond the vendor's 10240 (rknn_matmul_api.h): B is cut into segments of
 * LOWER_MM_K_SEGMENT as the vendor does, partial sums added on the NPU, up to
 * the int32-safe LOWER_MM_MAX_K; int8 → int8, whose sums carry zero points,
 * up to CONV_MAX_SEGMENTED_CHANNELS.
 */
#define MM_MAX_K		((int32_t)LOWER_MM_MAX_K)
#define MM_MAX_K_INT8_OUT	((int32_t)CONV_MAX_SEGMENTED_CHANNELS)
/* Largest M the lowering takes (11-bit CNA height). */
#define MM_MAX_M	2047
#define MM_MAX_N	8176
/* Shapes one dynamic-shape context registers (a bound on its memory). */
#define MM_MAX_SHAPES	64

enum { MM_A, MM_B, MM_C, MM_TENSORS };

/*
 * The command stream and submit of the last run, kept while what it was
 * built from stays the same (compile once, run many): the A/B/C addresses,
 * the shape, the core mask and the quantisation (set_quant_params clears
 * it).
 */
struct mm_job {
	bool valid;
	uint32_t a, b, out, core_mask;
	int m;
	struct dma_buf prog;
	struct rc_task *rt;
	struct npu_task *tasks;
	struct npu_submit sub;
};

struct mm_ctx {
	rknn_matmul_ctx handle;		/* rknn_handle.h */
	struct npu_dev *dev;		/* the device at its create (rknn_device.h) */
	struct dma_pool *pool;
	rknn_matmul_info info;		/* M, K, N of the selected shape */
	rknn_matmul_io_attr io;		/* attributes of the selected shape */
	int shape_count;		/* 1 for rknn_matmul_create */
	rknn_matmul_shape *shapes;
	rknn_matmul_io_attr *shape_io;
	unsigned int max_m;		/* internal buffers are sized for it */
	const struct mm_type_desc *td;	/* the type: caller's and NPU's elements */
	enum npu_precision in_prec, out_prec;
	unsigned int k_al, n_al;
	uint32_t core_mask;		/* cores the matmul may be split over */
	float scale[MM_TENSORS];
	int32_t zp[MM_TENSORS];
	/* Bound with rknn_matmul_set_io_mem (counted: rknn_destroy_mem refuses
	 * them while bound); buf[] is the pool's record of each, read at run. */
	rknn_tensor_mem *mem[MM_TENSORS];
	const struct dma_buf *buf[MM_TENSORS];
	struct dma_buf native[MM_TENSORS];	/* internal copies for normal layouts */
	struct dma_buf bias;			/* int8 → int8 only */
	struct dma_buf scratch;			/* partial sums, K > one segment */
	struct mm_job job;			/* the built command stream */
	/* B's quantisation: b_qcount scales (1 per-layer, N per-channel,
	 * K / group_size · N per-group, index (k / group_size) · N + n) and
	 * zero points (all 0 when symmetric). */
	unsigned int b_qcount;
	float *b_scale;
	int32_t *b_zp;
	/* Types whose B the NPU cannot read as given (matmul_types.h): B
	 * converted into native[MM_B] when bound; b_ready until B or its
	 * quantisation changes. b_colsum: Σk B[k][n] for the zero-point
	 * algebra of the dequantised integer sums. */
	bool b_ready;
	int64_t *b_colsum;
	int8_t *a_wide;				/* int4 A widened, max_m × K */
	int64_t *a_rowsum;			/* Σk A[m][k], max_m */
};

int rknn_matmul_bind(struct npu_dev *dev, struct dma_pool *pool)
{
	return rknn_device_bind(dev, pool);
}

/* The context behind h with its busy flag taken, or an RKNN_ERR_* code
 * (rknn_handle.h). */
static int mm_enter(rknn_matmul_ctx h, const char *who, struct mm_ctx **c)
{
	void *obj;
	int rc = rknn_handle_enter(h, RKNN_HANDLE_MATMUL, who, &obj);

	*c = rc ? NULL : obj;
	return rc;
}

static void set_attr(rknn_matmul_tensor_attr *a, const char *name, rknn_tensor_type type,
		     uint32_t size, unsigned int n_dims, const uint32_t *dims)
{
	memset(a, 0, sizeof(*a));
	strncpy(a->name, name, sizeof(a->name) - 1);
	a->type = type;
	a->size = size;
	a->n_dims = n_dims;
	memcpy(a->dims, dims, n_dims * sizeof(*dims));
}

/* Bytes of B in its native layout: K in segments each padded to 32 (their
 * sum is K padded), N padded to n_al. */
static size_t mm_b_native_bytes(enum mm_elem b, unsigned int k_al, unsigned int n_al)
{
	return mm_elem_bytes(b, (size_t)k_al * n_al);
}

/* Sizes and dims in the caller's element types (matmul_types.h layouts). */
static void mm_fill_attrs(struct mm_ctx *c)
{
	const rknn_matmul_info *in = &c->info;
	const struct mm_type_desc *td = c->td;
	unsigned int c2 = mm_atom_elems(td->a), oc2 = mm_atom_elems(td->c);
	unsigned int g = mm_b_group(td->b);
	uint32_t m = (uint32_t)in->M, k = (uint32_t)in->K, n = (uint32_t)in->N;

	if (in->AC_layout) {
		uint32_t a_dims[] = { c->k_al / c2, m, c2 };
		uint32_t c_dims[] = { c->n_al / oc2, m, oc2 };

		set_attr(&c->io.A, "A", mm_elem_tensor_type(td->a),
			 (uint32_t)mm_elem_bytes(td->a, (size_t)m * c->k_al), 3, a_dims);
		set_attr(&c->io.C, "C", mm_elem_tensor_type(td->c),
			 (uint32_t)mm_elem_bytes(td->c, (size_t)m * c->n_al), 3, c_dims);
	} else {
		uint32_t a_dims[] = { m, k }, c_dims[] = { m, n };

		set_attr(&c->io.A, "A", mm_elem_tensor_type(td->a),
			 (uint32_t)mm_elem_bytes(td->a, (size_t)m * k), 2, a_dims);
		set_attr(&c->io.C, "C", mm_elem_tensor_type(td->c),
			 (uint32_t)mm_elem_bytes(td->c, (size_t)m * n), 2, c_dims);
	}
	if (in->B_layout) {
		uint32_t b_dims[] = { c->n_al / g, c->k_al / LAYOUT_WEIGHT_IC_GROUP, g,
				      LAYOUT_WEIGHT_IC_GROUP };

		set_attr(&c->io.B, "B", mm_elem_tensor_type(td->b),
			 (uint32_t)mm_b_native_bytes(td->b, c->k_al, c->n_al), 4, b_dims);
	} else {
		uint32_t b_dims[] = { k, n };

		set_attr(&c->io.B, "B", mm_elem_tensor_type(td->b),
			 (uint32_t)mm_elem_bytes(td->b, (size_t)k * n), 2, b_dims);
	}
}

/* The types whose A, B and C the NPU reads and writes as the caller lays
 * them out; the others go through the conversions of matmul_types.h. */
static bool mm_a_converted(const struct mm_ctx *c)
{
	return c->td->a == MM_E_INT4 && c->in_prec != NPU_PREC_INT4;
}

static bool mm_b_converted(const struct mm_ctx *c)
{
	/* Dequantised sums need Σk B[k][n], taken in the same single pass. */
	return (c->td->b == MM_E_INT4 && c->in_prec != NPU_PREC_INT4) || c->td->weight_only ||
	       c->td->dequant_sums;
}

static bool mm_c_converted(const struct mm_ctx *c)
{
	return c->td->dequant_sums || (c->td->c == MM_E_INT16 && c->out_prec != NPU_PREC_INT16) ||
	       c->td->c == MM_E_BF16;
}

static void mm_job_free(struct mm_ctx *c)
{
	dma_pool_release(c->pool, &c->job.prog);
	free(c->job.tasks);
	free(c->job.rt);
	memset(&c->job, 0, sizeof(c->job));
}

static void mm_free(struct mm_ctx *c)
{
	mm_job_free(c);
	for (int t = 0; t < MM_TENSORS; t++)
		if (c->mem[t])
			rknn_mem_drop(c->mem[t]);
	for (int t = 0; t < MM_TENSORS; t++)
		dma_pool_release(c->pool, &c->native[t]);
	dma_pool_release(c->pool, &c->bias);
	dma_pool_release(c->pool, &c->scratch);
	free(c->b_scale);
	free(c->b_zp);
	free(c->b_colsum);
	free(c->a_wide);
	free(c->a_rowsum);
	free(c->shapes);
	free(c->shape_io);
	if (c->handle)
		rknn_handle_retire(c->handle);
	free(c);
}

/* Make shape i the one the context runs. */
static void mm_select(struct mm_ctx *c, int i)
{
	c->info.M = c->shapes[i].M;
	c->info.K = c->shapes[i].K;
	c->info.N = c->shapes[i].N;
	c->io = c->shape_io[i];
}

static int mm_check_shape(const rknn_matmul_shape *s, int i, int32_t max_k, int32_t max_n)
{
	if (s->M < 1 || s->M > MM_MAX_M || s->K < 1 || s->K > max_k || s->N < 1 ||
	    s->N > max_n) {
		hal_err("rknn_matmul: shape %d: M %d, K %d, N %d outside 1..%d, 1..%d, 1..%d", i,
			s->M, s->K, s->N, MM_MAX_M, max_k, max_n);
		return RKNN_ERR_PARAM_INVALID;
	}
	return RKNN_SUCC;
}

/* Type × B_quant_type × group_size × layouts: refused with the field named. */
static int mm_check_info(const rknn_matmul_info *info, const struct mm_type_desc **td)
{
	static const int16_t groups[] = { 32, 64, 128, 256 };
	bool group_ok = false;

	*td = mm_type_find(info->type);
	if (!*td) {
		hal_err("rknn_matmul: type %d is not a rknn_matmul_type", info->type);
		return -EINVAL;
	}
	if ((info->B_layout & ~1) || (info->AC_layout & ~1)) {
		hal_err("rknn_matmul: B_layout %d / AC_layout %d: 0 (normal) or 1 (native)",
			info->B_layout, info->AC_layout);
		return -EINVAL;
	}
	if (info->AC_quant_type) {
		hal_err("rknn_matmul: AC_quant_type %d: only 0 (per-layer) is defined",
			info->AC_quant_type);
		return -EINVAL;
	}
	if (info->B_quant_type < MM_QUANT_LAYER || info->B_quant_type > MM_QUANT_GROUP ||
	    (info->B_quant_type == MM_QUANT_CHANNEL && !(*td)->per_channel) ||
	    (info->B_quant_type == MM_QUANT_GROUP && !(*td)->per_group)) {
		hal_err("rknn_matmul: B_quant_type %d is not supported for %s (0 per-layer%s%s)",
			info->B_quant_type, (*td)->name, (*td)->per_channel ? ", 1 per-channel" : "",
			(*td)->per_group ? ", 2 per-group" : "");
		return -EINVAL;
	}
	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
		group_ok |= info->group_size == groups[i];
	if (info->B_quant_type == MM_QUANT_GROUP ? !group_ok : info->group_size != 0) {
		hal_err("rknn_matmul: group_size %d: 32, 64, 128 or 256 with B_quant_type 2 "
			"(per-group), 0 otherwise", info->group_size);
		return -EINVAL;
	}
	return 0;
}

/* The context of rknn_matmul_create (one shape, from info) and of
 * rknn_matmul_create_dynamic_shape (shape_num shapes; info's M/K/N unused). */
static int mm_create(rknn_matmul_ctx *ctx, const rknn_matmul_info *info, int shape_num,
		     const rknn_matmul_shape *shapes, rknn_matmul_io_attr *io_attrs)
{
	struct npu_dev *dev;
	struct dma_pool *pool;
	struct mm_ctx *c;
	int rc;
	const struct mm_type_desc *td;
	enum npu_precision in, out;
	int32_t max_k, max_n;
	unsigned int g;

	if (mm_check_info(info, &td))
		return RKNN_ERR_PARAM_INVALID;
	in = td->in;
	out = td->out;
	g = mm_b_group(td->b);
	max_k = in == NPU_PREC_INT8 && out == NPU_PREC_INT8 ? MM_MAX_K_INT8_OUT : MM_MAX_K;
	/* N padded to B's block stays inside the lowering's channel count. */
	max_n = MM_MAX_N + (int32_t)LAYOUT_KERNEL_GROUP_FP16 - (int32_t)g;
	for (int i = 0; i < shape_num; i++) {
		if (mm_check_shape(&shapes[i], i, max_k, max_n))
			return RKNN_ERR_PARAM_INVALID;
		/* Only M may vary (rknn_matmul_api.h: "only support M dynamicly now"). */
		if (shapes[i].K != shapes[0].K || shapes[i].N != shapes[0].N) {
			hal_err("rknn_matmul: shape %d (K %d, N %d) differs from shape 0 (K %d, "
				"N %d): only M may vary between dynamic shapes", i, shapes[i].K,
				shapes[i].N, shapes[0].K, shapes[0].N);
			return RKNN_ERR_PARAM_INVALID;
		}
	}
	if (info->B_quant_type == MM_QUANT_GROUP && shapes[0].K % info->group_size) {
		hal_err("rknn_matmul: group_size %d does not divide K %d", info->group_size,
			shapes[0].K);
		return RKNN_ERR_PARAM_INVALID;
	}
	rc = rknn_device_get(&dev, &pool);	/* the first use may bring it up */
	if (rc)
		return rc;
	c = calloc(1, sizeof(*c));
	if (!c)
		return RKNN_ERR_MALLOC_FAIL;
	c->dev = dev;
	c->pool = pool;
	c->shapes = calloc((size_t)shape_num, sizeof(*c->shapes));
	c->shape_io = calloc((size_t)shape_num, sizeof(*c->shape_io));
	if (!c->shapes || !c->shape_io) {
		mm_free(c);
		return RKNN_ERR_MALLOC_FAIL;
	}
	memcpy(c->shapes, shapes, (size_t)shape_num * sizeof(*shapes));
	c->shape_count = shape_num;
	c->info = *info;
	c->td = td;
	c->in_prec = in;
	c->out_prec = out;
	c->core_mask = RKNN_NPU_CORE_0;
	c->k_al = (unsigned int)layout_align((size_t)shapes[0].K, LAYOUT_WEIGHT_IC_GROUP);
	/* Native int4 runs one K segment (lower_matmul.h); past it int4 is
	 * widened to int8 with int32 partial sums, the int16 saturation done
	 * by the CPU (HARDWARE.md §5.7). */
	if (in == NPU_PREC_INT4 && c->k_al > LOWER_MM_K_SEGMENT) {
		c->in_prec = NPU_PREC_INT8;
		c->out_prec = NPU_PREC_INT32;
	}
	/* N padded to B's native block, a whole number of the NPU's kernel
	 * groups in either precision it runs. */
	c->n_al = (unsigned int)layout_align((size_t)shapes[0].N, g);
	for (int t = 0; t < MM_TENSORS; t++)
		c->scale[t] = 1.0f;
	c->b_qcount = info->B_quant_type == MM_QUANT_LAYER ? 1u :
		      info->B_quant_type == MM_QUANT_CHANNEL ? (unsigned int)shapes[0].N :
		      (unsigned int)(shapes[0].K / info->group_size * shapes[0].N);
	c->b_scale = malloc(c->b_qcount * sizeof(*c->b_scale));
	c->b_zp = calloc(c->b_qcount, sizeof(*c->b_zp));
	if (!c->b_scale || !c->b_zp) {
		mm_free(c);
		return RKNN_ERR_MALLOC_FAIL;
	}
	for (unsigned int i = 0; i < c->b_qcount; i++)
		c->b_scale[i] = 1.0f;
	for (int i = 0; i < shape_num; i++) {
		c->info.M = shapes[i].M;
		c->info.K = shapes[i].K;
		c->info.N = shapes[i].N;
		mm_fill_attrs(c);
		c->shape_io[i] = c->io;
		io_attrs[i] = c->io;
		if ((unsigned int)shapes[i].M > c->max_m)
			c->max_m = (unsigned int)shapes[i].M;
	}
	/* The first shape runs until rknn_matmul_set_dynamic_shape picks another. */
	mm_select(c, 0);
	c->handle = rknn_handle_new(RKNN_HANDLE_MATMUL, c);
	if (!c->handle) {
		mm_free(c);
		return RKNN_ERR_MALLOC_FAIL;
	}
	*ctx = c->handle;
	return RKNN_SUCC;
}

int rknn_matmul_create(rknn_matmul_ctx *ctx, rknn_matmul_info *info,
		       rknn_matmul_io_attr *io_attr)
{
	rknn_matmul_shape shape;

	if (!ctx || !info || !io_attr)
		return RKNN_ERR_PARAM_INVALID;
	shape = (rknn_matmul_shape){ .M = info->M, .K = info->K, .N = info->N };
	return mm_create(ctx, info, 1, &shape, io_attr);
}

int rknn_matmul_create_dynamic_shape(rknn_matmul_ctx *ctx, rknn_matmul_info *info,
				     int shape_num, rknn_matmul_shape dynamic_shapes[],
				     rknn_matmul_io_attr io_attrs[])
{
	if (!ctx || !info || !dynamic_shapes || !io_attrs) {
		hal_err("rknn_matmul: create_dynamic_shape needs ctx, info, shapes and io_attrs");
		return RKNN_ERR_PARAM_INVALID;
	}
	if (shape_num < 1 || shape_num > MM_MAX_SHAPES) {
		hal_err("rknn_matmul: %d dynamic shapes, 1..%d supported", shape_num, MM_MAX_SHAPES);
		return RKNN_ERR_PARAM_INVALID;
	}
	return mm_create(ctx, info, shape_num, dynamic_shapes, io_attrs);
}

static int mm_set_dynamic_shape_on(struct mm_ctx *c, rknn_matmul_shape *shape)
{
	if (!shape) {
		hal_err("rknn_matmul: set_dynamic_shape needs a shape");
		return RKNN_ERR_PARAM_INVALID;
	}
	for (int i = 0; i < c->shape_count; i++)
		if (c->shapes[i].M == shape->M && c->shapes[i].K == shape->K &&
		    c->shapes[i].N == shape->N) {
			mm_select(c, i);
			return RKNN_SUCC;
		}
	hal_err("rknn_matmul: shape M %d, K %d, N %d is not one of the %d registered with the "
		"context", shape->M, shape->K, shape->N, c->shape_count);
	return RKNN_ERR_PARAM_INVALID;
}

int rknn_matmul_set_dynamic_shape(rknn_matmul_ctx ctx, rknn_matmul_shape *shape)
{
	struct mm_ctx *c;
	int rc = mm_enter(ctx, "rknn_matmul_set_dynamic_shape", &c);

	if (rc)
		return rc;
	rc = mm_set_dynamic_shape_on(c, shape);
	rknn_handle_leave(ctx);
	return rc;
}

static int mm_tensor_index(const char *name)
{
	if (!strcmp(name, "A"))
		return MM_A;
	if (!strcmp(name, "B"))
		return MM_B;
	if (!strcmp(name, "C"))
		return MM_C;
	return -1;
}

static int mm_b_native(const void *B_input, void *B_output, unsigned int K, unsigned int N,
		       enum npu_precision in, unsigned int n_al, size_t *out);
static int mm_native(struct mm_ctx *c, int t, bool native_layout, uint32_t *addr);

/* B's quantisation entry of element (k, n). */
static unsigned int mm_b_qindex(const struct mm_ctx *c, unsigned int k, unsigned int n)
{
	if (c->info.B_quant_type == MM_QUANT_CHANNEL)
		return n;
	if (c->info.B_quant_type == MM_QUANT_GROUP)
		return k / (unsigned int)c->info.group_size * (unsigned int)c->info.N + n;
	return 0;
}

/*
 * B of a converted type (matmul_types.h) into the NPU's native B, once
 * per binding or change of B's quantisation, never per run: weight-only
 * types get fp16(sB · (b − zB)); int4 B under int8 A is widened to int8
 * (its scales and zero points apply to the sums, mm_c_convert), with
 * Σk B[k][n] kept for the zero-point algebra. Cost: one pass over K × N
 * on the CPU and a K × N buffer of the NPU's precision.
 */
static int mm_b_convert(struct mm_ctx *c)
{
	const struct mm_type_desc *td = c->td;
	const struct dma_buf *src = rknn_mem_buf(c->mem[MM_B], "rknn_matmul_set_io_mem");
	unsigned int K = (unsigned int)c->info.K, N = (unsigned int)c->info.N;
	unsigned int g = mm_b_group(td->b);
	bool native = c->info.B_layout;
	size_t bytes, done;
	void *tmp;
	uint32_t addr;

	if (!src)
		return RKNN_ERR_INPUT_INVALID;
	if (mm_native(c, MM_B, false, &addr))
		return RKNN_ERR_MALLOC_FAIL;
	if (!c->b_colsum && !(c->b_colsum = calloc(N, sizeof(*c->b_colsum))))
		return RKNN_ERR_MALLOC_FAIL;
	bytes = (size_t)K * N * layout_elem_bytes(c->in_prec);
	tmp = malloc(bytes);
	if (!tmp)
		return RKNN_ERR_MALLOC_FAIL;
	memset(c->b_colsum, 0, N * sizeof(*c->b_colsum));
	for (unsigned int k = 0; k < K; k++)
		for (unsigned int n = 0; n < N; n++) {
			size_t i = mm_b_index(native, g, c->k_al, N, c->n_al, k, n);
			int32_t v = mm_load_int(src->cpu, td->b, i);
			unsigned int q = mm_b_qindex(c, k, n);

			c->b_colsum[n] += v;
			if (c->in_prec == NPU_PREC_FP16)
				((uint16_t *)tmp)[(size_t)k * N + n] =
					layout_f32_to_f16(c->b_scale[q] * (float)(v - c->b_zp[q]));
			else
				((int8_t *)tmp)[(size_t)k * N + n] = (int8_t)v;
		}
	mm_b_native(tmp, c->native[MM_B].cpu, K, N, c->in_prec, c->n_al, &done);
	free(tmp);
	c->b_ready = true;
	c->job.valid = false;
	return RKNN_SUCC;
}

/*
 * Only memory rknn_create_mem made (rknn_mem_buf) is bound: the NPU reads
 * and writes at the pool's address of it, which the DMA verifier then
 * sees as the context's, never at an address the caller wrote in. The
 * binding is counted until another replaces it or the context dies.
 */
static int mm_set_io_mem_on(struct mm_ctx *c, rknn_tensor_mem *mem,
			    rknn_matmul_tensor_attr *attr)
{
	int t;

	if (!mem || !attr || (t = mm_tensor_index(attr->name)) < 0) {
		hal_err("rknn_matmul: set_io_mem needs memory and the A, B or C attribute");
		return RKNN_ERR_PARAM_INVALID;
	}
	if (!rknn_mem_hold(mem, "rknn_matmul_set_io_mem"))
		return RKNN_ERR_PARAM_INVALID;
	if (mem->size < attr->size || mem->phys_addr % NPU_ATOM_BYTES ||
	    mem->phys_addr + mem->size > UINT32_MAX) {
		hal_err("rknn_matmul: memory for %s: %u bytes at 0x%llx, needs %u bytes, "
			"16-byte aligned below 4 GiB", attr->name, mem->size,
			(unsigned long long)mem->phys_addr, attr->size);
		rknn_mem_drop(mem);
		return t == MM_C ? RKNN_ERR_OUTPUT_INVALID : RKNN_ERR_INPUT_INVALID;
	}
	if (c->mem[t])
		rknn_mem_drop(c->mem[t]);
	c->mem[t] = mem;
	if (t == MM_B && mm_b_converted(c)) {
		c->b_ready = false;
		return mm_b_convert(c);
	}
	return RKNN_SUCC;
}

int rknn_matmul_set_io_mem(rknn_matmul_ctx ctx, rknn_tensor_mem *mem,
			   rknn_matmul_tensor_attr *attr)
{
	struct mm_ctx *c;
	int rc = mm_enter(ctx, "rknn_matmul_set_io_mem", &c);

	if (rc)
		return rc;
	rc = mm_set_io_mem_on(c, mem, attr);
	rknn_handle_leave(ctx);
	return rc;
}

/*
 * AUTO runs on core 0 (the driver's reading of the BSP's "auto", npu.h);
 * ALL names every core, as the vendor documents it ("all cores"), and so
 * splits like RKNN_NPU_CORE_0_1_2. Any other mask is the set of cores to
 * split over (header comment).
 */
static int mm_set_core_mask_on(struct mm_ctx *c, rknn_core_mask core_mask)
{
	const uint32_t all = (1u << NPU_CORE_COUNT) - 1u;
	uint32_t mask = (uint32_t)core_mask;

	if (mask == RKNN_NPU_CORE_AUTO)
		mask = RKNN_NPU_CORE_0;
	else if (mask == RKNN_NPU_CORE_ALL)
		mask = all;
	if (mask & ~all) {
		hal_err("rknn_matmul: core mask 0x%x names no NPU core", (unsigned int)core_mask);
		return RKNN_ERR_PARAM_INVALID;
	}
	c->core_mask = mask;
	return RKNN_SUCC;
}

int rknn_matmul_set_core_mask(rknn_matmul_ctx ctx, rknn_core_mask core_mask)
{
	struct mm_ctx *c;
	int rc = mm_enter(ctx, "rknn_matmul_set_core_mask", &c);

	if (rc)
		return rc;
	rc = mm_set_core_mask_on(c, core_mask);
	rknn_handle_leave(ctx);
	return rc;
}

/* Which tensors take quantisation parameters, per type (header). */
static bool mm_quant_allowed(const struct mm_ctx *c, int t)
{
	const struct mm_type_desc *td = c->td;

	if (td->weight_only)
		return t == MM_B;
	if (td->a == MM_E_FP16)
		return false;
	return t != MM_C || td->c == MM_E_INT8 || td->c == MM_E_INT32;
}

/* B's scales and zero points: one each per-layer (scale_len 1, or that
 * many equal values, as before), b_qcount per-channel / per-group; zp_len 0
 * is symmetric. */
static int mm_set_b_quant(struct mm_ctx *c, const rknn_quant_params *params)
{
	int32_t lo = c->td->b == MM_E_INT4 ? -8 : INT8_MIN, hi = c->td->b == MM_E_INT4 ? 7 : INT8_MAX;
	bool layer = c->b_qcount == 1;
	unsigned int n = c->b_qcount;

	if (layer ? params->scale_len < 1 : params->scale_len != (int32_t)n) {
		hal_err("rknn_matmul: B scale_len %d: %s%u", params->scale_len,
			layer ? "at least " : "B_quant_type needs ", n);
		return RKNN_ERR_PARAM_INVALID;
	}
	if (params->zp_len && (layer ? params->zp_len < 1 : params->zp_len != (int32_t)n)) {
		hal_err("rknn_matmul: B zp_len %d: 0 (symmetric) or %u", params->zp_len, n);
		return RKNN_ERR_PARAM_INVALID;
	}
	for (int32_t i = 0; i < params->scale_len; i++)
		if (!(params->scale[i] > 0.0f) || (layer && params->scale[i] != params->scale[0])) {
			hal_err("rknn_matmul: B scale %d (%g) must be positive%s", i,
				(double)params->scale[i], layer ? " and per-layer" : "");
			return RKNN_ERR_PARAM_INVALID;
		}
	for (int32_t i = 0; i < params->zp_len; i++)
		if ((layer && params->zp[i] != params->zp[0]) || params->zp[i] < lo ||
		    params->zp[i] > hi) {
			hal_err("rknn_matmul: B zero point %d (%d) must be %s in %d..%d", i,
				params->zp[i], layer ? "one value" : "a value", lo, hi);
			return RKNN_ERR_PARAM_INVALID;
		}
	for (unsigned int i = 0; i < n; i++) {
		c->b_scale[i] = params->scale[layer ? 0 : i];
		c->b_zp[i] = params->zp_len ? params->zp[layer ? 0 : i] : 0;
	}
	c->scale[MM_B] = c->b_scale[0];
	c->zp[MM_B] = c->b_zp[0];
	/* A converted B holds the old scales: re-read at the next run. */
	c->b_ready = false;
	c->job.valid = false;
	return RKNN_SUCC;
}

static int mm_set_quant_params_on(struct mm_ctx *c, rknn_quant_params *params)
{
	int t;

	if (!params || (t = mm_tensor_index(params->name)) < 0 || !params->scale ||
	    params->scale_len < 1 || (params->zp_len && !params->zp) || params->zp_len < 0) {
		hal_err("rknn_matmul: quant params need the name A, B or C and a scale");
		return RKNN_ERR_PARAM_INVALID;
	}
	if (!mm_quant_allowed(c, t)) {
		hal_err("rknn_matmul: %s takes no quantisation parameters for %s", params->name,
			c->td->name);
		return RKNN_ERR_PARAM_INVALID;
	}
	if (t == MM_B)
		return mm_set_b_quant(c, params);
	for (int32_t i = 0; i < params->scale_len; i++)
		if (!(params->scale[i] > 0.0f) || params->scale[i] != params->scale[0]) {
			hal_err("rknn_matmul: %s scale %d (%g) must be positive and per-layer",
				params->name, i, (double)params->scale[i]);
			return RKNN_ERR_PARAM_INVALID;
		}
	for (int32_t i = 0; i < params->zp_len; i++)
		if (params->zp[i] != params->zp[0] || params->zp[0] < INT8_MIN ||
		    params->zp[0] > INT8_MAX) {
			hal_err("rknn_matmul: %s zero point %d must be one int8 value",
				params->name, params->zp[i]);
			return RKNN_ERR_PARAM_INVALID;
		}
	c->scale[t] = params->scale[0];
	c->zp[t] = params->zp_len ? params->zp[0] : 0;
	c->job.valid = false;	/* the requantisation is in the stream */
	return RKNN_SUCC;
}

int rknn_matmul_set_quant_params(rknn_matmul_ctx ctx, rknn_quant_params *params)
{
	struct mm_ctx *c;
	int rc = mm_enter(ctx, "rknn_matmul_set_quant_params", &c);

	if (rc)
		return rc;
	rc = mm_set_quant_params_on(c, params);
	rknn_handle_leave(ctx);
	return rc;
}

static int mm_get_quant_params_on(struct mm_ctx *c, rknn_quant_params *params, float *scale)
{
	unsigned int count;
	int t;

	if (!params || !scale) {
		hal_err("rknn_matmul: get_quant_params needs params and scale");
		return RKNN_ERR_PARAM_INVALID;
	}
	if (c->td->a == MM_E_FP16 && !c->td->weight_only) {
		hal_err("rknn_matmul: %s has no quantisation parameters", c->td->name);
		return RKNN_ERR_PARAM_INVALID;
	}
	if (!memchr(params->name, '\0', sizeof(params->name))) {
		hal_err("rknn_matmul: quant params name is not terminated");
		return RKNN_ERR_PARAM_INVALID;
	}
	t = params->name[0] ? mm_tensor_index(params->name) : MM_B;
	if (t < 0) {
		hal_err("rknn_matmul: quant params name '%s' is none of A, B, C", params->name);
		return RKNN_ERR_PARAM_INVALID;
	}
	if ((params->scale && params->scale_len < 1) || (params->zp && params->zp_len < 1)) {
		hal_err("rknn_matmul: %s quant params arrays given with length %d / %d",
			params->name, params->scale_len, params->zp_len);
		return RKNN_ERR_PARAM_INVALID;
	}
	if (!params->name[0])
		memcpy(params->name, "B", sizeof("B"));
	count = t == MM_B ? c->b_qcount : 1u;
	for (unsigned int i = 0; params->scale && i < count && i < (unsigned int)params->scale_len; i++)
		params->scale[i] = t == MM_B ? c->b_scale[i] : c->scale[t];
	for (unsigned int i = 0; params->zp && i < count && i < (unsigned int)params->zp_len; i++)
		params->zp[i] = t == MM_B ? c->b_zp[i] : c->zp[t];
	/* The tensor's count: 1 per-layer, B's per-channel / per-group count. */
	params->scale_len = (int32_t)count;
	params->zp_len = (int32_t)count;
	/* B's (first) scale. */
	*scale = c->b_scale[0];
	return RKNN_SUCC;
}

int rknn_matmul_get_quant_params(rknn_matmul_ctx ctx, rknn_quant_params *params, float *scale)
{
	struct mm_ctx *c;
	int rc = mm_enter(ctx, "rknn_matmul_get_quant_params", &c);

	if (rc)
		return rc;
	rc = mm_get_quant_params_on(c, params, scale);
	rknn_handle_leave(ctx);
	return rc;
}

/*
 * K segments (lower_matmul.h): rows 8192·s .. 8192·s + Ks - 1 of B form
 * segment s, laid out alone as (N/G, Ks/32, G, 32) with Ks aligned to 32;
 * segments follow one another. One segment is the plain native layout.
 */
/* B (K x N) into its native layout: K in segments, each padded to the
 * weight group, N padded to the kernel group (the header's layout). *out
 * the bytes written; 0 on success. */
static int mm_b_native(const void *B_input, void *B_output, unsigned int K, unsigned int N,
		       enum npu_precision in, unsigned int n_al, size_t *out)
{
	const unsigned int seg = LOWER_MM_K_SEGMENT;
	unsigned int eb = layout_elem_bytes(in);

	*out = 0;
	if (in == NPU_PREC_INT4) {	/* nibbles, every segment at once */
		*out = B_output ? mm_b_int4_native(B_input, B_output, K, N, n_al) :
			   mm_elem_bytes(MM_E_INT4, layout_align(K, LAYOUT_WEIGHT_IC_GROUP) *
						    (size_t)n_al);
		return RKNN_SUCC;
	}
	for (unsigned int k0 = 0; k0 < K; k0 += seg) {
		unsigned int ks = K - k0 < seg ? K - k0 : seg;
		unsigned int ks_al = (unsigned int)layout_align(ks, LAYOUT_WEIGHT_IC_GROUP);
		const uint8_t *src = (const uint8_t *)B_input + (size_t)k0 * N * eb;
		size_t n;

		if (!B_output) {	/* the size alone */
			*out += (size_t)ks_al * n_al * eb;
			continue;
		}
		if (in == NPU_PREC_INT8)
			n = layout_matmul_b_int8((const int8_t *)src,
						 (int8_t *)B_output + (size_t)k0 * n_al, ks, N,
						 ks_al, n_al);
		else
			n = layout_matmul_b_fp16((const uint16_t *)src,
						 (uint16_t *)B_output + (size_t)k0 * n_al, ks, N,
						 ks_al, n_al);
		if (!n)
			return RKNN_ERR_PARAM_INVALID;
		*out += (size_t)ks_al * n_al * eb;
	}
	return RKNN_SUCC;
}

int rknn_B_normal_layout_to_native_layout(void *B_input, void *B_output, int K, int N,
					  rknn_matmul_info *info)
{
	const struct mm_type_desc *td = info ? mm_type_find(info->type) : NULL;
	unsigned int n_al;
	size_t native, dense, room;

	if (!B_input || !B_output || !info || K < 1 || N < 1 || K > MM_MAX_K || N > MM_MAX_N ||
	    !td) {
		hal_err("rknn_matmul: B layout: buffers, K %d in 1..%d, N %d in 1..%d and a "
			"rknn_matmul_type needed", K, MM_MAX_K, N, MM_MAX_N);
		return RKNN_ERR_PARAM_INVALID;
	}
	/* B_output is sized for info's K and N (io_attr.B.size) */
	if (K != info->K || N != info->N) {
		hal_err("rknn_matmul: B layout: K %d, N %d differ from the matmul's (info K %d, "
			"N %d), whose native size B_output holds", K, N, (int)info->K, (int)info->N);
		return RKNN_ERR_PARAM_INVALID;
	}
	/*
	 * The vendor's signature has no output size. Where the native layout
	 * is no larger than B itself, a buffer as large as B_input is enough;
	 * where padding makes it larger, only the runtime's own memory, whose
	 * size is known, is written.
	 */
	n_al = (unsigned int)layout_align((size_t)N, mm_b_group(td->b));
	native = mm_b_native_bytes(td->b, (unsigned int)layout_align((size_t)K,
				   LAYOUT_WEIGHT_IC_GROUP), n_al);
	dense = mm_elem_bytes(td->b, (size_t)K * (size_t)N);
	room = rknn_mem_room(B_output);
	if (native > dense && room < native) {
		hal_err("rknn_matmul: B layout: K %d, N %d are padded to %zu bytes in the native "
			"layout, more than the K x N of B; B_output must be rknn_create_mem "
			"memory of io_attr.B.size bytes (%s)", K, N, native,
			room ? "this one is smaller" : "this is not");
		return RKNN_ERR_PARAM_INVALID;
	}
	if (td->b == MM_E_INT4) {
		mm_b_int4_native(B_input, B_output, (unsigned int)K, (unsigned int)N, n_al);
		return RKNN_SUCC;
	}
	return mm_b_native(B_input, B_output, (unsigned int)K, (unsigned int)N,
			   td->b == MM_E_INT8 ? NPU_PREC_INT8 : NPU_PREC_FP16, n_al, &native);
}

/* Bytes of tensor t in native layout with m rows. */
static size_t mm_native_bytes(const struct mm_ctx *c, int t, unsigned int m)
{
	if (t == MM_A)
		return layout_nc1hwc2_bytes(c->in_prec, m, 1, c->k_al);
	if (t == MM_B)
		return layout_packed_bytes(c->in_prec, (size_t)c->k_al * c->n_al);
	return layout_nc1hwc2_bytes(c->out_prec, m, 1, c->n_al);
}

/* ... for the selected shape. */
static size_t mm_native_size(const struct mm_ctx *c, int t)
{
	return mm_native_bytes(c, t, (unsigned int)c->info.M);
}

/* NPU address of tensor t: the bound memory (native layout) or the
 * internal native copy (normal layout), sized for the largest shape. */
static int mm_native(struct mm_ctx *c, int t, bool native_layout, uint32_t *addr)
{
	size_t size = mm_native_bytes(c, t, c->max_m);

	if (native_layout) {
		*addr = c->buf[t]->phys;
		return 0;
	}
	if (!c->native[t].cpu && dma_pool_alloc(c->pool, size, DMA_POOL_MIN_ALIGN, &c->native[t]))
		return -ENOMEM;
	*addr = c->native[t].phys;
	return 0;
}

/* int8 → int8: bias = −za · Σk (b − zb) per column, read from native B
 * (the zero-point algebra of lower_conv.c with a 1 × 1 kernel); within
 * int32 for K <= MM_MAX_K_INT8_OUT (128 · 255 · 32768 < 2^31). */
static int mm_bias(struct mm_ctx *c, const int8_t *b_native)
{
	int32_t *bias;

	if (!c->bias.cpu &&
	    dma_pool_alloc(c->pool, (size_t)c->n_al * sizeof(int32_t), DMA_POOL_MIN_ALIGN, &c->bias))
		return -ENOMEM;
	bias = c->bias.cpu;
	for (unsigned int n = 0; n < c->n_al; n++) {
		int64_t sum = 0;

		for (unsigned int k = 0; k < (unsigned int)c->info.K; k++)
			sum += b_native[mm_b_index(true, LAYOUT_KERNEL_GROUP_INT8, c->k_al,
						   (unsigned int)c->info.N, c->n_al, k, n)] -
			       c->zp[MM_B];
		bias[n] = n < (unsigned int)c->info.N ? (int32_t)(-(int64_t)c->zp[MM_A] * sum) : 0;
	}
	return 0;
}

/* One core's share of a split matmul: columns [n0, n0 + n) of B and C. */
struct mm_part {
	unsigned int core;
	unsigned int n0, n;	/* whole kernel groups (n may pass N in the last) */
};

/*
 * Deal the kernel groups of N over the cores named (policy in the header
 * comment). Fills parts[] in core order and returns how many there are.
 */
static unsigned int mm_split(const struct mm_ctx *c, struct mm_part parts[NPU_CORE_COUNT])
{
	unsigned int g = layout_kernel_group(c->in_prec);
	unsigned int groups = c->n_al / g, named = (unsigned int)__builtin_popcount(c->core_mask);
	unsigned int count = named < groups ? named : groups, n0 = 0, i = 0;

	if (c->k_al > LOWER_MM_K_SEGMENT)
		count = 1;
	for (unsigned int core = 0; core < NPU_CORE_COUNT && i < count; core++) {
		unsigned int share;

		if (!(c->core_mask & (1u << core)))
			continue;
		share = groups / count + (i < groups % count);
		parts[i++] = (struct mm_part){ .core = core, .n0 = n0, .n = share * g };
		n0 += share * g;
	}
	return count;
}

/* Lower part `pt` of the matmul: B advanced to its first kernel group,
 * C to its first C1 plane, the bias (int8 → int8) to its first column. */
static int mm_lower(struct mm_ctx *c, struct rc_program *p, const struct mm_part *pt,
		    uint32_t a, uint32_t b, uint32_t out, size_t *count, bool count_only)
{
	uint32_t b_part = b + (uint32_t)layout_packed_bytes(c->in_prec, (size_t)pt->n0 * c->k_al);
	uint32_t c_part = out + (uint32_t)layout_nc1hwc2_offset(c->out_prec,
						(unsigned int)c->info.M, 1, pt->n0, 0, 0);

	if (c->out_prec == NPU_PREC_INT8) {
		float w_scale = c->scale[MM_B];
		unsigned int n_left = (unsigned int)c->info.N - pt->n0;
		struct lower_conv_op op = {
			.in_h = (unsigned int)c->info.M, .in_w = 1, .in_c = (unsigned int)c->info.K,
			.out_c = pt->n < n_left ? pt->n : n_left, .kh = 1, .kw = 1,
			.stride_y = 1, .stride_x = 1, .in_scale = c->scale[MM_A],
			.in_zp = c->zp[MM_A], .w_scale = &w_scale, .w_scale_count = 1,
			.w_zp = c->zp[MM_B], .out_scale = c->scale[MM_C], .out_zp = c->zp[MM_C],
			.in_addr = a, .weight_addr = b_part,
			.bias_addr = c->bias.phys + pt->n0 * (uint32_t)sizeof(int32_t),
			.out_addr = c_part,
			.scratch_addr = c->scratch.cpu ? c->scratch.phys : 0,
			.ic_segment = LOWER_MM_K_SEGMENT,
		};

		return count_only ? lower_conv_task_count(&op, count) : lower_conv(p, &op);
	}
	struct lower_matmul_op op = {
		.type = c->out_prec == NPU_PREC_INT32 ? LOWER_MM_INT8_INT32 :
			c->out_prec == NPU_PREC_INT16 ? LOWER_MM_INT4_INT16 :
			c->out_prec == NPU_PREC_FP32 ? LOWER_MM_FP16_FP32 : LOWER_MM_FP16_FP16,
		.m = (unsigned int)c->info.M, .k = c->k_al, .n = pt->n,
		.a_addr = a, .b_addr = b_part, .c_addr = c_part,
		.scratch_addr = c->scratch.cpu ? c->scratch.phys : 0,
	};

	return count_only ? lower_matmul_task_count(&op, count) : lower_matmul(p, &op);
}

/* Build every part into one program, each part its own chain, and fill
 * the task descriptors and the sub-core slots of `sub`. */
static int mm_build(struct mm_ctx *c, const struct mm_part *parts, unsigned int count,
		    struct rc_program *p, uint32_t prog_phys, uint32_t a, uint32_t b, uint32_t out,
		    struct npu_task *tasks, struct npu_submit *sub)
{
	for (unsigned int i = 0; i < count; i++) {
		size_t first = p->task_count;
		/* BSP slot rule (drivers/npu/npu.h): core c takes slot c with one
		 * or two cores, slot c + 2 with three. */
		unsigned int slot = parts[i].core + (count == NPU_CORE_COUNT ? 2 : 0);

		if (mm_lower(c, p, &parts[i], a, b, out, NULL, false) ||
		    rc_program_link_range(p, prog_phys, first, p->task_count - first))
			return -EINVAL;
		sub->core_mask |= 1u << parts[i].core;
		sub->subcore_task[slot] = (struct npu_subcore_task){
			.task_start = (uint32_t)first,
			.task_number = (uint32_t)(p->task_count - first),
		};
	}
	sub->tasks = tasks;
	sub->task_count = sub->task_number = (uint32_t)p->task_count;
	return rc_program_tasks(p, prog_phys, 0, p->task_count, tasks);
}

/* Lower every part of the matmul into a new command stream and submit. */
/* Every address the job's tasks can touch inside A, B, C, the bias, the
 * scratch or the stream itself (runtime/dma_verify.h). */
static int mm_verify(const struct mm_ctx *c, const struct rc_program *p, uint32_t a,
		     uint32_t b, uint32_t out)
{
	const struct mm_job *j = &c->job;
	const struct dv_range owned[] = {
		{ a, mm_native_size(c, MM_A), "A" },
		{ b, mm_native_size(c, MM_B), "B" },
		{ out, mm_native_size(c, MM_C), "C" },
		{ c->bias.phys, c->bias.cpu ? c->bias.size : 0, "bias" },
		{ c->scratch.phys, c->scratch.cpu ? c->scratch.size : 0, "scratch" },
		{ j->prog.phys, j->prog.size, "command stream" },
	};
	char why[192];

	if (!dv_check_job(j->tasks, (uint32_t)p->task_count, j->prog.cpu, j->prog.phys, p->len,
			  owned, sizeof(owned) / sizeof(owned[0]), why, sizeof(why)))
		return 0;
	hal_err("rknn_matmul: DMA verifier: %s", why);
	return -EFAULT;
}

static int mm_job_build(struct mm_ctx *c, uint32_t a, uint32_t b, uint32_t out)
{
	struct mm_job *j = &c->job;
	struct mm_part parts[NPU_CORE_COUNT];
	unsigned int part_count = mm_split(c, parts);
	struct rc_program p;
	size_t count = 0, cap;

	mm_job_free(c);
	for (unsigned int i = 0; i < part_count; i++) {
		size_t n = 0;

		if (mm_lower(c, NULL, &parts[i], a, b, out, &n, true))
			return RKNN_ERR_PARAM_INVALID;
		count += n;
	}
	cap = rc_program_size(count, CONV_TASK_MAX_ENTRIES);
	j->rt = calloc(count, sizeof(*j->rt));
	j->tasks = calloc(count, sizeof(*j->tasks));
	if (!j->rt || !j->tasks ||
	    dma_pool_alloc(c->pool, cap * sizeof(uint64_t), RC_TASK_ALIGN_BYTES, &j->prog)) {
		mm_job_free(c);
		return RKNN_ERR_MALLOC_FAIL;
	}
	rc_program_init(&p, j->prog.cpu, cap, j->rt, count);
	j->sub.flags = NPU_JOB_PC | NPU_JOB_BLOCK | NPU_JOB_PINGPONG;
	if (mm_build(c, parts, part_count, &p, j->prog.phys, a, b, out, j->tasks, &j->sub) ||
	    mm_verify(c, &p, a, b, out)) {
		mm_job_free(c);
		return RKNN_ERR_FAIL;
	}
	j->a = a;
	j->b = b;
	j->out = out;
	j->core_mask = c->core_mask;
	j->m = c->info.M;
	j->valid = true;
	return RKNN_SUCC;
}

static int mm_submit(struct mm_ctx *c, uint32_t a, uint32_t b, uint32_t out)
{
	struct mm_job *j = &c->job;
	struct npu_buf in_bufs[3], out_buf;
	int err, ret;

	if (!j->valid || j->a != a || j->b != b || j->out != out ||
	    j->core_mask != c->core_mask || j->m != c->info.M) {
		ret = mm_job_build(c, a, b, out);
		if (ret)
			return ret;
	}
	in_bufs[0] = (struct npu_buf){ hal_phys_to_virt(a), mm_native_size(c, MM_A) };
	in_bufs[1] = (struct npu_buf){ hal_phys_to_virt(b), mm_native_size(c, MM_B) };
	in_bufs[2] = (struct npu_buf){ c->bias.cpu, c->bias.cpu ? c->bias.size : 0 };
	out_buf = (struct npu_buf){ hal_phys_to_virt(out), mm_native_size(c, MM_C) };
	j->sub.inputs = in_bufs;
	j->sub.input_count = c->bias.cpu ? 3 : 2;
	j->sub.outputs = &out_buf;
	j->sub.output_count = 1;
	err = npu_submit(c->dev, &j->sub);
	j->sub.inputs = NULL;
	j->sub.outputs = NULL;
	if (err) {
		hal_err("rknn_matmul: NPU job failed: %s", npu_strerror(err));
		return err == NPU_ERR_TIMEOUT ? RKNN_ERR_TIMEOUT : RKNN_ERR_FAIL;
	}
	return RKNN_SUCC;
}

/* The bound memory must still be as rknn_create_mem made it (its pool
 * record fills buf[]) and hold the selected shape (dynamic shapes share
 * it). */
static int mm_check_mem(struct mm_ctx *c)
{
	const rknn_matmul_tensor_attr *attr[MM_TENSORS] = { &c->io.A, &c->io.B, &c->io.C };

	for (int t = 0; t < MM_TENSORS; t++) {
		c->buf[t] = rknn_mem_buf(c->mem[t], "rknn_matmul_run");
		if (!c->buf[t])
			return t == MM_C ? RKNN_ERR_OUTPUT_INVALID : RKNN_ERR_INPUT_INVALID;
		if (c->mem[t]->size < attr[t]->size) {
			hal_err("rknn_matmul: %s memory holds %u bytes, shape M %d needs %u",
				attr[t]->name, c->mem[t]->size, c->info.M, attr[t]->size);
			return t == MM_C ? RKNN_ERR_OUTPUT_INVALID : RKNN_ERR_INPUT_INVALID;
		}
	}
	return RKNN_SUCC;
}

/* Partial-sum scratch of a K split over segments, for the largest shape:
 * two int32 / fp32 tensors of C's shape (lower_matmul.h, lower_conv.h). */
static int mm_scratch(struct mm_ctx *c)
{
	size_t bytes = 2 * layout_nc1hwc2_bytes(NPU_PREC_INT32, c->max_m, 1, c->n_al);

	if (c->scratch.cpu || c->k_al <= LOWER_MM_K_SEGMENT)
		return 0;
	return dma_pool_alloc(c->pool, bytes, DMA_POOL_MIN_ALIGN, &c->scratch);
}

/*
 * int4 A (INT4_MM_INT4_TO_INT16) widened to int8 into the NPU's native A,
 * at every run: A changes from run to run, so this is CPU work per run,
 * one pass over M × K, the order of the normal → native conversion every
 * normal-layout A already costs.
 */
static int mm_a_convert(struct mm_ctx *c)
{
	unsigned int M = (unsigned int)c->info.M, K = (unsigned int)c->info.K;

	if (!c->a_wide && !(c->a_wide = malloc((size_t)c->max_m * K)))
		return RKNN_ERR_MALLOC_FAIL;
	for (unsigned int m = 0; m < M; m++)
		for (unsigned int k = 0; k < K; k++)
			c->a_wide[(size_t)m * K + k] = (int8_t)mm_load_int(
				c->buf[MM_A]->cpu, MM_E_INT4,
				mm_a_index(MM_E_INT4, c->info.AC_layout, M, K, m, k));
	layout_nhwc_to_nc1hwc2(NPU_PREC_INT8, c->a_wide, c->native[MM_A].cpu, M, 1, K, c->k_al);
	return RKNN_SUCC;
}

/* Σk A[m][k] of each row, for B's zero points in dequantised sums (per
 * run, one pass over A; only when a zero point of B is not 0). */
static int mm_a_rowsum(struct mm_ctx *c)
{
	unsigned int M = (unsigned int)c->info.M, K = (unsigned int)c->info.K;
	bool any = false;

	for (unsigned int i = 0; i < c->b_qcount; i++)
		any |= c->b_zp[i] != 0;
	if (!c->a_rowsum && !(c->a_rowsum = calloc(c->max_m, sizeof(*c->a_rowsum))))
		return RKNN_ERR_MALLOC_FAIL;
	for (unsigned int m = 0; m < M; m++) {
		c->a_rowsum[m] = 0;
		for (unsigned int k = 0; any && k < K; k++)
			c->a_rowsum[m] += mm_load_int(c->buf[MM_A]->cpu, c->td->a,
						      mm_a_index(c->td->a, c->info.AC_layout, M,
								 K, m, k));
	}
	return RKNN_SUCC;
}

/*
 * The NPU's C (native, int32 or fp32) into the caller's type and layout,
 * per run, one pass over M × N:
 *   dequantised sums  sA · sB[n] · (acc − zA·ΣB[n] − zB[n]·ΣA[m] + K·zA·zB[n]),
 *                     the algebra of Σ (a − zA)(b − zB), in int64 and double,
 *                     rounded once to fp32 / fp16;
 *   int16             the int32 sum saturated to int16;
 *   bf16              fp32 rounded to nearest, ties to even.
 */
static void mm_c_convert(struct mm_ctx *c)
{
	const struct mm_type_desc *td = c->td;
	unsigned int M = (unsigned int)c->info.M, N = (unsigned int)c->info.N;
	int64_t K = c->info.K, za = c->zp[MM_A];
	void *dst = c->buf[MM_C]->cpu;

	if (c->info.AC_layout)
		memset(dst, 0, c->io.C.size);	/* padding channels read 0 */
	for (unsigned int m = 0; m < M; m++)
		for (unsigned int n = 0; n < N; n++) {
			const uint8_t *hw = (const uint8_t *)c->native[MM_C].cpu +
					    layout_nc1hwc2_offset(c->out_prec, M, 1, n, m, 0);
			size_t i = mm_c_index(td->c, c->info.AC_layout, M, N, m, n);

			if (td->dequant_sums) {
				unsigned int q = mm_b_qindex(c, 0, n);
				int64_t zb = c->b_zp[q];
				int64_t acc = (int64_t)mm_load_int(hw, MM_E_INT32, 0) -
					      za * c->b_colsum[n] - zb * c->a_rowsum[m] +
					      K * za * zb;

				mm_store_float(dst, td->c, i, (float)((double)c->scale[MM_A] *
						(double)c->b_scale[q] * (double)acc));
			} else if (td->c == MM_E_INT16) {
				int32_t acc = mm_load_int(hw, MM_E_INT32, 0);

				mm_store_int(dst, MM_E_INT16, i, acc > INT16_MAX ? INT16_MAX :
					     acc < INT16_MIN ? INT16_MIN : acc);
			} else {
				mm_store_float(dst, td->c, i, mm_load_float(hw, MM_E_FP32, 0));
			}
		}
}

static int mm_run_on(struct mm_ctx *c)
{
	bool ac_native, b_native, a_conv = mm_a_converted(c), b_conv = mm_b_converted(c);
	bool c_conv = mm_c_converted(c);
	uint32_t a, b, out;
	size_t b_bytes;
	int ret;

	if (!c->mem[MM_A] || !c->mem[MM_B]) {
		hal_err("rknn_matmul: A and B memory must be set before run");
		return RKNN_ERR_INPUT_INVALID;
	}
	if (!c->mem[MM_C]) {
		hal_err("rknn_matmul: C memory must be set before run");
		return RKNN_ERR_OUTPUT_INVALID;
	}
	ret = mm_check_mem(c);
	if (ret)
		return ret;
	ac_native = c->info.AC_layout;
	b_native = c->info.B_layout;
	if (mm_native(c, MM_A, ac_native && !a_conv, &a) ||
	    mm_native(c, MM_B, b_native && !b_conv, &b) ||
	    mm_native(c, MM_C, ac_native && !c_conv, &out))
		return RKNN_ERR_MALLOC_FAIL;
	if (a_conv) {
		if (mm_a_convert(c))
			return RKNN_ERR_MALLOC_FAIL;
	} else if (!ac_native && c->in_prec == NPU_PREC_INT4) {
		mm_a_int4_native(c->buf[MM_A]->cpu, c->native[MM_A].cpu, (unsigned int)c->info.M,
				 (unsigned int)c->info.K, c->k_al);
	} else if (!ac_native) {
		layout_nhwc_to_nc1hwc2(c->in_prec, c->buf[MM_A]->cpu, c->native[MM_A].cpu,
				       (unsigned int)c->info.M, 1, (unsigned int)c->info.K, c->k_al);
	}
	if (b_conv) {
		/* Converted when bound; again only after B's quantisation changed. */
		if (!c->b_ready && (ret = mm_b_convert(c)))
			return ret;
	} else if (!b_native &&
		   mm_b_native(c->buf[MM_B]->cpu, c->native[MM_B].cpu, (unsigned int)c->info.K,
			       (unsigned int)c->info.N, c->in_prec, c->n_al, &b_bytes)) {
		return RKNN_ERR_INPUT_INVALID;
	}
	if ((c->out_prec == NPU_PREC_INT32 || c->out_prec == NPU_PREC_INT16) &&
	    !c->td->dequant_sums &&
	    (c->zp[MM_A] || c->zp[MM_B])) {
		hal_err("rknn_matmul: %s writes raw sums; zero points must be 0", c->td->name);
		return RKNN_ERR_PARAM_INVALID;
	}
	if (c->td->dequant_sums && mm_a_rowsum(c))
		return RKNN_ERR_MALLOC_FAIL;
	if (c->out_prec == NPU_PREC_INT8 &&
	    mm_bias(c, b_native ? c->buf[MM_B]->cpu : c->native[MM_B].cpu))
		return RKNN_ERR_MALLOC_FAIL;
	if (mm_scratch(c))
		return RKNN_ERR_MALLOC_FAIL;
	ret = mm_submit(c, a, b, out);
	if (ret == RKNN_SUCC && c_conv)
		mm_c_convert(c);
	else if (ret == RKNN_SUCC && !ac_native)
		layout_nc1hwc2_to_nhwc(c->out_prec, c->native[MM_C].cpu, c->buf[MM_C]->cpu,
				       (unsigned int)c->info.M, 1, (unsigned int)c->info.N);
	return ret;
}

int rknn_matmul_run(rknn_matmul_ctx ctx)
{
	struct mm_ctx *c;
	int rc = mm_enter(ctx, "rknn_matmul_run", &c);

	if (rc)
		return rc;
	rc = mm_run_on(c);
	rknn_handle_leave(ctx);
	return rc;
}

int rknn_matmul_destroy(rknn_matmul_ctx ctx)
{
	struct mm_ctx *c;
	int rc = mm_enter(ctx, "rknn_matmul_destroy", &c);

	if (rc)
		return rc;
	mm_free(c);	/* the handle dies with it */
	return RKNN_SUCC;
}
