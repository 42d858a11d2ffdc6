/* SPDX-License-Identifier: MIT */
/*
 * The board probes of the program controller, the driver's kick and the
 * CBUF (sim/ASSUMPTIONS.md A4, A6, A22, A32; docs/HARDWARE.md §9.1-§9.4,
 * §9.6, §9.10), rows of boot/probe.c's table. Each runs int8 max pools
 * (PPU DMA) or int8 convolutions with int32 sums (CNA feature and weight
 * DMA, the BRDMA bias, the DPU write) that the CPU checks: a control as
 * the driver and the builders make it, then the one change the question is
 * about; boot/probe_decide.c names the reading.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/probe_pc.h"
#include "compiler/layout.h"
#include "compiler/lower_conv.h"
#include "compiler/lower_tile.h"
#include "hal.h"

/* The byte an output no task wrote holds, and an int32 of them. */
#define UNTOUCHED	0x5Au
#define UNTOUCHED_WORD	((int32_t)(UNTOUCHED * 0x01010101u))

static size_t align_up(size_t v, size_t a)
{
	return (v + a - 1u) / a * a;
}

/* ---- pools: POOL_TASKS max pools, each its own input and output ---- */

enum { POOL_TASKS = 2 };
#define POOL_IN		(POOL_C * POOL_HW * POOL_HW)
#define POOL_OUT	(POOL_C * 9)	/* 3x3 windows of the 6x6 input */

struct pools {
	int8_t x[POOL_TASKS][POOL_IN];	/* random inputs, NCHW */
	struct lower_pool_shape s;
	size_t in_slot, out_slot;	/* bytes a task's buffers take */
	struct dma_buf in, out, prog;
	struct rc_task rt[POOL_TASKS];
	struct npu_task task[POOL_TASKS];
	struct rc_program p;
};

static void pools_free(struct probe_env *e, struct pools *pl)
{
	dma_pool_release(e->pool, &pl->prog);
	dma_pool_release(e->pool, &pl->out);
	dma_pool_release(e->pool, &pl->in);
}

/* `count` pools in one program, linked into one chain, outputs UNTOUCHED;
 * the caller may change the stream before kicking it. */
static int pools_build(struct probe_env *e, struct pools *pl, unsigned int count)
{
	size_t cap = rc_program_size(count, POOL_TASK_MAX_ENTRIES);
	struct lower_pool_op op = max_pool_op;

	memset(pl, 0, sizeof(*pl));
	if (count > POOL_TASKS || lower_pool_check(&op, &pl->s))
		return -1;
	pl->in_slot = align_up(pl->s.in_bytes, DMA_POOL_MIN_ALIGN);
	pl->out_slot = align_up(pl->s.out_bytes, DMA_POOL_MIN_ALIGN);
	if (dma_pool_alloc(e->pool, count * pl->in_slot, DMA_POOL_MIN_ALIGN, &pl->in) ||
	    dma_pool_alloc(e->pool, count * pl->out_slot, DMA_POOL_MIN_ALIGN, &pl->out) ||
	    dma_pool_alloc(e->pool, cap * sizeof(uint64_t), RC_TASK_ALIGN_BYTES, &pl->prog))
		return -1;
	memset(pl->out.cpu, UNTOUCHED, pl->out.size);
	hal_dcache_clean(pl->out.cpu, pl->out.size);
	rc_program_init(&pl->p, pl->prog.cpu, cap, pl->rt, count);
	for (unsigned int t = 0; t < count; t++) {
		for (size_t i = 0; i < POOL_IN; i++)
			pl->x[t][i] = rnd8(e);
		layout_nchw_to_nc1hwc2(NPU_PREC_INT8, pl->x[t],
				       (uint8_t *)pl->in.cpu + t * pl->in_slot, op.in_h, op.in_w,
				       op.c, op.c);
		op.in_addr = (uint32_t)(pl->in.phys + t * pl->in_slot);
		op.out_addr = (uint32_t)(pl->out.phys + t * pl->out_slot);
		if (lower_pool(&pl->p, &op))
			return -1;
	}
	hal_dcache_clean(pl->in.cpu, pl->in.size);
	return finish_program(&pl->p, &pl->prog, pl->task);
}

/* Task t's output: exact, untouched or wrong. */
static enum probe_out pool_out(const struct pools *pl, unsigned int t)
{
	const uint8_t *o = (const uint8_t *)pl->out.cpu + t * pl->out_slot;
	int8_t y[POOL_OUT];
	bool untouched = true;

	for (size_t i = 0; i < pl->s.out_bytes; i++)
		untouched &= o[i] == UNTOUCHED;
	if (untouched)
		return PROBE_OUT_UNTOUCHED;
	layout_nc1hwc2_to_nchw(NPU_PREC_INT8, o, y, pl->s.out_h, pl->s.out_w, POOL_C);
	return max_pool_wrong(pl->x[t], y) ? PROBE_OUT_WRONG : PROBE_OUT_EXACT;
}

static const char *const out_names[] = { "exact", "untouched", "wrong" };

/* `count` pools chained as built, kicked as k says: whether every output
 * is exact; -1 when a job could not be built or did not complete. */
static int pools_run(struct probe_env *e, unsigned int count, struct kick *k, bool *exact)
{
	struct pools *pl = malloc(sizeof(*pl));
	int rc = -1;

	if (!pl)
		return -1;
	if (!pools_build(e, pl, count) && !kick_chain(e, pl->task, count, &pl->out, k)) {
		*exact = true;
		for (unsigned int t = 0; t < count; t++)
			*exact &= pool_out(pl, t) == PROBE_OUT_EXACT;
		rc = 0;
	}
	pools_free(e, pl);
	free(pl);
	return rc;
}

/* ---- int8 convolutions with int32 sums, at offsets of one region ---- */

/*
 * The op (int8, out_int32, an input zero point the bias corrects) with its
 * input, weights, bias and output at offsets of a region of `copies`
 * halves of `half` bytes each: the stream names half 0; each half holds
 * its own random data (A4 reads which one the NPU used).
 */
enum { CONV_MAX_COPIES = 2 };

struct conv {
	struct lower_conv_op op;
	struct lower_conv_shape s;
	size_t o_w, o_b, o_out, half;	/* offsets in a half, its size */
	unsigned int copies;
	struct dma_buf reg;
	int8_t *x[CONV_MAX_COPIES], *w[CONV_MAX_COPIES];	/* NCHW, OHWI */
	int32_t *want[CONV_MAX_COPIES];	/* the CPU's sums, NCHW */
	int32_t *got;			/* an output read back, NCHW */
	size_t n_in, n_w, n_out;
	/* the last run's tasks and weight banks (CBUF_CON0) */
	size_t tasks;
	unsigned int weight_banks;
};

static void conv_free(struct probe_env *e, struct conv *cv)
{
	for (unsigned int c = 0; c < CONV_MAX_COPIES; c++) {
		free(cv->x[c]);
		free(cv->w[c]);
		free(cv->want[c]);
	}
	free(cv->got);
	dma_pool_release(e->pool, &cv->reg);
}

/* Σ (x − zp)·w over the window, padding at the zero point (which the
 * bias lower_conv_pack writes takes off as Σ zp·w). */
static void conv_sums(const struct conv *cv, unsigned int c)
{
	const struct lower_conv_op *op = &cv->op;
	const struct probe_conv8 p8 = { .x = cv->x[c], .w = cv->w[c], .c = op->in_c,
					.h = op->in_h, .w_ = op->in_w, .k = op->out_c,
					.kh = op->kh, .kw = op->kw, .pad = op->pad_top,
					.pad_value = op->in_zp };
	const size_t per_k = (size_t)op->kh * op->kw * op->in_c;

	for (unsigned int k = 0; k < op->out_c; k++) {
		int64_t wsum = 0;

		for (size_t j = 0; j < per_k; j++)
			wsum += cv->w[c][k * per_k + j];
		for (unsigned int y = 0; y < cv->s.out_h; y++)
			for (unsigned int x = 0; x < cv->s.out_w; x++)
				cv->want[c][((size_t)k * cv->s.out_h + y) * cv->s.out_w + x] =
					(int32_t)(probe_conv8_acc(&p8, k, y, x) -
						  (int64_t)op->in_zp * wsum);
	}
}

/* The op's data in every half, outputs UNTOUCHED, its sums on the CPU. */
static int conv_setup(struct probe_env *e, struct conv *cv, const struct lower_conv_op *op,
		      unsigned int copies)
{
	memset(cv, 0, sizeof(*cv));
	cv->op = *op;
	cv->copies = copies;
	if (copies > CONV_MAX_COPIES || lower_conv_check(&cv->op, &cv->s))
		return -1;
	cv->o_w = align_up(cv->s.in_bytes, DMA_POOL_MIN_ALIGN);
	cv->o_b = cv->o_w + align_up(cv->s.weight_bytes, DMA_POOL_MIN_ALIGN);
	cv->o_out = cv->o_b + align_up(cv->s.bias_bytes, DMA_POOL_MIN_ALIGN);
	cv->half = align_up(cv->o_out + cv->s.out_bytes, DMA_POOL_MIN_ALIGN);
	cv->n_in = (size_t)op->in_c * op->in_h * op->in_w;
	cv->n_w = (size_t)op->out_c * op->kh * op->kw * op->in_c;
	cv->n_out = (size_t)op->out_c * cv->s.out_h * cv->s.out_w;
	cv->got = malloc(cv->n_out * sizeof(*cv->got));
	if (!cv->got || dma_pool_alloc(e->pool, copies * cv->half, DMA_POOL_MIN_ALIGN, &cv->reg))
		return -1;
	memset(cv->reg.cpu, UNTOUCHED, cv->reg.size);
	for (unsigned int c = 0; c < copies; c++) {
		uint8_t *h = (uint8_t *)cv->reg.cpu + c * cv->half;

		cv->x[c] = malloc(cv->n_in);
		cv->w[c] = malloc(cv->n_w);
		cv->want[c] = malloc(cv->n_out * sizeof(int32_t));
		if (!cv->x[c] || !cv->w[c] || !cv->want[c])
			return -1;
		for (size_t i = 0; i < cv->n_in; i++)
			cv->x[c][i] = rnd8(e);
		for (size_t i = 0; i < cv->n_w; i++)
			cv->w[c][i] = rnd8(e);
		memset(h, 0, cv->o_out);
		layout_nchw_to_nc1hwc2(NPU_PREC_INT8, cv->x[c], h, op->in_h, op->in_w, op->in_c,
				       cv->s.in_c_aligned);
		if (lower_conv_pack(&cv->op, &cv->s, cv->w[c], NULL, h + cv->o_w,
				    (int32_t *)(void *)(h + cv->o_b), NULL))
			return -1;
		conv_sums(cv, c);
	}
	hal_dcache_clean(cv->reg.cpu, cv->reg.size);
	cv->op.in_addr = (uint32_t)cv->reg.phys;
	cv->op.weight_addr = (uint32_t)(cv->reg.phys + cv->o_w);
	cv->op.bias_addr = (uint32_t)(cv->reg.phys + cv->o_b);
	cv->op.out_addr = (uint32_t)(cv->reg.phys + cv->o_out);
	return 0;
}

/* How conv_run emits the op. */
enum conv_form {
	CONV_AS_BUILT,			/* tiled as lower_conv tiles it */
	CONV_ONE_PASS,			/* all kernels in one task (A22-stream) */
};

/* One change to the emitted stream: field of register offset set to value. */
struct conv_patch {
	uint16_t offset;
	uint32_t field, value;
};

/* Wrong results of half c's output against copy c's sums (the output
 * UNTOUCHED first, so a half no job wrote reads all wrong). */
static unsigned int conv_wrong(struct conv *cv, unsigned int c)
{
	unsigned int bad = 0;

	layout_nc1hwc2_to_nchw(NPU_PREC_INT32, (uint8_t *)cv->reg.cpu + c * cv->half + cv->o_out,
			       cv->got, cv->s.out_h, cv->s.out_w, cv->op.out_c);
	for (size_t i = 0; i < cv->n_out; i++)
		bad += cv->got[i] != cv->want[c][i];
	return bad;
}

/* Clear every output to UNTOUCHED. */
static void conv_clear(struct conv *cv)
{
	for (unsigned int c = 0; c < cv->copies; c++)
		memset((uint8_t *)cv->reg.cpu + c * cv->half + cv->o_out, UNTOUCHED,
		       cv->s.out_bytes);
	hal_dcache_clean(cv->reg.cpu, cv->reg.size);
}

/* Build the op `form` with `patch` (NULL: none) and kick it as k says;
 * outputs cleared first. 0, or -1 when it could not be built or the job
 * failed (e->err). */
static int conv_run(struct probe_env *e, struct conv *cv, enum conv_form form,
		    const struct conv_patch *patch, struct kick *k)
{
	struct conv_task t;
	struct lower_tile_plan plan;
	size_t count = 0, cap, bytes;
	struct dma_buf prog = { 0 };
	struct rc_task *rt = NULL;
	struct npu_task *task = NULL;
	struct rc_program p;
	int rc = -1;

	conv_clear(cv);
	if (lower_conv_task(&cv->op, &t) || lower_tile_plan(&t, &plan))
		return -1;
	if (form == CONV_ONE_PASS) {
		/* every kernel in one task, the weights streaming past the
		 * weight banks the tiling's data banks leave */
		plan.kernels_per_task = t.kernels;
		plan.kernel_tasks = 1;
	}
	count = plan.row_tasks * plan.kernel_tasks * plan.ic_tasks;
	cv->tasks = count;
	cv->weight_banks = plan.weight_banks;
	cap = rc_program_size(count, CONV_TASK_MAX_ENTRIES);
	bytes = cap * sizeof(uint64_t);
	rt = calloc(count, sizeof(*rt));
	task = calloc(count, sizeof(*task));
	/* with a DMA base, room for a copy of the program that far on (A4) */
	if (!rt || !task ||
	    dma_pool_alloc(e->pool, bytes + k->dma_base, RC_TASK_ALIGN_BYTES, &prog))
		goto out;
	rc_program_init(&p, prog.cpu, cap, rt, count);
	if (lower_tile_emit(&p, &t, &plan) ||
	    (patch && patch_field(&p, patch->offset, patch->field, patch->value)) ||
	    finish_program(&p, &prog, task))
		goto out;
	if (k->dma_base) {
		memcpy((uint8_t *)prog.cpu + k->dma_base, prog.cpu, bytes);
		hal_dcache_clean(prog.cpu, prog.size);
	}
	if (kick_chain(e, task, (unsigned int)p.task_count, &cv->reg, k))
		goto out;
	rc = 0;
out:
	dma_pool_release(e->pool, &prog);
	free(task);
	free(rt);
	return rc;
}

/* ---- the probes ---- */

/* A small int8 convolution with a bias: CNA feature and weight DMA,
 * BRDMA and the DPU write. */
enum { SC_C = 32, SC_K = 32, SC_H = 4, SC_W = 4, SC_ZP = -37 };

static const float unit_scale = 1.0f;

static const struct lower_conv_op small_conv_op = {
	.prec = NPU_PREC_INT8, .out_int32 = true, .in_h = SC_H, .in_w = SC_W, .in_c = SC_C,
	.out_c = SC_K, .kh = 1, .kw = 1, .stride_y = 1, .stride_x = 1, .explicit_pads = true,
	.in_scale = 1.0f, .in_zp = SC_ZP, .w_scale = &unit_scale, .w_scale_count = 1,
	.out_scale = 1.0f,
};

/*
 * A4: TASK_DMA_BASE_ADDR = B with every buffer of a small convolution at
 * the addresses the stream names and other data B bytes on (the program
 * copied there too, so a PC that also offset its fetch would run the same
 * stream, not whatever lies there). The control: the same with 0. offset:
 * the copies' sums B on; ignored: the named data's sums where named.
 */
static int probe_dma_base_run(struct probe_env *e, const struct probe *self, char *seen,
			      size_t len, struct conv *cv)
{
	static int64_t got[2 * SC_K * SC_H * SC_W];
	struct kick k = { 0 };
	struct probe_dma_base db;
	unsigned int ctl;

	if (conv_setup(e, cv, &small_conv_op, 2))
		return job_failed(e, seen, len, "the convolution could not be set up");
	if (conv_run(e, cv, CONV_AS_BUILT, NULL, &k))
		return job_failed(e, seen, len, "the control (base 0) failed");
	ctl = conv_wrong(cv, 0);
	if (ctl) {
		snprintf(seen, len, "control (base 0): %u of %zu wrong", ctl, cv->n_out);
		return PROBE_NONE;
	}
	k.dma_base = (uint32_t)cv->half;
	if (conv_run(e, cv, CONV_AS_BUILT, NULL, &k)) {
		snprintf(seen, len, "the job with base 0x%x did not complete (%s)", k.dma_base,
			 e->err);
		return PROBE_NONE;
	}
	for (unsigned int c = 0; c < 2; c++) {
		conv_wrong(cv, c);
		for (size_t i = 0; i < cv->n_out; i++)
			got[c * cv->n_out + i] = cv->got[i];
	}
	db = (struct probe_dma_base){ cv->want[0], cv->want[1], cv->n_out, UNTOUCHED_WORD };
	return say_int(seen, len, "1x1 int8 conv + bias, TASK_DMA_BASE_ADDR one region on "
		       "(control exact)", &db, probe_dma_base_expect, self, got, 2 * cv->n_out);
}

PROBE_FN(probe_dma_base)
{
	struct conv cv;
	int r = probe_dma_base_run(e, self, seen, len, &cv);

	conv_free(e, &cv);
	return r;
}

/*
 * A6: two pools back to back, the second right after the first one's
 * fetch window, the first one's tail writing no PC register (its two
 * chaining qwords empty), TASK_CON asking for two tasks. The model runs
 * BASE_ADDRESS again (repeat: two tasks counted, the second output
 * untouched); or the PC goes on at the next address (falls-through); or it
 * stops after one task (a kick that never completes, or one task counted).
 */
PROBE_FN(probe_fall_through)
{
	struct pools *pl = malloc(sizeof(*pl));
	struct probe_fall_seen fs = { 0 };
	struct kick k = { 0 };
	int r = PROBE_FAILED;
	const struct rc_task *t0, *t1;
	uint64_t *q;
	size_t window;

	if (!pl)
		return job_failed(e, seen, len, "no memory");
	if (pools_build(e, pl, 2)) {
		r = job_failed(e, seen, len, "the pools could not be built");
		goto out;
	}
	t0 = &pl->rt[0];
	t1 = &pl->rt[1];
	q = pl->p.q;
	window = t0->body + NPU_RC_TAIL_QWORDS;
	/* the same body on other buffers: one REGISTER_AMOUNTS fetches either */
	if (t1->body != t0->body) {
		r = job_failed(e, seen, len, "the two pools differ in size");
		goto out;
	}
	memmove(&q[t0->start + window], &q[t1->start], window * sizeof(uint64_t));
	q[t0->start + t0->body] = 0;		/* PC_BASE_ADDRESS */
	q[t0->start + t0->body + 1u] = 0;	/* PC_REGISTER_AMOUNTS */
	pl->task[1].regcmd_addr = pl->task[0].regcmd_addr + window * sizeof(uint64_t);
	hal_dcache_clean(pl->prog.cpu, pl->prog.size);
	fs.completed = !kick_chain(e, pl->task, 2, &pl->out, &k);
	fs.tasks_done = k.tasks_done;
	fs.first = pool_out(pl, 0);
	fs.second = pool_out(pl, 1);
	snprintf(seen, len, "a tail without PC writes, task_number 2: %s, TASK_STATUS %u, "
		 "first output %s, second (next address) %s",
		 fs.completed ? "completed" : e->err, fs.tasks_done, out_names[fs.first],
		 out_names[fs.second]);
	r = probe_fall_pick(&fs);
out:
	pools_free(e, pl);
	free(pl);
	return r;
}

/*
 * A32: a chain of two pools whose first tail writes REGISTER_AMOUNTS with
 * bits 31:16 = 1 and then 2 (the vendor's 2- and 3-core chains), against
 * the chain as built: both outputs exact each time (ignored), or not.
 */
enum { AMOUNTS_HIGH_CASES = 2 };
#define AMOUNTS_HIGH_SHIFT	16u	/* REGISTER_AMOUNTS[31:16], reserved in the TRM */

PROBE_FN(probe_amounts_high)
{
	struct pools *pl = malloc(sizeof(*pl));
	bool ok[AMOUNTS_HIGH_CASES + 1] = { false };
	const char *what[AMOUNTS_HIGH_CASES + 1];
	int r = PROBE_FAILED;

	if (!pl)
		return job_failed(e, seen, len, "no memory");
	for (unsigned int v = 0; v <= AMOUNTS_HIGH_CASES; v++) {
		struct kick k = { 0 };
		uint64_t *amounts;

		if (pools_build(e, pl, 2)) {
			r = job_failed(e, seen, len, "the pools could not be built");
			goto out;
		}
		amounts = &pl->p.q[pl->rt[0].start + pl->rt[0].body + 1u];
		*amounts = npu_rc_entry(npu_rc_target(*amounts),
					npu_rc_value(*amounts) | v << AMOUNTS_HIGH_SHIFT,
					npu_rc_offset(*amounts));
		hal_dcache_clean(pl->prog.cpu, pl->prog.size);
		if (kick_chain(e, pl->task, 2, &pl->out, &k)) {
			if (!v) {
				r = job_failed(e, seen, len, "the control chain failed");
				goto out;
			}
			what[v] = "did not complete";
		} else {
			ok[v] = pool_out(pl, 0) == PROBE_OUT_EXACT &&
				pool_out(pl, 1) == PROBE_OUT_EXACT;
			what[v] = ok[v] ? "exact" : "wrong";
		}
		pools_free(e, pl);
	}
	snprintf(seen, len, "two chained pools, REGISTER_AMOUNTS[31:16] of the link 0 "
		 "(control): %s, 1: %s, 2: %s", what[0], what[1], what[2]);
	r = probe_change_pick(ok[0], &ok[1], AMOUNTS_HIGH_CASES);
out:
	pools_free(e, pl);
	free(pl);
	return r;
}

/* What a kick of a convolution gave. */
enum conv_result { CONV_EXACT, CONV_WRONG, CONV_FAILED };
static const char *const conv_result_names[] = { "exact", "wrong", "failed" };

static enum conv_result conv_result(struct probe_env *e, struct conv *cv, enum conv_form form,
				    const struct conv_patch *patch, struct kick *k)
{
	if (conv_run(e, cv, form, patch, k))
		return CONV_FAILED;
	return conv_wrong(cv, 0) ? CONV_WRONG : CONV_EXACT;
}

/* The changed cases of a convolution probe against its control (patch
 * NULL, CONV_AS_BUILT): the change reading, the line in seen. */
static int conv_change(struct probe_env *e, const struct lower_conv_op *op,
		       enum conv_form form, const struct conv_patch *patches, unsigned int n,
		       const char *what, char *seen, size_t len)
{
	struct conv cv;
	struct kick k = { 0 };
	enum conv_result ctl, res[2] = { CONV_FAILED, CONV_FAILED };
	bool ok[2];
	unsigned int cases = n ? n : 1u;
	size_t ctl_tasks;
	int r;

	memset(&cv, 0, sizeof(cv));
	if (n > 2 || conv_setup(e, &cv, op, 1)) {
		r = job_failed(e, seen, len, "the convolution could not be set up");
		goto out;
	}
	ctl = conv_result(e, &cv, CONV_AS_BUILT, NULL, &k);
	if (ctl == CONV_FAILED) {
		r = job_failed(e, seen, len, "the control failed");
		goto out;
	}
	ctl_tasks = cv.tasks;
	for (unsigned int i = 0; i < cases; i++) {
		res[i] = conv_result(e, &cv, form, n ? &patches[i] : NULL, &k);
		ok[i] = res[i] == CONV_EXACT;
	}
	snprintf(seen, len, "%s: control %s in %zu task(s), changed %s%s%s in %zu task(s) "
		 "with %u KiB of weight banks", what, conv_result_names[ctl], ctl_tasks,
		 conv_result_names[res[0]], n > 1 ? ", " : "",
		 n > 1 ? conv_result_names[res[1]] : "", cv.tasks,
		 cv.weight_banks * NPU_CBUF_BANK_BYTES / 1024u);
	r = probe_change_pick(ctl == CONV_EXACT, ok, cases);
out:
	conv_free(e, &cv);
	return r;
}

/* A32: CNA CONV_CON2 bits 31:24 = 0x40, then 0x20 (the vendor's 2- and
 * 3-core chains; TRM: reserved) on the small convolution. */
#define CON2_HIGH	0xFF000000u
#define CON2_HIGH_SHIFT	24u
enum { CON2_VENDOR_2CORE = 0x40, CON2_VENDOR_3CORE = 0x20 };

PROBE_FN(probe_con2_high)
{
	const struct conv_patch patches[] = {
		{ NPU_CNA_CONV_CON2, CON2_HIGH, (uint32_t)CON2_VENDOR_2CORE << CON2_HIGH_SHIFT },
		{ NPU_CNA_CONV_CON2, CON2_HIGH, (uint32_t)CON2_VENDOR_3CORE << CON2_HIGH_SHIFT },
	};

	return conv_change(e, &small_conv_op, CONV_AS_BUILT, patches, 2,
			   "1x1 int8 conv, CONV_CON2[31:24] 0x40 then 0x20", seen, len);
}

/*
 * §9.3: RAW_STATUS after a completed pool (PPU) and a completed
 * convolution (CNA, CORE, DPU), every result exact: bits 14-16 and 30-31
 * all clear (the model, which sets only the documented bits) or not.
 */
PROBE_FN(probe_irq_bits)
{
	struct kick kp = { 0 }, kc = { 0 };
	struct conv cv;
	uint32_t raw[2];
	bool exact = false;
	enum conv_result res = CONV_FAILED;

	if (pools_run(e, 1, &kp, &exact))
		return job_failed(e, seen, len, "the pool failed");
	if (!exact) {
		snprintf(seen, len, "the pool's results are wrong");
		return PROBE_NONE;
	}
	if (!conv_setup(e, &cv, &small_conv_op, 1))
		res = conv_result(e, &cv, CONV_AS_BUILT, NULL, &kc);
	conv_free(e, &cv);
	if (res == CONV_FAILED)
		return job_failed(e, seen, len, "the convolution failed");
	if (res == CONV_WRONG) {
		snprintf(seen, len, "the convolution's sums are wrong");
		return PROBE_NONE;
	}
	raw[0] = kp.raw;
	raw[1] = kc.raw;
	snprintf(seen, len, "RAW_STATUS after a pool 0x%08x, after a conv 0x%08x (bits 14-16, "
		 "30-31: 0x%08x, 0x%08x)", raw[0], raw[1], raw[0] & PROBE_IRQ_UNDOCUMENTED,
		 raw[1] & PROBE_IRQ_UNDOCUMENTED);
	return probe_irq_pick(raw, 2);
}

/* §9.4: a pool on core 1 with CNA/CORE S_POINTER as every driver writes it
 * (0xE + 0x10000000, the control), then without the core bits. */
enum { CORE_BITS_CORE = 1 };

PROBE_FN(probe_core_bits)
{
	struct kick with = { .core = CORE_BITS_CORE };
	struct kick without = { .core = CORE_BITS_CORE, .flags = NPU_JOB_NO_CORE_BITS };
	bool ctl = false, ok = false;
	bool ran;

	if (pools_run(e, 1, &with, &ctl))
		return job_failed(e, seen, len, "the control pool on core 1 failed");
	ran = !pools_run(e, 1, &without, &ok);
	snprintf(seen, len, "a pool on core 1: with the core bits (control) %s, without %s",
		 ctl ? "exact" : "wrong", !ran ? e->err : ok ? "exact" : "wrong");
	return probe_change_pick(ctl, &ok, 1);
}

/*
 * A22 (§9.6): a 3x3 int8 convolution over 16 rows with CONV_CON2
 * feature_grains y_stride + kh + 1 = 5, the TRM's suggestion ("feature data
 * rows [that] need to be buffered before convolution start"), instead of
 * the rows + 1 every producer writes for its tasks: the same sums (ignored:
 * the model, which takes it for timing) or not.
 */
enum { GR_H = 16, GR_W = 8, GR_C = 16, GR_K = 16, GR_KH = 3, GR_GRAINS = 1 + GR_KH + 1 };

PROBE_FN(probe_grains)
{
	static const struct lower_conv_op op = {
		.prec = NPU_PREC_INT8, .out_int32 = true, .in_h = GR_H, .in_w = GR_W,
		.in_c = GR_C, .out_c = GR_K, .kh = GR_KH, .kw = GR_KH, .stride_y = 1,
		.stride_x = 1, .explicit_pads = true, .pad_top = 1, .pad_left = 1,
		.pad_bottom = 1, .pad_right = 1, .in_scale = 1.0f, .in_zp = SC_ZP,
		.w_scale = &unit_scale, .w_scale_count = 1, .out_scale = 1.0f,
	};
	const struct conv_patch grains = {
		NPU_CNA_CONV_CON2, NPU_FV(CNA, CONV_CON2, FEATURE_GRAINS, ~0u),
		NPU_FV(CNA, CONV_CON2, FEATURE_GRAINS, GR_GRAINS),
	};

	return conv_change(e, &op, CONV_AS_BUILT, &grains, 1,
			   "3x3 int8 conv of 16 rows, feature_grains 5 (control 17)", seen, len);
}

/*
 * A22 (§9.6): CONV_CON2 kernel_group as the TRM asks ("kernels / 32 − 1"
 * in int8: 3 for 128 kernels) against the 0 rkbare writes (the control):
 * the same sums (ignored: the model) or not.
 */
enum { KG_K = 128, KG_INT8_KERNELS = 32 };

PROBE_FN(probe_kernel_group)
{
	static const struct lower_conv_op op = {
		.prec = NPU_PREC_INT8, .out_int32 = true, .in_h = SC_H, .in_w = SC_W,
		.in_c = SC_C, .out_c = KG_K, .kh = 1, .kw = 1, .stride_y = 1, .stride_x = 1,
		.explicit_pads = true, .in_scale = 1.0f, .in_zp = SC_ZP,
		.w_scale = &unit_scale, .w_scale_count = 1, .out_scale = 1.0f,
	};
	const struct conv_patch kgroup = {
		NPU_CNA_CONV_CON2, NPU_FV(CNA, CONV_CON2, KERNEL_GROUP, ~0u),
		NPU_FV(CNA, CONV_CON2, KERNEL_GROUP, KG_K / KG_INT8_KERNELS - 1u),
	};

	return conv_change(e, &op, CONV_AS_BUILT, &kgroup, 1,
			   "1x1 int8 conv of 128 kernels, kernel_group 3 (control 0)", seen, len);
}

/*
 * A22 (§9.10): a 1x1 int8 convolution whose 512 KiB of weights (1024
 * input channels, 512 kernels) exceed the weight banks, in one task
 * (streams: the model, which reads weights from memory as they are
 * needed), against rkbare's tiling by kernel groups (the control).
 */
enum { WS_C = 1024, WS_K = 512, WS_HW = 2 };

PROBE_FN(probe_weight_stream)
{
	static const struct lower_conv_op op = {
		.prec = NPU_PREC_INT8, .out_int32 = true, .in_h = WS_HW, .in_w = WS_HW,
		.in_c = WS_C, .out_c = WS_K, .kh = 1, .kw = 1, .stride_y = 1, .stride_x = 1,
		.explicit_pads = true, .in_scale = 1.0f, .in_zp = SC_ZP,
		.w_scale = &unit_scale, .w_scale_count = 1, .out_scale = 1.0f,
	};

	return conv_change(e, &op, CONV_ONE_PASS, NULL, 0,
			   "1x1 int8 conv, 512 KiB of weights in one task", seen, len);
}

/*
 * A29: an fp16 3x3 depthwise over 64 channels in one task, as the vendor
 * runs 96 to 1024 channels a task (rkbare tiles by 32): the task rkbare
 * makes for 32 channels widened to 64 (DATA_SIZE1, DATAOUT, the weight
 * size), the weights packed as the model reads them, [C/32][kh][kw][32].
 * Readings: that order (groups-of-32), [kh][kw][C] (spatial-major),
 * [C][kh][kw] (channel-major). The control: the same op as rkbare runs
 * it, a task per 32 channels, which must read the model's order.
 */
enum { DWW_C = 64, DWW_HW = 6, DWW_K = 3 };
#define DWW_OUT_HW	(DWW_HW - DWW_K + 1)
#define DWW_OUT		(DWW_C * DWW_OUT_HW * DWW_OUT_HW)
#define DWW_IN		(DWW_C * DWW_HW * DWW_HW)
#define DWW_W		(DWW_K * DWW_K * DWW_C)

struct dw_wide {
	struct lower_conv_op op;
	struct lower_conv_shape s;
	struct dma_buf in, wt, out;
	uint16_t x[DWW_IN], w[DWW_W], y[DWW_OUT];
	float xf[DWW_IN], wbuf[DWW_W], yf[DWW_OUT];
	size_t tasks;			/* the last run's */
};

static void dw_wide_free(struct probe_env *e, struct dw_wide *d)
{
	dma_pool_release(e->pool, &d->out);
	dma_pool_release(e->pool, &d->wt);
	dma_pool_release(e->pool, &d->in);
}

static int dw_wide_setup(struct probe_env *e, struct dw_wide *d)
{
	memset(d, 0, sizeof(*d));
	d->op = (struct lower_conv_op){
		.prec = NPU_PREC_FP16, .in_h = DWW_HW, .in_w = DWW_HW, .in_c = DWW_C,
		.out_c = DWW_C, .kh = DWW_K, .kw = DWW_K, .stride_y = 1, .stride_x = 1,
		.explicit_pads = true, .depthwise = true,
	};
	if (lower_conv_check(&d->op, &d->s) ||
	    dma_pool_alloc(e->pool, d->s.in_bytes, DMA_POOL_MIN_ALIGN, &d->in) ||
	    dma_pool_alloc(e->pool, d->s.weight_bytes, DMA_POOL_MIN_ALIGN, &d->wt) ||
	    dma_pool_alloc(e->pool, d->s.out_bytes, DMA_POOL_MIN_ALIGN, &d->out))
		return -1;
	for (size_t i = 0; i < DWW_IN; i++) {
		d->x[i] = rnd_f16(e);
		d->xf[i] = layout_f16_to_f32(d->x[i]);
	}
	for (size_t i = 0; i < DWW_W; i++)
		d->w[i] = rnd_f16(e);
	memset(d->in.cpu, 0, d->in.size);
	layout_nchw_to_nc1hwc2(NPU_PREC_FP16, d->x, d->in.cpu, DWW_HW, DWW_HW, DWW_C,
			       d->s.in_c_aligned);
	memset(d->wt.cpu, 0, d->wt.size);
	if (lower_conv_pack(&d->op, &d->s, d->w, NULL, d->wt.cpu, NULL, NULL))
		return -1;
	for (size_t i = 0; i < DWW_W; i++)
		d->wbuf[i] = layout_f16_to_f32(((const uint16_t *)d->wt.cpu)[i]);
	hal_dcache_clean(d->in.cpu, d->in.size);
	hal_dcache_clean(d->wt.cpu, d->wt.size);
	d->op.in_addr = (uint32_t)d->in.phys;
	d->op.weight_addr = (uint32_t)d->wt.phys;
	d->op.out_addr = (uint32_t)d->out.phys;
	return 0;
}

/* The op as rkbare lowers it (one_task false) or as one task; yf gets the
 * output. */
static int dw_wide_run(struct probe_env *e, struct dw_wide *d, bool one_task)
{
	size_t cap = rc_program_size(DWW_C / LAYOUT_DW_GROUP_FP16, CONV_TASK_MAX_ENTRIES);
	struct rc_task rt[DWW_C / LAYOUT_DW_GROUP_FP16];
	struct npu_task task[DWW_C / LAYOUT_DW_GROUP_FP16];
	struct lower_conv_op group = d->op;
	struct dma_buf prog = { 0 };
	struct kick k = { 0 };
	struct rc_program p;
	struct conv_task t;
	int rc = -1;

	memset(d->out.cpu, 0, d->out.size);
	hal_dcache_clean(d->out.cpu, d->out.size);
	if (dma_pool_alloc(e->pool, cap * sizeof(uint64_t), RC_TASK_ALIGN_BYTES, &prog))
		return -1;
	rc_program_init(&p, prog.cpu, cap, rt, DWW_C / LAYOUT_DW_GROUP_FP16);
	if (one_task) {
		/* the first 32-channel task over all the channels */
		group.in_c = group.out_c = LAYOUT_DW_GROUP_FP16;
		if (lower_conv_task(&group, &t))
			goto out;
		t.in_c = t.out_c = t.in_c_aligned = t.out_c_aligned = DWW_C;
		t.weight_bytes = t.weight_bytes_per_kernel = (uint32_t)d->s.weight_bytes;
		if (lower_tile(&p, &t))
			goto out;
	} else if (lower_conv(&p, &d->op)) {
		goto out;
	}
	d->tasks = p.task_count;
	if (finish_program(&p, &prog, task) ||
	    kick_chain(e, task, (unsigned int)p.task_count, &d->out, &k))
		goto out;
	layout_nc1hwc2_to_nchw(NPU_PREC_FP16, d->out.cpu, d->y, DWW_OUT_HW, DWW_OUT_HW, DWW_C);
	for (size_t i = 0; i < DWW_OUT; i++)
		d->yf[i] = layout_f16_to_f32(d->y[i]);
	rc = 0;
out:
	dma_pool_release(e->pool, &prog);
	return rc;
}

static const int dw_wide_layouts[] = { DW_GROUPS32, DW_SPATIAL, DW_CHANNEL_MAJOR };
#define DW_WIDE_READINGS	(sizeof(dw_wide_layouts) / sizeof(dw_wide_layouts[0]))

static int dw_wide_probe(struct probe_env *e, const struct probe *self, char *seen, size_t len,
			 struct dw_wide *d)
{
	const struct probe_dw dw = { .x = d->xf, .wbuf = d->wbuf, .wbuf_len = DWW_W,
				     .c = DWW_C, .h = DWW_HW, .w = DWW_HW, .lanes = DWW_C,
				     .readings = dw_wide_layouts };
	unsigned int ctl = 0, m[PROBE_MAX_READINGS] = { 0 };
	char what[PROBE_ERR_LEN];
	size_t ctl_tasks;
	int r;

	if (dw_wide_setup(e, d))
		return job_failed(e, seen, len, "the depthwise could not be set up");
	if (dw_wide_run(e, d, false))
		return job_failed(e, seen, len, "the control (a task per 32 channels) failed");
	for (size_t i = 0; i < DWW_OUT; i++)
		ctl += !probe_f16_close(d->yf[i], probe_dw_expect(&dw, 0, i));
	if (ctl) {
		snprintf(seen, len, "control (a task per 32 channels): %u of %d off the model's "
			 "order", ctl, DWW_OUT);
		return PROBE_NONE;
	}
	ctl_tasks = d->tasks;
	if (dw_wide_run(e, d, true))
		return job_failed(e, seen, len, "the 64-channel task failed");
	snprintf(what, sizeof(what), "3x3 fp16 dw, 64 channels in %zu task (control: %zu, exact)",
		 d->tasks, ctl_tasks);
	r = probe_decide_float(&dw, probe_dw_expect, DW_WIDE_READINGS, d->yf, DWW_OUT, m);
	say_counts(seen, len, what, DWW_OUT, m, DW_WIDE_READINGS, self->readings);
	return r;
}

PROBE_FN(probe_dw_wide)
{
	struct dw_wide *d = malloc(sizeof(*d));
	int r;

	if (!d)
		return job_failed(e, seen, len, "no memory");
	r = dw_wide_probe(e, self, seen, len, d);
	dw_wide_free(e, d);
	free(d);
	return r;
}

/*
 * A33: ARGB input (CONV_CON1.argb_in, which rkbare does not emit): a 1x1
 * fp16 convolution of 3-channel pixels packed in memory, written as the
 * board-run conv_gemm.py writes its 1-4 channel layers: the task rkbare
 * makes for 8 channels (one fp16 atom, 16 weight bytes a kernel), with
 * argb_in 7 + 3, nonalign_dma, group_line_off, datain_channel_real 2,
 * LINE_STRIDE in pixels, SURF_STRIDE LINE_STRIDE·(H − 1) and CBUF
 * data_entries ⌈W/4⌉·4·H, the values of that script's layers.
 * Two probes, one question each:
 *   A33-lanes: weights non-zero in the lanes past 3, LINE_STRIDE the width
 *     (so its unit does not matter): those lanes read 0 (zeros) or the
 *     next values in memory (memory);
 *   A33-line: LINE_STRIDE two pixels past the width, the lanes past 3 with
 *     zero weights (so what they read does not matter): rows that many
 *     pixels apart (pixels) or back to back (ignored).
 */
enum { AR_N = 3, AR_W = 4, AR_H = 4, AR_K = 16, AR_LINE_PAD = 2, AR_ENTRY_PX = 4 };
/* the input buffer: every row at the widest pitch, and a pixel's lanes of
 * slack past the end, all random */
#define AR_MEM		((AR_H * (AR_W + AR_LINE_PAD) + 1) * AR_N + PROBE_ARGB_LANES)
#define AR_OUT		(AR_K * AR_H * AR_W)

struct argb {
	uint16_t mem[AR_MEM], w[AR_K * PROBE_ARGB_LANES], y[AR_OUT];
	float memf[AR_MEM], wf[AR_K * PROBE_ARGB_LANES], yf[AR_OUT];
};

/* One ARGB task with rows `line` pixels apart; weights in the lanes past
 * AR_N zero when pad_zero. */
static int argb_run(struct probe_env *e, struct argb *a, unsigned int line, bool pad_zero)
{
	struct lower_conv_op op = {
		.prec = NPU_PREC_FP16, .in_h = AR_H, .in_w = AR_W, .in_c = PROBE_ARGB_LANES,
		.out_c = AR_K, .kh = 1, .kw = 1, .stride_y = 1, .stride_x = 1,
		.explicit_pads = true,
	};
	const uint32_t con1 = NPU_FV(CNA, CONV_CON1, ARGB_IN, 7u + AR_N) |
			      NPU_FV(CNA, CONV_CON1, NONALIGN_DMA, 1) |
			      NPU_FV(CNA, CONV_CON1, GROUP_LINE_OFF, 1);
	const size_t w_bytes = sizeof(a->w);
	size_t cap = rc_program_size(1, CONV_TASK_MAX_ENTRIES);
	struct lower_conv_shape s;
	struct dma_buf in = { 0 }, wt = { 0 }, out = { 0 }, prog = { 0 };
	struct rc_task rt[1];
	struct npu_task task[1];
	struct kick k = { 0 };
	struct rc_program p;
	struct conv_task t;
	int rc = -1;

	if (lower_conv_check(&op, &s) ||
	    dma_pool_alloc(e->pool, sizeof(a->mem), DMA_POOL_MIN_ALIGN, &in) ||
	    dma_pool_alloc(e->pool, w_bytes, DMA_POOL_MIN_ALIGN, &wt) ||
	    dma_pool_alloc(e->pool, s.out_bytes, DMA_POOL_MIN_ALIGN, &out) ||
	    dma_pool_alloc(e->pool, cap * sizeof(uint64_t), RC_TASK_ALIGN_BYTES, &prog))
		goto out;
	for (size_t i = 0; i < AR_MEM; i++) {
		a->mem[i] = rnd_f16(e);
		a->memf[i] = layout_f16_to_f32(a->mem[i]);
	}
	for (size_t i = 0; i < AR_K * PROBE_ARGB_LANES; i++) {
		a->w[i] = pad_zero && i % PROBE_ARGB_LANES >= AR_N ? 0 : rnd_f16(e);
		a->wf[i] = layout_f16_to_f32(a->w[i]);
	}
	memcpy(in.cpu, a->mem, sizeof(a->mem));
	memcpy(wt.cpu, a->w, w_bytes);
	memset(out.cpu, 0, out.size);
	hal_dcache_clean(in.cpu, in.size);
	hal_dcache_clean(wt.cpu, wt.size);
	op.in_addr = (uint32_t)in.phys;
	op.weight_addr = (uint32_t)wt.phys;
	op.out_addr = (uint32_t)out.phys;
	if (lower_conv_task(&op, &t))
		goto out;
	/* one fp16 atom of channels: 8 weight lanes a kernel, as conv_gemm.py */
	t.in_c_aligned = PROBE_ARGB_LANES;
	t.weight_bytes_per_kernel = PROBE_ARGB_LANES * sizeof(uint16_t);
	t.weight_bytes = (uint32_t)w_bytes;
	rc_program_init(&p, prog.cpu, cap, rt, 1);
	if (lower_tile(&p, &t) || p.task_count != 1 ||
	    patch_field(&p, NPU_CNA_CONV_CON1, con1, con1) ||
	    patch_field(&p, NPU_CNA_DATA_SIZE1, NPU_FV(CNA, DATA_SIZE1, DATAIN_CHANNEL_REAL, ~0u),
			NPU_FV(CNA, DATA_SIZE1, DATAIN_CHANNEL_REAL, AR_N - 1u)) ||
	    patch_field(&p, NPU_CNA_DMA_CON1, NPU_FV(CNA, DMA_CON1, LINE_STRIDE, ~0u),
			NPU_FV(CNA, DMA_CON1, LINE_STRIDE, line)) ||
	    patch_field(&p, NPU_CNA_DMA_CON2, NPU_FV(CNA, DMA_CON2, SURF_STRIDE, ~0u),
			NPU_FV(CNA, DMA_CON2, SURF_STRIDE, line * (AR_H - 1u))) ||
	    patch_field(&p, NPU_CNA_CBUF_CON1, NPU_FV(CNA, CBUF_CON1, DATA_ENTRIES, ~0u),
			NPU_FV(CNA, CBUF_CON1, DATA_ENTRIES,
			       align_up(AR_W, AR_ENTRY_PX) * AR_H)) ||
	    finish_program(&p, &prog, task) || kick_chain(e, task, 1, &out, &k))
		goto out;
	layout_nc1hwc2_to_nchw(NPU_PREC_FP16, out.cpu, a->y, AR_H, AR_W, AR_K);
	for (size_t i = 0; i < AR_OUT; i++)
		a->yf[i] = layout_f16_to_f32(a->y[i]);
	rc = 0;
out:
	dma_pool_release(e->pool, &prog);
	dma_pool_release(e->pool, &out);
	dma_pool_release(e->pool, &wt);
	dma_pool_release(e->pool, &in);
	return rc;
}

static int argb_probe(struct probe_env *e, const struct probe *self, char *seen, size_t len,
		      unsigned int line, bool pad_zero, const int *readings, const char *what)
{
	struct argb *a = malloc(sizeof(*a));
	unsigned int m[PROBE_MAX_READINGS] = { 0 };
	struct probe_argb pa;
	int r;

	if (!a)
		return job_failed(e, seen, len, "no memory");
	if (argb_run(e, a, line, pad_zero)) {
		r = job_failed(e, seen, len, "the ARGB task failed");
	} else {
		pa = (struct probe_argb){ a->memf, AR_MEM, a->wf, AR_N, AR_W, AR_H, AR_K, line,
					  readings };
		r = probe_decide_float(&pa, probe_argb_expect, 2, a->yf, AR_OUT, m);
		say_counts(seen, len, what, AR_OUT, m, 2, self->readings);
	}
	free(a);
	return r;
}

PROBE_FN(probe_argb_lanes)
{
	static const int readings[] = { ARGB_ZEROS, ARGB_MEMORY };

	return argb_probe(e, self, seen, len, AR_W, false, readings,
			  "1x1 fp16 conv, 3-channel ARGB pixels, weights in lanes 3-7");
}

PROBE_FN(probe_argb_line)
{
	static const int readings[] = { ARGB_ZEROS, ARGB_BACK_TO_BACK };

	return argb_probe(e, self, seen, len, AR_W + AR_LINE_PAD, true, readings,
			  "1x1 fp16 conv, 3-channel ARGB pixels, LINE_STRIDE width + 2");
}
