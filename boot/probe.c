/* SPDX-License-Identifier: MIT */
/*
 * The board probes (bootarg rkbare.probe=all, or a comma list of ids): on
 * the first run on an RK3588, each probe runs a small job whose result
 * decides one of the readings sim/ASSUMPTIONS.md and docs/HARDWARE.md §9
 * leave open, against a CPU computation of every reading in play. Each
 * prints one line "probe <id> ok|differs|failed|skipped: what was seen"
 * ("failed": the job itself did not complete, which says nothing about the
 * reading, so it is not counted as a difference); the
 * summary at the end is what to paste into an issue. Under QEMU the NPU
 * model answers, so every line must read ok: that is the model agreeing
 * with its own documented readings through the real driver.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/app.h"
#include "drivers/npu/npu.h"
#include "hal.h"
#include "rkbare/rknn_matmul_api.h"
#include "runtime/dma_pool.h"
#include "compiler/layout.h"
#include "compiler/lower_conv.h"
#include "compiler/lower_eltwise.h"
#include "compiler/lower_pool.h"
#include "compiler/regcmd.h"

#define PROBE_SEEN_LEN		160u
#define PROBE_SEED		0x50524F42u	/* "PROB" */
/* RK3588 PC VERSION (HARDWARE.md §1.3). */
#define PROBE_NPU_VERSION	0x46495245u

enum probe_result { PROBE_OK, PROBE_DIFFERS, PROBE_FAILED, PROBE_SKIPPED, PROBE_RESULTS };

static const char *const result_names[PROBE_RESULTS] = { "ok", "differs", "failed", "skipped" };

#define PROBE_ERR_LEN		64u

struct probe_env {
	struct npu_dev *npu;
	struct dma_pool *pool;
	uint32_t rng;
	char err[PROBE_ERR_LEN];	/* why the last job failed */
};

/* A job that did not complete: its own outcome, with the error, never a
 * reading that differs. */
static enum probe_result job_failed(struct probe_env *e, char *seen, size_t len,
				    const char *what)
{
	snprintf(seen, len, "%s (%s)", what, e->err[0] ? e->err : "no NPU memory or a "
		 "lowering error");
	return PROBE_FAILED;
}

struct probe {
	const char *id;
	const char *decides;		/* the assumption it settles */
	enum probe_result (*run)(struct probe_env *env, char *seen, size_t len);
};

static int8_t rnd8(struct probe_env *e)
{
	e->rng ^= e->rng << 13;
	e->rng ^= e->rng >> 17;
	e->rng ^= e->rng << 5;
	return (int8_t)e->rng;
}

/* ---- matmuls through the matmul API ---- */

struct mm {
	rknn_matmul_ctx ctx;
	rknn_matmul_io_attr io;
	rknn_tensor_mem *a, *b, *c;
	int8_t *ha, *hb;
	int m, k, n;
};

static void mm_close(struct mm *x)
{
	if (x->a)
		rknn_destroy_mem(x->ctx, x->a);
	if (x->b)
		rknn_destroy_mem(x->ctx, x->b);
	if (x->c)
		rknn_destroy_mem(x->ctx, x->c);
	if (x->ctx)
		rknn_matmul_destroy(x->ctx);
	free(x->ha);
	free(x->hb);
	memset(x, 0, sizeof(*x));
}

/* Random A (M×K) and B (K×N), values within ±(range − 1), in normal
 * layouts, loaded and run. */
static int mm_run(struct probe_env *e, struct mm *x, rknn_matmul_type type, int m, int k,
		  int n, rknn_core_mask cores, float c_scale, int8_t range)
{
	rknn_matmul_info info = { .M = m, .K = k, .N = n, .type = type };

	int rc;

	memset(x, 0, sizeof(*x));
	e->err[0] = '\0';
	x->m = m;
	x->k = k;
	x->n = n;
	x->ha = malloc((size_t)m * k);
	x->hb = malloc((size_t)k * n);
	if (!x->ha || !x->hb || rknn_matmul_create(&x->ctx, &info, &x->io) != RKNN_SUCC)
		return -1;
	for (int i = 0; i < m * k; i++)
		x->ha[i] = (int8_t)(rnd8(e) % range);
	for (int i = 0; i < k * n; i++)
		x->hb[i] = (int8_t)(rnd8(e) % range);
	x->a = rknn_create_mem(x->ctx, x->io.A.size);
	x->b = rknn_create_mem(x->ctx, x->io.B.size);
	x->c = rknn_create_mem(x->ctx, x->io.C.size);
	if (!x->a || !x->b || !x->c)
		return -1;
	memcpy(x->a->virt_addr, x->ha, (size_t)m * k);
	memcpy(x->b->virt_addr, x->hb, (size_t)k * n);
	if (type == RKNN_INT8_MM_INT8_TO_INT8) {
		float one = 1.0f;
		int32_t zero = 0;
		rknn_quant_params q = { .scale = &one, .scale_len = 1, .zp = &zero,
					.zp_len = 1 };

		strcpy(q.name, "A");
		if (rknn_matmul_set_quant_params(x->ctx, &q) != RKNN_SUCC)
			return -1;
		strcpy(q.name, "B");
		if (rknn_matmul_set_quant_params(x->ctx, &q) != RKNN_SUCC)
			return -1;
		strcpy(q.name, "C");
		q.scale = &c_scale;
		if (rknn_matmul_set_quant_params(x->ctx, &q) != RKNN_SUCC)
			return -1;
	}
	if (rknn_matmul_set_io_mem(x->ctx, x->a, &x->io.A) != RKNN_SUCC ||
	    rknn_matmul_set_io_mem(x->ctx, x->b, &x->io.B) != RKNN_SUCC ||
	    rknn_matmul_set_io_mem(x->ctx, x->c, &x->io.C) != RKNN_SUCC ||
	    (cores && rknn_matmul_set_core_mask(x->ctx, cores) != RKNN_SUCC))
		return -1;
	rc = rknn_matmul_run(x->ctx);
	if (rc == RKNN_SUCC)
		return 0;
	snprintf(e->err, sizeof(e->err), "rknn_matmul_run: %s",
		 rc == RKNN_ERR_TIMEOUT ? "NPU timeout" : "NPU job error");
	return -1;
}

static int32_t mm_acc(const struct mm *x, int i, int j)
{
	int32_t acc = 0;

	for (int q = 0; q < x->k; q++)
		acc += (int32_t)x->ha[i * x->k + q] * x->hb[q * x->n + j];
	return acc;
}

/* Wrong int32 results of an int8 → int32 matmul (normal C layout). */
static unsigned int mm_int32_wrong(const struct mm *x)
{
	const int32_t *c = x->c->virt_addr;
	unsigned int bad = 0;

	for (int i = 0; i < x->m; i++)
		for (int j = 0; j < x->n; j++)
			bad += c[i * x->n + j] != mm_acc(x, i, j);
	return bad;
}

static enum probe_result int32_matmul(struct probe_env *e, int m, rknn_core_mask cores,
				      char *seen, size_t len)
{
	struct mm x;
	enum probe_result r;

	if (mm_run(e, &x, RKNN_INT8_MM_INT8_TO_INT32, m, 64, 64, cores, 0.0f, INT8_MAX)) {
		r = job_failed(e, seen, len, "the job failed");
	} else {
		unsigned int bad = mm_int32_wrong(&x);

		snprintf(seen, len, "int8 %dx64x64 on cores 0x%x: %u of %d results wrong", m,
			 cores ? (unsigned int)cores : 1u, bad, m * 64);
		r = bad ? PROBE_DIFFERS : PROBE_OK;
	}
	mm_close(&x);
	return r;
}

/* ---- the probes ---- */

static enum probe_result probe_version(struct probe_env *e, char *seen, size_t len)
{
	snprintf(seen, len, "VERSION + VERSION_NUM = 0x%08x", e->npu->version);
	return e->npu->version == PROBE_NPU_VERSION ? PROBE_OK : PROBE_DIFFERS;
}

static enum probe_result probe_m1(struct probe_env *e, char *seen, size_t len)
{
	return int32_matmul(e, 1, RKNN_NPU_CORE_0, seen, len);
}

static enum probe_result probe_m3(struct probe_env *e, char *seen, size_t len)
{
	return int32_matmul(e, 3, RKNN_NPU_CORE_0, seen, len);
}

static enum probe_result probe_cores(struct probe_env *e, char *seen, size_t len)
{
	static const rknn_core_mask masks[] = { RKNN_NPU_CORE_1, RKNN_NPU_CORE_2,
						RKNN_NPU_CORE_0_1_2 };

	for (size_t i = 0; i < sizeof(masks) / sizeof(masks[0]); i++) {
		enum probe_result r = int32_matmul(e, 16, masks[i], seen, len);

		if (r != PROBE_OK)
			return r;
	}
	snprintf(seen, len, "int8 16x64x64 exact on core 1, core 2 and cores 0-2");
	return PROBE_OK;
}

/*
 * OUT_CVT ties: an int8 → int8 matmul with A and B scales 1 and C scale 2
 * requantises acc / 2, an exact half for every odd acc. cvt_round 0 is
 * modelled as ties to even; the probe counts the results each reading
 * explains.
 */
static enum probe_result probe_ties(struct probe_env *e, char *seen, size_t len)
{
	struct mm x;
	unsigned int ties = 0, even = 0, up = 0, total = 0;
	enum probe_result r = PROBE_DIFFERS;

	/* operands within ±3: acc / 2 stays inside int8 */
	if (mm_run(e, &x, RKNN_INT8_MM_INT8_TO_INT8, 4, 32, 32, RKNN_NPU_CORE_0, 2.0f, 4)) {
		mm_close(&x);
		return job_failed(e, seen, len, "the job failed");
	}
	for (int i = 0; i < x.m; i++)
		for (int j = 0; j < x.n; j++) {
			int32_t acc = mm_acc(&x, i, j), fl = acc >> 1;
			int32_t want_up = fl + (acc & 1);
			int32_t want_even = fl + ((acc & 1) && (fl & 1));
			int8_t got = ((const int8_t *)x.c->virt_addr)[i * x.n + j];

			want_up = want_up > INT8_MAX ? INT8_MAX : want_up < INT8_MIN ? INT8_MIN : want_up;
			want_even = want_even > INT8_MAX ? INT8_MAX :
				    want_even < INT8_MIN ? INT8_MIN : want_even;
			ties += (acc & 1) && want_up != want_even;
			even += got == want_even;
			up += got == want_up;
			total++;
		}
	snprintf(seen, len, "%u results, %u ties: %u as ties-to-even, %u as ties-up", total, ties,
		 even, up);
	if (even == total && ties)
		r = PROBE_OK;
	else if (!ties)
		r = PROBE_SKIPPED;
	mm_close(&x);
	return r;
}

/* One task on core 0, blocking; its output buffer invalidated after. */
static int submit_one(struct probe_env *e, struct npu_task *task, const struct dma_buf *out)
{
	struct npu_buf outs[1] = { { out->cpu, out->size } };
	struct npu_submit sub;
	int err;

	memset(&sub, 0, sizeof(sub));
	sub.flags = NPU_JOB_PC | NPU_JOB_BLOCK | NPU_JOB_PINGPONG;
	sub.core_mask = 1;
	sub.subcore_task[0] = (struct npu_subcore_task){ 0, 1 };
	sub.tasks = task;
	sub.task_count = sub.task_number = 1;
	sub.outputs = outs;
	sub.output_count = 1;
	err = npu_submit(e->npu, &sub);
	if (err)
		snprintf(e->err, sizeof(e->err), "%s", npu_strerror(err));
	return err;
}

/* How run_pool submits: as built, or with the 0x0041 marker before op_en
 * turned into an empty qword (A7: a bare op_en). */
enum pool_submit { POOL_AS_BUILT, POOL_BARE_OP_EN };

/* One standalone int8 pool (lower_pool) on random data, kicked alone;
 * *status gets the task's INTERRUPT_STATUS (NULL: not wanted). */
static int run_pool(struct probe_env *e, const struct lower_pool_op *tmpl, int8_t *in_host,
		    int8_t *out_host, enum pool_submit how, uint32_t *status)
{
	struct lower_pool_shape s;
	struct lower_pool_op op = *tmpl;
	struct dma_buf in = { 0 }, out = { 0 }, prog = { 0 };
	struct rc_task rt[1];
	struct npu_task task;
	struct rc_program p;
	size_t cap = rc_program_size(1, POOL_TASK_MAX_ENTRIES);
	int rc = -1;

	if (lower_pool_check(&op, &s) ||
	    dma_pool_alloc(e->pool, s.in_bytes, DMA_POOL_MIN_ALIGN, &in) ||
	    dma_pool_alloc(e->pool, s.out_bytes, DMA_POOL_MIN_ALIGN, &out) ||
	    dma_pool_alloc(e->pool, cap * sizeof(uint64_t), RC_TASK_ALIGN_BYTES, &prog))
		goto out;
	layout_nchw_to_nc1hwc2(NPU_PREC_INT8, in_host, in.cpu, op.in_h, op.in_w, op.c, op.c);
	hal_dcache_clean(in.cpu, in.size);
	op.in_addr = in.phys;
	op.out_addr = out.phys;
	rc_program_init(&p, prog.cpu, cap, rt, 1);
	if (lower_pool(&p, &op) || rc_program_link(&p, prog.phys) ||
	    rc_program_tasks(&p, prog.phys, 0, 1, &task))
		goto out;
	if (how == POOL_BARE_OP_EN) {
		uint64_t *marker = &p.q[rt[0].start + rt[0].body + NPU_RC_TAIL_QWORDS - 2u];

		if (npu_rc_target(*marker) != NPU_RC_TARGET_MARKER)
			goto out;
		*marker = 0;
		hal_dcache_clean(prog.cpu, prog.size);
	}
	if (submit_one(e, &task, &out))
		goto out;
	if (status)
		*status = task.int_status;
	layout_nc1hwc2_to_nchw(NPU_PREC_INT8, out.cpu, out_host, s.out_h, s.out_w, op.c);
	rc = 0;
out:
	dma_pool_release(e->pool, &prog);
	dma_pool_release(e->pool, &out);
	dma_pool_release(e->pool, &in);
	return rc;
}

enum { POOL_C = 16, POOL_HW = 6 };

/* Max 2x2/2 of `in` computed here, wrong results counted. */
static unsigned int max_pool_wrong(const int8_t *in, const int8_t *out)
{
	unsigned int bad = 0;

	for (int c = 0; c < POOL_C; c++)
		for (int y = 0; y < 3; y++)
			for (int x = 0; x < 3; x++) {
				int8_t m = INT8_MIN;

				for (int dy = 0; dy < 2; dy++)
					for (int dx = 0; dx < 2; dx++) {
						int8_t v = in[(c * POOL_HW + 2 * y + dy) * POOL_HW +
							      2 * x + dx];

						m = v > m ? v : m;
					}
				bad += out[(c * 3 + y) * 3 + x] != m;
			}
	return bad;
}

static const struct lower_pool_op max_pool_op = {
	.prec = NPU_PREC_INT8, .method = LOWER_POOL_MAX, .in_h = POOL_HW, .in_w = POOL_HW,
	.c = POOL_C, .kh = 2, .kw = 2, .stride_y = 2, .stride_x = 2,
};

/* The max pool on random data, submitted `how`, against the CPU. */
static enum probe_result max_pool_probe(struct probe_env *e, enum pool_submit how,
					const char *failed, const char *what, char *seen,
					size_t len)
{
	int8_t in[POOL_C * POOL_HW * POOL_HW], out[POOL_C * 9];
	unsigned int bad;

	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = rnd8(e);
	if (run_pool(e, &max_pool_op, in, out, how, NULL)) {
		return job_failed(e, seen, len, failed);
	}
	bad = max_pool_wrong(in, out);
	snprintf(seen, len, "%s: %u of %d wrong", what, bad, POOL_C * 9);
	return bad ? PROBE_DIFFERS : PROBE_OK;
}

/* Standalone max pool 2x2 / 2 through PPU_RDMA: flying_mode 1 (A15). */
static enum probe_result probe_pool_source(struct probe_env *e, char *seen, size_t len)
{
	return max_pool_probe(e, POOL_AS_BUILT, "the standalone pool job failed (PPU waiting "
			      "for the DPU?)", "max 2x2/2 from memory", seen, len);
}

/*
 * int8 average 2x2: sum × (2^16 / 2)^2 / 2^32, where the model rounds an
 * exact half up (A15; for odd k no int8 window sum lands on a half, so the
 * reciprocal's own rounding cannot show). Every window here sums to 2
 * mod 4, a half: the probe counts which rounding explains the results.
 */
static enum probe_result probe_pool_ties(struct probe_env *e, char *seen, size_t len)
{
	const struct lower_pool_op op = {
		.prec = NPU_PREC_INT8, .method = LOWER_POOL_AVG, .in_h = POOL_HW,
		.in_w = POOL_HW, .c = POOL_C, .kh = 2, .kw = 2, .stride_y = 2, .stride_x = 2,
	};
	int8_t in[POOL_C * POOL_HW * POOL_HW], out[POOL_C * 9];
	unsigned int up = 0, even = 0, away = 0, total = 0;

	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (int8_t)(rnd8(e) / 2);
	/* make each window's sum 2 mod 4 through its bottom-right cell */
	for (int c = 0; c < POOL_C; c++)
		for (int y = 0; y < 3; y++)
			for (int x = 0; x < 3; x++) {
				int8_t *w = &in[(c * POOL_HW + 2 * y) * POOL_HW + 2 * x];
				int sum = w[0] + w[1] + w[POOL_HW] + w[POOL_HW + 1];

				w[POOL_HW + 1] = (int8_t)(w[POOL_HW + 1] + ((2 - sum) & 3));
			}
	if (run_pool(e, &op, in, out, POOL_AS_BUILT, NULL)) {
		return job_failed(e, seen, len, "the average pool job failed");
	}
	for (int c = 0; c < POOL_C; c++)
		for (int y = 0; y < 3; y++)
			for (int x = 0; x < 3; x++) {
				const int8_t *w = &in[(c * POOL_HW + 2 * y) * POOL_HW + 2 * x];
				int sum = w[0] + w[1] + w[POOL_HW] + w[POOL_HW + 1];
				int fl = sum >= 0 ? sum / 4 : -((-sum + 3) / 4);	/* floor */
				int8_t got = out[(c * 3 + y) * 3 + x];

				up += got == fl + 1;
				even += got == fl + (fl & 1);
				away += got == (sum >= 0 ? fl + 1 : fl);
				total++;
			}
	snprintf(seen, len, "avg 2x2, %u windows on a half: %u rounded up, %u to even, %u away "
		 "from zero", total, up, even, away);
	return up == total ? PROBE_OK : PROBE_DIFFERS;
}

/*
 * A7: the TRM asks for the 0x0041 marker before op_en, but board-run
 * Rocket streams end in a bare op_en. The pool task runs with its marker
 * turned into an empty qword.
 */
static enum probe_result probe_bare_op_en(struct probe_env *e, char *seen, size_t len)
{
	return max_pool_probe(e, POOL_BARE_OP_EN, "the task without the marker did not "
			      "complete", "max pool ending in a bare op_en", seen, len);
}

/*
 * A2: a finished block sets the bit of the register group it ran, and
 * consecutive tasks on a core alternate groups (ping-pong), so two pool
 * tasks in a row should raise PPU bit 10 and bit 11, one each (the driver
 * accepts either bit of the pair, so it cannot tell).
 */
static enum probe_result probe_status_pair(struct probe_env *e, char *seen, size_t len)
{
	int8_t in[POOL_C * POOL_HW * POOL_HW], out[POOL_C * 9];
	uint32_t st[2] = { 0, 0 };

	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = rnd8(e);
	for (int i = 0; i < 2; i++)
		if (run_pool(e, &max_pool_op, in, out, POOL_AS_BUILT, &st[i])) {
			return job_failed(e, seen, len, "the pool job failed");
		}
	snprintf(seen, len, "INTERRUPT_STATUS after two pool tasks: 0x%08x, 0x%08x (predicted "
		 "0x%x and 0x%x in either order)", st[0], st[1], NPU_INT_PPU_0, NPU_INT_PPU_1);
	st[0] &= NPU_INT_PPU;
	st[1] &= NPU_INT_PPU;
	return (st[0] | st[1]) == NPU_INT_PPU && st[0] != st[1] &&
	       (st[0] == NPU_INT_PPU_0 || st[0] == NPU_INT_PPU_1) ? PROBE_OK : PROBE_DIFFERS;
}

/*
 * int32 sums with a bias: a 3×3 int8 convolution whose input zero point is
 * corrected by the bias (BS add) and whose sums leave the DPU as int32
 * (OUT_CVT the identity), as ConvInteger runs. Mesa's int8 streams use the
 * bias add and MTX's the int32 output, but no board-run stream uses both.
 */
enum { CI_C = 16, CI_HW = 6, CI_K = 8, CI_ZP = -91 };

/*
 * One convolution task (op without addresses) on its own buffers: x NCHW in
 * the op's input precision, weights in the importer's order (OHWI,
 * depthwise [kh][kw][C]), for fp16 an fp32 bias (NULL: none; int8 ops get
 * the bias lower_conv_pack corrects from none), the NCHW residual when
 * tmpl->residual; y the NCHW output in the output precision (int8, int32
 * sums or fp16).
 */
static int run_conv(struct probe_env *e, const struct lower_conv_op *tmpl, const void *x,
		    const void *w, const float *bias_f, const void *res, void *y)
{
	struct lower_conv_op op = *tmpl;
	bool fp16 = op.prec == NPU_PREC_FP16;
	enum npu_precision out_prec = fp16 ? NPU_PREC_FP16 :
				      op.out_int32 ? NPU_PREC_INT32 : NPU_PREC_INT8;
	struct lower_conv_shape s;
	struct dma_buf in = { 0 }, wt = { 0 }, bias = { 0 }, out = { 0 }, prog = { 0 }, rb = { 0 };
	struct rc_task rt[1];
	struct npu_task task;
	struct rc_program p;
	size_t cap = rc_program_size(1, CONV_TASK_MAX_ENTRIES), tasks = 0;
	int rc = -1;

	if (lower_conv_check(&op, &s) ||
	    dma_pool_alloc(e->pool, s.in_bytes, DMA_POOL_MIN_ALIGN, &in) ||
	    dma_pool_alloc(e->pool, s.weight_bytes, DMA_POOL_MIN_ALIGN, &wt) ||
	    dma_pool_alloc(e->pool, s.bias_bytes, DMA_POOL_MIN_ALIGN, &bias) ||
	    dma_pool_alloc(e->pool, s.out_bytes, DMA_POOL_MIN_ALIGN, &out) ||
	    dma_pool_alloc(e->pool, cap * sizeof(uint64_t), RC_TASK_ALIGN_BYTES, &prog) ||
	    (op.residual && dma_pool_alloc(e->pool, s.res_bytes, DMA_POOL_MIN_ALIGN, &rb)) ||
	    lower_conv_pack(&op, &s, w, NULL, wt.cpu, fp16 ? NULL : bias.cpu, NULL))
		goto out;
	if (op.residual) {
		memset(rb.cpu, 0, rb.size);
		layout_nchw_to_nc1hwc2(op.prec, res, rb.cpu, s.out_h, s.out_w, op.out_c,
				       s.out_c_aligned);
		hal_dcache_clean(rb.cpu, rb.size);
		op.res_addr = rb.phys;
	}
	if (fp16)
		lower_conv_pack_bias_fp16(&op, &s, bias_f, bias.cpu);
	memset(in.cpu, 0, in.size);
	layout_nchw_to_nc1hwc2(op.prec, x, in.cpu, op.in_h, op.in_w, op.in_c, s.in_c_aligned);
	hal_dcache_clean(in.cpu, in.size);
	hal_dcache_clean(wt.cpu, wt.size);
	hal_dcache_clean(bias.cpu, bias.size);
	op.in_addr = in.phys;
	op.weight_addr = wt.phys;
	op.bias_addr = !fp16 || bias_f ? bias.phys : 0;
	op.out_addr = out.phys;
	rc_program_init(&p, prog.cpu, cap, rt, 1);
	if (lower_conv_task_count(&op, &tasks) || tasks != 1 ||
	    lower_conv(&p, &op) || rc_program_link(&p, prog.phys) ||
	    rc_program_tasks(&p, prog.phys, 0, 1, &task))
		goto out;
	if (submit_one(e, &task, &out))
		goto out;
	layout_nc1hwc2_to_nchw(out_prec, out.cpu, y, s.out_h, s.out_w, op.out_c);
	rc = 0;
out:
	dma_pool_release(e->pool, &rb);
	dma_pool_release(e->pool, &prog);
	dma_pool_release(e->pool, &out);
	dma_pool_release(e->pool, &bias);
	dma_pool_release(e->pool, &wt);
	dma_pool_release(e->pool, &in);
	return rc;
}

static int run_conv_int32(struct probe_env *e, const int8_t *x, const int8_t *w, int32_t *y)
{
	const float one = 1.0f;
	const struct lower_conv_op op = {
		.prec = NPU_PREC_INT8, .out_int32 = true, .in_h = CI_HW, .in_w = CI_HW,
		.in_c = CI_C, .out_c = CI_K, .kh = 3, .kw = 3, .stride_y = 1, .stride_x = 1,
		.explicit_pads = true, .pad_top = 1, .pad_left = 1, .pad_bottom = 1,
		.pad_right = 1, .in_scale = 1.0f, .in_zp = CI_ZP, .w_scale = &one,
		.w_scale_count = 1, .out_scale = 1.0f,
	};

	return run_conv(e, &op, x, w, NULL, NULL, y);
}

static enum probe_result probe_int32_bias(struct probe_env *e, char *seen, size_t len)
{
	static int8_t x[CI_C * CI_HW * CI_HW], w[CI_K * 3 * 3 * CI_C];	/* NCHW, OHWI */
	static int32_t y[CI_K * CI_HW * CI_HW];
	unsigned int wrong = 0;

	for (size_t i = 0; i < sizeof(x); i++)
		x[i] = rnd8(e);
	for (size_t i = 0; i < sizeof(w); i++)
		w[i] = rnd8(e);
	if (run_conv_int32(e, x, w, y)) {
		return job_failed(e, seen, len, "the job failed");
	}
	/* Σ (x − zp)·w over the window; padded cells hold the zero point */
	for (int k = 0; k < CI_K; k++)
		for (int oy = 0; oy < CI_HW; oy++)
			for (int ox = 0; ox < CI_HW; ox++) {
				int32_t sum = 0;

				for (int ky = 0; ky < 3; ky++)
					for (int kx = 0; kx < 3; kx++)
						for (int c = 0; c < CI_C; c++) {
							int iy = oy + ky - 1, ix = ox + kx - 1;

							if (iy < 0 || ix < 0 || iy >= CI_HW || ix >= CI_HW)
								continue;
							sum += (x[(c * CI_HW + iy) * CI_HW + ix] - CI_ZP) *
							       w[((k * 3 + ky) * 3 + kx) * CI_C + c];
						}
				wrong += y[(k * CI_HW + oy) * CI_HW + ox] != sum;
			}
	snprintf(seen, len, "3x3 int8 conv, input zp %d, %d int32 sums: %u wrong", CI_ZP,
		 CI_K * CI_HW * CI_HW, wrong);
	return wrong ? PROBE_DIFFERS : PROBE_OK;
}

/*
 * fp16 convolutions (A28: the bias as fp32 words through BRDMA; A29: the
 * depthwise weight layout and 32-channel output) and the fp16 add (A20:
 * BS/BN bypassed, the EW ALU adding the ERDMA operand unconverted). Values
 * are q/64 with |q| <= 31, so every sum is exact in fp32 and only the fp16
 * output rounds: a result more than an fp16 unit in the last place from the
 * CPU's is a different reading, not rounding.
 */
enum { CF_C = 24, CF_HW = 6, CF_K = 16 };
/* One fp16 unit in the last place is at most |v| / 1024 (10 stored bits). */
#define FP16_ULP_DIV	1024.0f
#define FP16_ABS_SLACK	1e-6f

static uint16_t rnd_f16(struct probe_env *e)
{
	return layout_f32_to_f16((float)(rnd8(e) % 32) / 64.0f);
}

/* An fp16 convolution (run_conv) whose output y gets as floats. */
static int run_conv_fp16(struct probe_env *e, const struct lower_conv_op *op, const uint16_t *x,
			 const uint16_t *w, const float *b, float *y)
{
	static uint16_t y16[CF_C * CF_HW * CF_HW];

	if (run_conv(e, op, x, w, b, NULL, y16))
		return -1;
	for (unsigned int i = 0; i < op->out_c * CF_HW * CF_HW; i++)
		y[i] = layout_f16_to_f32(y16[i]);
	return 0;
}

/* 3×3, pad 1: direct CF_C → CF_K with bias (A28), or depthwise over CF_C
 * channels without (A29); each result against the CPU's exact sum. */
static enum probe_result conv_fp16_probe(struct probe_env *e, bool depthwise, char *seen,
					 size_t len)
{
	const struct lower_conv_op op = {
		.prec = NPU_PREC_FP16, .in_h = CF_HW, .in_w = CF_HW, .in_c = CF_C,
		.out_c = depthwise ? CF_C : CF_K, .kh = 3, .kw = 3, .stride_y = 1, .stride_x = 1,
		.explicit_pads = true, .pad_top = 1, .pad_left = 1, .pad_bottom = 1,
		.pad_right = 1, .depthwise = depthwise,
	};
	static uint16_t x[CF_C * CF_HW * CF_HW], w[CF_K * 3 * 3 * CF_C];
	static float b[CF_K], y[CF_C * CF_HW * CF_HW];
	unsigned int wrong = 0, n = 0;

	for (size_t i = 0; i < CF_C * CF_HW * CF_HW; i++)
		x[i] = rnd_f16(e);
	for (size_t i = 0; i < (depthwise ? 9u * CF_C : (size_t)CF_K * 9u * CF_C); i++)
		w[i] = rnd_f16(e);
	for (size_t i = 0; i < CF_K; i++)
		b[i] = (float)(rnd8(e) % 32) / 64.0f;
	if (run_conv_fp16(e, &op, x, w, depthwise ? NULL : b, y)) {
		return job_failed(e, seen, len, "the job failed");
	}
	for (unsigned int k = 0; k < op.out_c; k++)
		for (int oy = 0; oy < CF_HW; oy++)
			for (int ox = 0; ox < CF_HW; ox++, n++) {
				float want = depthwise ? 0.0f : b[k], got, off, mag;

				for (int ky = 0; ky < 3; ky++)
					for (int kx = 0; kx < 3; kx++)
						for (unsigned int c = 0; c < CF_C; c++) {
							int iy = oy + ky - 1, ix = ox + kx - 1;

							if (iy < 0 || ix < 0 || iy >= CF_HW || ix >= CF_HW ||
							    (depthwise && c != k))
								continue;
							want += layout_f16_to_f32(
								x[(c * CF_HW + iy) * CF_HW + ix]) *
								layout_f16_to_f32(depthwise ?
								w[(ky * 3 + kx) * CF_C + c] :
								w[((k * 3 + ky) * 3 + kx) * CF_C + c]);
						}
				got = y[(k * CF_HW + oy) * CF_HW + ox];
				off = got > want ? got - want : want - got;
				mag = want < 0.0f ? -want : want;
				/* NaN fails too */
				wrong += !(off <= mag / FP16_ULP_DIV + FP16_ABS_SLACK);
			}
	snprintf(seen, len, "3x3 fp16 %s conv, %u results: %u off by more than an fp16 unit",
		 depthwise ? "depthwise (24 channels, 32 lanes)" : "24 -> 16 channels + fp32 bias",
		 n, wrong);
	return wrong ? PROBE_DIFFERS : PROBE_OK;
}

static enum probe_result probe_fp16_bias(struct probe_env *e, char *seen, size_t len)
{
	return conv_fp16_probe(e, false, seen, len);
}

static enum probe_result probe_fp16_dw(struct probe_env *e, char *seen, size_t len)
{
	return conv_fp16_probe(e, true, seen, len);
}

/* fp16 add of two CF_C × CF_HW × CF_HW maps, with ReLU: every result the
 * fp16 rounding of the exact sum (A20). */
static enum probe_result probe_fp16_add(struct probe_env *e, char *seen, size_t len)
{
	struct lower_add_op op = { .prec = NPU_PREC_FP16, .h = CF_HW, .w = CF_HW, .c = CF_C,
				   .act = LOWER_ACT_RELU };
	size_t bytes = layout_nc1hwc2_bytes(NPU_PREC_FP16, CF_HW, CF_HW, CF_C);
	size_t cap = rc_program_size(1, ELTWISE_TASK_MAX_ENTRIES), n = CF_C * CF_HW * CF_HW;
	static uint16_t a[CF_C * CF_HW * CF_HW], b[CF_C * CF_HW * CF_HW], y[CF_C * CF_HW * CF_HW];
	struct dma_buf ab = { 0 }, bb = { 0 }, out = { 0 }, prog = { 0 };
	struct rc_task rt[1];
	struct npu_task task;
	struct rc_program p;
	unsigned int wrong = 0;
	int rc = -1;

	for (size_t i = 0; i < n; i++) {
		a[i] = rnd_f16(e);
		b[i] = rnd_f16(e);
	}
	if (dma_pool_alloc(e->pool, bytes, DMA_POOL_MIN_ALIGN, &ab) ||
	    dma_pool_alloc(e->pool, bytes, DMA_POOL_MIN_ALIGN, &bb) ||
	    dma_pool_alloc(e->pool, bytes, DMA_POOL_MIN_ALIGN, &out) ||
	    dma_pool_alloc(e->pool, cap * sizeof(uint64_t), RC_TASK_ALIGN_BYTES, &prog))
		goto out;
	layout_nchw_to_nc1hwc2(NPU_PREC_FP16, a, ab.cpu, CF_HW, CF_HW, CF_C, CF_C);
	layout_nchw_to_nc1hwc2(NPU_PREC_FP16, b, bb.cpu, CF_HW, CF_HW, CF_C, CF_C);
	hal_dcache_clean(ab.cpu, ab.size);
	hal_dcache_clean(bb.cpu, bb.size);
	op.a_addr = ab.phys;
	op.b_addr = bb.phys;
	op.out_addr = out.phys;
	rc_program_init(&p, prog.cpu, cap, rt, 1);
	if (lower_add(&p, &op) || rc_program_link(&p, prog.phys) ||
	    rc_program_tasks(&p, prog.phys, 0, 1, &task) || submit_one(e, &task, &out))
		goto out;
	layout_nc1hwc2_to_nchw(NPU_PREC_FP16, out.cpu, y, CF_HW, CF_HW, CF_C);
	for (size_t i = 0; i < n; i++) {
		float sum = layout_f16_to_f32(a[i]) + layout_f16_to_f32(b[i]);

		wrong += y[i] != layout_f32_to_f16(sum < 0.0f ? 0.0f : sum);
	}
	rc = 0;
out:
	dma_pool_release(e->pool, &prog);
	dma_pool_release(e->pool, &out);
	dma_pool_release(e->pool, &bb);
	dma_pool_release(e->pool, &ab);
	if (rc)
		return job_failed(e, seen, len, "the job failed");
	snprintf(seen, len, "fp16 add + ReLU of %zu values: %u differ from the rounded sum", n,
		 wrong);
	return wrong ? PROBE_DIFFERS : PROBE_OK;
}

/*
 * A34: a convolution with a residual added by the EW stage, read as Mesa's
 * fused conv + add reads it (DPU_RDMA comb_use 5, MRDMA and ERDMA at the one
 * address). 1×1, RES_C → RES_K, input zero point CI_ZP, weight scale 1:
 * the accumulator counts units of 1; the residual's scale RES_SCALE (an
 * exact EW_CVT multiplier and shift) and the output's RES_OUT_SCALE (an
 * exact OUT_CVT shift, ties to even: A12) keep the expected values exact.
 */
enum { RES_C = 16, RES_K = 32, RES_HW = 6, RES_ZR = 9, RES_ZO = -5 };
#define RES_SCALE	256.0f
#define RES_OUT_SCALE	4096.0f

static int32_t round_div_even(int64_t v, int64_t d)
{
	int64_t q = v / d, r = v % d;

	if (r < 0) {
		q--;
		r += d;
	}
	if (2 * r > d || (2 * r == d && (q & 1)))
		q++;
	return (int32_t)q;
}

static enum probe_result probe_residual(struct probe_env *e, char *seen, size_t len)
{
	static int8_t x[RES_C * RES_HW * RES_HW], w[RES_K * RES_C];	/* NCHW, OHWI */
	static int8_t r[RES_K * RES_HW * RES_HW], y[RES_K * RES_HW * RES_HW];
	const float one = 1.0f;
	const struct lower_conv_op op = {
		.prec = NPU_PREC_INT8, .in_h = RES_HW, .in_w = RES_HW, .in_c = RES_C,
		.out_c = RES_K, .kh = 1, .kw = 1, .stride_y = 1, .stride_x = 1,
		.explicit_pads = true, .in_scale = 1.0f, .in_zp = CI_ZP, .w_scale = &one,
		.w_scale_count = 1, .out_scale = RES_OUT_SCALE, .out_zp = RES_ZO,
		.residual = true, .res_scale = RES_SCALE, .res_zp = RES_ZR,
	};
	unsigned int wrong = 0;

	for (size_t i = 0; i < sizeof(x); i++)
		x[i] = rnd8(e);
	for (size_t i = 0; i < sizeof(w); i++)
		w[i] = rnd8(e);
	for (size_t i = 0; i < sizeof(r); i++)
		r[i] = rnd8(e);
	if (run_conv(e, &op, x, w, NULL, r, y))
		return job_failed(e, seen, len, "the job failed");
	for (int k = 0; k < RES_K; k++)
		for (int p = 0; p < RES_HW * RES_HW; p++) {
			int64_t v = (int64_t)(r[k * RES_HW * RES_HW + p] - RES_ZR) *
				    (int64_t)RES_SCALE;
			int32_t q;

			for (int c = 0; c < RES_C; c++)
				v += (x[c * RES_HW * RES_HW + p] - CI_ZP) * w[k * RES_C + c];
			q = round_div_even(v, (int64_t)RES_OUT_SCALE) + RES_ZO;
			q = q < INT8_MIN ? INT8_MIN : q > INT8_MAX ? INT8_MAX : q;
			wrong += y[k * RES_HW * RES_HW + p] != q;
		}
	snprintf(seen, len, "1x1 int8 conv + int8 residual (comb_use 5), %d values: %u wrong",
		 RES_K * RES_HW * RES_HW, wrong);
	return wrong ? PROBE_DIFFERS : PROBE_OK;
}

static const struct probe probes[] = {
	{ "version", "HARDWARE.md §1.3: PC VERSION on RK3588", probe_version },
	{ "A9-m1", "A9: signed CNA surface stride, M = 1 (HARDWARE.md §5.2)", probe_m1 },
	{ "A9-m3", "A9: M = 3 with the captures' W(H-4), not MTX's value (§9.7)", probe_m3 },
	{ "A12-ties", "A12: OUT_CVT cvt_round 0 rounds ties to even (§6.3)", probe_ties },
	{ "A15-source", "A15: PPU flying_mode 1 = cube from outside (§4.6)", probe_pool_source },
	{ "A15-ties", "A15: int8 average halves rounded up (§4.6, §9.9)", probe_pool_ties },
	{ "cores", "§2.5: core 1, core 2 and all three in one submit", probe_cores },
	{ "A7-bare", "A7: a task may end in op_en without the 0x0041 marker", probe_bare_op_en },
	{ "A27-int32", "A27: a bias add under an int32 output (ConvInteger, §6.5)",
	  probe_int32_bias },
	{ "A2-pairs", "A2: one bit of the PPU status pair per task, alternating",
	  probe_status_pair },
	{ "A28-fp16-bias", "A28: an fp16 convolution's bias is fp32 words through BRDMA",
	  probe_fp16_bias },
	{ "A29-fp16-dw", "A29: fp16 depthwise weights [kh][kw][lanes], 32 channels out",
	  probe_fp16_dw },
	{ "A20-fp16-add", "A20: fp16 add with BS/BN bypassed, EW operand unconverted",
	  probe_fp16_add },
	{ "A34-residual", "A34: a conv + residual add in one task (comb_use 5, EW add)",
	  probe_residual },
};

static bool wanted(const char *spec, const char *id)
{
	size_t n = strlen(id);

	if (!strcmp(spec, "all"))
		return true;
	for (const char *s = spec; (s = strstr(s, id)); s += n)
		if ((s == spec || s[-1] == ',') && (s[n] == ',' || s[n] == '\0'))
			return true;
	return false;
}

int probe_run(const char *spec, struct npu_dev *npu, struct dma_pool *pool)
{
	struct probe_env env = { .npu = npu, .pool = pool, .rng = PROBE_SEED };
	unsigned int counts[PROBE_RESULTS] = { 0 }, ran = 0;
	enum probe_result results[sizeof(probes) / sizeof(probes[0])];

	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		char seen[PROBE_SEEN_LEN] = "";

		if (!wanted(spec, probes[i].id))
			continue;
		env.err[0] = '\0';
		results[i] = probes[i].run(&env, seen, sizeof(seen));
		counts[results[i]]++;
		ran++;
		printf("probe %s %s: %s\n", probes[i].id, result_names[results[i]], seen);
	}
	if (!ran) {
		printf("probe: '%s' names no probe (ids:", spec);
		for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
			printf(" %s", probes[i].id);
		printf(", or all)\n");
		return 1;
	}
	printf("---- probe summary (paste into an issue) ----\n");
	printf("npu version 0x%08x, %u probes: %u ok, %u differs, %u failed, %u skipped\n",
	       npu->version, ran, counts[PROBE_OK], counts[PROBE_DIFFERS], counts[PROBE_FAILED],
	       counts[PROBE_SKIPPED]);
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
		if (wanted(spec, probes[i].id))
			printf("%-10s %-8s %s\n", probes[i].id, result_names[results[i]],
			       probes[i].decides);
	printf("---- end of probe summary ----\n");
	return counts[PROBE_DIFFERS] || counts[PROBE_FAILED] ? 1 : 0;
}
