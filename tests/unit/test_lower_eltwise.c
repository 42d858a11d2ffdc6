/* SPDX-License-Identifier: MIT */
/*
 * Quantised element-wise add lowered by runtime/ and run on the NPU model,
 * compared with ONNX's QLinearAdd written here: round((s_a (a - z_a) +
 * s_b (b - z_b)) / s_o) + z_o, ties to even, computed exactly from the float
 * scales in 128-bit integers — not from the lowering's fixed-point recipe.
 * Tolerance, stated: exact where the scales make the recipe's multipliers
 * exact (add_exact_scales: dyadic scales, ties included); otherwise the
 * 15-bit multipliers may move an output by 1 LSB, and such outputs must
 * stay rare (MAX_OFF_BY_ONE_PER_MILLE).
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "compiler/layout.h"
#include "compiler/lower_eltwise.h"

#include "npu_fixture.h"
#include "ref/ref_nn.h"

/* Of 1000 outputs, at most this many 1 LSB off the exact definition
 * (measured over add_grid: 334 of 828,266, 0.4 per mille). */
#define MAX_OFF_BY_ONE_PER_MILLE	2u

/* A float as m · 2^e with an integer m of at most 24 bits. */
static int64_t float_parts(float f, int *e)
{
	int64_t m = (int64_t)ldexp(frexp((double)f, e), 24);

	*e -= 24;
	return m;
}

static int32_t ref_add(int32_t a, int32_t b, const struct lower_add_op *op)
{
	int ea, eb, eo, e_min;
	int64_t ma = float_parts(op->a_scale, &ea), mb = float_parts(op->b_scale, &eb);
	__int128 den = float_parts(op->out_scale, &eo), num, q, r;
	int32_t lo = op->is_unsigned ? 0 : -128, hi = op->is_unsigned ? 255 : 127;
	int64_t v;
	bool neg;

	e_min = ea < eb ? ea : eb;
	num = (__int128)ma * (a - op->a_zp) * ((__int128)1 << (ea - e_min)) +
	      (__int128)mb * (b - op->b_zp) * ((__int128)1 << (eb - e_min));
	/* num · 2^(e_min - eo) / den, rounded half to even */
	neg = num < 0;
	if (neg)
		num = -num;
	if (e_min >= eo)
		num <<= e_min - eo;
	else
		den <<= eo - e_min;
	q = num / den;
	r = num % den;
	if (2 * r > den || (2 * r == den && (q & 1)))
		q++;
	v = (int64_t)(neg ? -q : q) + op->out_zp;
	if (op->act != LOWER_ACT_NONE)
		lo = lo > op->out_zp ? lo : op->out_zp;
	if (op->act == LOWER_ACT_RELU6) {
		int32_t six = op->out_zp + (int32_t)lround(6.0 / op->out_scale);

		hi = hi < six ? hi : six;
	}
	return (int32_t)(v < lo ? lo : v > hi ? hi : v);
}

/* Outputs compared, and those 1 LSB off, over one test's cases. */
static size_t outputs_total, off_by_one_total;

/* Dyadic scale sets {s_a, s_b, s_o} whose multipliers are exact. */
static const float exact_scales[][3] = {
	{ 3.0f / 64.0f, 1.0f / 16.0f, 1.0f / 8.0f },	/* (3a' + 4b') / 8 */
	{ 7.0f / 128.0f, 1.0f / 16.0f, 1.0f / 4.0f },	/* (7a' + 8b') / 32 */
};

/* exact: 0 for random scales (1 LSB tolerated), else 1 + an exact_scales row */
static void run_add(unsigned int h, unsigned int w, unsigned int c, bool is_unsigned,
		    enum lower_act act, unsigned int exact)
{
	size_t off_by_one = 0;
	struct lower_add_op op = { .h = h, .w = w, .c = c, .is_unsigned = is_unsigned, .act = act };
	size_t n = (size_t)h * w * c, bytes = layout_nc1hwc2_bytes(NPU_PREC_INT8, h, w, c);
	uint8_t *a = malloc(n), *b = malloc(n), *tmp = malloc(n), *got = malloc(n);
	uint8_t *a_n, *b_n, *o_n;
	struct fx_program f;

	fx_rng_seed(h * 131u + w * 17u + c * 3u + is_unsigned * 7u + act);
	fx_dma_reset();
	op.a_scale = 0.02f + (float)(fx_rng() % 100) / 2000.0f;
	op.b_scale = 0.02f + (float)(fx_rng() % 100) / 2000.0f;
	op.out_scale = (op.a_scale + op.b_scale) * (0.6f + (float)(fx_rng() % 100) / 100.0f);
	op.a_zp = is_unsigned ? (int32_t)(fx_rng() % 80) + 90 : (int32_t)(fx_rng() % 41) - 20;
	op.b_zp = is_unsigned ? (int32_t)(fx_rng() % 80) + 90 : (int32_t)(fx_rng() % 41) - 20;
	op.out_zp = is_unsigned ? (int32_t)(fx_rng() % 80) + 90 : (int32_t)(fx_rng() % 41) - 20;
	if (exact) {
		op.a_scale = exact_scales[exact - 1][0];
		op.b_scale = exact_scales[exact - 1][1];
		op.out_scale = exact_scales[exact - 1][2];
	}
	for (size_t i = 0; i < n; i++) {
		a[i] = (uint8_t)fx_rng();
		b[i] = (uint8_t)fx_rng();
	}
	a_n = fx_dma_alloc(bytes);
	b_n = fx_dma_alloc(bytes);
	o_n = fx_dma_alloc(bytes);
	if (is_unsigned)
		layout_u8_to_s8(a, (int8_t *)tmp, n);
	else
		memcpy(tmp, a, n);
	layout_nhwc_to_nc1hwc2(NPU_PREC_INT8, tmp, a_n, h, w, c, c);
	if (is_unsigned)
		layout_u8_to_s8(b, (int8_t *)tmp, n);
	else
		memcpy(tmp, b, n);
	layout_nhwc_to_nc1hwc2(NPU_PREC_INT8, tmp, b_n, h, w, c, c);
	op.a_addr = fx_phys(a_n);
	op.b_addr = fx_phys(b_n);
	op.out_addr = fx_phys(o_n);
	fx_program_init(&f, 1, ELTWISE_TASK_MAX_ENTRIES);
	assert_int_equal(lower_add(&f.p, &op), 0);
	fx_program_link(&f, 1);
	assert_int_equal(f.tasks[0].enable_mask, 0x18);	/* HARDWARE.md §3.4: DPU + DPU_RDMA */
	fx_run(f.tasks, 1, o_n, bytes, "add");
	layout_nc1hwc2_to_nhwc(NPU_PREC_INT8, o_n, got, h, w, c);
	if (is_unsigned)
		layout_s8_to_u8((const int8_t *)got, got, n);
	for (size_t i = 0; i < n; i++) {
		int32_t av = is_unsigned ? a[i] : (int8_t)a[i];
		int32_t bv = is_unsigned ? b[i] : (int8_t)b[i];
		int32_t g = is_unsigned ? got[i] : (int8_t)got[i];
		int32_t want = ref_add(av, bv, &op);

		if (g == want)
			continue;
		if (!exact && (g - want == 1 || want - g == 1)) {
			off_by_one++;
			continue;
		}
		fail_msg("add %ux%ux%u %s act %d: element %zu = %d, want %d (a %d b %d)", h, w,
			 c, is_unsigned ? "u8" : "s8", act, i, g, want, av, bv);
	}
	if (off_by_one * 1000u > MAX_OFF_BY_ONE_PER_MILLE * n + 1000u)
		fail_msg("add %ux%ux%u: %zu of %zu outputs 1 LSB off the exact definition", h, w, c,
			 off_by_one, n);
	off_by_one_total += off_by_one;
	outputs_total += n;
	fx_program_free(&f);
	free(a);
	free(b);
	free(tmp);
	free(got);
}

static void add_grid(void **state)
{
	static const unsigned int shapes[][3] = {
		{ 3, 3, 1 }, { 5, 5, 32 }, { 8, 8, 120 }, { 80, 80, 32 }, { 112, 112, 16 }, { 1, 7, 20 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		for (int u = 0; u < 2; u++)
			run_add(shapes[i][0], shapes[i][1], shapes[i][2], u,
				(enum lower_act)((i + (size_t)u) % 3), 0);
	print_message("%zu of %zu outputs 1 LSB off the exact definition\n", off_by_one_total,
		      outputs_total);
}

/* Exact multipliers: ONNX's result to the bit, halves to even included. */
static void add_exact_scales(void **state)
{
	(void)state;
	for (unsigned int e = 1; e <= 2; e++)
		for (int u = 0; u < 2; u++) {
			run_add(9, 7, 40, u, (enum lower_act)((e + (unsigned int)u) % 3), e);
			run_add(4, 12, 16, u, LOWER_ACT_NONE, e);
		}
}

/*
 * fp16 add: a + b in fp32 rounded once to fp16 (UNSURE A20, the reading
 * the lowering and the model share), ReLU optional. Operands are fp16
 * values q/256 so the fp32 sum is exact and only the output rounds.
 */
static void run_add_fp16(unsigned int h, unsigned int w, unsigned int c, bool relu)
{
	struct lower_add_op op = { .prec = NPU_PREC_FP16, .h = h, .w = w, .c = c,
				   .act = relu ? LOWER_ACT_RELU : LOWER_ACT_NONE };
	size_t n = (size_t)h * w * c, bytes = layout_nc1hwc2_bytes(NPU_PREC_FP16, h, w, c);
	uint16_t *a = malloc(n * 2), *b = malloc(n * 2), *got = malloc(n * 2);
	uint8_t *a_n, *b_n, *o_n;
	struct fx_program f;

	fx_rng_seed(h * 131u + w * 17u + c * 3u + relu);
	fx_dma_reset();
	for (size_t i = 0; i < n; i++) {
		a[i] = ref_f32_to_f16((float)fx_rng_range(-2000, 2000) / 256.0f);
		b[i] = ref_f32_to_f16((float)fx_rng_range(-2000, 2000) / 256.0f);
	}
	a_n = fx_dma_alloc(bytes);
	b_n = fx_dma_alloc(bytes);
	o_n = fx_dma_alloc(bytes);
	layout_nhwc_to_nc1hwc2(NPU_PREC_FP16, a, a_n, h, w, c, c);
	layout_nhwc_to_nc1hwc2(NPU_PREC_FP16, b, b_n, h, w, c, c);
	op.a_addr = fx_phys(a_n);
	op.b_addr = fx_phys(b_n);
	op.out_addr = fx_phys(o_n);
	fx_program_init(&f, 1, ELTWISE_TASK_MAX_ENTRIES);
	assert_int_equal(lower_add(&f.p, &op), 0);
	fx_program_link(&f, 1);
	fx_run(f.tasks, 1, o_n, bytes, "fp16 add");
	layout_nc1hwc2_to_nhwc(NPU_PREC_FP16, o_n, got, h, w, c);
	for (size_t i = 0; i < n; i++) {
		float sum = ref_f16_to_f32(a[i]) + ref_f16_to_f32(b[i]);
		uint16_t want = ref_f32_to_f16(relu && sum < 0 ? 0.0f : sum);

		if (got[i] != want)
			fail_msg("fp16 add %ux%ux%u: element %zu = 0x%04x, want 0x%04x", h, w, c, i,
				 got[i], want);
	}
	fx_program_free(&f);
	free(a);
	free(b);
	free(got);
}

static void add_fp16(void **state)
{
	(void)state;
	run_add_fp16(5, 7, 24, false);
	run_add_fp16(16, 16, 40, true);
	run_add_fp16(1, 3, 8, true);
}

/* The value the program's entry for register `reg` (full offset) writes. */
static uint64_t *entry_of(const struct rc_program *p, uint16_t reg)
{
	for (size_t i = 0; i < p->len; i++)
		if ((p->q[i] & NPU_RC_OFFSET_MASK) == reg &&
		    p->q[i] >> NPU_RC_TARGET_SHIFT != NPU_RC_TARGET_OP_EN)
			return &p->q[i];
	fail_msg("no entry writes register 0x%04x", reg);
	return NULL;
}

static uint32_t entry_value(const uint64_t *e)
{
	return (uint32_t)(*e >> NPU_RC_VALUE_SHIFT);
}

/* Submit tasks; the model must refuse them naming `what`. */
static void expect_refused(struct fx_program *f, const char *what)
{
	struct npu_submit sub;

	fx_submit_init(&sub, f->tasks, 1);
	if (npu_submit(&fx_dev, &sub) == NPU_OK)
		fail_msg("the model ran a stream without %s", what);
	if (!strstr(sim_soc_last_error(fx_soc), what))
		fail_msg("refused for another reason: %s", sim_soc_last_error(fx_soc));
}

/*
 * The fp16 add (the lowering `rkbare compile --precision fp16` runs for an
 * Add) converts its fp16 input to fp32 in DPU_RDMA and its result back in
 * OUT_CVT, the pair every board-run fp16 add/sub/mul/max stream writes
 * (allbilly/rk3588 experimental/kernel_6_18/elementwise.py: FEATURE_MODE_CFG
 * 0x17849, OUT_CVT_SCALE 0x10001). With either bit cleared the data would
 * cross the fp32 datapath unconverted: the model refuses it by name.
 */
static void add_fp16_conversion_pair(void **state)
{
	struct lower_add_op op = { .prec = NPU_PREC_FP16, .h = 2, .w = 3, .c = 8 };
	size_t bytes = layout_nc1hwc2_bytes(NPU_PREC_FP16, op.h, op.w, op.c);
	struct fx_program f;
	uint64_t *rdma, *cvt, keep;

	(void)state;
	fx_dma_reset();
	op.a_addr = fx_phys(fx_dma_alloc(bytes));
	op.b_addr = fx_phys(fx_dma_alloc(bytes));
	op.out_addr = fx_phys(fx_dma_alloc(bytes));
	fx_program_init(&f, 1, ELTWISE_TASK_MAX_ENTRIES);
	assert_int_equal(lower_add(&f.p, &op), 0);
	fx_program_link(&f, 1);
	rdma = entry_of(&f.p, NPU_DPU_RDMA_FEATURE_MODE_CFG);
	cvt = entry_of(&f.p, NPU_DPU_OUT_CVT_SCALE);
	assert_int_equal(NPU_FG(DPU_RDMA, FEATURE_MODE_CFG, MRDMA_FP16TOFP32_EN,
				entry_value(rdma)), 1);
	assert_int_equal(NPU_FG(DPU, OUT_CVT_SCALE, FP32TOFP16_EN, entry_value(cvt)), 1);

	keep = *rdma;
	*rdma &= ~((uint64_t)NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, MRDMA_FP16TOFP32_EN, 1)
		   << NPU_RC_VALUE_SHIFT);
	expect_refused(&f, "mrdma_fp16tofp32_en 0");
	*rdma = keep;
	*cvt &= ~((uint64_t)NPU_FV(DPU, OUT_CVT_SCALE, FP32TOFP16_EN, 1) << NPU_RC_VALUE_SHIFT);
	expect_refused(&f, "FP32TOFP16_EN 0");
	fx_program_free(&f);
}

static void add_errors(void **state)
{
	struct lower_add_params pr;
	struct lower_add_op op = { .h = 4, .w = 4, .c = 4, .a_scale = 1, .b_scale = 1,
				   .out_scale = 1, .a_zp = 200 };

	(void)state;
	assert_int_equal(lower_add_check(&op, &pr), -EINVAL);	/* int8 zero point 200 */
	op.a_zp = 0;
	op.act = LOWER_ACT_CLIP;
	assert_int_equal(lower_add_check(&op, &pr), -ENOTSUP);
	op.act = LOWER_ACT_NONE;
	op.c = 0;
	assert_int_equal(lower_add_check(&op, &pr), -EINVAL);
	/* mul and the BN factor: fp16 only, the factor an fp16 power of two */
	op.c = 4;
	op.alu = LOWER_EW_MUL;
	assert_int_equal(lower_add_check(&op, &pr), -ENOTSUP);
	op.prec = NPU_PREC_FP16;
	assert_int_equal(lower_add_check(&op, &pr), 0);
	op.a_factor = 3.0f;
	assert_int_equal(lower_add_check(&op, &pr), -EINVAL);
	op.a_factor = 0x1p-15f;	/* below fp16's normal range */
	assert_int_equal(lower_add_check(&op, &pr), -EINVAL);
	op.a_factor = 0x1p-14f;
	assert_int_equal(lower_add_check(&op, &pr), 0);
}

/* A table task and the multiply that reads its output stay one range when
 * the program is cut over three cores (the lut op's pair, op_kinds.c). */
static void lut_pair_not_split(void **state)
{
	static struct lower_lut lut;
	const struct lower_lut_op lo = { .h = 2, .w = 3, .c = 8, .lut = &lut,
					 .in_addr = 0x100000, .out_addr = 0x200000 };
	struct lower_add_op mul = { .prec = NPU_PREC_FP16, .alu = LOWER_EW_MUL, .h = 2, .w = 3,
				    .c = 8, .a_addr = 0x100000, .b_addr = 0x200000,
				    .out_addr = 0x300000, .after_previous = true };
	struct npu_subcore_task ranges[NPU_CORE_COUNT];
	struct fx_program f;

	(void)state;
	memset(&lut, 0, sizeof(lut));
	for (unsigned int id = 0; id < NPU_LUT_TABLES; id++)
		lut.tab[id] = (struct lower_lut_table){ .start = 0, .end = 512, .select = 0 };
	fx_program_init(&f, 2, LUT_TASK_MAX_ENTRIES);
	assert_int_equal(lower_lut(&f.p, &lo), 0);
	assert_int_equal(lower_add(&f.p, &mul), 0);
	assert_int_equal(rc_program_split(&f.p, 0, 2, NPU_CORE_COUNT, ranges), 1);
	assert_int_equal(ranges[0].task_number, 2);
	fx_program_free(&f);
}

/*
 * An int8 table task (lower_lut_int8, the int8 activations of compiled
 * models) on the model: every output is the table's entry for its input
 * value, looked up here directly, over a map of several channel groups
 * and pixels that holds every int8 value; and the task refuses an
 * in_scale (BN must be bypassed for X to be the value itself).
 */
static void lut_int8_table(void **state)
{
	enum { H = 3, W = 7, C = 40 };
	static int8_t table[LOWER_LUT_INT8_VALUES], x[H * W * C], got[H * W * C];
	static struct lower_lut lut;
	size_t bytes = layout_nc1hwc2_bytes(NPU_PREC_INT8, H, W, C);
	struct lower_lut_op op = { .h = H, .w = W, .c = C, .lut = &lut, .int8 = true };
	struct fx_program f;
	void *x_n, *o_n;

	(void)state;
	fx_rng_seed(LOWER_LUT_INT8_VALUES);
	fx_dma_reset();
	for (unsigned int i = 0; i < LOWER_LUT_INT8_VALUES; i++)
		table[i] = (int8_t)fx_rng_range(INT8_MIN, INT8_MAX);
	for (size_t i = 0; i < (size_t)H * W * C; i++)
		x[i] = (int8_t)(i % LOWER_LUT_INT8_VALUES + INT8_MIN);
	x_n = fx_dma_alloc(bytes);
	o_n = fx_dma_alloc(bytes);
	layout_nhwc_to_nc1hwc2(NPU_PREC_INT8, x, x_n, H, W, C, C);
	op.in_addr = fx_phys(x_n);
	op.out_addr = fx_phys(o_n);
	lower_lut_int8(table, &lut);
	fx_program_init(&f, 1, LUT_INT8_TASK_MAX_ENTRIES);
	assert_int_equal(lower_lut(&f.p, &op), 0);
	fx_program_link(&f, 1);
	fx_run(f.tasks, 1, o_n, bytes, "int8 table");
	layout_nc1hwc2_to_nhwc(NPU_PREC_INT8, o_n, got, H, W, C);
	for (size_t i = 0; i < (size_t)H * W * C; i++)
		if (got[i] != table[x[i] - INT8_MIN])
			fail_msg("element %zu: x %d gives %d, the table %d", i, x[i], got[i],
				 table[x[i] - INT8_MIN]);
	fx_program_free(&f);
	lut.in_scale = 4.0f;
	assert_int_equal(lower_lut_check(&op), -EINVAL);
}

/*
 * The conversion tasks with a zero point (lower_scale: the NPU convert
 * ops of hybrid containers) on the model against ONNX's DequantizeLinear
 * and QuantizeLinear computed here: up, every int8 value, within one fp16
 * rounding of (q − zp) · s (the task multiplies by s rounded to fp16);
 * down, fp16 values over and past the int8 range, within one step of
 * saturate(round-to-even(x / s) + zp) (1 / s rounded to fp16 moves a value
 * by at most 128 · 2^-11 of a step), most of them equal.
 */
static void run_convert(const struct lower_scale_op *tmpl, const void *in, void *out,
			size_t in_bytes, size_t out_bytes)
{
	struct lower_scale_op op = *tmpl;
	struct fx_program f;
	void *x_n = fx_dma_alloc(in_bytes), *o_n = fx_dma_alloc(out_bytes);

	memcpy(x_n, in, in_bytes);
	op.in_addr = fx_phys(x_n);
	op.out_addr = fx_phys(o_n);
	fx_program_init(&f, 1, ELTWISE_TASK_MAX_ENTRIES);
	assert_int_equal(lower_scale(&f.p, &op), 0);
	fx_program_link(&f, 1);
	fx_run(f.tasks, 1, o_n, out_bytes, "convert");
	memcpy(out, o_n, out_bytes);
	fx_program_free(&f);
}

static void convert_zero_points(void **state)
{
	enum { H = 3, W = 5, C = 40, N = H * W * C };
	const float s_up = 0.037f, s_down = 0.05f;
	const int32_t zp_up = -17, zp_down = 9;
	static int8_t q[N], q_n[N * 2], got8[N];
	static uint16_t x[N], x_n[N * 2], got16[N];
	size_t b8 = layout_nc1hwc2_bytes(NPU_PREC_INT8, H, W, C);
	size_t b16 = layout_nc1hwc2_bytes(NPU_PREC_FP16, H, W, C);
	unsigned int off_by_one = 0;

	(void)state;
	fx_rng_seed(C);
	fx_dma_reset();
	for (size_t i = 0; i < N; i++) {
		q[i] = (int8_t)(i % LOWER_LUT_INT8_VALUES + INT8_MIN);
		x[i] = ref_f32_to_f16((float)fx_rng_range(-9000, 9000) / 1000.0f);
	}
	layout_nhwc_to_nc1hwc2(NPU_PREC_INT8, q, q_n, H, W, C, C);
	run_convert(&(struct lower_scale_op){ .h = H, .w = W, .c = C, .factor = s_up,
					      .conv = LOWER_SCALE_INT8_TO_FP16, .zp = zp_up },
		    q_n, x_n, b8, b16);
	layout_nc1hwc2_to_nhwc(NPU_PREC_FP16, x_n, got16, H, W, C);
	for (size_t i = 0; i < N; i++) {
		double want = ((double)q[i] - zp_up) * s_up;
		double got = ref_f16_to_f32(got16[i]);

		/* one fp16 rounding: half an ulp of 2^-10 relative, and s's */
		if (fabs(got - want) > fabs(want) * 0x1p-10 + 1e-7)
			fail_msg("up %zu: q %d gives %g, (q - zp) s %g", i, q[i], got, want);
	}
	layout_nhwc_to_nc1hwc2(NPU_PREC_FP16, x, x_n, H, W, C, C);
	run_convert(&(struct lower_scale_op){ .h = H, .w = W, .c = C, .factor = 1.0f / s_down,
					      .conv = LOWER_SCALE_FP16_TO_INT8, .zp = zp_down },
		    x_n, q_n, b16, b8);
	layout_nc1hwc2_to_nhwc(NPU_PREC_INT8, q_n, got8, H, W, C);
	for (size_t i = 0; i < N; i++) {
		double v = nearbyint((double)ref_f16_to_f32(x[i]) / s_down) + zp_down;
		int want = v > INT8_MAX ? INT8_MAX : v < INT8_MIN ? INT8_MIN : (int)v;

		if (abs(got8[i] - want) > 1)
			fail_msg("down %zu: x %g gives %d, QuantizeLinear %d", i,
				 (double)ref_f16_to_f32(x[i]), got8[i], want);
		off_by_one += got8[i] != want;
	}
	assert_true(off_by_one * 20 < N);	/* a step off only near a half */
}

/* The lookup-table task's refusals: each field out of its range. */
static void lut_errors(void **state)
{
	static struct lower_lut lut;
	struct lower_lut_op op = { .h = 1, .w = 1, .c = 32, .lut = &lut,
				   .in_addr = 0x100000, .out_addr = 0x200000 };

	(void)state;
	memset(&lut, 0, sizeof(lut));
	lut.in_scale = 1024.0f;
	for (unsigned int id = 0; id < NPU_LUT_TABLES; id++)
		lut.tab[id] = (struct lower_lut_table){ .start = 0, .end = 512 << 3, .select = 3 };
	assert_int_equal(lower_lut_check(&op), 0);
	lut.in_scale = 1000.0f;		/* not a power of two */
	assert_int_equal(lower_lut_check(&op), -EINVAL);
	lut.in_scale = 0.0f;		/* BN bypassed */
	assert_int_equal(lower_lut_check(&op), 0);
	lut.tab[NPU_LUT_TABLE_LO].end = (512 << 3) + 1;	/* one entry too many */
	assert_int_equal(lower_lut_check(&op), -EINVAL);
	lut.tab[NPU_LUT_TABLE_LO] = (struct lower_lut_table){ .start = INT32_MIN,
							      .end = INT32_MAX };
	assert_int_equal(lower_lut_check(&op), -EINVAL);	/* 2^32 entries */
	lut.tab[NPU_LUT_TABLE_LO] = (struct lower_lut_table){ .start = 8, .end = 0 };
	assert_int_equal(lower_lut_check(&op), -EINVAL);
	lut.tab[NPU_LUT_TABLE_LO] = lut.tab[NPU_LUT_TABLE_LE];
	lut.hybrid = 2;
	assert_int_equal(lower_lut_check(&op), -EINVAL);
	lut.hybrid = NPU_LUT_TABLE_LE;
	lut.tab[NPU_LUT_TABLE_LE].oflow_shift = 32;
	assert_int_equal(lower_lut_check(&op), -EINVAL);
	lut.tab[NPU_LUT_TABLE_LE].oflow_shift = 0;
	op.c = 0;
	assert_int_equal(lower_lut_check(&op), -EINVAL);
	op.c = 32;
	op.out_addr = 0x200008;		/* not atom-aligned */
	assert_int_equal(lower_lut_check(&op), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(add_grid, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(add_exact_scales, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(add_fp16, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(add_fp16_conversion_pair, fx_setup, fx_teardown),
		cmocka_unit_test(add_errors),
		cmocka_unit_test(lut_errors),
		cmocka_unit_test(lut_pair_not_split),
		cmocka_unit_test_setup_teardown(lut_int8_table, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(convert_zero_points, fx_setup, fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
