/* SPDX-License-Identifier: MIT */
/*
 * The board probes (bootarg rkbare.probe=all, or a comma list of ids): on
 * the first run on an RK3588, each probe runs small jobs whose results
 * decide one of the questions sim/ASSUMPTIONS.md and docs/HARDWARE.md §9
 * leave open. A probe runs a control case (what must hold whatever the
 * answer) and computes on the CPU what the NPU would output under each
 * reading in play (boot/probe_decide.c); it prints one line
 *   probe <id> reading=<name> (as modelled | the model reads <name>): <seen>
 * naming the reading every result matched, reading=none when none did (or
 * the control failed), or "probe <id> failed: ..." when a job did not
 * complete where completion was not itself the question. The summary at the
 * end is what to paste into an issue. Under QEMU the NPU model answers, so
 * every probe names the reading the model implements (tests/qemu/probe.sh
 * checks each against the table in sim/ASSUMPTIONS.md).
 *
 * Jobs are bounded by the driver's timeout; every buffer a probe takes is
 * released before it returns. Streams come from the compiler's builders;
 * the few fields a probe changes by hand take their values from
 * include/rkbare/npu_values.h. The LUT and inherited-state tasks (A35, A36),
 * which no builder emits, are written register by register from the same
 * table. More probes are in boot/probe_more.c; what both files share is
 * boot/probe_internal.h.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/app.h"
#include "boot/probe_decide.h"
#include "boot/probe_internal.h"
#include "boot/probe_pc.h"
#include "drivers/npu/npu.h"
#include "hal.h"
#include "rkbare/rknn_matmul_api.h"
#include "runtime/dma_pool.h"
#include "compiler/layout.h"
#include "compiler/lower_conv.h"
#include "compiler/lower_eltwise.h"
#include "compiler/lower_pool.h"
#include "compiler/lower_tile.h"
#include "compiler/regcmd.h"

#define PROBE_SEEN_LEN		200u
#define PROBE_SEED		0x50524F42u	/* "PROB" */
/* RK3588 PC VERSION (HARDWARE.md §1.3). */
#define PROBE_NPU_VERSION	0x46495245u
/* A job that did not complete: its own outcome, with the error. */
int job_failed(struct probe_env *e, char *seen, size_t len, const char *what)
{
	snprintf(seen, len, "%s (%s)", what, e->err[0] ? e->err : "no NPU memory or a "
		 "lowering error");
	return PROBE_FAILED;
}

uint32_t rnd32(struct probe_env *e)
{
	e->rng ^= e->rng << 13;
	e->rng ^= e->rng >> 17;
	e->rng ^= e->rng << 5;
	return e->rng;
}

int8_t rnd8(struct probe_env *e)
{
	return (int8_t)rnd32(e);
}

/* A weight scale of 1: the convolutions' sums count units of 1. */
static const float one_scale = 1.0f;

/* ---- matmuls through the matmul API ---- */

void mm_close(struct mm *x)
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

int32_t mm_acc(const struct mm *x, int i, int j)
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

/* An int8 M×64×64 → int32 matmul on `cores`: its wrong results, or -1 when
 * the job failed. */
static int int32_matmul(struct probe_env *e, int m, rknn_core_mask cores)
{
	struct mm x;
	int bad = -1;

	if (!mm_run(e, &x, RKNN_INT8_MM_INT8_TO_INT32, m, 64, 64, cores, 0.0f, INT8_MAX))
		bad = (int)mm_int32_wrong(&x);
	mm_close(&x);
	return bad;
}

/* ---- programs: building, patching, submitting ---- */

/* One chain of `count` tasks on k->core, blocking; out is invalidated
 * after. 0, or the driver's error (in e->err too). */
int kick_chain(struct probe_env *e, struct npu_task *tasks, unsigned int count,
	       const struct dma_buf *out, struct kick *k)
{
	struct npu_buf outs[1] = { { out->cpu, out->size } };
	struct npu_submit sub;
	int err;

	memset(&sub, 0, sizeof(sub));
	sub.flags = NPU_JOB_PC | NPU_JOB_BLOCK | NPU_JOB_PINGPONG | k->flags;
	sub.core_mask = 1u << k->core;
	sub.task_dma_base = k->dma_base;
	/* one core in the job: it runs its own slot (HARDWARE.md §2.5) */
	sub.subcore_task[k->core] = (struct npu_subcore_task){ 0, count };
	sub.tasks = tasks;
	sub.task_count = sub.task_number = count;
	sub.outputs = outs;
	sub.output_count = 1;
	e->err[0] = '\0';
	err = npu_submit(e->npu, &sub);
	if (err) {
		snprintf(e->err, sizeof(e->err), "%s", npu_strerror(err));
		return err;
	}
	k->tasks_done = sub.core[k->core].tasks_done;
	k->raw = tasks[count - 1u].raw_status;
	return 0;
}

/* kick_chain on core 0, as the driver and the builders make it; *status
 * (may be NULL) gets the last task's INTERRUPT_STATUS. */
int submit_chain(struct probe_env *e, struct npu_task *tasks, unsigned int count,
		 const struct dma_buf *out, uint32_t *status)
{
	struct kick k = { 0 };
	int err = kick_chain(e, tasks, count, out, &k);

	if (!err && status)
		*status = tasks[count - 1u].int_status;
	return err;
}

/*
 * Set `field` (a mask in place, NPU_FV(..., ~0u)) of the register at
 * `offset` to `value` (in place) in every task of the program: a probe's
 * one hand-made change to a stream the builders made. -1 when no task
 * writes that register.
 */
int patch_field(struct rc_program *p, uint16_t offset, uint32_t field, uint32_t value)
{
	int found = -1;

	for (size_t t = 0; t < p->task_count; t++)
		for (size_t i = 0; i < p->tasks[t].body; i++) {
			uint64_t *q = &p->q[p->tasks[t].start + i];

			if (npu_rc_target(*q) == 0 || npu_rc_offset(*q) != offset)
				continue;
			*q = npu_rc_entry(npu_rc_target(*q),
					  (npu_rc_value(*q) & ~field) | (value & field), offset);
			found = 0;
		}
	return found;
}

/* The program's tasks linked at prog and described for the driver. */
int finish_program(struct rc_program *p, const struct dma_buf *prog, struct npu_task *tasks)
{
	if (p->err || rc_program_link(p, prog->phys) ||
	    rc_program_tasks(p, prog->phys, 0, p->task_count, tasks))
		return -1;
	hal_dcache_clean(prog->cpu, prog->size);
	return 0;
}

/* ---- pools ---- */

/* How run_pool submits: as built, or with the 0x0041 marker before op_en
 * turned into an empty qword (A7: a bare op_en). */
enum pool_submit { POOL_AS_BUILT, POOL_BARE_OP_EN };

#define POOL_MAX_TASKS	2u

/* `count` standalone int8 pools (lower_pool) of the same random data in
 * one chain; *status gets the chain's INTERRUPT_STATUS (NULL: not wanted). */
static int run_pool(struct probe_env *e, const struct lower_pool_op *tmpl, int8_t *in_host,
		    int8_t *out_host, enum pool_submit how, unsigned int count, uint32_t *status)
{
	struct lower_pool_shape s;
	struct lower_pool_op op = *tmpl;
	struct dma_buf in = { 0 }, out = { 0 }, prog = { 0 };
	struct rc_task rt[POOL_MAX_TASKS];
	struct npu_task task[POOL_MAX_TASKS];
	struct rc_program p;
	size_t cap = rc_program_size(count, POOL_TASK_MAX_ENTRIES);
	int rc = -1;

	if (count > POOL_MAX_TASKS || lower_pool_check(&op, &s) ||
	    dma_pool_alloc(e->pool, s.in_bytes, DMA_POOL_MIN_ALIGN, &in) ||
	    dma_pool_alloc(e->pool, s.out_bytes, DMA_POOL_MIN_ALIGN, &out) ||
	    dma_pool_alloc(e->pool, cap * sizeof(uint64_t), RC_TASK_ALIGN_BYTES, &prog))
		goto out;
	layout_nchw_to_nc1hwc2(NPU_PREC_INT8, in_host, in.cpu, op.in_h, op.in_w, op.c, op.c);
	hal_dcache_clean(in.cpu, in.size);
	op.in_addr = in.phys;
	op.out_addr = out.phys;
	rc_program_init(&p, prog.cpu, cap, rt, count);
	for (unsigned int i = 0; i < count; i++)
		if (lower_pool(&p, &op))
			goto out;
	if (how == POOL_BARE_OP_EN) {
		uint64_t *marker = &p.q[rt[0].start + rt[0].body + NPU_RC_TAIL_QWORDS - 2u];

		if (npu_rc_target(*marker) != NPU_RC_TARGET_MARKER)
			goto out;
		*marker = 0;
	}
	if (finish_program(&p, &prog, task) || submit_chain(e, task, count, &out, status))
		goto out;
	layout_nc1hwc2_to_nchw(NPU_PREC_INT8, out.cpu, out_host, s.out_h, s.out_w, op.c);
	rc = 0;
out:
	dma_pool_release(e->pool, &prog);
	dma_pool_release(e->pool, &out);
	dma_pool_release(e->pool, &in);
	return rc;
}

/* Max 2x2/2 of `in` computed here, wrong results counted. */
unsigned int max_pool_wrong(const int8_t *in, const int8_t *out)
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

const struct lower_pool_op max_pool_op = {
	.prec = NPU_PREC_INT8, .method = LOWER_POOL_MAX, .in_h = POOL_HW, .in_w = POOL_HW,
	.c = POOL_C, .kh = 2, .kw = 2, .stride_y = 2, .stride_x = 2,
};

/* The max pool on random data, `count` tasks in a chain submitted `how`:
 * wrong results, or -1 when the job failed. */
static int max_pool(struct probe_env *e, enum pool_submit how, unsigned int count,
		    uint32_t *status)
{
	int8_t in[POOL_C * POOL_HW * POOL_HW], out[POOL_C * 9];

	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = rnd8(e);
	if (run_pool(e, &max_pool_op, in, out, how, count, status))
		return -1;
	return (int)max_pool_wrong(in, out);
}

/* ---- convolutions ---- */

/*
 * What a convolution probe changes in the task the builders make (zero:
 * nothing; the op then goes through lower_conv as a model would).
 */
struct conv_tweak {
	bool qd_en;			/* A11: CPEND with BS_OW_OP = ow_op */
	int32_t ow_op;
	const int32_t *mult;		/* A37: per-channel EW multiply (out_c int32) */
	unsigned int shift;
	const void *psum;		/* A39: per-pixel partial (int32 / fp32 NCHW) */
	bool half_atom;			/* A10: DATAIN_CHANNEL 8 over 16-byte atoms */
	const void *in_mem;		/* the input buffer as given (A10) */
	size_t in_mem_bytes;
	const void *w_mem;		/* the weight buffer as given (A10) */
	size_t w_mem_bytes;
	bool rdma_prec_int8;		/* A28: DPU_RDMA in/proc precision int8 */
	bool surf_mtx;			/* A9: mtx512's CNA SURF_STRIDE */
	unsigned int chan_real;		/* A10: DATAIN_CHANNEL_REAL + 1 (0: as built) */
	unsigned int rows;		/* A31: the input and output height (0: as built) */
	bool bn_mul;			/* A19: the BN stage multiplying by bn_operand */
	uint16_t bn_operand;
	unsigned int res_extra;		/* A34: zeroed bytes after the residual */
	unsigned int submits;		/* 0 or 1: once; 2: twice (A29) */
	void *y_first;			/* with two submits: the first output */
	float *w_packed;		/* a copy of the packed weights (fp16), as floats */
	size_t w_packed_len;		/* its room, in elements */
	/* a change of the caller's to the finished program (NULL: none) */
	int (*patch)(struct rc_program *p, const void *ctx);
	const void *patch_ctx;
};

static bool tweaks_task(const struct conv_tweak *tw)
{
	return tw && (tw->qd_en || tw->mult || tw->psum || tw->half_atom || tw->rows);
}

/* A partial's precision: int32 on int8 convolutions, fp32 on fp16. */
static enum npu_precision psum_prec(enum npu_precision prec)
{
	return prec == NPU_PREC_FP16 ? NPU_PREC_FP32 : NPU_PREC_INT32;
}

/*
 * One convolution (op without addresses) on its own buffers: x NCHW in the
 * op's input precision, weights in the importer's order (OHWI, depthwise
 * [kh][kw][C]), for fp16 an fp32 bias (NULL: none; int8 ops get the bias
 * lower_conv_pack corrects from none), the NCHW residual when
 * tmpl->residual; y the NCHW output in the output precision (int8, int32
 * sums or fp16). tw: the probe's change (NULL: none).
 */
static int run_conv(struct probe_env *e, const struct lower_conv_op *tmpl, const void *x,
		    const void *w, const float *bias_f, const void *res, void *y,
		    const struct conv_tweak *tw)
{
	struct lower_conv_op op = *tmpl;
	bool fp16 = op.prec == NPU_PREC_FP16;
	enum npu_precision out_prec = fp16 ? NPU_PREC_FP16 :
				      op.out_int32 ? NPU_PREC_INT32 : NPU_PREC_INT8;
	struct lower_conv_shape s;
	struct dma_buf in = { 0 }, wt = { 0 }, bias = { 0 }, out = { 0 }, prog = { 0 };
	struct dma_buf rb = { 0 }, mb = { 0 }, pb = { 0 }, scratch = { 0 };
	struct rc_task rt[2];
	struct npu_task task[2];
	struct rc_program p;
	struct conv_task t;
	size_t cap = rc_program_size(2, CONV_TASK_MAX_ENTRIES), tasks = 0, pbytes = 0;
	unsigned int submits = tw && tw->submits ? tw->submits : 1u, count;
	int rc = -1;

	e->err[0] = '\0';
	if (lower_conv_check(&op, &s))
		goto out;
	if (tw && tw->rows) {
		/* a 1x1 op taller than the compiler takes (A31): sized here */
		s.in_bytes = layout_nc1hwc2_bytes(op.prec, tw->rows, op.in_w, s.in_c_aligned);
		s.out_bytes = layout_nc1hwc2_bytes(out_prec, tw->rows, s.out_w, s.out_c_aligned);
		s.out_h = tw->rows;
	}
	if (tw && tw->psum)
		pbytes = layout_nc1hwc2_bytes(psum_prec(op.prec), s.out_h, s.out_w,
					      s.out_c_aligned);
	if (dma_pool_alloc(e->pool, s.in_bytes, DMA_POOL_MIN_ALIGN, &in) ||
	    /* twice the packed bytes: room for a reading of 32 lanes (A38) */
	    dma_pool_alloc(e->pool, 2u * s.weight_bytes, DMA_POOL_MIN_ALIGN, &wt) ||
	    dma_pool_alloc(e->pool, s.bias_bytes, DMA_POOL_MIN_ALIGN, &bias) ||
	    dma_pool_alloc(e->pool, s.out_bytes, DMA_POOL_MIN_ALIGN, &out) ||
	    dma_pool_alloc(e->pool, cap * sizeof(uint64_t), RC_TASK_ALIGN_BYTES, &prog) ||
	    (op.residual && dma_pool_alloc(e->pool, s.res_bytes + (tw ? tw->res_extra : 0u),
					   DMA_POOL_MIN_ALIGN, &rb)) ||
	    /* ERDMA reads an operand for every channel the DPU produces */
	    (tw && tw->mult && dma_pool_alloc(e->pool, s.out_c_aligned * sizeof(int32_t),
					      DMA_POOL_MIN_ALIGN, &mb)) ||
	    (pbytes && (dma_pool_alloc(e->pool, pbytes, DMA_POOL_MIN_ALIGN, &pb) ||
			dma_pool_alloc(e->pool, s.out_bytes, DMA_POOL_MIN_ALIGN, &scratch))))
		goto out;
	memset(wt.cpu, 0, wt.size);
	if (lower_conv_pack(&op, &s, w, NULL, wt.cpu, fp16 ? NULL : bias.cpu, NULL))
		goto out;
	if (tw && tw->w_mem) {
		if (tw->w_mem_bytes > wt.size)
			goto out;
		memset(wt.cpu, 0, wt.size);
		memcpy(wt.cpu, tw->w_mem, tw->w_mem_bytes);
	}
	if (tw && tw->w_packed)
		for (size_t i = 0; i < tw->w_packed_len && i < wt.size / 2u; i++)
			tw->w_packed[i] = layout_f16_to_f32(((const uint16_t *)wt.cpu)[i]);
	if (op.residual) {
		memset(rb.cpu, 0, rb.size);
		layout_nchw_to_nc1hwc2(op.prec, res, rb.cpu, s.out_h, s.out_w, op.out_c,
				       s.out_c_aligned);
		hal_dcache_clean(rb.cpu, rb.size);
		op.res_addr = rb.phys;
	}
	if (mb.size) {
		memset(mb.cpu, 0, mb.size);
		memcpy(mb.cpu, tw->mult, op.out_c * sizeof(int32_t));
		hal_dcache_clean(mb.cpu, mb.size);
	}
	if (pb.size) {
		memset(pb.cpu, 0, pb.size);
		layout_nchw_to_nc1hwc2(psum_prec(op.prec), tw->psum, pb.cpu, s.out_h, s.out_w,
				       op.out_c, s.out_c_aligned);
		hal_dcache_clean(pb.cpu, pb.size);
	}
	if (fp16)
		lower_conv_pack_bias_fp16(&op, &s, bias_f, bias.cpu);
	memset(in.cpu, 0, in.size);
	if (tw && tw->in_mem && tw->in_mem_bytes <= in.size)
		memcpy(in.cpu, tw->in_mem, tw->in_mem_bytes);
	else if (tw && tw->in_mem)
		goto out;
	else
		layout_nchw_to_nc1hwc2(op.prec, x, in.cpu, tw && tw->rows ? tw->rows : op.in_h,
				       op.in_w, op.in_c, s.in_c_aligned);
	hal_dcache_clean(in.cpu, in.size);
	hal_dcache_clean(wt.cpu, wt.size);
	hal_dcache_clean(bias.cpu, bias.size);
	op.in_addr = in.phys;
	op.weight_addr = wt.phys;
	op.bias_addr = !fp16 || bias_f ? bias.phys : 0;
	op.out_addr = out.phys;
	rc_program_init(&p, prog.cpu, cap, rt, 2);
	if (lower_conv_task_count(&op, &tasks) || (tasks != 1 && !(tw && tw->rows)))
		goto out;
	if (!tweaks_task(tw)) {
		if (lower_conv(&p, &op))
			goto out;
	} else {
		if (lower_conv_task(&op, &t))
			goto out;
		if (tw->qd_en) {
			t.qd_en = true;
			t.ow_op = tw->ow_op;
		}
		if (tw->rows) {
			t.in_h_full = t.in_rows = tw->rows;
			t.out_h_full = t.out_rows = tw->rows;
		}
		if (tw->mult) {
			t.scale_addr = mb.phys;
			t.scale_shift = tw->shift;
		}
		if (tw->half_atom) {
			/* half an atom of channels: the weights hold only those */
			t.in_c_aligned = t.in_c;
			t.weight_bytes_per_kernel = t.kh * t.kw * t.in_c;
			t.weight_bytes = t.weight_bytes_per_kernel * t.kernels;
		}
		if (tw->psum) {
			/* the partial is read after a task, as an input-channel
			 * split's second task reads the first's (lower_tile.c) */
			struct conv_task first = t;

			first.out_addr = scratch.phys;
			if (lower_tile(&p, &first))
				goto out;
			t.ew_add_addr = pb.phys;
		}
		if (tw->rows) {
			/* one task of all the rows, past the cut the lowering makes
			 * (feature_grains' 10 bits), written as gemm.py's tall tasks */
			struct lower_tile_plan plan;

			if (lower_tile_plan(&t, &plan))
				goto out;
			plan.rows_per_task = t.out_h_full;
			plan.row_tasks = 1;
			if (lower_tile_emit(&p, &t, &plan) ||
			    patch_field(&p, NPU_CNA_CONV_CON2,
					NPU_FV(CNA, CONV_CON2, FEATURE_GRAINS, ~0u) |
					NPU_CNA_CONV_CON2_GEMM_TALL, NPU_CNA_CONV_CON2_GEMM_TALL))
				goto out;
		} else if (lower_tile(&p, &t)) {
			goto out;
		}
		if (tw->rows && p.task_count != 1) {
			snprintf(e->err, sizeof(e->err), "the tiling made %zu tasks", p.task_count);
			goto out;
		}
	}
	if (tw && tw->rdma_prec_int8 &&
	    patch_field(&p, NPU_DPU_RDMA_FEATURE_MODE_CFG,
			NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, IN_PRECISION, ~0u) |
			NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, PROC_PRECISION, ~0u),
			NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, IN_PRECISION, NPU_PREC_INT8) |
			NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, PROC_PRECISION, NPU_PREC_INT8)))
		goto out;
	if (tw && tw->surf_mtx &&
	    patch_field(&p, NPU_CNA_DMA_CON2, NPU_FV(CNA, DMA_CON2, SURF_STRIDE, ~0u),
			NPU_FV(CNA, DMA_CON2, SURF_STRIDE,
			       (uint32_t)NPU_CNA_SURF_STRIDE_MTX_SHORT)))
		goto out;
	if (tw && tw->chan_real &&
	    patch_field(&p, NPU_CNA_DATA_SIZE1, NPU_FV(CNA, DATA_SIZE1, DATAIN_CHANNEL_REAL, ~0u),
			NPU_FV(CNA, DATA_SIZE1, DATAIN_CHANNEL_REAL, tw->chan_real - 1u)))
		goto out;
	if (tw && tw->bn_mul &&
	    (patch_field(&p, NPU_DPU_BN_CFG,
			 NPU_FV(DPU, BN_CFG, BN_MUL_BYPASS, ~0u) | NPU_FV(DPU, BN_CFG, BN_BYPASS, ~0u),
			 0) ||
	     patch_field(&p, NPU_DPU_BN_MUL_CFG, ~0u,
			 NPU_FV(DPU, BN_MUL_CFG, BN_MUL_OPERAND, tw->bn_operand))))
		goto out;
	if (tw && tw->patch && tw->patch(&p, tw->patch_ctx))
		goto out;
	count = (unsigned int)p.task_count;
	if (finish_program(&p, &prog, task))
		goto out;
	for (unsigned int i = 0; i < submits; i++) {
		if (i) {
			layout_nc1hwc2_to_nchw(out_prec, out.cpu, tw->y_first, s.out_h, s.out_w,
					       op.out_c);
			/* clear the output so the second submit shows its own */
			memset(out.cpu, 0, out.size);
			hal_dcache_clean(out.cpu, out.size);
		}
		if (submit_chain(e, task, count, &out, NULL))
			goto out;
	}
	layout_nc1hwc2_to_nchw(out_prec, out.cpu, y, s.out_h, s.out_w, op.out_c);
	rc = 0;
out:
	dma_pool_release(e->pool, &scratch);
	dma_pool_release(e->pool, &pb);
	dma_pool_release(e->pool, &mb);
	dma_pool_release(e->pool, &rb);
	dma_pool_release(e->pool, &prog);
	dma_pool_release(e->pool, &out);
	dma_pool_release(e->pool, &bias);
	dma_pool_release(e->pool, &wt);
	dma_pool_release(e->pool, &in);
	return rc;
}

int run_conv_patched(struct probe_env *e, const struct lower_conv_op *op, const void *x,
		     const void *w, void *y, int (*patch)(struct rc_program *p, const void *ctx),
		     const void *ctx)
{
	const struct conv_tweak tw = { .patch = patch, .patch_ctx = ctx };

	return run_conv(e, op, x, w, NULL, NULL, y, &tw);
}

/* ---- the probes ---- */


static int probe_version(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	snprintf(seen, len, "VERSION + VERSION_NUM = 0x%08x", e->npu->version);
	return e->npu->version == PROBE_NPU_VERSION ? 0 : 1;
}

/* The control: M = 4 (whole line groups, no short-surface stride). */
#define MM_CONTROL_M	4

static int short_matmul(struct probe_env *e, int m, char *seen, size_t len)
{
	int ctl = int32_matmul(e, MM_CONTROL_M, RKNN_NPU_CORE_0), bad;

	if (ctl < 0)
		return job_failed(e, seen, len, "the control matmul failed");
	bad = int32_matmul(e, m, RKNN_NPU_CORE_0);
	if (bad < 0)
		return job_failed(e, seen, len, "the job failed");
	snprintf(seen, len, "int8 %dx64x64 -> int32: %d of %d wrong (control M = %d: %d wrong)",
		 m, bad, m * 64, MM_CONTROL_M, ctl);
	return ctl || bad ? PROBE_NONE : 0;
}

static int probe_m1(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	return short_matmul(e, 1, seen, len);
}

/*
 * A9, M = 3: a 3x64 by 64x64 int8 matmul as rkbare lowers it (a 1x1
 * convolution of width 1 and height 3, int32 out), with the CNA surface
 * stride as built (the captures' W·(H − 4)) and with mtx512's -3. Readings:
 * only the captures' value right (captures), only mtx512's (mtx), both.
 * The control is the same shape with M = 4.
 */
enum { MM3_K = 64, MM3_N = 64 };

static int matmul_conv(struct probe_env *e, unsigned int m, bool mtx, unsigned int *wrong)
{
	const struct lower_conv_op op = {
		.prec = NPU_PREC_INT8, .out_int32 = true, .in_h = m, .in_w = 1, .in_c = MM3_K,
		.out_c = MM3_N, .kh = 1, .kw = 1, .stride_y = 1, .stride_x = 1,
		.explicit_pads = true, .in_scale = 1.0f, .w_scale = &one_scale,
		.w_scale_count = 1, .out_scale = 1.0f,
	};
	static int8_t x[MM3_K * MM_CONTROL_M], w[MM3_N * MM3_K];
	static int32_t y[MM3_N * MM_CONTROL_M];
	const struct conv_tweak tw = { .surf_mtx = mtx };
	const struct probe_conv8 cv = { .x = x, .w = w, .c = MM3_K, .h = m, .w_ = 1,
					.k = MM3_N, .kh = 1, .kw = 1 };

	for (size_t i = 0; i < (size_t)MM3_K * m; i++)
		x[i] = rnd8(e);
	for (size_t i = 0; i < sizeof(w); i++)
		w[i] = rnd8(e);
	if (run_conv(e, &op, x, w, NULL, NULL, y, &tw))
		return -1;
	*wrong = 0;
	for (unsigned int k = 0; k < MM3_N; k++)
		for (unsigned int r = 0; r < m; r++)
			*wrong += y[k * m + r] != probe_conv8_acc(&cv, k, r, 0);
	return 0;
}

static int probe_m3(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	unsigned int ctl = 0, ours = 0, mtx = 0;
	bool mtx_ran;

	if (matmul_conv(e, MM_CONTROL_M, false, &ctl))
		return job_failed(e, seen, len, "the control (M = 4) failed");
	if (matmul_conv(e, 3, false, &ours))
		return job_failed(e, seen, len, "the job with the captures' stride failed");
	mtx_ran = !matmul_conv(e, 3, true, &mtx);
	snprintf(seen, len, "int8 3x64x64 -> int32 as a width-1 conv: %u of 192 wrong with "
		 "W(H-4), %s with mtx512's -3 (control M = 4: %u wrong)", ours,
		 mtx_ran ? (mtx ? "some wrong" : "0 wrong") : "the job failed", ctl);
	if (ctl)
		return PROBE_NONE;
	if (!ours)
		return mtx_ran && !mtx ? 2 : 0;
	return mtx_ran && !mtx ? 1 : PROBE_NONE;
}

static int probe_cores(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	static const rknn_core_mask masks[] = { RKNN_NPU_CORE_0, RKNN_NPU_CORE_1,
						RKNN_NPU_CORE_2, RKNN_NPU_CORE_0_1_2 };
	int bad[4];

	for (size_t i = 0; i < 4u; i++) {
		bad[i] = int32_matmul(e, 16, masks[i]);
		if (bad[i] < 0)
			return job_failed(e, seen, len, "a job failed");
	}
	snprintf(seen, len, "int8 16x64x64 wrong results: core 0 (control) %d, core 1 %d, "
		 "core 2 %d, cores 0-2 %d", bad[0], bad[1], bad[2], bad[3]);
	return bad[0] || bad[1] || bad[2] || bad[3] ? PROBE_NONE : 0;
}

/*
 * OUT_CVT ties: an int8 → int8 matmul with A and B scales 1 and C scale 2
 * requantises acc / 2, an exact half for every odd acc.
 */
static int probe_ties(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	struct mm x;
	int32_t acc[4 * 32];
	int64_t got[4 * 32];
	int r;

	/* operands within ±3: acc / 2 stays inside int8 */
	if (mm_run(e, &x, RKNN_INT8_MM_INT8_TO_INT8, 4, 32, 32, RKNN_NPU_CORE_0, 2.0f, 4)) {
		mm_close(&x);
		return job_failed(e, seen, len, "the job failed");
	}
	for (int i = 0; i < x.m; i++)
		for (int j = 0; j < x.n; j++) {
			acc[i * x.n + j] = mm_acc(&x, i, j);
			got[i * x.n + j] = ((const int8_t *)x.c->virt_addr)[i * x.n + j];
		}
	r = say_int(seen, len, "int8 matmul, C scale 2: acc / 2", acc, probe_ties_expect,
		    self, got, (size_t)x.m * x.n);
	mm_close(&x);
	return r;
}

/* Standalone max pool 2x2 / 2 through PPU_RDMA: flying_mode 1 (A15). */
static int probe_pool_source(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	int bad = max_pool(e, POOL_AS_BUILT, 1, NULL);

	if (bad < 0)
		return job_failed(e, seen, len, "the standalone pool job failed (PPU waiting "
				  "for the DPU?)");
	snprintf(seen, len, "max 2x2/2 from memory (flying_mode 1): %d of %d wrong", bad,
		 POOL_C * 9);
	return bad ? PROBE_NONE : 0;
}

/*
 * int8 average 2x2: sum × (2^16 / 2)^2 / 2^32. Every window here sums to 2
 * mod 4, a half: the readings are how that half rounds.
 */
static int probe_pool_ties(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	const struct lower_pool_op op = {
		.prec = NPU_PREC_INT8, .method = LOWER_POOL_AVG, .in_h = POOL_HW,
		.in_w = POOL_HW, .c = POOL_C, .kh = 2, .kw = 2, .stride_y = 2, .stride_x = 2,
	};
	int8_t in[POOL_C * POOL_HW * POOL_HW], out[POOL_C * 9];
	int32_t sum[POOL_C * 9];
	int64_t got[POOL_C * 9];

	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (int8_t)(rnd8(e) / 2);
	/* make each window's sum 2 mod 4 through its bottom-right cell */
	for (int c = 0; c < POOL_C; c++)
		for (int y = 0; y < 3; y++)
			for (int x = 0; x < 3; x++) {
				int8_t *w = &in[(c * POOL_HW + 2 * y) * POOL_HW + 2 * x];
				int s = w[0] + w[1] + w[POOL_HW] + w[POOL_HW + 1];

				w[POOL_HW + 1] = (int8_t)(w[POOL_HW + 1] + ((2 - s) & 3));
			}
	if (run_pool(e, &op, in, out, POOL_AS_BUILT, 1, NULL))
		return job_failed(e, seen, len, "the average pool job failed");
	for (int c = 0; c < POOL_C; c++)
		for (int y = 0; y < 3; y++)
			for (int x = 0; x < 3; x++) {
				const int8_t *w = &in[(c * POOL_HW + 2 * y) * POOL_HW + 2 * x];
				int i = (c * 3 + y) * 3 + x;

				sum[i] = w[0] + w[1] + w[POOL_HW] + w[POOL_HW + 1];
				got[i] = out[i];
			}
	return say_int(seen, len, "avg 2x2, every window on a half", sum,
		       probe_pool_ties_expect, self, got, POOL_C * 9);
}

/*
 * A15: an int8 3x3 / 3 average, sum × 21845² / 2^32 (RECIP 2^16 / 3): the
 * product is never exact, so its rounding shows on every window: nearest
 * (the model; equal to exact division for int8 windows) or floored.
 */
static int probe_pool_avg3(struct probe_env *e, const struct probe *self, char *seen,
			   size_t len)
{
	const struct lower_pool_op op = {
		.prec = NPU_PREC_INT8, .method = LOWER_POOL_AVG, .in_h = POOL_HW,
		.in_w = POOL_HW, .c = POOL_C, .kh = 3, .kw = 3, .stride_y = 3, .stride_x = 3,
	};
	int8_t in[POOL_C * POOL_HW * POOL_HW], out[POOL_C * 4];
	int32_t sum[POOL_C * 4];
	int64_t got[POOL_C * 4];
	const struct probe_avg avg = { sum, 3 };

	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = rnd8(e);
	if (run_pool(e, &op, in, out, POOL_AS_BUILT, 1, NULL))
		return job_failed(e, seen, len, "the average pool job failed");
	for (int c = 0; c < POOL_C; c++)
		for (int y = 0; y < 2; y++)
			for (int x = 0; x < 2; x++) {
				int i = (c * 2 + y) * 2 + x;

				sum[i] = 0;
				for (int dy = 0; dy < 3; dy++)
					for (int dx = 0; dx < 3; dx++)
						sum[i] += in[(c * POOL_HW + 3 * y + dy) * POOL_HW +
							     3 * x + dx];
				got[i] = out[i];
			}
	return say_int(seen, len, "avg 3x3/3", &avg, probe_avg_expect, self, got, POOL_C * 4);
}

/*
 * A7: the TRM asks for the 0x0041 marker before op_en, but board-run
 * Rocket streams end in a bare op_en. The control runs the pool task as
 * built; the case with its marker turned into an empty qword: exact results
 * read bare-ok, a job that does not complete needs-marker.
 */
static int probe_bare_op_en(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	int ctl = max_pool(e, POOL_AS_BUILT, 1, NULL), bad;

	if (ctl)
		return ctl < 0 ? job_failed(e, seen, len, "the control pool failed") :
		       (snprintf(seen, len, "the control pool (with the marker): %d wrong", ctl),
			PROBE_NONE);
	bad = max_pool(e, POOL_BARE_OP_EN, 1, NULL);
	if (bad < 0) {
		snprintf(seen, len, "the task ending in a bare op_en did not complete (%s)",
			 e->err[0] ? e->err : "error");
		return 1;
	}
	snprintf(seen, len, "max pool ending in a bare op_en: %d of %d wrong (control exact)",
		 bad, POOL_C * 9);
	return bad ? PROBE_NONE : 0;
}

/* A2 readings from a chain's PPU status bits. */
enum { PAIRS_PER_GROUP, PAIRS_LOW, PAIRS_HIGH };

static int pairs_reading(uint32_t st)
{
	st &= NPU_INT_PPU;
	return st == NPU_INT_PPU ? PAIRS_PER_GROUP : st == NPU_INT_PPU_0 ? PAIRS_LOW :
	       st == NPU_INT_PPU_1 ? PAIRS_HIGH : PROBE_NONE;
}

/*
 * A2: a finished block sets the bit of the register group it ran. Two pool
 * tasks chained in one kick run in both groups (the executer toggles after
 * each task whatever S_POINTER's pointer does), so the chain's status shows
 * both PPU bits (per-group), or always the same one (low-only, high-only).
 */
static int probe_status_pair(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	uint32_t st = 0;
	int bad = max_pool(e, POOL_AS_BUILT, 2, &st);

	if (bad < 0)
		return job_failed(e, seen, len, "the two-task pool chain failed");
	snprintf(seen, len, "INTERRUPT_STATUS after a chain of two pool tasks: 0x%08x "
		 "(per-group: 0x%x; results %d wrong)", st, NPU_INT_PPU, bad);
	return bad ? PROBE_NONE : pairs_reading(st);
}

/*
 * A1: whether two separate kicks land in different register groups (the
 * pointer toggling across kicks) or the same one. The group shows only
 * through A2's per-group bits: the control is A2's chain, which must read
 * per-group; then two one-task kicks each report one PPU bit.
 */
static int probe_pointer(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	uint32_t ctl = 0, st[2] = { 0, 0 };

	if (max_pool(e, POOL_AS_BUILT, 2, &ctl) < 0)
		return job_failed(e, seen, len, "the control chain failed");
	if (pairs_reading(ctl) != PAIRS_PER_GROUP) {
		snprintf(seen, len, "control: a two-task chain shows 0x%08x, not both PPU bits: "
			 "the group of a kick cannot be seen (A2-pairs)", ctl);
		return PROBE_NONE;
	}
	for (int i = 0; i < 2; i++)
		if (max_pool(e, POOL_AS_BUILT, 1, &st[i]) < 0)
			return job_failed(e, seen, len, "a one-task kick failed");
	snprintf(seen, len, "INTERRUPT_STATUS of two one-task kicks: 0x%08x, 0x%08x (control "
		 "chain 0x%08x)", st[0], st[1], ctl);
	st[0] &= NPU_INT_PPU;
	st[1] &= NPU_INT_PPU;
	if ((st[0] != NPU_INT_PPU_0 && st[0] != NPU_INT_PPU_1) ||
	    (st[1] != NPU_INT_PPU_0 && st[1] != NPU_INT_PPU_1))
		return PROBE_NONE;
	return st[0] != st[1] ? 0 : 1;
}

/* int8 3x3 convolutions with an input zero point, int32 sums out. */
enum { CI_C = 16, CI_HW = 6, CI_K = 8, CI_ZP = -91 };
#define CI_OUT	(CI_K * CI_HW * CI_HW)

static const struct lower_conv_op conv_int32_op = {
	.prec = NPU_PREC_INT8, .out_int32 = true, .in_h = CI_HW, .in_w = CI_HW,
	.in_c = CI_C, .out_c = CI_K, .kh = 3, .kw = 3, .stride_y = 1, .stride_x = 1,
	.explicit_pads = true, .pad_top = 1, .pad_left = 1, .pad_bottom = 1,
	.pad_right = 1, .in_scale = 1.0f, .in_zp = CI_ZP, .w_scale = &one_scale,
	.w_scale_count = 1, .out_scale = 1.0f,
};

/* The random data of a conv_int32_op job and its CPU view. */
struct ci_data {
	int8_t x[CI_C * CI_HW * CI_HW], w[CI_K * 3 * 3 * CI_C];	/* NCHW, OHWI */
	int32_t y[CI_OUT];
	int64_t got[CI_OUT], base[CI_OUT], raw[CI_OUT];
	struct probe_conv8 cv;
};

/* raw: Σ x'·w with padding at the zero point; base: Σ (x − zp)·w over the
 * real input, what the zero-point-correcting bias makes of it. */
static void ci_fill(struct probe_env *e, struct ci_data *d)
{
	for (size_t i = 0; i < sizeof(d->x); i++)
		d->x[i] = rnd8(e);
	for (size_t i = 0; i < sizeof(d->w); i++)
		d->w[i] = rnd8(e);
	d->cv = (struct probe_conv8){ .x = d->x, .w = d->w, .c = CI_C, .h = CI_HW,
				      .w_ = CI_HW, .k = CI_K, .kh = 3, .kw = 3, .pad = 1,
				      .pad_value = CI_ZP };
	for (unsigned int k = 0; k < CI_K; k++) {
		int64_t wsum = 0;

		for (size_t j = 0; j < 9u * CI_C; j++)
			wsum += d->w[k * 9u * CI_C + j];
		for (unsigned int p = 0; p < CI_HW * CI_HW; p++) {
			size_t i = k * CI_HW * CI_HW + p;

			d->raw[i] = probe_conv8_acc(&d->cv, k, p / CI_HW, p % CI_HW);
			d->base[i] = d->raw[i] - (int64_t)CI_ZP * wsum;
		}
	}
}

/*
 * A27: int32 sums with the bias: a 3x3 int8 convolution whose input zero
 * point is corrected by the bias (BS add) and whose sums leave the DPU as
 * int32 (OUT_CVT the identity), as ConvInteger runs. Readings: the bias
 * added (bias-added) or not (no-bias: the raw sums).
 */
static int probe_int32_bias(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	static struct ci_data d;
	const int64_t *want[2] = { d.base, d.raw };
	struct probe_table tab = { want };

	ci_fill(e, &d);
	if (run_conv(e, &conv_int32_op, d.x, d.w, NULL, NULL, d.y, NULL))
		return job_failed(e, seen, len, "the job failed");
	for (size_t i = 0; i < CI_OUT; i++)
		d.got[i] = d.y[i];
	return say_int(seen, len, "3x3 int8 conv, input zp -91, int32 out", &tab,
		       probe_table_expect, self, d.got, CI_OUT);
}

/*
 * A11 (CPEND): MISC_CFG.qd_en with BS_OW_CFG.od_bypass 0 and BS_OW_OP =
 * CPEND_OP on the same convolution: the model adds BS_OW_OP × the sum of
 * the input window, padding cells holding the pad value in every one of
 * DATAIN_CHANNEL's lanes (all-lanes; 32 here for 16 real channels); or in
 * the real channels only (real-lanes); or without the padding cells
 * (pad-excluded); or nothing (no-term). The control is A27's case
 * without the term.
 */
#define CPEND_OP	37
enum { CPEND_READINGS = 4 };

static int probe_cpend(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	static struct ci_data d;
	static int64_t want[CPEND_READINGS][CI_OUT];
	const int64_t *wants[CPEND_READINGS] = { want[0], want[1], want[2], want[3] };
	struct probe_table tab = { wants };
	const struct conv_tweak tw = { .qd_en = true, .ow_op = CPEND_OP };
	struct lower_conv_shape s;
	unsigned int ctl = 0, lanes[CPEND_READINGS];

	if (lower_conv_check(&conv_int32_op, &s))
		return job_failed(e, seen, len, "the convolution was refused");
	lanes[0] = s.in_c_aligned;
	lanes[1] = CI_C;
	lanes[2] = 0;
	ci_fill(e, &d);
	if (run_conv(e, &conv_int32_op, d.x, d.w, NULL, NULL, d.y, NULL))
		return job_failed(e, seen, len, "the control job failed");
	for (size_t i = 0; i < CI_OUT; i++)
		ctl += d.y[i] != d.base[i];
	if (ctl) {
		snprintf(seen, len, "control (no CPEND term): %u of %d sums wrong", ctl, CI_OUT);
		return PROBE_NONE;
	}
	if (run_conv(e, &conv_int32_op, d.x, d.w, NULL, NULL, d.y, &tw))
		return job_failed(e, seen, len, "the job failed");
	for (size_t i = 0; i < CI_OUT; i++) {
		unsigned int p = (unsigned int)(i % (CI_HW * CI_HW));

		for (int h = 0; h < CPEND_READINGS - 1; h++)
			want[h][i] = d.base[i] + CPEND_OP *
				     probe_conv8_window_sum(&d.cv, p / CI_HW, p % CI_HW, lanes[h]);
		want[CPEND_READINGS - 1][i] = d.base[i];
		d.got[i] = d.y[i];
	}
	return say_int(seen, len, "3x3 int8 conv, 16 channels, pad 1, qd_en, BS_OW_OP 37, "
		       "int32 out", &tab, probe_table_expect, self, d.got, CI_OUT);
}

/*
 * A10: a 1x1 int8 convolution of 8 input channels with DATAIN_CHANNEL 8,
 * half an atom: the input buffer holds 16-byte atoms whose lanes 8-15 are
 * random; the first-lanes reading uses lanes 0-7 of each pixel's atom, the
 * packed reading 8 bytes per pixel back to back.
 */
enum { HA_C = 8, HA_HW = 4, HA_K = 16 };

static int probe_half_atom(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	const struct lower_conv_op op = {
		.prec = NPU_PREC_INT8, .out_int32 = true, .in_h = HA_HW, .in_w = HA_HW,
		.in_c = HA_C, .out_c = HA_K, .kh = 1, .kw = 1, .stride_y = 1, .stride_x = 1,
		.explicit_pads = true, .in_scale = 1.0f, .w_scale = &one_scale,
		.w_scale_count = 1, .out_scale = 1.0f,
	};
	static int8_t mem[HA_HW * HA_HW * 16], w[HA_K * HA_C];
	static int32_t y[HA_K * HA_HW * HA_HW];
	static int64_t got[HA_K * HA_HW * HA_HW];
	const struct probe_half_atom ha = { mem, w, HA_HW * HA_HW, HA_K };
	const struct conv_tweak tw = { .half_atom = true, .in_mem = mem,
				       .in_mem_bytes = sizeof(mem), .w_mem = w,
				       .w_mem_bytes = sizeof(w) };

	for (size_t i = 0; i < sizeof(mem); i++)
		mem[i] = rnd8(e);
	for (size_t i = 0; i < sizeof(w); i++)
		w[i] = rnd8(e);
	/* lower_conv_pack packs w (OHWI, 8 channels) for whole atoms; the
	 * buffer then gets w as [kernels][8], the half-atom weight layout */
	if (run_conv(e, &op, NULL, w, NULL, NULL, y, &tw))
		return job_failed(e, seen, len, "the job failed");
	for (size_t i = 0; i < sizeof(y) / sizeof(y[0]); i++)
		got[i] = y[i];
	return say_int(seen, len, "1x1 int8 conv, 8 channels in 16-byte atoms, int32 out", &ha,
		       probe_half_atom_expect, self, got, sizeof(y) / sizeof(y[0]));
}

/* 1x1 int8 convolutions of EW_C channels, EW_HW² pixels, EW_K kernels. */
enum { EW_C = 16, EW_HW = 4, EW_K = 16 };
#define EW_OUT	(EW_K * EW_HW * EW_HW)

/*
 * A10 (§9.5): DATA_SIZE1.datain_channel_real, which rkbare writes as the
 * real channels less one (Mesa, MTX; one vendor stream differs), written
 * as 8 − 1 on a 1x1 convolution of 16 channels: ignored (the model: the
 * sums run over DATAIN_CHANNEL) or counts (the sums stop after 8
 * channels). The control is the same job as built.
 */
enum { CR_REAL = 8 };

static int probe_chan_real(struct probe_env *e, const struct probe *self, char *seen,
			   size_t len)
{
	const struct lower_conv_op op = {
		.prec = NPU_PREC_INT8, .out_int32 = true, .in_h = EW_HW, .in_w = EW_HW,
		.in_c = EW_C, .out_c = EW_K, .kh = 1, .kw = 1, .stride_y = 1, .stride_x = 1,
		.explicit_pads = true, .in_scale = 1.0f, .w_scale = &one_scale,
		.w_scale_count = 1, .out_scale = 1.0f,
	};
	static int8_t x[EW_C * EW_HW * EW_HW], w[EW_K * EW_C];
	static int32_t y[EW_OUT];
	static int64_t got[EW_OUT], full[EW_OUT], part[EW_OUT];
	const int64_t *want[2] = { full, part };
	struct probe_table tab = { want };
	const struct conv_tweak tw = { .chan_real = CR_REAL };
	const struct probe_conv8 cv = { .x = x, .w = w, .c = EW_C, .h = EW_HW, .w_ = EW_HW,
					.k = EW_K, .kh = 1, .kw = 1 };
	unsigned int ctl = 0;

	for (size_t i = 0; i < sizeof(x); i++)
		x[i] = rnd8(e);
	for (size_t i = 0; i < sizeof(w); i++)
		w[i] = rnd8(e);
	for (size_t i = 0; i < EW_OUT; i++) {
		unsigned int k = (unsigned int)(i / (EW_HW * EW_HW)), p = i % (EW_HW * EW_HW);

		full[i] = probe_conv8_acc(&cv, k, p / EW_HW, p % EW_HW);
		part[i] = 0;
		for (unsigned int c = 0; c < CR_REAL; c++)
			part[i] += x[c * EW_HW * EW_HW + p] * w[k * EW_C + c];
	}
	if (run_conv(e, &op, x, w, NULL, NULL, y, NULL))
		return job_failed(e, seen, len, "the control job failed");
	for (size_t i = 0; i < EW_OUT; i++)
		ctl += y[i] != full[i];
	if (ctl) {
		snprintf(seen, len, "control (as built): %u of %d sums wrong", ctl, EW_OUT);
		return PROBE_NONE;
	}
	if (run_conv(e, &op, x, w, NULL, NULL, y, &tw))
		return job_failed(e, seen, len, "the job failed");
	for (size_t i = 0; i < EW_OUT; i++)
		got[i] = y[i];
	return say_int(seen, len, "1x1 int8 conv of 16 channels, datain_channel_real 7", &tab,
		       probe_table_expect, self, got, EW_OUT);
}

/*
 * The EW multiply by a 32-bit per-channel operand, as per-channel
 * requantisation uses it (A12's truncation rounding, A37): a 1x1 int8
 * convolution with int32 output, the EW stage multiplying channel k by
 * mult[k] and shifting right by `shift`, OUT_CVT the identity.
 */

static int ew_mul_probe(struct probe_env *e, const int32_t *mult, unsigned int shift,
			probe_int_fn f, const struct probe *pr, const char *what, char *seen,
			size_t len)
{
	const struct lower_conv_op op = {
		.prec = NPU_PREC_INT8, .out_int32 = true, .in_h = EW_HW, .in_w = EW_HW,
		.in_c = EW_C, .out_c = EW_K, .kh = 1, .kw = 1, .stride_y = 1, .stride_x = 1,
		.explicit_pads = true, .in_scale = 1.0f, .w_scale = &one_scale,
		.w_scale_count = 1, .out_scale = 1.0f,
	};
	static int8_t x[EW_C * EW_HW * EW_HW], w[EW_K * EW_C];
	static int32_t y[EW_OUT], acc[EW_OUT], m[EW_OUT];
	static int64_t got[EW_OUT];
	const struct conv_tweak tw = { .mult = mult, .shift = shift };
	const struct probe_conv8 cv = { .x = x, .w = w, .c = EW_C, .h = EW_HW, .w_ = EW_HW,
					.k = EW_K, .kh = 1, .kw = 1 };
	const struct probe_ew_mul ew = { acc, m, shift };

	for (size_t i = 0; i < sizeof(x); i++)
		x[i] = rnd8(e);
	for (size_t i = 0; i < sizeof(w); i++)
		w[i] = rnd8(e);
	if (run_conv(e, &op, x, w, NULL, NULL, y, &tw))
		return job_failed(e, seen, len, "the job failed");
	for (size_t i = 0; i < EW_OUT; i++) {
		unsigned int k = (unsigned int)(i / (EW_HW * EW_HW)), p = i % (EW_HW * EW_HW);

		acc[i] = (int32_t)probe_conv8_acc(&cv, k, p / EW_HW, p % EW_HW);
		m[i] = mult[k];
		got[i] = y[i];
	}
	return say_int(seen, len, what, &ew, f, pr, got, EW_OUT);
}

static int probe_ew_round(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	int32_t mult[EW_K];
	unsigned int shift = probe_ew_operands(PROBE_EW_ROUND, mult, EW_K);

	return ew_mul_probe(e, mult, shift, probe_ew_round_expect, self,
			    "EW multiply by 1..7 >> 2, int32 out", seen, len);
}

static int probe_ew_width(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	int32_t mult[EW_K];
	unsigned int shift = probe_ew_operands(PROBE_EW_WIDTH, mult, EW_K);

	return ew_mul_probe(e, mult, shift, probe_ew_mul_expect, self,
			    "EW multiply by (2k+1)<<20 >> 20, int32 out", seen, len);
}

static int probe_ew_sat(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	int32_t mult[EW_K];
	unsigned int shift = probe_ew_operands(PROBE_EW_SAT, mult, EW_K);

	return ew_mul_probe(e, mult, shift, probe_ew_sat_expect, self,
			    "EW multiply by (k+1)<<16, no shift, int32 out", seen, len);
}

/*
 * A39 (int8): the input-channel split's partial-sum add: a second task adds
 * an int32 per-pixel operand through ERDMA (EW add, 32-bit, per pixel) to
 * its int32 sums (added), or the operand is not seen (ignored).
 */
#define PSUM_RANGE	(1 << 20)

static int probe_psum_int32(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	const struct lower_conv_op op = {
		.prec = NPU_PREC_INT8, .out_int32 = true, .in_h = EW_HW, .in_w = EW_HW,
		.in_c = EW_C, .out_c = EW_K, .kh = 1, .kw = 1, .stride_y = 1, .stride_x = 1,
		.explicit_pads = true, .in_scale = 1.0f, .w_scale = &one_scale,
		.w_scale_count = 1, .out_scale = 1.0f,
	};
	static int8_t x[EW_C * EW_HW * EW_HW], w[EW_K * EW_C];
	static int32_t y[EW_OUT], psum[EW_OUT];
	static int64_t got[EW_OUT], added[EW_OUT], plain[EW_OUT];
	const int64_t *want[2] = { added, plain };
	struct probe_table tab = { want };
	const struct conv_tweak tw = { .psum = psum };
	const struct probe_conv8 cv = { .x = x, .w = w, .c = EW_C, .h = EW_HW, .w_ = EW_HW,
					.k = EW_K, .kh = 1, .kw = 1 };

	for (size_t i = 0; i < sizeof(x); i++)
		x[i] = rnd8(e);
	for (size_t i = 0; i < sizeof(w); i++)
		w[i] = rnd8(e);
	for (size_t i = 0; i < EW_OUT; i++)
		psum[i] = (int32_t)(rnd32(e) % (2u * PSUM_RANGE)) - PSUM_RANGE;
	if (run_conv(e, &op, x, w, NULL, NULL, y, &tw))
		return job_failed(e, seen, len, "the job failed");
	for (size_t i = 0; i < EW_OUT; i++) {
		unsigned int k = (unsigned int)(i / (EW_HW * EW_HW)), p = i % (EW_HW * EW_HW);

		plain[i] = probe_conv8_acc(&cv, k, p / EW_HW, p % EW_HW);
		added[i] = plain[i] + psum[i];
		got[i] = y[i];
	}
	return say_int(seen, len, "1x1 int8 conv + int32 per-pixel partial (EW add)", &tab,
		       probe_table_expect, self, got, EW_OUT);
}

/*
 * fp16 convolutions. Values are q/64 with |q| <= 31, so every sum is exact
 * in fp32 and only the fp16 output rounds: a result more than an fp16 unit
 * in the last place from the CPU's is a different reading, not rounding.
 */
enum { CF_C = 24, CF_HW = 6, CF_K = 16 };
#define CF_MAX_OUT	(CF_C * CF_HW * CF_HW)

uint16_t rnd_f16(struct probe_env *e)
{
	return layout_f32_to_f16((float)(rnd8(e) % 32) / 64.0f);
}

/* An fp16 convolution (run_conv) whose output y gets as floats. */
static int run_conv_fp16(struct probe_env *e, const struct lower_conv_op *op, const uint16_t *x,
			 const uint16_t *w, const float *b, float *y, const struct conv_tweak *tw)
{
	static uint16_t y16[CF_MAX_OUT];

	if (run_conv(e, op, x, w, b, NULL, y16, tw))
		return -1;
	for (size_t i = 0; i < (size_t)op->out_c * CF_HW * CF_HW; i++)
		y[i] = layout_f16_to_f32(y16[i]);
	return 0;
}

/* The direct fp16 convolution of A28 and A39: x NCHW, w OHWI, as floats. */
static float conv_fp16_sum(const uint16_t *x, const uint16_t *w, unsigned int c,
			   unsigned int hw, unsigned int kk, unsigned int pad, unsigned int k,
			   unsigned int oy, unsigned int ox)
{
	float sum = 0.0f;

	for (unsigned int ky = 0; ky < kk; ky++)
		for (unsigned int kx = 0; kx < kk; kx++)
			for (unsigned int ci = 0; ci < c; ci++) {
				int iy = (int)(oy + ky) - (int)pad, ix = (int)(ox + kx) - (int)pad;

				if (iy < 0 || ix < 0 || iy >= (int)hw || ix >= (int)hw)
					continue;
				sum += layout_f16_to_f32(x[(ci * hw + (unsigned int)iy) * hw +
							   (unsigned int)ix]) *
				       layout_f16_to_f32(w[((k * kk + ky) * kk + kx) * c + ci]);
			}
	return sum;
}

/*
 * A28: a 3x3 pad 1 fp16 convolution, CF_C -> CF_K. The control runs it
 * without a bias (DPU_RDMA off); the case with an fp32 bias through BRDMA,
 * DPU_RDMA FEATURE_MODE_CFG in/proc precision as built (fp16) or, with
 * rdma_int8, int8 (what an earlier rkbare wrote): the readings are how the
 * words are taken (fp32, int32, fp16 halfwords) or not at all.
 */
static int fp16_bias_probe(struct probe_env *e, bool rdma_int8, const struct probe *pr,
			   char *seen, size_t len)
{
	const struct lower_conv_op op = {
		.prec = NPU_PREC_FP16, .in_h = CF_HW, .in_w = CF_HW, .in_c = CF_C,
		.out_c = CF_K, .kh = 3, .kw = 3, .stride_y = 1, .stride_x = 1,
		.explicit_pads = true, .pad_top = 1, .pad_left = 1, .pad_bottom = 1,
		.pad_right = 1,
	};
	static uint16_t x[CF_C * CF_HW * CF_HW], w[CF_K * 3 * 3 * CF_C];
	static float b[CF_K], y[CF_K * CF_HW * CF_HW], sum[CF_K * CF_HW * CF_HW];
	static float want[BIAS_READINGS][CF_K * CF_HW * CF_HW];
	const float *wants[BIAS_READINGS] = { want[0], want[1], want[2], want[3] };
	struct probe_ftable tab = { wants };
	const struct conv_tweak tw = { .rdma_prec_int8 = rdma_int8 };
	size_t n = CF_K * CF_HW * CF_HW;
	unsigned int ctl = 0, m[BIAS_READINGS];
	int r;

	for (size_t i = 0; i < sizeof(x) / 2u; i++)
		x[i] = rnd_f16(e);
	for (size_t i = 0; i < sizeof(w) / 2u; i++)
		w[i] = rnd_f16(e);
	for (size_t i = 0; i < CF_K; i++)
		b[i] = (float)(rnd8(e) % 31 + 1) / 64.0f;	/* never 0: "ignored" shows */
	for (size_t i = 0; i < n; i++)
		sum[i] = conv_fp16_sum(x, w, CF_C, CF_HW, 3, 1, (unsigned int)(i / 36u),
				       (unsigned int)(i / CF_HW % CF_HW), (unsigned int)(i % CF_HW));
	if (run_conv_fp16(e, &op, x, w, NULL, y, NULL))
		return job_failed(e, seen, len, "the control job (no bias) failed");
	for (size_t i = 0; i < n; i++)
		ctl += !probe_f16_close(y[i], sum[i]);
	if (ctl) {
		snprintf(seen, len, "control (no bias): %u of %zu results off", ctl, n);
		return PROBE_NONE;
	}
	if (run_conv_fp16(e, &op, x, w, b, y, &tw))
		return job_failed(e, seen, len, "the job failed");
	for (int h = 0; h < BIAS_READINGS; h++)
		for (size_t i = 0; i < n; i++)
			want[h][i] = sum[i] + probe_bias_word(b, h, (unsigned int)(i / 36u));
	r = probe_decide_float(&tab, probe_ftable_expect, BIAS_READINGS, y, n, m);
	say_counts(seen, len, rdma_int8 ? "3x3 fp16 conv 24 -> 16 + bias, DPU_RDMA precision "
		   "int8 (control exact)" : "3x3 fp16 conv 24 -> 16 + bias (control exact)", n, m,
		   BIAS_READINGS, pr->readings);
	return r;
}

static int probe_fp16_bias(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	return fp16_bias_probe(e, false, self, seen, len);
}

static int probe_fp16_rdma_prec(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	return fp16_bias_probe(e, true, self, seen, len);
}

/* ---- fp16 depthwise (A29, A38) ---- */

struct dw_case {
	unsigned int c, w, pad, submits;
	const int *layouts;		/* reading → DW_* */
	unsigned int readings;
	const char *what;
	const char *const *names;	/* the readings' names */
};

/* Run one fp16 3x3 depthwise case; its reading by the decision (and, with
 * two submits, the first output's in *first_reading). */
static int dw_run(struct probe_env *e, const struct dw_case *dc, char *seen, size_t len,
		  int *first_reading)
{
	struct lower_conv_op op = {
		.prec = NPU_PREC_FP16, .in_h = CF_HW, .in_w = dc->w, .in_c = dc->c,
		.out_c = dc->c, .kh = 3, .kw = 3, .stride_y = 1, .stride_x = 1,
		.explicit_pads = true, .pad_top = dc->pad, .pad_left = dc->pad,
		.pad_bottom = dc->pad, .pad_right = dc->pad, .depthwise = true,
	};
	/* 9 taps × 32 lanes: the packed block of one group, and as much again */
	static float wbuf[2u * 9u * 32u], xf[CF_MAX_OUT], y[CF_MAX_OUT], first[CF_MAX_OUT];
	static uint16_t x[CF_MAX_OUT], w[9u * 32u], y16[CF_MAX_OUT], first16[CF_MAX_OUT];
	struct conv_tweak tw = { .submits = dc->submits, .y_first = first16, .w_packed = wbuf,
				 .w_packed_len = sizeof(wbuf) / sizeof(wbuf[0]) };
	struct probe_dw d;
	unsigned int oh = CF_HW + 2u * dc->pad - 2u, ow = dc->w + 2u * dc->pad - 2u, m[4];
	size_t n = (size_t)dc->c * oh * ow;
	int r;

	for (size_t i = 0; i < (size_t)dc->c * CF_HW * dc->w; i++) {
		x[i] = rnd_f16(e);
		xf[i] = layout_f16_to_f32(x[i]);
	}
	for (size_t i = 0; i < 9u * dc->c; i++)
		w[i] = rnd_f16(e);
	if (run_conv(e, &op, x, w, NULL, NULL, y16, &tw))
		return job_failed(e, seen, len, "the job failed");
	for (size_t i = 0; i < n; i++) {
		y[i] = layout_f16_to_f32(y16[i]);
		first[i] = layout_f16_to_f32(first16[i]);
	}
	d = (struct probe_dw){ .x = xf, .wbuf = wbuf, .wbuf_len = sizeof(wbuf) / sizeof(wbuf[0]),
			       .c = dc->c, .h = CF_HW, .w = dc->w,
			       .lanes = layout_dw_lanes_fp16(dc->c), .pad = dc->pad,
			       .readings = dc->layouts };
	r = probe_decide_float(&d, probe_dw_expect, dc->readings, y, n, m);
	if (first_reading)
		*first_reading = probe_decide_float(&d, probe_dw_expect, dc->readings, first, n,
						    NULL);
	say_counts(seen, len, dc->what, n, m, dc->readings, dc->names);
	return r;
}

static const int dw_layouts[] = { DW_SPATIAL, DW_CHANNEL_MAJOR };
static const int dw_spatial[] = { DW_SPATIAL };
/* The name of the model's layout where a probe's readings are not layouts. */
static const char *const dw_model[] = { "the model's layout" };
static const int dw_lanes[] = { DW_SPATIAL, DW_LANES32 };
static const int dw_pitch[] = { DW_SPATIAL, DW_EVEN_PITCH };

/* A29: the weight order of 24 channels (32 lanes), unpadded, one submit. */
static int probe_fp16_dw(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	const struct dw_case dc = { CF_C, CF_HW, 0, 1, dw_layouts, 2,
				    "3x3 fp16 depthwise, 24 channels, no padding",
				    self->readings };

	return dw_run(e, &dc, seen, len, NULL);
}

/* The unpadded control of the depthwise probes: the model's order. */
static int dw_control(struct probe_env *e, unsigned int c, unsigned int w, char *seen,
		      size_t len)
{
	const struct dw_case ctl = { c, w, 0, 1, dw_spatial, 1, "control (no padding)",
				     dw_model };
	int r = dw_run(e, &ctl, seen, len, NULL);

	if (r == PROBE_FAILED)
		return r;
	if (r != 0) {
		size_t at = strlen(seen);

		snprintf(seen + at, len - at, ": the unpadded control is off");
		return PROBE_NONE;
	}
	return 0;
}

/* A29: padding read as zeros, with the unpadded control. */
static int probe_dw_pad(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	const struct dw_case dc = { CF_C, CF_HW, 1, 1, dw_spatial, 1,
				    "3x3 fp16 depthwise, 24 channels, pad 1", self->readings };
	int r = dw_control(e, CF_C, CF_HW, seen, len);

	return r ? r : dw_run(e, &dc, seen, len, NULL);
}

/*
 * A29: the board reference submits each depthwise task twice. The padded
 * task, submitted twice with the output cleared in between: once if the
 * first submit is already right, twice if only the second is.
 */
static int probe_dw_twice(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	const struct dw_case dc = { CF_C, CF_HW, 1, 2, dw_spatial, 1,
				    "3x3 fp16 depthwise, 24 channels, pad 1, submitted twice",
				    dw_model };
	int first = PROBE_NONE, r = dw_run(e, &dc, seen, len, &first);
	size_t at = strlen(seen);

	if (r == PROBE_FAILED)
		return r;
	snprintf(seen + at, len - at, "; first submit %s, second %s",
		 first == 0 ? "right" : "wrong", r == 0 ? "right" : "wrong");
	if (first == 0)
		return 0;
	return r == 0 ? 1 : PROBE_NONE;
}

/* A38: fewer than 32 channels: weights `lanes` apart (the packing) or 32. */
static int probe_dw_lanes16(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	const struct dw_case dc = { 16, CF_HW, 0, 1, dw_lanes, 2,
				    "3x3 fp16 depthwise, 16 channels (16 lanes)", self->readings };

	return dw_run(e, &dc, seen, len, NULL);
}

static int probe_dw_lanes8(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	const struct dw_case dc = { 8, CF_HW, 0, 1, dw_lanes, 2,
				    "3x3 fp16 depthwise, 8 channels (8 lanes)", self->readings };

	return dw_run(e, &dc, seen, len, NULL);
}

/* A38: an odd width (5) with 8 lanes, rows read at the width or at an even
 * pitch; the control is the even width. */
#define DW_ODD_W	5u

static int probe_dw_odd(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	const struct dw_case dc = { 8, DW_ODD_W, 0, 1, dw_pitch, 2,
				    "3x3 fp16 depthwise, 8 channels, width 5", self->readings };
	int r = dw_control(e, 8, CF_HW, seen, len);

	return r ? r : dw_run(e, &dc, seen, len, NULL);
}

/*
 * A19: the BN stage's MUL operand on float data: a 1x1 fp16 convolution
 * whose BN stage (bypassed as built) multiplies by its 16-bit operand,
 * once 0x4000 (fp16 2.0, integer 16384) and once 0x0002 (integer 2, an
 * fp16 denormal): the fp16 reading doubles the first and nearly zeroes the
 * second, the integer reading the other way round.
 */
enum { BNM_READINGS = 2, BNM_INT_OPERAND = 2 };

static int probe_bn_mul(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	const struct lower_conv_op op = {
		.prec = NPU_PREC_FP16, .in_h = CF_HW, .in_w = CF_HW, .in_c = CF_K,
		.out_c = CF_K, .kh = 1, .kw = 1, .stride_y = 1, .stride_x = 1,
		.explicit_pads = true,
	};
	const uint16_t operands[2] = { layout_f32_to_f16(2.0f), BNM_INT_OPERAND };
	static uint16_t x[CF_K * CF_HW * CF_HW], w[CF_K * CF_K];
	static float y[2 * CF_K * CF_HW * CF_HW], want[BNM_READINGS][2 * CF_K * CF_HW * CF_HW];
	const float *wants[BNM_READINGS] = { want[0], want[1] };
	struct probe_ftable tab = { wants };
	size_t n = CF_K * CF_HW * CF_HW;
	unsigned int m[BNM_READINGS];
	int r;

	for (size_t i = 0; i < n; i++)
		x[i] = rnd_f16(e);
	for (size_t i = 0; i < CF_K * CF_K; i++)
		w[i] = rnd_f16(e);
	for (int c = 0; c < 2; c++) {
		const struct conv_tweak tw = { .bn_mul = true, .bn_operand = operands[c] };

		if (run_conv_fp16(e, &op, x, w, NULL, y + c * n, &tw))
			return job_failed(e, seen, len, "the job failed");
		for (size_t i = 0; i < n; i++) {
			float sum = conv_fp16_sum(x, w, CF_K, CF_HW, 1, 0, (unsigned int)(i / 36u),
						  (unsigned int)(i / CF_HW % CF_HW),
						  (unsigned int)(i % CF_HW));

			want[0][c * n + i] = sum * layout_f16_to_f32(operands[c]);
			want[1][c * n + i] = sum * (float)operands[c];
		}
	}
	r = probe_decide_float(&tab, probe_ftable_expect, BNM_READINGS, y, 2 * n, m);
	say_counts(seen, len, "1x1 fp16 conv, BN MUL by 0x4000 and by 0x0002", 2 * n, m,
		   BNM_READINGS, self->readings);
	return r;
}

/*
 * A31: CNA DATA_SIZE0.datain_height wider than the TRM's 11 bits (the
 * board-run gemm.py completes 5120-row tasks): one 1x1 fp16 convolution of
 * width 1 over TALL_ROWS = 2048 + 16 rows in one task, every row distinct,
 * its CONV_CON2 written as gemm.py's tall tasks write it (rows + 1 does
 * not fit feature_grains). Every row right reads 13-bit (or wider); the
 * first 2048 right and later
 * rows wrong or unwritten, or a job that does not complete, reads 11-bit.
 */
enum { TALL_ROWS = 2048 + 16, TALL_C = 16, TALL_11BIT = 2048 };

static int probe_tall(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	const struct lower_conv_op op = {
		.prec = NPU_PREC_FP16, .in_h = TALL_11BIT - 1, .in_w = 1, .in_c = TALL_C,
		.out_c = TALL_C, .kh = 1, .kw = 1, .stride_y = 1, .stride_x = 1,
		.explicit_pads = true,
	};
	const struct conv_tweak tw = { .rows = TALL_ROWS };
	uint16_t *x = malloc(TALL_C * TALL_ROWS * sizeof(*x));
	uint16_t *y = malloc(TALL_C * TALL_ROWS * sizeof(*y));
	static uint16_t w[TALL_C * TALL_C];
	unsigned int low = 0, high = 0;
	int r = PROBE_FAILED;

	if (!x || !y) {
		snprintf(seen, len, "no memory for %d rows", TALL_ROWS);
		goto out;
	}
	for (size_t i = 0; i < (size_t)TALL_C * TALL_ROWS; i++)
		x[i] = rnd_f16(e);
	for (size_t i = 0; i < TALL_C * TALL_C; i++)
		w[i] = rnd_f16(e);
	if (run_conv(e, &op, x, w, NULL, NULL, y, &tw)) {
		snprintf(seen, len, "a %d-row task did not complete (%s)", TALL_ROWS,
			 e->err[0] ? e->err : "error");
		/* a refusal to build is no reading; a job that stops is 11-bit */
		r = strstr(e->err, "tiling") || !e->err[0] ? PROBE_FAILED : 1;
		goto out;
	}
	for (unsigned int k = 0; k < TALL_C; k++)
		for (unsigned int row = 0; row < TALL_ROWS; row++) {
			float want = 0.0f;

			for (unsigned int c = 0; c < TALL_C; c++)
				want += layout_f16_to_f32(x[c * TALL_ROWS + row]) *
					layout_f16_to_f32(w[k * TALL_C + c]);
			if (probe_f16_close(layout_f16_to_f32(y[k * TALL_ROWS + row]), want))
				continue;
			if (row < TALL_11BIT)
				low++;
			else
				high++;
		}
	snprintf(seen, len, "1x1 fp16 conv of %d rows in one task: %u wrong in rows 0-2047, "
		 "%u in rows 2048-%d", TALL_ROWS, low, high, TALL_ROWS - 1);
	r = low ? PROBE_NONE : high ? 1 : 0;
out:
	free(y);
	free(x);
	return r;
}

/*
 * A39 (fp16): the partial-sum add of an fp16 input-channel split: a second
 * task adds an fp32 per-pixel operand (ERDMA 32-bit) to its fp32 sums
 * before FP32TOFP16 (fp32-added), or does not see it (ignored).
 */
static int probe_psum_fp32(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	const struct lower_conv_op op = {
		.prec = NPU_PREC_FP16, .in_h = CF_HW, .in_w = CF_HW, .in_c = CF_K,
		.out_c = CF_K, .kh = 1, .kw = 1, .stride_y = 1, .stride_x = 1,
		.explicit_pads = true,
	};
	static uint16_t x[CF_K * CF_HW * CF_HW], w[CF_K * CF_K];
	static float y[CF_K * CF_HW * CF_HW], psum[CF_K * CF_HW * CF_HW];
	static float added[CF_K * CF_HW * CF_HW], plain[CF_K * CF_HW * CF_HW];
	const float *want[2] = { added, plain };
	struct probe_ftable tab = { want };
	const struct conv_tweak tw = { .psum = psum };
	size_t n = CF_K * CF_HW * CF_HW;
	unsigned int m[2];
	int r;

	for (size_t i = 0; i < n; i++)
		x[i] = rnd_f16(e);
	for (size_t i = 0; i < CF_K * CF_K; i++)
		w[i] = rnd_f16(e);
	for (size_t i = 0; i < n; i++)
		psum[i] = (float)(rnd8(e) % 32 + 32) / 16.0f;	/* never 0: "ignored" shows */
	if (run_conv_fp16(e, &op, x, w, NULL, y, &tw))
		return job_failed(e, seen, len, "the job failed");
	for (size_t i = 0; i < n; i++) {
		plain[i] = conv_fp16_sum(x, w, CF_K, CF_HW, 1, 0, (unsigned int)(i / 36u),
					 (unsigned int)(i / CF_HW % CF_HW),
					 (unsigned int)(i % CF_HW));
		added[i] = plain[i] + psum[i];
	}
	r = probe_decide_float(&tab, probe_ftable_expect, 2, y, n, m);
	say_counts(seen, len, "1x1 fp16 conv + fp32 per-pixel partial (EW add)", n, m, 2,
		   self->readings);
	return r;
}

/*
 * A20: the fp16 add (a flying DPU task: MRDMA + ERDMA) with DPU_RDMA
 * FEATURE_MODE_CFG.mrdma_fp16tofp32_en as built (1, the board-run pair with
 * OUT_CVT fp32tofp16_en: the control, which must give the rounded sums),
 * then cleared: needed if the sums are then wrong or the job is refused,
 * ignored if they stay right.
 */
static int fp16_add(struct probe_env *e, bool clear_bit, unsigned int *wrong)
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
	int rc = -1;

	e->err[0] = '\0';
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
	if (lower_add(&p, &op) ||
	    (clear_bit && patch_field(&p, NPU_DPU_RDMA_FEATURE_MODE_CFG,
				      NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, MRDMA_FP16TOFP32_EN, ~0u),
				      0)))
		goto out;
	rc = -2;	/* from here a failure is the job's */
	if (finish_program(&p, &prog, &task) || submit_chain(e, &task, 1, &out, NULL))
		goto out;
	layout_nc1hwc2_to_nchw(NPU_PREC_FP16, out.cpu, y, CF_HW, CF_HW, CF_C);
	*wrong = 0;
	for (size_t i = 0; i < n; i++) {
		float sum = layout_f16_to_f32(a[i]) + layout_f16_to_f32(b[i]);

		*wrong += y[i] != layout_f32_to_f16(sum < 0.0f ? 0.0f : sum);
	}
	rc = 0;
out:
	dma_pool_release(e->pool, &prog);
	dma_pool_release(e->pool, &out);
	dma_pool_release(e->pool, &bb);
	dma_pool_release(e->pool, &ab);
	return rc;
}

static int probe_fp16_add(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	unsigned int ctl = 0, wrong = 0;
	int rc;

	if (fp16_add(e, false, &ctl))
		return job_failed(e, seen, len, "the control (as built) failed");
	if (ctl) {
		snprintf(seen, len, "control (mrdma_fp16tofp32_en 1): %u of %d sums wrong", ctl,
			 CF_C * CF_HW * CF_HW);
		return PROBE_NONE;
	}
	rc = fp16_add(e, true, &wrong);
	if (rc == -1)
		return job_failed(e, seen, len, "the case could not be built");
	if (rc) {
		snprintf(seen, len, "fp16 add + ReLU with mrdma_fp16tofp32_en 0: the job did not "
			 "complete (%s); control exact", e->err[0] ? e->err : "error");
		return 0;
	}
	snprintf(seen, len, "fp16 add + ReLU of %d values with mrdma_fp16tofp32_en 0: %u differ "
		 "from the rounded sum; control exact", CF_C * CF_HW * CF_HW, wrong);
	return wrong ? 0 : 1;
}

/*
 * A34: a convolution with a residual added by the EW stage, read as Mesa's
 * fused conv + add reads it (DPU_RDMA comb_use 5, MRDMA and ERDMA at the one
 * address). 1×1, RES_C → RES_K, input zero point CI_ZP, weight scale 1:
 * the accumulator counts units of 1; the residual's scale RES_SCALE (an
 * exact EW_CVT multiplier and shift) and the output's RES_OUT_SCALE (an
 * exact OUT_CVT shift, ties to even: A12) keep the expected values exact.
 * Readings: the residual at the address added (at-address), none added
 * (ignored), or the map one surface further (Mesa's EW_BASE_ADDR, which
 * reads zeros past the residual here: one-surface-on).
 */
enum { RES_C = 16, RES_K = 32, RES_HW = 6, RES_ZR = 9, RES_ZO = -5 };
#define RES_SCALE	256.0f
#define RES_OUT_SCALE	4096.0f
#define RES_OUT		(RES_K * RES_HW * RES_HW)

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

static int probe_residual(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	static int8_t x[RES_C * RES_HW * RES_HW], w[RES_K * RES_C];	/* NCHW, OHWI */
	static int8_t r[RES_OUT], y[RES_OUT];
	static int64_t got[RES_OUT], want[3][RES_OUT];
	const int64_t *wants[3] = { want[0], want[1], want[2] };
	struct probe_table tab = { wants };
	const struct lower_conv_op op = {
		.prec = NPU_PREC_INT8, .in_h = RES_HW, .in_w = RES_HW, .in_c = RES_C,
		.out_c = RES_K, .kh = 1, .kw = 1, .stride_y = 1, .stride_x = 1,
		.explicit_pads = true, .in_scale = 1.0f, .in_zp = CI_ZP, .w_scale = &one_scale,
		.w_scale_count = 1, .out_scale = RES_OUT_SCALE, .out_zp = RES_ZO,
		.residual = true, .res_scale = RES_SCALE, .res_zp = RES_ZR,
	};
	/* one int8 surface: 16 channels of RES_HW² pixels */
	const struct conv_tweak tw = { .res_extra = RES_HW * RES_HW * NPU_ATOM_BYTES };
	const unsigned int hw = RES_HW * RES_HW, c2 = NPU_ATOM_BYTES;

	for (size_t i = 0; i < sizeof(x); i++)
		x[i] = rnd8(e);
	for (size_t i = 0; i < sizeof(w); i++)
		w[i] = rnd8(e);
	for (size_t i = 0; i < sizeof(r); i++)
		r[i] = rnd8(e);
	if (run_conv(e, &op, x, w, NULL, r, y, &tw))
		return job_failed(e, seen, len, "the job failed");
	for (unsigned int k = 0; k < RES_K; k++)
		for (unsigned int p = 0; p < hw; p++) {
			int64_t acc = 0;
			/* the next surface's channel, zeros past the map */
			int32_t next = k + c2 < RES_K ? r[(k + c2) * hw + p] : 0;
			int64_t res[3] = { r[k * hw + p], 0, next };

			for (unsigned int c = 0; c < RES_C; c++)
				acc += (x[c * hw + p] - CI_ZP) * w[k * RES_C + c];
			for (int h = 0; h < 3; h++) {
				int64_t v = acc + (h == 1 ? 0 : (res[h] - RES_ZR) *
							       (int64_t)RES_SCALE);
				int32_t q = round_div_even(v, (int64_t)RES_OUT_SCALE) + RES_ZO;

				want[h][k * hw + p] = q < INT8_MIN ? INT8_MIN :
						      q > INT8_MAX ? INT8_MAX : q;
			}
			got[k * hw + p] = y[k * hw + p];
		}
	return say_int(seen, len, "1x1 int8 conv + int8 residual (comb_use 5)", &tab,
		       probe_table_expect, self, got, RES_OUT);
}

/*
 * ---- A35, A36: hand-built flying DPU tasks (no builder emits the LUT or
 * an op_cvt_bypass 0 fp16 add): one fp16 cube of DPUX_W pixels × 8
 * channels (one atom per pixel, one surface: in memory the values in
 * order), read through MRDMA with mrdma_fp16tofp32_en and written fp16
 * through OUT_CVT fp32tofp16_en, the pair of the board-run silu.py and
 * elementwise.py streams. ----
 */
/* l's tables as the compiler's task takes them: the entries as written,
 * BN bypassed (X = x). */
static void probe_to_lower_lut(const struct probe_lut *l, struct lower_lut *out)
{
	*out = (struct lower_lut){ .hybrid = l->hybrid, .oflow = l->oflow, .uflow = l->uflow };
	for (unsigned int id = 0; id < NPU_LUT_TABLES; id++) {
		const struct probe_lut_table *t = &l->tab[id];
		struct lower_lut_table *o = &out->tab[id];
		unsigned int n;

		*o = (struct lower_lut_table){
			.start = t->start, .end = t->end, .select = t->sel,
			.uflow_scale = (int16_t)t->uflow_scale, .oflow_scale = (int16_t)t->oflow_scale,
			.uflow_shift = t->uflow_shift, .oflow_shift = t->oflow_shift,
		};
		n = lower_lut_entries(o);
		for (unsigned int j = 0; j < n && j < NPU_LUT_ENTRIES; j++)
			o->t[j] = (int16_t)t->t[j];
	}
}

/* A36's EW stage: elementwise.py's add (fp16 operand per pixel through
 * ERDMA, op_cvt_bypass 0) over the state the case sets. The reset case
 * writes the TRM's reset value 0 to every register elementwise.py leaves
 * unwritten, standing in for a core reset (the driver resets a core only
 * to recover it); the others bypass BS and BN and vary EW_CVT's scale. */
static void dpux_add(struct rc_program *p, uint32_t b_addr, int inherit)
{
	/* EW_CVT_SCALE_VALUE.ew_op_cvt_scale per case: 0, 0, 1, fp16 1.0 */
	static const uint16_t scale[INH_CASES] = { 0, 0, NPU_CVT_SCALE_ONE, PROBE_FP16_ONE };

	if (inherit == INH_CASE_RESET) {
		RC_WRITE(p, DPU, BS_CFG, 0);
		RC_WRITE(p, DPU, BS_ALU_CFG, 0);
		RC_WRITE(p, DPU, BS_MUL_CFG, 0);
		RC_WRITE(p, DPU, BN_CFG, 0);
		RC_WRITE(p, DPU, BN_ALU_CFG, 0);
		RC_WRITE(p, DPU, BN_MUL_CFG, 0);
	} else {
		RC_WRITE(p, DPU, BS_CFG, NPU_DPU_BS_BYPASSED);
		RC_WRITE(p, DPU, BN_CFG, NPU_DPU_BN_BYPASSED);
	}
	RC_WRITE(p, DPU, EW_CFG,
		 NPU_FV(DPU, EW_CFG, EW_DATA_MODE, NPU_ERDMA_PER_PIXEL) |
		 NPU_FV(DPU, EW_CFG, EDATA_SIZE, NPU_ERDMA_SIZE_16BIT) |
		 NPU_FV(DPU, EW_CFG, EW_ALU_ALGO, NPU_ALU_ADD) |
		 NPU_FV(DPU, EW_CFG, EW_RELU_BYPASS, 1) |
		 NPU_FV(DPU, EW_CFG, EW_LUT_BYPASS, 1) |
		 NPU_FV(DPU, EW_CFG, EW_OP_SRC, NPU_EW_OP_FROM_ERDMA));
	RC_WRITE(p, DPU, EW_CVT_OFFSET_VALUE, 0);
	RC_WRITE(p, DPU, EW_CVT_SCALE_VALUE,
		 NPU_FV(DPU, EW_CVT_SCALE_VALUE, EW_OP_CVT_SCALE, scale[inherit]));
	RC_WRITE(p, DPU_RDMA, ERDMA_CFG,
		 NPU_FV(DPU_RDMA, ERDMA_CFG, ERDMA_DATA_MODE, NPU_ERDMA_PER_PIXEL) |
		 NPU_FV(DPU_RDMA, ERDMA_CFG, ERDMA_DATA_SIZE, NPU_ERDMA_SIZE_16BIT));
	RC_WRITE(p, DPU_RDMA, EW_BASE_ADDR, b_addr);
	RC_WRITE(p, DPU_RDMA, EW_SURF_STRIDE,
		 NPU_FV(DPU_RDMA, EW_SURF_STRIDE, EW_SURF_STRIDE, DPUX_W));
}

/* One such task on x (DPUX_N fp16 values, or DPUX_INT8_N int8 ones: the
 * same bytes) into y. 0, -1 when it could not be built, -2 when the job
 * failed. */
int dpux_run(struct probe_env *e, const struct dpux_task *t, const void *x, void *y)
{
	size_t bytes = DPUX_N * sizeof(uint16_t), body = LUT_TASK_MAX_ENTRIES;
	struct dma_buf in = { 0 }, out = { 0 }, prog = { 0 };
	struct rc_task rt[1];
	struct npu_task task;
	struct rc_program p;
	int rc = -1;

	e->err[0] = '\0';
	if (dma_pool_alloc(e->pool, bytes, DMA_POOL_MIN_ALIGN, &in) ||
	    dma_pool_alloc(e->pool, bytes, DMA_POOL_MIN_ALIGN, &out) ||
	    dma_pool_alloc(e->pool, rc_program_size(1, body) * sizeof(uint64_t),
			   RC_TASK_ALIGN_BYTES, &prog))
		goto out;
	memcpy(in.cpu, x, bytes);
	hal_dcache_clean(in.cpu, in.size);
	rc_program_init(&p, prog.cpu, rc_program_size(1, body), rt, 1);
	if (t->lut) {
		static struct lower_lut lut;	/* 2 KB: off the stack */
		const struct lower_lut_op op = { .h = 1, .w = DPUX_W,
						 .c = t->int8 ? DPUX_INT8_C : DPUX_C, .lut = &lut,
						 .in_addr = in.phys, .out_addr = out.phys,
						 .int8 = t->int8 };

		probe_to_lower_lut(t->lut, &lut);
		if (lower_lut(&p, &op))
			goto out;
	} else {
		const struct lower_cube cube = { 1, DPUX_W, DPUX_C, in.phys, out.phys };

		lower_fp16_flying_begin(&p, &cube);
		if (t->body)
			t->body(&p, t);
		else
			dpux_add(&p, t->b_addr, t->inherit);
		rc_task_end(&p, NPU_EN_DPU | NPU_EN_DPU_RDMA, NPU_INT_DPU);
	}
	if ((t->patch && t->patch(&p, t)) || finish_program(&p, &prog, &task))
		goto out;
	rc = -2;	/* from here a failure is the job's */
	if (submit_chain(e, &task, 1, &out, NULL))
		goto out;
	memcpy(y, out.cpu, bytes);
	rc = 0;
out:
	dma_pool_release(e->pool, &prog);
	dma_pool_release(e->pool, &out);
	dma_pool_release(e->pool, &in);
	return rc;
}

/* An fp16 output × 4 when whole (every reading's outputs are multiples
 * of 1/4), else a value no reading predicts. */
int64_t quarters(uint16_t h)
{
	float q = layout_f16_to_f32(h) * 4.0f;

	if (!(q > -1e9f && q < 1e9f) || q != (float)(int64_t)q)
		return INT64_MIN;
	return (int64_t)q;
}

/* Run the LUT task of l on its inputs (l->xq / 4, exact in fp16) and name
 * the reading of l->q. */
static int lut_probe(struct probe_env *e, const struct probe *self, const struct probe_lut *l,
		     const char *what, char *seen, size_t len)
{
	const struct dpux_task t = { .lut = l };
	static uint16_t x[DPUX_N], y[DPUX_N];
	static int64_t got[DPUX_N];
	int rc;

	for (size_t i = 0; i < DPUX_N; i++)
		x[i] = layout_f32_to_f16((float)l->xq[i] / 4.0f);
	rc = dpux_run(e, &t, x, y);
	if (rc)
		return job_failed(e, seen, len, rc == -1 ? "the task could not be built" :
				  "the job failed");
	for (size_t i = 0; i < DPUX_N; i++)
		got[i] = quarters(y[i]);
	return say_int(seen, len, what, l, probe_lut_expect, self, got, DPUX_N);
}

/* A table that covers [start, end] with 2^sel units per entry and no
 * slopes, the same for LE and LO (every input inside both: the hybrid
 * priority picks one of two equal tables). */
static void lut_same(struct probe_lut *l, const uint16_t *t, int32_t start, int32_t end,
		     unsigned int sel)
{
	const struct probe_lut_table tab = { .start = start, .end = end, .sel = sel, .t = t };

	l->tab[NPU_LUT_TABLE_LE] = tab;
	l->tab[NPU_LUT_TABLE_LO] = tab;
}

/*
 * A35-lut-round: the LUT input rounding. Table T[i] = 16·i, one unit per
 * entry (select 0), inputs k + q/4 (k 0..31, q 0..3): rounding to an
 * integer (ties to even, the model; half up; floor) puts the output on a
 * multiple of 16, a fraction carried into the index moves it by 4 per
 * quarter (fraction). k even and odd at q = 2 tell the ties apart.
 */
enum { LUTR_STEP = 16, LUTR_END = DPUX_N / 4 };

static int probe_lut_round(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	static uint16_t t[LUTR_END + 1];
	static int32_t xq[DPUX_N];
	struct probe_lut l = { .xq = xq, .q = PROBE_LUT_ROUND };

	for (unsigned int i = 0; i <= LUTR_END; i++)
		t[i] = (uint16_t)(LUTR_STEP * i);
	for (unsigned int i = 0; i < DPUX_N; i++)
		xq[i] = (int32_t)i;	/* (i / 4) + (i % 4) / 4, in quarters */
	lut_same(&l, t, 0, LUTR_END, 0);
	return lut_probe(e, self, &l, "LUT 16i, inputs k + q/4", seen, len);
}

/*
 * A35-lut-sign: entries with bit 15 set (0x8000, 0xC000, 0xE000, 0xF800,
 * 0xFC00, 0xFF00, 0xFFE0), read at whole inputs: signed (the model: −32 for
 * 0xFFE0) or unsigned (65504). Every value either way is exact in fp16
 * (0xFFFF's 65535 would not be: 0xFFE0 asks the same).
 */
enum { LUTS_ENTRIES = 16 };

static int probe_lut_sign(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	static const uint16_t t[LUTS_ENTRIES] = {
		0x0000, 0x0001, 0xFFE0, 0x0064, 0xF800, 0x8000, 0x7FE0, 0xC000,
		0x0200, 0xFC00, 0xFFE0, 0x0010, 0xE000, 0x4000, 0xFF00, 0x0400,
	};
	static int32_t xq[DPUX_N];
	struct probe_lut l = { .xq = xq, .q = PROBE_LUT_SIGN };

	for (unsigned int i = 0; i < DPUX_N; i++)
		xq[i] = (int32_t)(i % LUTS_ENTRIES * 4u);
	lut_same(&l, t, 0, LUTS_ENTRIES - 1, 0);
	return lut_probe(e, self, &l, "LUT entries with bit 15 set, whole inputs", seen, len);
}

/*
 * A35-lut-interp: the interpolation's rounding. Select 2 (4 units per
 * entry), entries random in ±LUTI_RANGE with every other step 1, −1, 2 or
 * 3, whole inputs 4i + f: T[i] + (T[i+1] − T[i])·f/4 rounded half up (the
 * model), floored, ties to even, or exact (a quarter-unit output).
 */
enum { LUTI_SEL = 2, LUTI_ENTRIES = DPUX_N / 4 + 1, LUTI_RANGE = 200 };

static int probe_lut_interp(struct probe_env *e, const struct probe *self, char *seen,
			    size_t len)
{
	static const int steps[4] = { 1, -1, 2, 3 };
	static uint16_t t[LUTI_ENTRIES];
	static int32_t xq[DPUX_N];
	struct probe_lut l = { .xq = xq, .q = PROBE_LUT_INTERP };

	for (unsigned int i = 0; i < LUTI_ENTRIES; i++)
		t[i] = (uint16_t)(i & 1 ? (int16_t)t[i - 1] + steps[i / 2 % 4] :
				  (int32_t)(rnd32(e) % (2 * LUTI_RANGE + 1)) - LUTI_RANGE);
	for (unsigned int i = 0; i < DPUX_N; i++)
		xq[i] = (int32_t)(i * 4u);
	lut_same(&l, t, 0, (LUTI_ENTRIES - 1) << LUTI_SEL, LUTI_SEL);
	return lut_probe(e, self, &l, "LUT select 2, inputs 4i + f", seen, len);
}

/*
 * A35-lut-select: the range selection and the slopes. LE covers 0..32, LO
 * 64..96 (select 2, random entries), each with its own under- and overflow
 * slopes (scale >> shift, fractional); uflow priority LO, oflow LE, hybrid
 * LE (not the nearest table, so the bits show). Whole inputs −48..142:
 * under both, inside LE, between, inside LO, over both.
 */
enum { LUTP_SEL = 2, LUTP_ENTRIES = 9, LUTP_LO_START = 64, LUTP_X0 = -48, LUTP_RANGE = 100 };

static int probe_lut_select(struct probe_env *e, const struct probe *self, char *seen,
			    size_t len)
{
	static uint16_t t[NPU_LUT_TABLES][LUTP_ENTRIES];
	static int32_t xq[DPUX_N];
	const int32_t span = (LUTP_ENTRIES - 1) << LUTP_SEL;
	struct probe_lut l = {
		.tab = {
			{ .start = 0, .end = span, .sel = LUTP_SEL, .uflow_scale = 3,
			  .uflow_shift = 2, .oflow_scale = -5, .oflow_shift = 3, .t = t[0] },
			{ .start = LUTP_LO_START, .end = LUTP_LO_START + span, .sel = LUTP_SEL,
			  .uflow_scale = 7, .uflow_shift = 3, .oflow_scale = 5, .oflow_shift = 1,
			  .t = t[1] },
		},
		.hybrid = NPU_LUT_TABLE_LE, .oflow = NPU_LUT_TABLE_LE, .uflow = NPU_LUT_TABLE_LO,
		.xq = xq, .q = PROBE_LUT_SELECT,
	};

	for (unsigned int id = 0; id < NPU_LUT_TABLES; id++)
		for (unsigned int j = 0; j < LUTP_ENTRIES; j++)
			t[id][j] = (uint16_t)((int32_t)(rnd32(e) % (2 * LUTP_RANGE + 1)) -
					      LUTP_RANGE);
	for (unsigned int i = 0; i < DPUX_N; i++)
		xq[i] = (LUTP_X0 + (int32_t)(3u * i / 2u)) * 4;
	return lut_probe(e, self, &l, "LUT LE 0..32, LO 64..96, inputs -48..142", seen, len);
}

/*
 * A36-inherit: elementwise.py's fp16 add (op_cvt_bypass 0, BS/BN/EW_CVT
 * unwritten) on positive values q/64 (sums exact in fp16): over the reset
 * values, then with BS/BN bypassed and EW_CVT scale 0, 1 and 0x3C00. Which
 * cases give the sums names the reading (probe_inherit_pick); a job that
 * does not complete (the model refuses the reset state and the scales
 * other than 1) gives no sums.
 */
enum { INH_Q = 64, INH_SPAN = 256 };

static int probe_inherit(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	static const char *const names[INH_CASES] = { "reset", "scale 0", "scale 1", "0x3C00" };
	static uint16_t a[DPUX_N], b[DPUX_N], y[DPUX_N];
	size_t bytes = DPUX_N * sizeof(uint16_t), at;
	struct dma_buf bb = { 0 };
	unsigned int wrong[INH_CASES];
	bool sums[INH_CASES], failed[INH_CASES];
	int r;

	for (size_t i = 0; i < DPUX_N; i++) {
		a[i] = layout_f32_to_f16((float)(rnd32(e) % INH_SPAN + INH_Q / 2) / INH_Q);
		b[i] = layout_f32_to_f16((float)(rnd32(e) % INH_SPAN + INH_Q / 2) / INH_Q);
	}
	if (dma_pool_alloc(e->pool, bytes, DMA_POOL_MIN_ALIGN, &bb))
		return job_failed(e, seen, len, "no NPU memory for the operand");
	memcpy(bb.cpu, b, bytes);
	hal_dcache_clean(bb.cpu, bb.size);
	for (int c = 0; c < INH_CASES; c++) {
		const struct dpux_task t = { .b_addr = bb.phys, .inherit = c };
		int rc = dpux_run(e, &t, a, y);

		if (rc == -1) {
			dma_pool_release(e->pool, &bb);
			return job_failed(e, seen, len, "a case could not be built");
		}
		failed[c] = rc != 0;
		wrong[c] = 0;
		if (!rc) {
			for (size_t i = 0; i < DPUX_N; i++)
				wrong[c] += y[i] != layout_f32_to_f16(layout_f16_to_f32(a[i]) +
								      layout_f16_to_f32(b[i]));
		}
		sums[c] = rc == 0 && !wrong[c];
	}
	dma_pool_release(e->pool, &bb);
	r = probe_inherit_pick(sums);
	at = (size_t)snprintf(seen, len, "fp16 add, op_cvt_bypass 0, %d values, sums wrong "
			      "(or the job failed):", DPUX_N);
	for (int c = 0; c < INH_CASES && at < len; c++)
		at += failed[c] ? (size_t)snprintf(seen + at, len - at, "%s %s failed",
						   c ? "," : "", names[c]) :
				  (size_t)snprintf(seen + at, len - at, "%s %s %u", c ? "," : "",
						   names[c], wrong[c]);
	return r;
}

/*
 * The probes, in the order they run. Each id and its readings are a row of
 * the table "Board probes" of sim/ASSUMPTIONS.md, which tests/qemu/probe.sh
 * compares with what the image prints.
 */
/*
 * A40: INT4 x INT4 -> INT16 through the matmul API, on its native int4
 * path (K within one segment): random int4 A (4 x 64) and B (64 x 64)
 * against the CPU's sums (the control: every sum within int16), then
 * K = 1024 with every value -8, every sum 65536: saturated to 32767, or
 * wrapped to 0 by the DPU's int16 output.
 */
enum { I4_M = 4, I4_N = 64, I4_K_CONTROL = 64, I4_K_OVER = 1024, I4_MIN = -8 };

/* Element i of an int4 array packed two a byte, the low nibble first. */
void put_int4(uint8_t *p, size_t i, int v)
{
	uint8_t nib = (uint8_t)v & 0xFu;

	p[i / 2u] = (uint8_t)(i % 2u ? (p[i / 2u] & 0x0Fu) | (nib << 4) : (p[i / 2u] & 0xF0u) | nib);
}

/* x = A (I4_M x k) x B (k x I4_N) through the matmul API, int4 normal
 * layouts (packed from x->ha / x->hb), int16 C, run on core 0: random int4
 * operands, or every one I4_MIN. -1 when a call or the job failed; x is
 * mm_close'd by the caller either way. */
static int int4_matmul(struct probe_env *e, struct mm *x, int k, bool all_min)
{
	rknn_matmul_info info = { .M = I4_M, .K = k, .N = I4_N,
				  .type = RKNN_INT4_MM_INT4_TO_INT16 };
	int rc;

	memset(x, 0, sizeof(*x));
	e->err[0] = '\0';
	x->m = I4_M;
	x->k = k;
	x->n = I4_N;
	x->ha = malloc((size_t)I4_M * k);
	x->hb = malloc((size_t)k * I4_N);
	if (!x->ha || !x->hb || rknn_matmul_create(&x->ctx, &info, &x->io) != RKNN_SUCC)
		return -1;
	for (int i = 0; i < I4_M * k; i++)
		x->ha[i] = (int8_t)(all_min ? I4_MIN : rnd8(e) % (-I4_MIN));
	for (int i = 0; i < k * I4_N; i++)
		x->hb[i] = (int8_t)(all_min ? I4_MIN : rnd8(e) % (-I4_MIN));
	x->a = rknn_create_mem(x->ctx, x->io.A.size);
	x->b = rknn_create_mem(x->ctx, x->io.B.size);
	x->c = rknn_create_mem(x->ctx, x->io.C.size);
	if (!x->a || !x->b || !x->c)
		return -1;
	memset(x->a->virt_addr, 0, x->io.A.size);
	memset(x->b->virt_addr, 0, x->io.B.size);
	for (size_t i = 0; i < (size_t)I4_M * k; i++)
		put_int4(x->a->virt_addr, i, x->ha[i]);
	for (size_t i = 0; i < (size_t)k * I4_N; i++)
		put_int4(x->b->virt_addr, i, x->hb[i]);
	if (rknn_matmul_set_io_mem(x->ctx, x->a, &x->io.A) != RKNN_SUCC ||
	    rknn_matmul_set_io_mem(x->ctx, x->b, &x->io.B) != RKNN_SUCC ||
	    rknn_matmul_set_io_mem(x->ctx, x->c, &x->io.C) != RKNN_SUCC ||
	    rknn_matmul_set_core_mask(x->ctx, RKNN_NPU_CORE_0) != RKNN_SUCC)
		return -1;
	rc = rknn_matmul_run(x->ctx);
	if (rc == RKNN_SUCC)
		return 0;
	snprintf(e->err, sizeof(e->err), "rknn_matmul_run: %s",
		 rc == RKNN_ERR_TIMEOUT ? "NPU timeout" : "NPU job error");
	return -1;
}

static int probe_int4(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	static const int ks[2] = { I4_K_CONTROL, I4_K_OVER };
	static int32_t sums[2 * I4_M * I4_N];
	static int64_t got[2 * I4_M * I4_N];
	const size_t n = (size_t)I4_M * I4_N;

	for (int r = 0; r < 2; r++) {
		struct mm x;

		if (int4_matmul(e, &x, ks[r], r == 1)) {
			mm_close(&x);
			return job_failed(e, seen, len, "an int4 matmul failed");
		}
		for (size_t i = 0; i < n; i++) {
			sums[r * n + i] = mm_acc(&x, (int)(i / I4_N), (int)(i % I4_N));
			got[r * n + i] = ((const int16_t *)x.c->virt_addr)[i];
		}
		mm_close(&x);
	}
	return say_int(seen, len, "int4 4x64x64 random (control) and 4x1024x64 of -8", sums,
		       probe_int4_expect, self, got, 2 * n);
}

static const struct probe probes[] = {
	{ "version", "HARDWARE.md §1.3: PC VERSION on RK3588",
	  { "rk3588", "other" }, probe_version },
	{ "A9-m1", "A9: signed CNA surface stride, M = 1 (§5.2)",
	  { "signed" }, probe_m1 },
	{ "A9-m3", "A9: M = 3 with the captures' W(H-4) (§9.7)",
	  { "captures", "mtx", "both" }, probe_m3 },
	{ "A12-ties", "A12: OUT_CVT cvt_round 0 on exact halves (§6.3)",
	  { "even", "half-up" }, probe_ties },
	{ "A15-source", "A15: PPU flying_mode 1 = cube from outside (§4.6)",
	  { "outside" }, probe_pool_source },
	{ "A15-ties", "A15: int8 average of a window on a half (§4.6, §9.9)",
	  { "half-up", "even", "away", "floor" }, probe_pool_ties },
	{ "A15-avg3", "A15: int8 3x3 average through 2^16/3 reciprocals (§9.9)",
	  { "nearest", "floor" }, probe_pool_avg3 },
	{ "cores", "§2.5: core 1, core 2 and all three in one submit",
	  { "all-cores" }, probe_cores },
	{ "A7-bare", "A7: a task ending in op_en without the 0x0041 marker",
	  { "bare-ok", "needs-marker" }, probe_bare_op_en },
	{ "A27-int32", "A27: the bias add under an int32 output (§6.5)",
	  { "bias-added", "no-bias" }, probe_int32_bias },
	{ "A11-cpend", "A11: what qd_en + BS_OW_OP add (CPEND, §6.2, §9.8)",
	  { "all-lanes", "real-lanes", "pad-excluded", "no-term" }, probe_cpend },
	{ "A10-half-atom", "A10: lanes of a half-atom DATAIN_CHANNEL (§9.11)",
	  { "first-lanes", "packed" }, probe_half_atom },
	{ "A10-chan-real", "A10: DATA_SIZE1.datain_channel_real below the channels (§9.5)",
	  { "ignored", "counts" }, probe_chan_real },
	{ "A12-ew-round", "A12: the EW multiply's truncation rounding (§9.9)",
	  { "half-up", "even", "floor" }, probe_ew_round },
	{ "A37-ew-mul", "A37: the EW per-channel multiply's product width",
	  { "wide", "wrap32", "op16" }, probe_ew_width },
	{ "A37-ew-sat", "A37: EW multiply results past int32",
	  { "saturate", "wrap" }, probe_ew_sat },
	{ "A39-psum-int32", "A39: int32 per-pixel partial-sum add (int8 split)",
	  { "added", "ignored" }, probe_psum_int32 },
	{ "A28-fp16-bias", "A28: BRDMA bias words on an fp16 convolution",
	  { "fp32", "int32", "fp16", "ignored" }, probe_fp16_bias },
	{ "A28-rdma-prec", "A28: the same with DPU_RDMA in/proc precision int8",
	  { "fp32", "int32", "fp16", "ignored" }, probe_fp16_rdma_prec },
	{ "A29-fp16-dw", "A29: fp16 depthwise weight order, 32 lanes",
	  { "spatial-major", "channel-major" }, probe_fp16_dw },
	{ "A29-dw-pad", "A29: fp16 depthwise padding",
	  { "zeros" }, probe_dw_pad },
	{ "A29-dw-twice", "A29: one submit of an fp16 depthwise task",
	  { "once", "twice" }, probe_dw_twice },
	{ "A38-dw-lanes16", "A38: fp16 depthwise weights of 16 lanes",
	  { "lanes-16", "lanes-32" }, probe_dw_lanes16 },
	{ "A38-dw-lanes8", "A38: fp16 depthwise weights of 8 lanes",
	  { "lanes-8", "lanes-32" }, probe_dw_lanes8 },
	{ "A38-dw-odd", "A38: fp16 depthwise of an odd width",
	  { "exact", "even-pitch" }, probe_dw_odd },
	{ "A39-psum-fp32", "A39: fp32 per-pixel partial-sum add (fp16 split)",
	  { "fp32-added", "ignored" }, probe_psum_fp32 },
	{ "A19-bn-mul", "A19: the BN MUL operand on float data",
	  { "fp16", "integer" }, probe_bn_mul },
	{ "A31-height", "A31: CNA datain_height past 11 bits (§9.17)",
	  { "13-bit", "11-bit" }, probe_tall },
	{ "A20-fp16-add", "A20, A21: mrdma_fp16tofp32_en in the fp16 add",
	  { "needed", "ignored" }, probe_fp16_add },
	{ "A21-stages", "A21: both conversion bits 0 through a BN add and the EW add",
	  { "per-stage", "fp32" }, probe_fp16_stages },
	{ "A2-pairs", "A2: the status bit of a pair a task sets",
	  { "per-group", "low-only", "high-only" }, probe_status_pair },
	{ "A1-pointer", "A1: whether two kicks run in different groups",
	  { "alternate", "same" }, probe_pointer },
	{ "A34-residual", "A34: the residual a conv + add task reads (comb_use 5)",
	  { "at-address", "ignored", "one-surface-on" }, probe_residual },
	{ "A35-lut-round", "A35: the DPU LUT's input rounding",
	  { "even", "half-up", "floor", "fraction" }, probe_lut_round },
	{ "A35-lut-sign", "A35: the sign of a DPU LUT entry",
	  { "signed", "unsigned" }, probe_lut_sign },
	{ "A35-lut-interp", "A35: the DPU LUT's interpolation rounding",
	  { "half-up", "floor", "even", "exact" }, probe_lut_interp },
	{ "A35-lut-select", "A35: DPU LUT range priorities and slopes",
	  { "le0-lo1", "le1-lo0", "slope-floor", "clamp" }, probe_lut_select },
	{ "A35-lut-mux", "A35: DPU LUT_CFG lut_lo_le_mux values other than 2",
	  { "only-2", "same", "le0-lo1", "lo0-le1" }, probe_lut_mux },
	{ "A35-lut-read", "A35: reading the DPU LUT back through LUT_ACCESS_DATA",
	  { "next-entry", "same-entry", "zero" }, probe_lut_read },
	{ "A35-lut-int", "A35: the DPU LUT on int8 data (rkbare's int8 tables)",
	  { "integer", "unsigned", "shifted-8" }, probe_lut_int },
	{ "A36-inherit", "A36: BS/BN/EW_CVT an fp16 add inherits; float EW_CVT",
	  { "inherited", "scale-inert", "zero-inert", "fp16-scale" }, probe_inherit },
	{ "bf16-out", "§9.16: DPU out_precision bf16 from an fp16 convolution",
	  { "no-bf16", "bf16", "fp16" }, probe_bf16_out },
	{ "dilation", "§9.19: CNA CONV_CON3 atrous dilation fields (2)",
	  { "unsupported", "field", "field+1", "ignored" }, probe_dilation },
	{ "A40-int4", "A40: int4 x int4 sums past int16 through the native path",
	  { "saturate", "wrap" }, probe_int4 },
	{ "A40-int32", "A40: DPU out_precision int32 under int4 data",
	  { "int16-only", "int32" }, probe_i4_int32 },
	{ "A40-entries", "A40: CBUF DATA_ENTRIES for an int4 row of width 4, K = 96",
	  { "dense", "per-pixel", "either" }, probe_i4_entries },
	{ "A30-int16-acc", "A30: the int16 accumulator's width (int32 out)",
	  { "wide", "wrap32", "wrap34" }, probe_int16_acc },
	{ "A40-last-group", "A40: the last int4 kernel group when N is not a multiple of 64",
	  { "dense", "padded" }, probe_i4_last_group },
	{ "A4-dma-base", "A4: whether TASK_DMA_BASE_ADDR offsets data addresses",
	  { "offset", "ignored" }, probe_dma_base },
	{ "A6-fall-through", "A6: where the PC goes after a tail with no PC writes (§9.1)",
	  { "repeat", "falls-through", "stops" }, probe_fall_through },
	{ "A32-amounts", "A32: REGISTER_AMOUNTS[31:16] in a chained tail (§9.1)",
	  { "ignored", "matters" }, probe_amounts_high },
	{ "A32-con2", "A32: CNA CONV_CON2[31:24] as the vendor writes them",
	  { "ignored", "matters" }, probe_con2_high },
	{ "irq-bits", "§9.3: RAW_STATUS bits 14-16, 30-31 after a task",
	  { "clear", "set" }, probe_irq_bits },
	{ "core-bits", "§9.4: CNA/CORE S_POINTER without 0x10000000 on core 1",
	  { "ignored", "needed" }, probe_core_bits },
	{ "A22-grains", "A22: CONV_CON2 feature_grains other than rows + 1 (§9.6)",
	  { "ignored", "matters" }, probe_grains },
	{ "A22-kgroup", "A22: CONV_CON2 kernel_group as the TRM asks (§9.6)",
	  { "ignored", "matters" }, probe_kernel_group },
	{ "A29-dw-wide", "A29: fp16 depthwise weight order over 64 channels in one task",
	  { "groups-of-32", "spatial-major", "channel-major" }, probe_dw_wide },
	{ "A22-stream", "A22: weights past the weight banks in one task (§9.10)",
	  { "streams", "no-stream" }, probe_weight_stream },
	{ "A33-lanes", "A33: what ARGB lanes past the pixel's channels read",
	  { "zeros", "memory" }, probe_argb_lanes },
	{ "A33-line", "A33: ARGB LINE_STRIDE in pixels or ignored",
	  { "pixels", "ignored" }, probe_argb_line },
	{ "A41-int8-fp16", "A41: an int8 map into fp16 in the DPU",
	  { "converted", "proc-int8", "no-zero-point" }, probe_cvt_in },
	{ "A41-fp16-int8", "A41: an fp16 map into int8 in the DPU",
	  { "even", "half-up", "away", "floor", "truncate" }, probe_cvt_out },
};

#define PROBE_COUNT	(sizeof(probes) / sizeof(probes[0]))

static unsigned int reading_count(const struct probe *pr)
{
	unsigned int n = 0;

	while (n < PROBE_MAX_READINGS && pr->readings[n])
		n++;
	return n;
}

void say_counts(char *seen, size_t len, const char *what, size_t n, const unsigned int *m, unsigned int readings, const char *const *names)
{
	size_t at = (size_t)snprintf(seen, len, "%s, %zu results:", what, n);

	for (unsigned int h = 0; h < readings && at < len; h++)
		at += (size_t)snprintf(seen + at, len - at, "%s %u as %s", h ? "," : "", m[h],
				       names[h]);
}

int say_int(char *seen, size_t len, const char *what, const void *ctx, probe_int_fn f,
	    const struct probe *pr, const int64_t *got, size_t n)
{
	unsigned int m[PROBE_MAX_READINGS] = { 0 }, readings = reading_count(pr);
	int r = probe_decide_int(ctx, f, readings, got, n, m);

	say_counts(seen, len, what, n, m, readings, pr->readings);
	return r;
}

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

/* Outcome classes of the summary. */
enum { SUM_MODEL, SUM_OTHER, SUM_NONE, SUM_FAILED, SUM_CLASSES };

static const char *reading_name(const struct probe *pr, int r)
{
	return r >= 0 ? pr->readings[r] : r == PROBE_AMBIGUOUS ? "ambiguous" :
	       r == PROBE_FAILED ? "failed" : "none";
}

int probe_run(const char *spec, struct npu_dev *npu, struct dma_pool *pool)
{
	struct probe_env env = { .npu = npu, .pool = pool, .rng = PROBE_SEED };
	unsigned int counts[SUM_CLASSES] = { 0 }, ran = 0;
	int results[PROBE_COUNT];

	for (size_t i = 0; i < PROBE_COUNT; i++) {
		const struct probe *pr = &probes[i];
		char seen[PROBE_SEEN_LEN] = "";
		int r;

		struct dma_pool_stats before, after;

		if (!wanted(spec, pr->id))
			continue;
		env.err[0] = '\0';
		dma_pool_get_stats(pool, &before);
		r = pr->run(&env, pr, seen, sizeof(seen));
		if (r >= (int)reading_count(pr))
			r = PROBE_NONE;
		/* a probe frees what it takes: a leak is a failure of the probe */
		dma_pool_get_stats(pool, &after);
		if (after.live != before.live) {
			snprintf(seen, sizeof(seen), "%d NPU buffers left allocated",
				 (int)after.live - (int)before.live);
			r = PROBE_FAILED;
		}
		results[i] = r;
		ran++;
		if (r == PROBE_FAILED) {
			counts[SUM_FAILED]++;
			printf("probe %s failed: %s\n", pr->id, seen);
		} else if (r == 0) {
			counts[SUM_MODEL]++;
			printf("probe %s reading=%s (as modelled): %s\n", pr->id, pr->readings[0],
			       seen);
		} else if (r > 0) {
			counts[SUM_OTHER]++;
			printf("probe %s reading=%s (the model reads %s): %s\n", pr->id,
			       pr->readings[r], pr->readings[0], seen);
		} else {
			counts[SUM_NONE]++;
			printf("probe %s reading=%s (%s): %s\n", pr->id, reading_name(pr, r),
			       r == PROBE_AMBIGUOUS ? "the data fits several readings" :
			       "matches no reading", seen);
		}
	}
	if (!ran) {
		printf("probe: '%s' names no probe (ids:", spec);
		for (size_t i = 0; i < PROBE_COUNT; i++)
			printf(" %s", probes[i].id);
		printf(", or all)\n");
		return 1;
	}
	printf("---- probe summary (paste into an issue) ----\n");
	printf("npu version 0x%08x, %u probes: %u as modelled, %u another reading, %u none, "
	       "%u failed\n", npu->version, ran, counts[SUM_MODEL], counts[SUM_OTHER],
	       counts[SUM_NONE], counts[SUM_FAILED]);
	for (size_t i = 0; i < PROBE_COUNT; i++)
		if (wanted(spec, probes[i].id))
			printf("%-15s %-14s %s\n", probes[i].id,
			       reading_name(&probes[i], results[i]), probes[i].decides);
	printf("---- end of probe summary ----\n");
	return counts[SUM_MODEL] == ran ? 0 : 1;
}
