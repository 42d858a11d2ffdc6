/* SPDX-License-Identifier: MIT */
/*
 * More board probes (the table is boot/probe.c's; what they share is
 * boot/probe_internal.h): each decides one UNSURE question of
 * sim/ASSUMPTIONS.md from the outputs its readings predict
 * (boot/probe_decide.c).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/probe_internal.h"
#include "compiler/layout.h"
#include "compiler/lower_conv.h"
#include "compiler/lower_eltwise.h"
#include "compiler/lower_matmul.h"
#include "compiler/lower_tile.h"
#include "hal.h"

/* fp32 1.0: the BS/BN ALU operand on float data is an fp32 bit pattern (A28). */
#define PROBE_FP32_ONE	0x3F800000u

/* The largest element shuffle() moves. */
#define SHUFFLE_MAX_SIZE	sizeof(int64_t)

/* v's n elements of `size` bytes in a random order (Fisher-Yates): every
 * value of a probe's set once, in no order a board could favour. */
static void shuffle(struct probe_env *e, void *v, size_t n, size_t size)
{
	uint8_t *b = v, t[SHUFFLE_MAX_SIZE];

	if (size > sizeof(t))
		return;
	for (size_t i = n; i > 1u; i--) {
		size_t j = rnd32(e) % i;

		memcpy(t, b + (i - 1u) * size, size);
		memcpy(b + (i - 1u) * size, b + j * size, size);
		memcpy(b + j * size, t, size);
	}
}

/* ---- A21: unconverted fp16 through two stages ---- */

/* The stages of A21-stages inside the task's frame
 * (lower_fp16_flying_begin): BS bypassed, BN adding the register operand
 * fp32 1.0, the EW stage adding the per-pixel fp16 operand at t->b_addr
 * (the operand converter bypassed: no A36 state). */
static void stages_body(struct rc_program *p, const struct dpux_task *t)
{
	RC_WRITE(p, DPU, BS_CFG, NPU_DPU_BS_BYPASSED);
	RC_WRITE(p, DPU, BN_CFG,
		 NPU_FV(DPU, BN_CFG, BN_ALU_ALGO, NPU_ALU_ADD) |
		 NPU_FV(DPU, BN_CFG, BN_RELU_BYPASS, 1) | NPU_FV(DPU, BN_CFG, BN_MUL_BYPASS, 1));
	RC_WRITE(p, DPU, BN_ALU_CFG, PROBE_FP32_ONE);
	RC_WRITE(p, DPU, EW_CFG,
		 NPU_FV(DPU, EW_CFG, EW_DATA_MODE, NPU_ERDMA_PER_PIXEL) |
		 NPU_FV(DPU, EW_CFG, EDATA_SIZE, NPU_ERDMA_SIZE_16BIT) |
		 NPU_FV(DPU, EW_CFG, EW_ALU_ALGO, NPU_ALU_ADD) |
		 NPU_FV(DPU, EW_CFG, EW_RELU_BYPASS, 1) |
		 NPU_FV(DPU, EW_CFG, EW_OP_CVT_BYPASS, 1) |
		 NPU_FV(DPU, EW_CFG, EW_LUT_BYPASS, 1) |
		 NPU_FV(DPU, EW_CFG, EW_OP_SRC, NPU_EW_OP_FROM_ERDMA));
	RC_WRITE(p, DPU_RDMA, ERDMA_CFG,
		 NPU_FV(DPU_RDMA, ERDMA_CFG, ERDMA_DATA_MODE, NPU_ERDMA_PER_PIXEL) |
		 NPU_FV(DPU_RDMA, ERDMA_CFG, ERDMA_DATA_SIZE, NPU_ERDMA_SIZE_16BIT));
	RC_WRITE(p, DPU_RDMA, EW_BASE_ADDR, t->b_addr);
	RC_WRITE(p, DPU_RDMA, EW_SURF_STRIDE,
		 NPU_FV(DPU_RDMA, EW_SURF_STRIDE, EW_SURF_STRIDE, DPUX_W));
}

/* Both conversion bits cleared: the board's divide (elementwise.py FDIV,
 * FEATURE_MODE_CFG 0x17841, OUT_CVT_SCALE 1). */
static int stages_unconverted(struct rc_program *p, const struct dpux_task *t)
{
	(void)t;
	return patch_field(p, NPU_DPU_RDMA_FEATURE_MODE_CFG,
			   NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, MRDMA_FP16TOFP32_EN, ~0u), 0) ||
	       patch_field(p, NPU_DPU_OUT_CVT_SCALE,
			   NPU_FV(DPU, OUT_CVT_SCALE, FP32TOFP16_EN, ~0u), 0);
}

/*
 * A21-stages: x + 1 (BN) + e (EW) on fp16 data. Even cells: x a multiple
 * of 4 in [2048, 4096) (fp16 steps of 2), e = 1: x + 1 rounds back to x
 * (ties to even), so per-stage rounding gives x and fp32 inside x + 2 (the
 * entry's 2048 + 1 + 1). Odd cells: small quarters, exact either way
 * (they show the operands are read as meant). The control runs the same
 * task with the board-run pair (both bits 1), whose sums are the fp32
 * reading's; with both bits 0 the readings are per-stage (the model) and
 * fp32.
 */
enum { STG_BIG = 2048, STG_SMALL_Q = 256 };

static int probe_stages_run(struct probe_env *e, bool unconverted, const uint16_t *x,
			    uint32_t b_addr, int64_t *got)
{
	static uint16_t y[DPUX_N];
	const struct dpux_task t = { .b_addr = b_addr, .body = stages_body,
				     .patch = unconverted ? stages_unconverted : NULL };
	int rc = dpux_run(e, &t, x, y);

	for (size_t i = 0; !rc && i < DPUX_N; i++)
		got[i] = quarters(y[i]);
	return rc;
}

int probe_fp16_stages(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	static int32_t xq[DPUX_N], eq[DPUX_N];
	static uint16_t x[DPUX_N], b[DPUX_N];
	static int64_t got[DPUX_N];
	const struct probe_stages st = { .xq = xq, .eq = eq, .bnq = 4 };
	size_t bytes = DPUX_N * sizeof(uint16_t);
	struct dma_buf bb = { 0 };
	unsigned int ctl = 0;
	int rc;

	for (size_t i = 0; i < DPUX_N; i++) {
		bool big = i % 2u == 0;

		xq[i] = big ? (STG_BIG + 4 * (int32_t)(rnd32(e) % (STG_BIG / 4))) * 4 :
			      (int32_t)(rnd32(e) % (2 * STG_SMALL_Q)) - STG_SMALL_Q;
		eq[i] = big ? 4 : (int32_t)(rnd32(e) % (2 * STG_SMALL_Q)) - STG_SMALL_Q;
		x[i] = layout_f32_to_f16((float)xq[i] / 4.0f);
		b[i] = layout_f32_to_f16((float)eq[i] / 4.0f);
	}
	if (dma_pool_alloc(e->pool, bytes, DMA_POOL_MIN_ALIGN, &bb))
		return job_failed(e, seen, len, "no NPU memory for the operand");
	memcpy(bb.cpu, b, bytes);
	hal_dcache_clean(bb.cpu, bb.size);
	rc = probe_stages_run(e, false, x, bb.phys, got);
	for (size_t i = 0; !rc && i < DPUX_N; i++)
		ctl += got[i] != probe_stages_expect(&st, STG_FP32, i);
	if (!rc)
		rc = probe_stages_run(e, true, x, bb.phys, got);
	dma_pool_release(e->pool, &bb);
	if (rc)
		return job_failed(e, seen, len, rc == -1 ? "a task could not be built" :
				  "a job failed");
	if (ctl) {
		snprintf(seen, len, "control (both conversion bits 1): %u of %d sums x + 1 + e "
			 "wrong", ctl, DPUX_N);
		return PROBE_NONE;
	}
	return say_int(seen, len, "fp16 x + 1 (BN) + e (EW), both conversion bits 0; control "
		       "exact", &st, probe_stages_expect, self, got, DPUX_N);
}

/*
 * ---- A40: int4 matmuls as the lowering builds them (lower_matmul's 1×1
 * task through lower_tile), with a geometry, B packing or register the
 * matmul API never makes ----
 */
#define I4_NIBBLES_PER_ENTRY	128u	/* a 64-byte CBUF entry of int4 */
/* The largest A of the int4 probes: 4 × 1024 nibbles. */
#define I4_A_MAX_BYTES		2048u

struct i4_run {
	unsigned int m, k, n;
	bool m_on_width;		/* RKMM: M along the width (else the height) */
	const int8_t *a;		/* M × K, int4 values */
	const uint8_t *b;		/* B packed, b_bytes */
	size_t b_bytes;
	bool out_int32;			/* DPU out_precision int32 (A40 (2)) */
	unsigned int entries;		/* CBUF_CON1 DATA_ENTRIES (0: as built) */
	void *c;			/* the output buffer as written, c_bytes */
	size_t c_bytes;
};

/*
 * A matmul as one 1×1 task of lower_matmul's register set
 * (compiler/lower_matmul.c mm_full_task) through lower_tile, in any
 * precision pair the lowering writes: A (in memory as given, NC1HWC2 of M
 * pixels), B (as given, the weight layout), C written, with the probe's
 * register changes (0: none).
 */
struct mm_task {
	enum npu_precision in_prec, out_prec;
	unsigned int m, k, n;
	bool m_on_width;
	const void *a, *b;
	size_t a_bytes, b_bytes;
	unsigned int out_prec_patch;	/* DPU DATA_FORMAT out_precision (0: as built) */
	bool out_cvt_fp32;		/* OUT_CVT fp32tofp16_en cleared */
	unsigned int entries;		/* CBUF_CON1 DATA_ENTRIES (0: as built) */
	void *c;
	size_t c_bytes;			/* the output buffer, prefilled with a sentinel */
};

/* 0, -1 when it could not be built, -2 when the job failed. */
static int mm_task_run(struct probe_env *e, const struct mm_task *r)
{
	unsigned int w = r->m_on_width ? r->m : 1u, h = r->m_on_width ? 1u : r->m;
	size_t cap = rc_program_size(1, CONV_TASK_MAX_ENTRIES);
	struct dma_buf ab = { 0 }, bb = { 0 }, cb = { 0 }, prog = { 0 };
	struct rc_task rt[1];
	struct npu_task task;
	struct rc_program p;
	struct conv_task t;
	int rc = -1;

	e->err[0] = '\0';
	if (dma_pool_alloc(e->pool, r->a_bytes, DMA_POOL_MIN_ALIGN, &ab) ||
	    dma_pool_alloc(e->pool, r->b_bytes, DMA_POOL_MIN_ALIGN, &bb) ||
	    dma_pool_alloc(e->pool, r->c_bytes, DMA_POOL_MIN_ALIGN, &cb) ||
	    dma_pool_alloc(e->pool, cap * sizeof(uint64_t), RC_TASK_ALIGN_BYTES, &prog))
		goto out;
	memcpy(ab.cpu, r->a, r->a_bytes);
	memcpy(bb.cpu, r->b, r->b_bytes);
	/* a sentinel no reading writes */
	memset(cb.cpu, 0xA5, cb.size);
	hal_dcache_clean(ab.cpu, ab.size);
	hal_dcache_clean(bb.cpu, bb.size);
	hal_dcache_clean(cb.cpu, cb.size);
	memset(&t, 0, sizeof(t));
	t.in_prec = r->in_prec;
	t.out_prec = r->out_prec;
	t.in_addr = ab.phys;
	t.in_w = t.out_w = w;
	t.in_h_full = t.in_rows = t.out_rows = t.out_h_full = h;
	t.in_c = t.in_c_aligned = r->k;
	t.kw = t.kh = t.stride_x = t.stride_y = 1;
	t.weight_addr = bb.phys;
	t.kernels = r->n;
	t.weight_bytes_per_kernel = (uint32_t)layout_packed_bytes(r->in_prec, r->k);
	t.weight_bytes = t.weight_bytes_per_kernel * r->n;
	t.out_addr = cb.phys;
	t.out_c = t.out_c_aligned = r->n;
	/* fp16: qd_en 1 as lower_matmul writes it (MTX) */
	t.qd_en = r->in_prec == NPU_PREC_FP16;
	t.out_mult = (struct quant_mult){ .multiplier = 1, .shift = 0 };
	t.ic_segment = LOWER_MM_K_SEGMENT;
	rc_program_init(&p, prog.cpu, cap, rt, 1);
	if (lower_tile(&p, &t) || p.task_count != 1 ||
	    (r->out_prec_patch &&
	     patch_field(&p, NPU_DPU_DATA_FORMAT, NPU_FV(DPU, DATA_FORMAT, OUT_PRECISION, ~0u),
			 NPU_FV(DPU, DATA_FORMAT, OUT_PRECISION, r->out_prec_patch))) ||
	    (r->out_cvt_fp32 &&
	     patch_field(&p, NPU_DPU_OUT_CVT_SCALE, NPU_FV(DPU, OUT_CVT_SCALE, FP32TOFP16_EN, ~0u),
			 0)) ||
	    (r->entries &&
	     patch_field(&p, NPU_CNA_CBUF_CON1, NPU_FV(CNA, CBUF_CON1, DATA_ENTRIES, ~0u),
			 NPU_FV(CNA, CBUF_CON1, DATA_ENTRIES, r->entries))) ||
	    finish_program(&p, &prog, &task))
		goto out;
	rc = -2;	/* from here a failure is the job's */
	if (submit_chain(e, &task, 1, &cb, NULL))
		goto out;
	memcpy(r->c, cb.cpu, r->c_bytes);
	rc = 0;
out:
	dma_pool_release(e->pool, &prog);
	dma_pool_release(e->pool, &cb);
	dma_pool_release(e->pool, &bb);
	dma_pool_release(e->pool, &ab);
	return rc;
}

/* Output bytes of a run: int16 NC1HWC2, twice that room for int32. */
static size_t i4_c_bytes(const struct i4_run *r)
{
	size_t bytes = layout_nc1hwc2_bytes(NPU_PREC_INT16, r->m_on_width ? 1 : r->m,
					    r->m_on_width ? r->m : 1, r->n);

	return r->out_int32 ? 2u * bytes : bytes;
}

/* One int4 run: A packed into NC1HWC2 nibbles (32 channels an atom, pixel
 * m the m-th row or column); 0, -1 (not built) or -2 (job failed). */
static int i4_run(struct probe_env *e, const struct i4_run *r)
{
	static uint8_t a[I4_A_MAX_BYTES];
	unsigned int c2 = layout_c2(NPU_PREC_INT4), pixels = r->m;
	const struct mm_task t = {
		.in_prec = NPU_PREC_INT4, .out_prec = NPU_PREC_INT16, .m = r->m, .k = r->k,
		.n = r->n, .m_on_width = r->m_on_width, .a = a,
		.a_bytes = layout_nc1hwc2_bytes(NPU_PREC_INT4, r->m_on_width ? 1 : r->m,
						r->m_on_width ? r->m : 1, r->k),
		.b = r->b, .b_bytes = r->b_bytes,
		.out_prec_patch = r->out_int32 ? NPU_PREC_INT32 : 0, .entries = r->entries,
		.c = r->c, .c_bytes = r->c_bytes,
	};

	if (t.a_bytes > sizeof(a))
		return -1;
	memset(a, 0, t.a_bytes);
	for (unsigned int m = 0; m < r->m; m++)
		for (unsigned int k = 0; k < r->k; k++)
			put_int4(a, ((size_t)(k / c2) * pixels + m) * c2 + k % c2,
				 r->a[(size_t)m * r->k + k]);
	return mm_task_run(e, &t);
}

/* C[m][n] of a run's int16 output: NC1HWC2, 8 channels an atom (64-kernel
 * groups of 8 surfaces, SURFACE_ADD 8 surfaces: dense). */
static int16_t i4_c(const struct i4_run *r, unsigned int m, unsigned int n)
{
	const int16_t *c = r->c;
	unsigned int c2 = layout_c2(NPU_PREC_INT16);

	return c[((size_t)(n / c2) * r->m + m) * c2 + n % c2];
}

/* B (K × N values) packed in reading h's layout (I4G_*) into b, zeroed to
 * b_bytes first. */
static void i4_pack_b(const int8_t *bv, unsigned int k_total, unsigned int n_total, int h,
		      uint8_t *b, size_t b_bytes)
{
	memset(b, 0, b_bytes);
	for (unsigned int k = 0; k < k_total; k++)
		for (unsigned int n = 0; n < n_total; n++)
			put_int4(b, probe_i4_b_index(h, k_total, n_total, k, n),
				 bv[(size_t)k * n_total + n]);
}

/* Random int4 values. */
static void i4_fill(struct probe_env *e, int8_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		v[i] = (int8_t)((int)(rnd32(e) % 16u) - 8);
}

/* Wrong sums of a run against the CPU's (within int16 here). */
static unsigned int i4_wrong(const struct i4_run *r, const int8_t *bv)
{
	unsigned int bad = 0;

	for (unsigned int m = 0; m < r->m; m++)
		for (unsigned int n = 0; n < r->n; n++) {
			int32_t acc = 0;

			for (unsigned int k = 0; k < r->k; k++)
				acc += r->a[(size_t)m * r->k + k] * bv[(size_t)k * r->n + n];
			bad += i4_c(r, m, n) != acc;
		}
	return bad;
}

/*
 * A40-int32: the lowered 4 × 1024 × 64 int4 stream, every value -8 (every
 * sum 65536), as built (the control: int16 out, every result 32767 or 0 by
 * A40-int4's readings) and with DPU DATA_FORMAT out_precision int32: 65536
 * in every int32 word means the DPU writes int4 sums as int32 (int32);
 * none, or a job that fails (the model refuses it), int16 only.
 */
enum { I4W_M = 4, I4W_K = 1024, I4W_N = 64, I4W_MIN = -8, I4W_SUM = 65536 };

int probe_i4_int32(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	static int8_t a[I4W_M * I4W_K], bv[I4W_K * I4W_N];
	static uint8_t b[I4W_K * I4W_N / 2];
	/* room for the int32 output */
	static int32_t c[I4W_M * I4W_N * 2];
	struct i4_run r = { .m = I4W_M, .k = I4W_K, .n = I4W_N, .a = a, .b = b,
			    .b_bytes = sizeof(b), .c = c };
	bool cases[I4W_CASES];
	unsigned int sat = 0, wrapped = 0, hits = 0;
	int rc;

	memset(a, I4W_MIN, sizeof(a));
	memset(bv, I4W_MIN, sizeof(bv));
	i4_pack_b(bv, I4W_K, I4W_N, I4G_DENSE, b, sizeof(b));
	r.c_bytes = i4_c_bytes(&r);
	if (i4_run(e, &r))
		return job_failed(e, seen, len, "the control (int16 out) failed");
	for (unsigned int m = 0; m < I4W_M; m++)
		for (unsigned int n = 0; n < I4W_N; n++) {
			sat += i4_c(&r, m, n) == probe_int4_expect(&(int32_t){ I4W_SUM },
								   I4_SATURATE, 0);
			wrapped += i4_c(&r, m, n) == probe_int4_expect(&(int32_t){ I4W_SUM },
								       I4_WRAP, 0);
		}
	if (sat != I4W_M * I4W_N && wrapped != I4W_M * I4W_N) {
		snprintf(seen, len, "control (int16 out): %u of %d sums saturated, %u wrapped", sat,
			 I4W_M * I4W_N, wrapped);
		return PROBE_NONE;
	}
	r.out_int32 = true;
	r.c_bytes = i4_c_bytes(&r);
	rc = i4_run(e, &r);
	if (rc == -1)
		return job_failed(e, seen, len, "the case could not be built");
	for (size_t i = 0; !rc && i < r.c_bytes / sizeof(int32_t); i++)
		hits += c[i] == I4W_SUM;
	cases[I4W_ALL] = !rc && hits == I4W_M * I4W_N;
	cases[I4W_NONE] = rc || !hits;
	if (rc)
		snprintf(seen, len, "int4 4x1024x64 of -8 with out_precision int32: the job did not "
			 "complete (%s); control (int16) exact", e->err[0] ? e->err : "error");
	else
		snprintf(seen, len, "int4 4x1024x64 of -8 with out_precision int32: %u of %d int32 "
			 "words 65536; control (int16) exact", hits, I4W_M * I4W_N);
	(void)self;
	return probe_i4_int32_pick(cases);
}

/*
 * A40-entries: RKMM's layout, M = 4 along the width, K = 96 (not a multiple
 * of 128), N = 64, random int4, with CBUF DATA_ENTRIES ⌈M·K/128⌉ = 3 (the
 * model's) and M·⌈K/128⌉ = 4 (RKMM's); control K = 128, where both are 4.
 */
enum { I4E_M = 4, I4E_K = 96, I4E_K_CONTROL = 128, I4E_N = 64 };

/* Wrong sums of a width-M run of K, with `entries` (0: as built); -1 when
 * the job failed. */
static int i4_entries_run(struct probe_env *e, unsigned int k, unsigned int entries, int *built)
{
	static int8_t a[I4E_M * I4E_K_CONTROL], bv[I4E_K_CONTROL * I4E_N];
	static uint8_t b[I4E_K_CONTROL * I4E_N / 2];
	static int16_t c[I4E_M * I4E_N];
	struct i4_run r = { .m = I4E_M, .k = k, .n = I4E_N, .m_on_width = true, .a = a,
			    .b = b, .b_bytes = sizeof(b), .entries = entries, .c = c,
			    .c_bytes = sizeof(c) };
	int rc;

	i4_fill(e, a, (size_t)I4E_M * k);
	i4_fill(e, bv, (size_t)k * I4E_N);
	i4_pack_b(bv, k, I4E_N, I4G_DENSE, b, sizeof(b));
	rc = i4_run(e, &r);
	*built = rc != -1;
	return rc ? -1 : (int)i4_wrong(&r, bv);
}

int probe_i4_entries(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	const unsigned int dense = (I4E_M * I4E_K + I4_NIBBLES_PER_ENTRY - 1u) /
				   I4_NIBBLES_PER_ENTRY;
	const unsigned int pixel = I4E_M * ((I4E_K + I4_NIBBLES_PER_ENTRY - 1u) /
					    I4_NIBBLES_PER_ENTRY);
	bool cases[I4E_CASES];
	int built, ctl, bad[I4E_CASES];
	char what[I4E_CASES][24];

	ctl = i4_entries_run(e, I4E_K_CONTROL, 0, &built);
	if (ctl < 0)
		return job_failed(e, seen, len, built ? "the control (K = 128) failed" :
				  "the control could not be built");
	if (ctl) {
		snprintf(seen, len, "control (M = 4 on the width, K = 128): %d of %d sums wrong",
			 ctl, I4E_M * I4E_N);
		return PROBE_NONE;
	}
	bad[I4E_DENSE_OK] = i4_entries_run(e, I4E_K, dense, &built);
	if (built)
		bad[I4E_PIXEL_OK] = i4_entries_run(e, I4E_K, pixel, &built);
	if (!built)
		return job_failed(e, seen, len, "a case could not be built");
	for (int i = 0; i < I4E_CASES; i++) {
		cases[i] = !bad[i];
		if (bad[i] < 0)
			snprintf(what[i], sizeof(what[i]), "the job failed");
		else
			snprintf(what[i], sizeof(what[i]), "%d wrong", bad[i]);
	}
	snprintf(seen, len, "int4 M = 4 on the width, K = 96, N = 64: DATA_ENTRIES %u %s, %u %s; "
		 "control (K = 128) exact", dense, what[I4E_DENSE_OK], pixel, what[I4E_PIXEL_OK]);
	(void)self;
	return probe_i4_entries_pick(cases);
}

/*
 * A40-last-group: N = 96 (a whole group of 64 kernels and one of 32),
 * M = 4 on the height, K = 64, random int4, B packed with the last group
 * dense (the model's) and padded to 64 kernels, each in a buffer of the
 * padded size (zeros past the packing); every result of both runs is
 * checked against what each layout reading predicts for that buffer.
 */
enum { I4G_M = 4, I4G_K = 64, I4G_N = 96, I4G_N_PADDED = 128 };

int probe_i4_last_group(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	static int8_t a[I4G_M * I4G_K], bv[I4G_K * I4G_N];
	static uint8_t b[I4G_READINGS][I4G_K * I4G_N_PADDED / 2];
	static int16_t c[I4G_M * I4G_N];
	static int64_t got[I4G_READINGS * I4G_M * I4G_N];
	const uint8_t *bufs[I4G_READINGS] = { b[I4G_DENSE], b[I4G_PADDED] };
	const struct probe_i4_group g = { .a = a, .bbuf = bufs, .bbuf_nibbles = 2u * sizeof(b[0]),
					  .m = I4G_M, .k = I4G_K, .n = I4G_N };

	i4_fill(e, a, sizeof(a));
	i4_fill(e, bv, sizeof(bv));
	for (int h = 0; h < I4G_READINGS; h++) {
		struct i4_run r = { .m = I4G_M, .k = I4G_K, .n = I4G_N, .a = a, .b = b[h],
				    .b_bytes = sizeof(b[h]), .c = c, .c_bytes = sizeof(c) };
		int rc;

		i4_pack_b(bv, I4G_K, I4G_N, h, b[h], sizeof(b[h]));
		rc = i4_run(e, &r);
		if (rc)
			return job_failed(e, seen, len, rc == -1 ? "a run could not be built" :
					  "a job failed");
		for (unsigned int m = 0; m < I4G_M; m++)
			for (unsigned int n = 0; n < I4G_N; n++)
				got[((size_t)h * I4G_M + m) * I4G_N + n] = i4_c(&r, m, n);
	}
	return say_int(seen, len, "int4 4x64x96, B's last group dense and padded", &g,
		       probe_i4_group_expect, self, got, sizeof(got) / sizeof(got[0]));
}

/* ---- A35: the LUT's mux and read-back ---- */

/* Random table entries within ±range. */
static void lut_fill(struct probe_env *e, uint16_t *t, unsigned int n, unsigned int range)
{
	for (unsigned int j = 0; j < n; j++)
		t[j] = (uint16_t)((int32_t)(rnd32(e) % (2u * range + 1u)) - (int32_t)range);
}

/* The task's LUT_CFG.lut_lo_le_mux set to *(const unsigned int *)t->ctx. */
static int lut_mux_patch(struct rc_program *p, const struct dpux_task *t)
{
	const unsigned int *mux = t->ctx;

	return patch_field(p, NPU_DPU_LUT_CFG, NPU_FV(DPU, LUT_CFG, LUT_LO_LE_MUX, ~0u),
			   NPU_FV(DPU, LUT_CFG, LUT_LO_LE_MUX, *mux));
}

/*
 * A35-lut-mux: lut_lo_le_mux ("LO LUT and LE LUT mux", TRM, no values; 2
 * in every published stream). LE covers 0..32, LO 16..48 (select 2, random
 * entries, slopes 0: past an end the end entry), hybrid priority LO, so
 * with mux 2 (the control) inputs 0..15 take LE and 16..48 LO. The same
 * task with mux 0, 1 and 3: each run is classed as mux 2's result, LE for
 * every input, LO for every input, or none (a job that fails: the model
 * refuses them).
 */
enum { LUTX_SEL = 2, LUTX_ENTRIES = 9, LUTX_LO_START = 16, LUTX_X_MAX = 48,
       LUTX_RANGE = 100 };

int probe_lut_mux(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	static const unsigned int muxes[LUTX_RUNS] = { 0, 1, 3 };
	static const char *const names[LUTM_CLASSES] = { "as 2", "LE", "LO" };
	static const unsigned int board_mux = NPU_LUT_LO_LE_MUX_BOARD;
	static uint16_t t[NPU_LUT_TABLES][LUTX_ENTRIES], x[DPUX_N], y[DPUX_N];
	static int32_t xq[DPUX_N];
	static int64_t got[DPUX_N];
	const int32_t span = (LUTX_ENTRIES - 1) << LUTX_SEL;
	const struct probe_lut l = {
		.tab = {
			{ .start = 0, .end = span, .sel = LUTX_SEL, .t = t[NPU_LUT_TABLE_LE] },
			{ .start = LUTX_LO_START, .end = LUTX_LO_START + span, .sel = LUTX_SEL,
			  .t = t[NPU_LUT_TABLE_LO] },
		},
		.hybrid = NPU_LUT_TABLE_LO, .oflow = NPU_LUT_TABLE_LO, .uflow = NPU_LUT_TABLE_LE,
		.xq = xq, .q = PROBE_LUT_MUX,
	};
	int cls[LUTX_RUNS + 1];
	size_t at;

	for (unsigned int id = 0; id < NPU_LUT_TABLES; id++)
		lut_fill(e, t[id], LUTX_ENTRIES, LUTX_RANGE);
	for (unsigned int i = 0; i < DPUX_N; i++) {
		xq[i] = (int32_t)(i % (LUTX_X_MAX + 1u)) * 4;
		x[i] = layout_f32_to_f16((float)xq[i] / 4.0f);
	}
	/* the runs with 0, 1, 3, then the control with 2 */
	for (unsigned int r = 0; r <= LUTX_RUNS; r++) {
		const struct dpux_task tk = { .lut = &l, .patch = lut_mux_patch,
					      .ctx = r < LUTX_RUNS ? &muxes[r] : &board_mux };
		int rc = dpux_run(e, &tk, x, y);

		if (rc == -1)
			return job_failed(e, seen, len, "a task could not be built");
		if (rc && r == LUTX_RUNS)
			return job_failed(e, seen, len, "the control (lo_le_mux 2) failed");
		for (size_t i = 0; !rc && i < DPUX_N; i++)
			got[i] = quarters(y[i]);
		cls[r] = rc ? PROBE_FAILED :
			 probe_decide_int(&l, probe_lut_expect, LUTM_CLASSES, got, DPUX_N, NULL);
	}
	at = (size_t)snprintf(seen, len, "LUT LE 0..32, LO 16..48, hybrid LO, lo_le_mux");
	for (unsigned int r = 0; r < LUTX_RUNS && at < len; r++)
		at += (size_t)snprintf(seen + at, len - at, "%s %u %s", r ? "," : "", muxes[r],
				       cls[r] == PROBE_FAILED ? "failed" :
				       cls[r] < 0 ? "no table" : names[cls[r]]);
	if (cls[LUTX_RUNS] != LUTM_AS_2) {
		if (at < len)
			snprintf(seen + at, len - at, "; control (2) not as the priorities");
		return PROBE_NONE;
	}
	if (at < len)
		snprintf(seen + at, len - at, "; control (2) as the priorities");
	(void)self;
	return probe_lut_mux_pick(cls);
}

/*
 * A35-lut-read: the tables uploaded by a LUT task as silu.py uploads them
 * (distinct entries; the task's own output is not the question), then, by
 * MMIO on the idle core 0, LUT_ACCESS_CFG type 0 (read) at entry LUTB_LE_AT
 * of LE and LUTB_LO_AT of LO, each followed by LUTB_READS reads of
 * LUT_ACCESS_DATA (its 16-bit field): each the next entry (the model,
 * NVDLA's auto-increment), the addressed entry each time, or 0.
 */
enum { LUTB_ENTRIES = 17, LUTB_READS = 4, LUTB_LE_AT = 3, LUTB_LO_AT = 10 };
/* Entries far from 0 and from each other: 0x1000 + 0x111·j, LO negative. */
#define LUTB_BASE	0x1000u
#define LUTB_STEP	0x111u

int probe_lut_read(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	static uint16_t t[NPU_LUT_TABLES][LUTB_ENTRIES], x[DPUX_N], y[DPUX_N];
	static int32_t xq[DPUX_N];
	static int64_t got[NPU_LUT_TABLES * LUTB_READS];
	const struct probe_lut l = {
		.tab = {
			{ .start = 0, .end = LUTB_ENTRIES - 1, .t = t[NPU_LUT_TABLE_LE] },
			{ .start = 0, .end = LUTB_ENTRIES - 1, .t = t[NPU_LUT_TABLE_LO] },
		},
		.xq = xq, .q = PROBE_LUT_ROUND,
	};
	const struct probe_lut_read rd = {
		.t = { t[NPU_LUT_TABLE_LE], t[NPU_LUT_TABLE_LO] },
		.addr = { LUTB_LE_AT, LUTB_LO_AT }, .reads = LUTB_READS,
	};
	const struct dpux_task tk = { .lut = &l };
	uintptr_t base = e->npu->board->cores[0].base;
	int rc;

	for (unsigned int j = 0; j < LUTB_ENTRIES; j++) {
		t[NPU_LUT_TABLE_LE][j] = (uint16_t)(LUTB_BASE + LUTB_STEP * j);
		t[NPU_LUT_TABLE_LO][j] = (uint16_t)-(int32_t)(LUTB_BASE + LUTB_STEP * j);
	}
	for (unsigned int i = 0; i < DPUX_N; i++) {
		xq[i] = (int32_t)(i % LUTB_ENTRIES) * 4;
		x[i] = layout_f32_to_f16((float)xq[i] / 4.0f);
	}
	rc = dpux_run(e, &tk, x, y);
	if (rc)
		return job_failed(e, seen, len, rc == -1 ? "the upload task could not be built" :
				  "the upload task failed");
	for (unsigned int id = 0; id < NPU_LUT_TABLES; id++) {
		hal_write32(base + NPU_DPU_LUT_ACCESS_CFG,
			    NPU_FV(DPU, LUT_ACCESS_CFG, LUT_ACCESS_TYPE, NPU_LUT_ACCESS_READ) |
			    NPU_FV(DPU, LUT_ACCESS_CFG, LUT_TABLE_ID, id) |
			    NPU_FV(DPU, LUT_ACCESS_CFG, LUT_ADDR, rd.addr[id]));
		for (unsigned int j = 0; j < LUTB_READS; j++)
			got[id * LUTB_READS + j] = NPU_FG(DPU, LUT_ACCESS_DATA, LUT_ACCESS_DATA,
							  hal_read32(base + NPU_DPU_LUT_ACCESS_DATA));
	}
	return say_int(seen, len, "LUT_ACCESS_DATA reads after a read CFG, LE and LO", &rd,
		       probe_lut_read_expect, self, got, NPU_LUT_TABLES * LUTB_READS);
}

/*
 * A35-lut-int: an int8 table task as the compiler builds one for an int8
 * activation (lower_lut_int8: LE and LO −128..127, select 0, the EW stage's
 * X the int8 value; UNSURE, no board-run stream feeds the LUT integers):
 * random entries within int8, every int8 value once in a shuffled order.
 * The job failing is no reading (the model refusing the LUT on integers,
 * as it did before).
 */
int probe_lut_int(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	static int8_t x[DPUX_INT8_N], y[DPUX_INT8_N];
	static uint16_t t[LOWER_LUT_INT8_VALUES];
	static int64_t got[DPUX_INT8_N];
	/* lower_lut_int8's layout: both tables at one entry a value */
	const struct probe_lut l = {
		.tab = {
			{ .start = INT8_MIN, .end = INT8_MAX, .t = t },
			{ .start = INT8_MIN, .end = INT8_MAX, .t = t },
		},
	};
	const struct probe_lut_int li = { x, t };
	const struct dpux_task tk = { .lut = &l, .int8 = true };
	int rc;

	for (unsigned int j = 0; j < LOWER_LUT_INT8_VALUES; j++)
		t[j] = (uint16_t)(int16_t)rnd8(e);
	for (unsigned int i = 0; i < DPUX_INT8_N; i++)
		x[i] = (int8_t)(i + INT8_MIN);
	shuffle(e, x, DPUX_INT8_N, sizeof(x[0]));
	rc = dpux_run(e, &tk, x, y);
	if (rc)
		return job_failed(e, seen, len, rc == -1 ? "the task could not be built" :
				  "the int8 LUT task failed");
	for (unsigned int i = 0; i < DPUX_INT8_N; i++)
		got[i] = y[i];
	return say_int(seen, len, "int8 table task, each int8 value once", &li,
		       probe_lut_int_expect, self, got, DPUX_INT8_N);
}

/*
 * ---- A30-int16-acc: the int16 accumulator. An int16 matmul as the
 * board-run int16 GEMM runs it (direct, converter bypassed, int32 out;
 * allbilly/rk3588 experimental/gemm_int16.py), M = 4 (rows of width 1),
 * K = 32, N = 16 (one kernel group): row 0 small (every reading agrees),
 * rows 1 and 2 large positive and large negative, B's column n ≥ 1 of
 * magnitude n·2^11 to (n + 1)·2^11, alternating in sign, so the sums step
 * from about 2^30 to 2^35 across the columns; row 3 and column 0 all
 * -32768 (32 · 2^30 = 2^35). Readings: the exact sums saturated (wide: the
 * model), wrapped to 32 bits, wrapped to 34 bits then saturated. ----
 */
enum { A16_M = 4, A16_K = 32, A16_N = 16, A16_SMALL = 100, A16_BIG = 16384,
       A16_STEP_BITS = 11 };

int probe_int16_acc(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	static int16_t a[A16_M * A16_K], bv[A16_K * A16_N];
	static uint16_t b[A16_K * A16_N];
	static uint8_t am[A16_M * A16_K * sizeof(int16_t)];
	static int32_t c[A16_M * A16_N], cm[A16_M * A16_N];
	static int64_t sums[A16_M * A16_N], got[A16_M * A16_N];
	const struct mm_task t = {
		.in_prec = NPU_PREC_INT16, .out_prec = NPU_PREC_INT32, .m = A16_M, .k = A16_K,
		.n = A16_N, .a = am, .a_bytes = sizeof(am), .b = b, .b_bytes = sizeof(b),
		.c = cm, .c_bytes = sizeof(cm),
	};
	int rc;

	for (unsigned int m = 0; m < A16_M; m++)
		for (unsigned int k = 0; k < A16_K; k++) {
			int32_t big = A16_BIG + (int32_t)(rnd32(e) % A16_BIG);	/* to 32767 */

			a[m * A16_K + k] = (int16_t)(m == 0 ? (int32_t)(rnd32(e) % (2 * A16_SMALL + 1)) -
							      A16_SMALL :
						     m == 1 ? big : m == 2 ? -big : INT16_MIN);
		}
	for (unsigned int k = 0; k < A16_K; k++)
		for (unsigned int n = 0; n < A16_N; n++) {
			int32_t mag = (int32_t)((n << A16_STEP_BITS) +
						rnd32(e) % (1u << A16_STEP_BITS));

			bv[k * A16_N + n] = (int16_t)(n == 0 ? INT16_MIN : n % 2 ? mag : -mag);
		}
	/* A as NHWC (M rows of one pixel, K channels); B as 16-bit kernels */
	layout_nhwc_to_nc1hwc2(NPU_PREC_INT16, a, am, A16_M, 1, A16_K, A16_K);
	layout_matmul_b_fp16((const uint16_t *)bv, b, A16_K, A16_N, A16_K, A16_N);
	rc = mm_task_run(e, &t);
	if (rc)
		return job_failed(e, seen, len, rc == -1 ? "the task could not be built" :
				  "the job failed");
	layout_nc1hwc2_to_nhwc(NPU_PREC_INT32, cm, c, A16_M, 1, A16_N);
	for (unsigned int m = 0; m < A16_M; m++)
		for (unsigned int n = 0; n < A16_N; n++) {
			int64_t acc = 0;

			for (unsigned int k = 0; k < A16_K; k++)
				acc += (int64_t)a[m * A16_K + k] * bv[k * A16_N + n];
			sums[m * A16_N + n] = acc;
			got[m * A16_N + n] = c[m * A16_N + n];
		}
	return say_int(seen, len, "int16 4x32x16 -> int32, sums up to 2^35", sums,
		       probe_acc16_expect, self, got, A16_M * A16_N);
}

/*
 * ---- §9.16 bf16-out: whether the DPU writes bf16 (out_precision 3) from an
 * fp16 convolution. An fp16 matmul (M = 4 rows of width 1, K = 32, N = 16)
 * of integers in ±2 (sums within ±128: exact in bf16 and fp16), its DPU
 * DATA_FORMAT out_precision set to bf16 and OUT_CVT fp32tofp16_en cleared
 * (the fp32 result into the bf16 output); the control runs it as built
 * (fp16 out). Readings: no-bf16 (the job does not complete: the model
 * refuses it), bf16 (every output the sum's bf16), fp16 (the field is
 * ignored). ----
 */
enum { BF_M = 4, BF_K = 32, BF_N = 16, BF_RANGE = 2 };

/* Decide a probe whose reading 0 is a job that does not complete: rc the
 * job's (non-zero: failed, with e->err), got its outputs. */
static int decide_or_refused(struct probe_env *e, int rc, const void *ctx, probe_int_fn f,
			     const struct probe *self, const char *what, const int64_t *got,
			     size_t n, char *seen, size_t len)
{
	if (rc) {
		snprintf(seen, len, "%s: the job did not complete (%s)", what, e->err);
		return 0;
	}
	return say_int(seen, len, what, ctx, f, self, got, n);
}

int probe_bf16_out(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	static uint16_t a[BF_M * BF_K], bv[BF_K * BF_N], b[BF_K * BF_N], c[BF_M * BF_N];
	static uint16_t am[BF_M * BF_K], cm[BF_M * BF_N];
	static float sums[BF_M * BF_N];
	static int64_t got[BF_M * BF_N];
	struct mm_task t = {
		.in_prec = NPU_PREC_FP16, .out_prec = NPU_PREC_FP16, .m = BF_M, .k = BF_K,
		.n = BF_N, .a = am, .a_bytes = sizeof(am), .b = b, .b_bytes = sizeof(b),
		.c = cm, .c_bytes = sizeof(cm),
	};
	unsigned int ctl = 0;
	int rc;

	for (size_t i = 0; i < BF_M * BF_K; i++)
		a[i] = layout_f32_to_f16((float)((int)(rnd32(e) % (2 * BF_RANGE + 1)) - BF_RANGE));
	for (size_t i = 0; i < BF_K * BF_N; i++)
		bv[i] = layout_f32_to_f16((float)((int)(rnd32(e) % (2 * BF_RANGE + 1)) - BF_RANGE));
	layout_nhwc_to_nc1hwc2(NPU_PREC_FP16, a, am, BF_M, 1, BF_K, BF_K);
	layout_matmul_b_fp16(bv, b, BF_K, BF_N, BF_K, BF_N);
	for (unsigned int m = 0; m < BF_M; m++)
		for (unsigned int n = 0; n < BF_N; n++) {
			float acc = 0.0f;	/* small integers: exact in any order */

			for (unsigned int k = 0; k < BF_K; k++)
				acc += layout_f16_to_f32(a[m * BF_K + k]) *
				       layout_f16_to_f32(bv[k * BF_N + n]);
			sums[m * BF_N + n] = acc;
		}
	rc = mm_task_run(e, &t);
	if (rc)
		return job_failed(e, seen, len, rc == -1 ? "the task could not be built" :
				  "the control (fp16 out) failed");
	layout_nc1hwc2_to_nhwc(NPU_PREC_FP16, cm, c, BF_M, 1, BF_N);
	for (size_t i = 0; i < BF_M * BF_N; i++)
		ctl += c[i] != probe_bf16_expect(sums, BF_FP16, i);
	if (ctl) {
		snprintf(seen, len, "control (fp16 out): %u of %d sums wrong", ctl, BF_M * BF_N);
		return PROBE_NONE;
	}
	t.out_prec_patch = NPU_PREC_BF16;
	t.out_cvt_fp32 = true;
	rc = mm_task_run(e, &t);
	if (rc == -1)
		return job_failed(e, seen, len, "the case could not be built");
	if (!rc) {
		layout_nc1hwc2_to_nhwc(NPU_PREC_FP16, cm, c, BF_M, 1, BF_N);
		for (size_t i = 0; i < BF_M * BF_N; i++)
			got[i] = c[i];
	}
	return decide_or_refused(e, rc, sums, probe_bf16_expect, self,
				 "fp16 4x32x16 matmul, DPU out_precision bf16, fp32tofp16_en 0; "
				 "control exact", got, BF_M * BF_N, seen, len);
}

/*
 * ---- §9.19 dilation: CNA CONV_CON3 atrous_x/y_dilation. An int8 3×3
 * convolution (16 → 32 channels, 12×12, no padding, input zero point 0,
 * int32 out) with both dilation fields DIL_FIELD, compared on the top-left
 * DIL_REGION² outputs (windows inside the input for taps up to
 * DIL_FIELD + 1 apart). Readings: unsupported (the job does not complete:
 * the model refuses dilation), taps DIL_FIELD or DIL_FIELD + 1 apart, or
 * the fields ignored. ----
 */
enum { DIL_C = 16, DIL_K = 32, DIL_HW = 12, DIL_FIELD_VALUE = 2, DIL_OUT = DIL_HW - 2,
       DIL_REGION = DIL_HW - 2 * (DIL_FIELD_VALUE + 1) };

static int dilation_patch(struct rc_program *p, const void *ctx)
{
	const unsigned int *field = ctx;

	return patch_field(p, NPU_CNA_CONV_CON3,
			   NPU_FV(CNA, CONV_CON3, ATROUS_Y_DILATION, ~0u) |
			   NPU_FV(CNA, CONV_CON3, ATROUS_X_DILATION, ~0u),
			   NPU_FV(CNA, CONV_CON3, ATROUS_Y_DILATION, *field) |
			   NPU_FV(CNA, CONV_CON3, ATROUS_X_DILATION, *field));
}

int probe_dilation(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	static const float one = 1.0f;
	static const unsigned int field = DIL_FIELD_VALUE;
	static int8_t x[DIL_C * DIL_HW * DIL_HW], w[DIL_K * 3 * 3 * DIL_C];
	static int32_t y[DIL_K * DIL_OUT * DIL_OUT];
	static int64_t got[DIL_K * DIL_REGION * DIL_REGION];
	const struct lower_conv_op op = {
		.prec = NPU_PREC_INT8, .out_int32 = true, .in_h = DIL_HW, .in_w = DIL_HW,
		.in_c = DIL_C, .out_c = DIL_K, .kh = 3, .kw = 3, .stride_y = 1, .stride_x = 1,
		.explicit_pads = true, .in_scale = 1.0f, .in_zp = 0, .w_scale = &one,
		.w_scale_count = 1, .out_scale = 1.0f,
	};
	const struct probe_dil d = { .x = x, .w = w, .c = DIL_C, .h = DIL_HW, .w_ = DIL_HW,
				     .k = DIL_K, .region = DIL_REGION, .field = DIL_FIELD_VALUE };
	int rc;

	for (size_t i = 0; i < sizeof(x); i++)
		x[i] = rnd8(e);
	for (size_t i = 0; i < sizeof(w); i++)
		w[i] = rnd8(e);
	rc = run_conv_patched(e, &op, x, w, y, dilation_patch, &field);
	/* run_conv: no error text when the task could not be built */
	if (rc && !e->err[0])
		return job_failed(e, seen, len, "the task could not be built");
	for (unsigned int k = 0; !rc && k < DIL_K; k++)
		for (unsigned int ry = 0; ry < DIL_REGION; ry++)
			for (unsigned int rx = 0; rx < DIL_REGION; rx++)
				got[((size_t)k * DIL_REGION + ry) * DIL_REGION + rx] =
					y[((size_t)k * DIL_OUT + ry) * DIL_OUT + rx];
	return decide_or_refused(e, rc, &d, probe_dil_expect, self,
				 "int8 3x3 conv 12x12, CONV_CON3 atrous dilation 2", got,
				 sizeof(got) / sizeof(got[0]), seen, len);
}

/*
 * ---- A41: precision conversions in the DPU, through the compiler's scale
 * task as rkb_chain_convert builds it (lower_scale: one pixel of n
 * channels, so in memory both maps are their values in order; BN × the
 * fp16 factor, the EW stage bypassed) ----
 */
struct scale_task {
	enum lower_scale_conv conv;
	float factor;
	int32_t zp;			/* the int8 side's zero point */
	unsigned int n;			/* values, a multiple of 16: whole atoms */
	bool proc_int8;			/* proc_precision int8, DPU and DPU_RDMA */
	const void *x;			/* n inputs, in the input precision */
	void *y;			/* n outputs as written */
};

/* 0, -1 when it could not be built, -2 when the job failed. */
static int scale_task_run(struct probe_env *e, const struct scale_task *r)
{
	enum npu_precision in_prec = r->conv == LOWER_SCALE_INT8_TO_FP16 ? NPU_PREC_INT8 :
				     NPU_PREC_FP16;
	enum npu_precision out_prec = r->conv == LOWER_SCALE_FP16_TO_INT8 ? NPU_PREC_INT8 :
				      NPU_PREC_FP16;
	size_t in_bytes = layout_nc1hwc2_bytes(in_prec, 1, 1, r->n);
	size_t out_bytes = layout_nc1hwc2_bytes(out_prec, 1, 1, r->n);
	size_t cap = rc_program_size(1, ELTWISE_TASK_MAX_ENTRIES);
	struct dma_buf ib = { 0 }, ob = { 0 }, prog = { 0 };
	struct lower_scale_op op;
	struct rc_task rt[1];
	struct npu_task task;
	struct rc_program p;
	int rc = -1;

	e->err[0] = '\0';
	if (dma_pool_alloc(e->pool, in_bytes, DMA_POOL_MIN_ALIGN, &ib) ||
	    dma_pool_alloc(e->pool, out_bytes, DMA_POOL_MIN_ALIGN, &ob) ||
	    dma_pool_alloc(e->pool, cap * sizeof(uint64_t), RC_TASK_ALIGN_BYTES, &prog))
		goto out;
	memcpy(ib.cpu, r->x, in_bytes);
	/* a sentinel: outputs the task leaves unwritten match no reading */
	memset(ob.cpu, 0xA5, ob.size);
	hal_dcache_clean(ib.cpu, ib.size);
	hal_dcache_clean(ob.cpu, ob.size);
	op = (struct lower_scale_op){ .h = 1, .w = 1, .c = r->n, .factor = r->factor,
				      .conv = r->conv, .zp = r->zp, .in_addr = ib.phys,
				      .out_addr = ob.phys };
	rc_program_init(&p, prog.cpu, cap, rt, 1);
	if (lower_scale(&p, &op) ||
	    (r->proc_int8 &&
	     (patch_field(&p, NPU_DPU_DATA_FORMAT, NPU_FV(DPU, DATA_FORMAT, PROC_PRECISION, ~0u),
			  NPU_FV(DPU, DATA_FORMAT, PROC_PRECISION, NPU_PREC_INT8)) ||
	      patch_field(&p, NPU_DPU_RDMA_FEATURE_MODE_CFG,
			  NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, PROC_PRECISION, ~0u),
			  NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, PROC_PRECISION, NPU_PREC_INT8)))) ||
	    finish_program(&p, &prog, &task))
		goto out;
	rc = -2;	/* from here a failure is the job's */
	if (submit_chain(e, &task, 1, &ob, NULL))
		goto out;
	memcpy(r->y, ob.cpu, out_bytes);
	rc = 0;
out:
	dma_pool_release(e->pool, &prog);
	dma_pool_release(e->pool, &ob);
	dma_pool_release(e->pool, &ib);
	return rc;
}

/*
 * A41-int8-fp16: every int8 value q once, shuffled, through rkbare's
 * INT8 → FP16 task (in int8 / proc fp16 / out fp16) with BN × 2^-3: each
 * output fp16(q / 8), exact; then the same task with proc_precision int8
 * in DPU and DPU_RDMA (in = proc, as every board-run stream writes both,
 * out fp16); then the first with a zero point, BN adding −zp before its
 * multiply as a hybrid container's convert does (fp16((q − zp) / 8),
 * exact). converted: the first and the third give them all (the model,
 * which refuses the second); no-zero-point: the first only; proc-int8:
 * the second only; none of them (wrong values or jobs that fail): none.
 */
/* CVI_SAID_LEN: a case's outcome, the driver's error and the words around it */
enum { CVI_VALUES = INT8_MAX - INT8_MIN + 1, CVI_SAID_LEN = PROBE_ERR_LEN + 32 };
#define CVI_FACTOR	0.125f	/* 2^-3: q / 8 exact in fp16 */
#define CVI_ZP		(-17)	/* q − zp within ±145: / 8 exact in fp16 */

int probe_cvt_in(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	static int8_t q[CVI_VALUES];
	static uint16_t y[CVI_VALUES];
	char said[CVI_CASES][CVI_SAID_LEN];
	bool cases[CVI_CASES];

	for (unsigned int i = 0; i < CVI_VALUES; i++)
		q[i] = (int8_t)(i + INT8_MIN);
	shuffle(e, q, CVI_VALUES, sizeof(q[0]));
	for (int k = 0; k < CVI_CASES; k++) {
		const struct probe_cvt_in c = { q, CVI_FACTOR, k == CVI_CASE_ZP ? CVI_ZP : 0 };
		const struct scale_task r = {
			.conv = LOWER_SCALE_INT8_TO_FP16, .factor = CVI_FACTOR, .zp = c.zp,
			.n = CVI_VALUES, .proc_int8 = k == CVI_CASE_PROC_INT8, .x = q, .y = y,
		};
		unsigned int wrong = 0;
		int rc = scale_task_run(e, &r);

		if (rc == -1)
			return job_failed(e, seen, len, "a task could not be built");
		for (size_t i = 0; !rc && i < CVI_VALUES; i++)
			wrong += y[i] != probe_cvt_in_want(&c, i);
		cases[k] = !rc && !wrong;
		if (rc)
			snprintf(said[k], sizeof(said[k]), "the job failed (%s)", e->err);
		else
			snprintf(said[k], sizeof(said[k]), "%u wrong", wrong);
	}
	snprintf(seen, len, "each int8 q into fp16, BN x 2^-3: proc fp16 %s; proc int8 %s; "
		 "zero point %d %s", said[CVI_CASE_PROC_FP16], said[CVI_CASE_PROC_INT8], CVI_ZP,
		 said[CVI_CASE_ZP]);
	(void)self;
	return probe_cvt_in_pick(cases);
}

/*
 * A41-fp16-int8: fp16 x = k/8 for k over ±CVO_LIMIT·8, shuffled, through
 * rkbare's FP16 → INT8 task (in fp16 / proc fp16 / out int8) with BN × 2:
 * x · 2 over ±CVO_LIMIT in quarters, exact in fp32 — halves of both signs
 * with even and odd integer parts (the nearest readings apart), the
 * quarters between (nearest apart from floor and truncation), and values
 * past the int8 range (saturation). Readings: halves to even (the model,
 * OUT_CVT cvt_round 0), half up, away from zero, floor, truncation; a job
 * that fails: none.
 */
enum { CVO_FACTOR = 2, CVO_UNITS = 4, CVO_LIMIT = 136, CVO_Q = CVO_LIMIT * CVO_UNITS,
       CVO_VALUES = 2 * CVO_Q };

int probe_cvt_out(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	static const char what[] = "fp16 x into int8, BN x 2: 2x over +-136 in quarters";
	static int32_t pq[CVO_VALUES];
	static uint16_t x[CVO_VALUES];
	static int8_t y[CVO_VALUES];
	static int64_t got[CVO_VALUES];
	const struct scale_task r = { .conv = LOWER_SCALE_FP16_TO_INT8, .factor = CVO_FACTOR,
				      .n = CVO_VALUES, .x = x, .y = y };
	int rc;

	for (unsigned int i = 0; i < CVO_VALUES; i++)
		pq[i] = (int32_t)i - CVO_Q;
	shuffle(e, pq, CVO_VALUES, sizeof(pq[0]));
	for (unsigned int i = 0; i < CVO_VALUES; i++)
		x[i] = layout_f32_to_f16((float)pq[i] / (CVO_UNITS * CVO_FACTOR));
	rc = scale_task_run(e, &r);
	if (rc == -1)
		return job_failed(e, seen, len, "the task could not be built");
	if (rc) {
		snprintf(seen, len, "%s: the job did not complete (%s)", what, e->err);
		return PROBE_NONE;
	}
	for (unsigned int i = 0; i < CVO_VALUES; i++)
		got[i] = y[i];
	return say_int(seen, len, what, pq, probe_cvt_out_expect, self, got, CVO_VALUES);
}
