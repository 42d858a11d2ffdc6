/* SPDX-License-Identifier: MIT */
/*
 * The DPU lookup table of the model (sim/lut.c, sim/ASSUMPTIONS.md A35)
 * against a CPU reference written here from NVDLA's LUT description
 * (index = (x - start) / 2^select, linear interpolation rounded to the
 * nearest integer with halves up, slopes past the ends, priorities): first
 * sim_lut_eval over random tables, ranges, slopes and priorities, exact;
 * then a whole DPU task, table uploaded through MMIO LUT_ACCESS writes,
 * input scaled in BN by an fp16 operand, against the same reference on
 * fp16 data; the MMIO read-back; then the refusals (no upload, a range
 * past the table, a write past the last entry).
 */
#include <math.h>
#include <stdlib.h>

#include "test_sim_util.h"
#include "sim/fp16.h"
#include "sim/lut.h"

#define RC_PA		(T_MEM + 0x000000u)
#define IN_PA		(T_MEM + 0x100000u)
#define OUT_PA		(T_MEM + 0x200000u)
#define LUT_N		513	/* entries per table, as the generators upload */
#define LUT_LE		0
#define LUT_LO		1

/* ---- the reference ---- */

struct ref_table {
	long long start, end;
	int sel;
	int uscale, oscale, ushift, oshift;
};

struct ref_cfg {
	struct ref_table tab[2];
	int hybrid, oflow, uflow;
};

/* y inside a table's range: interpolate in exact (double) arithmetic,
 * then round to the nearest integer, halves up. */
static long long ref_inside(const struct ref_table *t, const int16_t *e, long long x)
{
	double pos = (double)(x - t->start) / ldexp(1.0, t->sel);
	long long i = (long long)floor(pos);
	double frac = pos - (double)i, y = e[i];

	if (frac > 0.0)
		y += frac * (double)(e[i + 1] - e[i]);
	return (long long)floor(y + 0.5);
}

static long long ref_clamp32(long long v)
{
	return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v;
}

static long long ref_lut(const struct ref_cfg *c, const int16_t e[2][LUT_N], long long x)
{
	bool hit[2];
	int id;

	for (int k = 0; k < 2; k++)
		hit[k] = x >= c->tab[k].start && x <= c->tab[k].end;
	if (hit[LUT_LE] != hit[LUT_LO])
		id = hit[LUT_LE] ? LUT_LE : LUT_LO;
	else if (hit[LUT_LE])
		id = c->hybrid;				/* covered by both */
	else if (x < c->tab[LUT_LE].start && x < c->tab[LUT_LO].start)
		id = c->uflow;				/* below both */
	else if (x > c->tab[LUT_LE].end && x > c->tab[LUT_LO].end)
		id = c->oflow;				/* above both */
	else
		id = c->hybrid;				/* below one, above the other */

	const struct ref_table *t = &c->tab[id];

	if (x >= t->start && x <= t->end)
		return ref_inside(t, e[id], x);
	if (x < t->start)
		return ref_clamp32(e[id][0] + (long long)floor(
			(double)(x - t->start) * t->uscale / ldexp(1.0, t->ushift) + 0.5));
	return ref_clamp32(ref_inside(t, e[id], t->end) + (long long)floor(
		(double)(x - t->end) * t->oscale / ldexp(1.0, t->oshift) + 0.5));
}

/* A random table range that fits 513 entries. */
static void rand_table(uint32_t *seed, struct ref_table *t)
{
	t->sel = t_rand_range(seed, 0, 8);
	t->start = t_rand_range(seed, -40000, 20000);
	t->end = t->start + t_rand_range(seed, 0, (LUT_N - 1) << t->sel);
	t->uscale = t_rand_range(seed, -32768, 32767);
	t->oscale = t_rand_range(seed, -32768, 32767);
	t->ushift = t_rand_range(seed, 0, 31);
	t->oshift = t_rand_range(seed, 0, 31);
}

static void to_model(const struct ref_cfg *r, struct sim_lut_cfg *m)
{
	for (int k = 0; k < 2; k++)
		m->tab[k] = (struct sim_lut_table){
			.start = r->tab[k].start, .end = r->tab[k].end,
			.sel = (unsigned)r->tab[k].sel,
			.uflow_scale = r->tab[k].uscale, .oflow_scale = r->tab[k].oscale,
			.uflow_shift = (unsigned)r->tab[k].ushift,
			.oflow_shift = (unsigned)r->tab[k].oshift,
		};
	m->hybrid = (unsigned)r->hybrid;
	m->oflow = (unsigned)r->oflow;
	m->uflow = (unsigned)r->uflow;
}

/* sim_lut_eval against the reference: random configurations, inputs
 * around and inside both ranges, exact integers. */
static void test_lut_eval(void **state)
{
	static uint16_t t[NPU_LUT_TABLES][NPU_LUT_ENTRIES];
	static int16_t e[2][LUT_N];
	uint32_t seed = 0x5117u;

	(void)state;
	for (int cfgn = 0; cfgn < 200; cfgn++) {
		struct ref_cfg r;
		struct sim_lut_cfg m;

		rand_table(&seed, &r.tab[LUT_LE]);
		rand_table(&seed, &r.tab[LUT_LO]);
		r.hybrid = t_rand_range(&seed, 0, 1);
		r.oflow = t_rand_range(&seed, 0, 1);
		r.uflow = t_rand_range(&seed, 0, 1);
		for (int k = 0; k < 2; k++)
			for (int i = 0; i < LUT_N; i++) {
				e[k][i] = (int16_t)t_rand_range(&seed, -32768, 32767);
				t[k][i] = (uint16_t)e[k][i];
			}
		to_model(&r, &m);
		for (int k = 0; k < 2; k++)
			assert_true(sim_lut_entries_needed(&m.tab[k]) <= NPU_LUT_ENTRIES);
		for (int n = 0; n < 500; n++) {
			const struct ref_table *near = &r.tab[t_rand_range(&seed, 0, 1)];
			long long span = near->end - near->start + 2000;
			long long x = near->start - 1000 + (long long)(t_rand(&seed) % (uint32_t)span);
			long long want = ref_lut(&r, e, x), got = sim_lut_eval(&m, t, x);

			if (got != want)
				fail_msg("config %d x %lld: got %lld want %lld (LE %lld..%lld sel %d, "
					 "LO %lld..%lld sel %d, priorities %d/%d/%d)", cfgn, x, got,
					 want, r.tab[0].start, r.tab[0].end, r.tab[0].sel,
					 r.tab[1].start, r.tab[1].end, r.tab[1].sel, r.hybrid, r.oflow,
					 r.uflow);
		}
	}
}

/* Range arithmetic: entries a range reaches, an end between entries
 * reaching one more, a range past the table reported as too many. */
static void test_lut_entries_needed(void **state)
{
	struct sim_lut_table t = { .start = -16384, .end = 0, .sel = 5 };

	(void)state;
	assert_int_equal(sim_lut_entries_needed(&t), 513);
	t.end = -32;		/* one entry short */
	assert_int_equal(sim_lut_entries_needed(&t), 512);
	t.end = -1;		/* between entries 511 and 512: both */
	assert_int_equal(sim_lut_entries_needed(&t), 513);
	t.end = 1;
	assert_true(sim_lut_entries_needed(&t) > NPU_LUT_ENTRIES);
	t.end = t.start - 1;
	assert_int_equal(sim_lut_entries_needed(&t), 0);
}

/* ---- a DPU task through the LUT ---- */

static void upload(const int16_t e[2][LUT_N])
{
	for (unsigned k = 0; k < 2; k++) {
		t_w(0, NPU_DPU_LUT_ACCESS_CFG,
		    NPU_FV(DPU, LUT_ACCESS_CFG, LUT_ACCESS_TYPE, 1) |
		    NPU_FV(DPU, LUT_ACCESS_CFG, LUT_TABLE_ID, k));
		for (unsigned i = 0; i < LUT_N; i++)
			t_w(0, NPU_DPU_LUT_ACCESS_DATA, (uint16_t)e[k][i]);
	}
}

/* One flying fp16 DPU task of c x w elements (h = 1): BN multiplies by the
 * fp16 `scale`, the LUT maps, fp16 out (silu.py's register set, HARDWARE.md
 * §4.4). */
static uint32_t lut_task(struct t_rc *rc, const struct ref_cfg *r, uint16_t scale,
			 unsigned w, unsigned c)
{
	const uint32_t fp16 = NPU_PREC_FP16;
	const uint32_t surf = 16u * w;

	T_DPU(rc, S_POINTER, 0xE);
	T_RDMA(rc, S_POINTER, 0xE);
	T_DPU(rc, FEATURE_MODE_CFG, NPU_FV(DPU, FEATURE_MODE_CFG, BURST_LEN, 15) |
				    NPU_FV(DPU, FEATURE_MODE_CFG, OUTPUT_MODE, 2) |
				    NPU_FV(DPU, FEATURE_MODE_CFG, FLYING_MODE, 1));
	T_DPU(rc, DATA_FORMAT, NPU_FV(DPU, DATA_FORMAT, OUT_PRECISION, fp16) |
			       NPU_FV(DPU, DATA_FORMAT, IN_PRECISION, fp16) |
			       NPU_FV(DPU, DATA_FORMAT, PROC_PRECISION, fp16));
	T_DPU(rc, DST_BASE_ADDR, OUT_PA);
	T_DPU(rc, DST_SURF_STRIDE, surf);
	T_DPU(rc, DATA_CUBE_WIDTH, w - 1);
	T_DPU(rc, DATA_CUBE_HEIGHT, 0);
	T_DPU(rc, DATA_CUBE_CHANNEL, NPU_FV(DPU, DATA_CUBE_CHANNEL, ORIG_CHANNEL, c - 1) |
				     NPU_FV(DPU, DATA_CUBE_CHANNEL, CHANNEL, c - 1));
	T_DPU(rc, BS_CFG, 0x53);
	T_DPU(rc, BS_OW_CFG, NPU_FV(DPU, BS_OW_CFG, OD_BYPASS, 1));
	T_DPU(rc, BN_CFG, NPU_FV(DPU, BN_CFG, BN_ALU_BYPASS, 1) |
			  NPU_FV(DPU, BN_CFG, BN_RELU_BYPASS, 1));
	T_DPU(rc, BN_MUL_CFG, NPU_FV(DPU, BN_MUL_CFG, BN_MUL_OPERAND, scale));
	T_DPU(rc, EW_CFG, NPU_FV(DPU, EW_CFG, EW_RELU_BYPASS, 1) |
			  NPU_FV(DPU, EW_CFG, EW_OP_CVT_BYPASS, 1) |
			  NPU_FV(DPU, EW_CFG, EW_OP_BYPASS, 1));
	T_DPU(rc, OUT_CVT_SCALE, NPU_FV(DPU, OUT_CVT_SCALE, FP32TOFP16_EN, 1) |
				 NPU_FV(DPU, OUT_CVT_SCALE, OUT_CVT_SCALE, 1));
	T_DPU(rc, SURFACE_ADD, surf);
	T_DPU(rc, LUT_CFG, NPU_FV(DPU, LUT_CFG, LUT_HYBRID_PRIORITY, r->hybrid) |
			   NPU_FV(DPU, LUT_CFG, LUT_OFLOW_PRIORITY, r->oflow) |
			   NPU_FV(DPU, LUT_CFG, LUT_UFLOW_PRIORITY, r->uflow) |
			   NPU_FV(DPU, LUT_CFG, LUT_LO_LE_MUX, 2));
	T_DPU(rc, LUT_INFO, NPU_FV(DPU, LUT_INFO, LUT_LE_INDEX_SELECT, r->tab[LUT_LE].sel) |
			    NPU_FV(DPU, LUT_INFO, LUT_LO_INDEX_SELECT, r->tab[LUT_LO].sel));
	T_DPU(rc, LUT_LE_START, (uint32_t)r->tab[LUT_LE].start);
	T_DPU(rc, LUT_LE_END, (uint32_t)r->tab[LUT_LE].end);
	T_DPU(rc, LUT_LO_START, (uint32_t)r->tab[LUT_LO].start);
	T_DPU(rc, LUT_LO_END, (uint32_t)r->tab[LUT_LO].end);
	T_DPU(rc, LUT_LE_SLOPE_SCALE,
	      NPU_FV(DPU, LUT_LE_SLOPE_SCALE, LUT_LE_SLOPE_OFLOW_SCALE,
		     (uint16_t)r->tab[LUT_LE].oscale) |
	      NPU_FV(DPU, LUT_LE_SLOPE_SCALE, LUT_LE_SLOPE_UFLOW_SCALE,
		     (uint16_t)r->tab[LUT_LE].uscale));
	T_DPU(rc, LUT_LE_SLOPE_SHIFT,
	      NPU_FV(DPU, LUT_LE_SLOPE_SHIFT, LUT_LE_SLOPE_OFLOW_SHIFT, r->tab[LUT_LE].oshift) |
	      NPU_FV(DPU, LUT_LE_SLOPE_SHIFT, LUT_LE_SLOPE_UFLOW_SHIFT, r->tab[LUT_LE].ushift));
	T_DPU(rc, LUT_LO_SLOPE_SCALE,
	      NPU_FV(DPU, LUT_LO_SLOPE_SCALE, LUT_LO_SLOPE_OFLOW_SCALE,
		     (uint16_t)r->tab[LUT_LO].oscale) |
	      NPU_FV(DPU, LUT_LO_SLOPE_SCALE, LUT_LO_SLOPE_UFLOW_SCALE,
		     (uint16_t)r->tab[LUT_LO].uscale));
	T_DPU(rc, LUT_LO_SLOPE_SHIFT,
	      NPU_FV(DPU, LUT_LO_SLOPE_SHIFT, LUT_LO_SLOPE_OFLOW_SHIFT, r->tab[LUT_LO].oshift) |
	      NPU_FV(DPU, LUT_LO_SLOPE_SHIFT, LUT_LO_SLOPE_UFLOW_SHIFT, r->tab[LUT_LO].ushift));
	T_RDMA(rc, DATA_CUBE_WIDTH, w - 1);
	T_RDMA(rc, DATA_CUBE_HEIGHT, 0);
	T_RDMA(rc, DATA_CUBE_CHANNEL, c - 1);
	T_RDMA(rc, SRC_BASE_ADDR, IN_PA);
	T_RDMA(rc, ERDMA_CFG, NPU_FV(DPU_RDMA, ERDMA_CFG, ERDMA_DISABLE, 1));
	T_RDMA(rc, FEATURE_MODE_CFG, NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, IN_PRECISION, fp16) |
				     NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, MRDMA_FP16TOFP32_EN, 1) |
				     NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, PROC_PRECISION, fp16) |
				     NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, BURST_LEN, 15) |
				     NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, FLYING_MODE, 1));
	T_RDMA(rc, WEIGHT, 0x01010101);
	return NPU_EN_DPU | NPU_EN_DPU_RDMA;
}

/* Run the task; expect completion (ok) or a refusal naming `why`. */
static void run(struct t_rc *rc, uint32_t enable, bool ok, const char *why)
{
	uint32_t s;

	t_rc_tail(rc, 0, 0, enable);
	t_rc_store(rc, RC_PA);
	t_kick(0, RC_PA, t_amount(rc->n), 1, NPU_INT_DPU);
	s = t_wait(0, NPU_INT_DPU);
	if (ok) {
		if (s & NPU_INT_DMA_READ_ERROR)
			fail_msg("refused: %s", sim_soc_last_error(t_soc));
		assert_true(t_fuzz(s) & NPU_INT_DPU);
		return;
	}
	assert_true(s & NPU_INT_DMA_READ_ERROR);
	if (!strstr(sim_soc_last_error(t_soc), why))
		fail_msg("refusal \"%s\" does not name \"%s\"", sim_soc_last_error(t_soc), why);
}

/* The reference's input: the fp16 value times the fp16 scale (exact in
 * double), rounded to the nearest integer, halves to even. */
static long long ref_input(float x, float scale)
{
	return (long long)nearbyint((double)x * (double)scale);
}

static void test_lut_task(void **state)
{
	static int16_t e[2][LUT_N];
	const unsigned w = 16, c = 8;	/* one surface of 16 atoms */
	const float scale = 256.0f;	/* inputs ±16 -> ±4096 LUT units */
	uint32_t seed = 0x7AB1Eu;

	(void)state;
	for (int n = 0; n < 12; n++) {
		struct ref_cfg r;
		struct t_rc rc = { .n = 0 };
		uint16_t *in = t_phys(IN_PA);
		const uint16_t *out = t_phys(OUT_PA);

		/* LE below 0, LO above, meeting or overlapping near 0, as silu.py */
		r.tab[LUT_LE].sel = t_rand_range(&seed, 2, 4);
		r.tab[LUT_LE].end = t_rand_range(&seed, 0, 64);
		r.tab[LUT_LE].start = r.tab[LUT_LE].end - (512 << r.tab[LUT_LE].sel);
		r.tab[LUT_LO].sel = t_rand_range(&seed, 2, 4);
		r.tab[LUT_LO].start = t_rand_range(&seed, -64, 0);
		r.tab[LUT_LO].end = r.tab[LUT_LO].start + (512 << r.tab[LUT_LO].sel);
		for (int k = 0; k < 2; k++) {
			/* slopes that keep |y| below fp16's 65504 over ±4096 */
			r.tab[k].uscale = t_rand_range(&seed, -200, 200);
			r.tab[k].oscale = t_rand_range(&seed, -200, 200);
			r.tab[k].ushift = t_rand_range(&seed, 4, 12);
			r.tab[k].oshift = t_rand_range(&seed, 4, 12);
			for (int i = 0; i < LUT_N; i++)	/* keeps outputs within fp16 */
				e[k][i] = (int16_t)t_rand_range(&seed, -2000, 2000);
		}
		r.hybrid = n & 1;
		r.oflow = (n >> 1) & 1;
		r.uflow = (n >> 2) & 1;
		upload(e);
		for (unsigned i = 0; i < w * c; i++)
			in[i] = sim_f32_to_f16((float)t_rand_range(&seed, -16000, 16000) / 1000.0f);
		memset(t_phys(OUT_PA), 0xFF, w * c * 2u);
		run(&rc, lut_task(&rc, &r, sim_f32_to_f16(scale), w, c), true, NULL);
		for (unsigned i = 0; i < w * c; i++) {
			float x = sim_f16_to_f32(in[i]), got = sim_f16_to_f32(out[i]);
			double want = (double)ref_lut(&r, e, ref_input(x, scale));

			/* the integer output, rounded once to fp16 */
			if (fabs(got - want) > fabs(want) * ldexp(1.0, -11))
				fail_msg("task %d element %u: x %g -> got %g want %g", n, i, x, got,
					 want);
		}
	}
}

/* NVDLA's read-back: LUT_ACCESS_CFG with access type read, then each
 * LUT_ACCESS_DATA read returns the next entry. */
static void test_lut_read_back(void **state)
{
	static int16_t e[2][LUT_N];
	uint32_t seed = 0xBAC4u;

	(void)state;
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < LUT_N; i++)
			e[k][i] = (int16_t)t_rand_range(&seed, -32768, 32767);
	upload(e);
	t_w(0, NPU_DPU_LUT_ACCESS_CFG, NPU_FV(DPU, LUT_ACCESS_CFG, LUT_TABLE_ID, 1) |
				       NPU_FV(DPU, LUT_ACCESS_CFG, LUT_ADDR, 100));
	for (int i = 100; i < 110; i++)
		assert_int_equal(t_r(0, NPU_DPU_LUT_ACCESS_DATA), (uint16_t)e[1][i]);
}

/* A silu.py-shaped task without the upload since the reset, with a range
 * wider than a table, and with a write past the last entry: refused by
 * name. */
static void test_lut_refusals(void **state)
{
	static int16_t e[2][LUT_N];
	struct ref_cfg r = {
		.tab = { { .start = -16384, .end = 0, .sel = 5 },
			 { .start = 0, .end = 16384, .sel = 5 } },
		.hybrid = 1, .oflow = 1,
	};
	struct t_rc rc = { .n = 0 };

	(void)state;
	memset(t_phys(IN_PA), 0, 256);
	run(&rc, lut_task(&rc, &r, 0x6984, 16, 8), false, "was not written");
	upload(e);
	rc.n = 0;
	r.tab[LUT_LO].end = 16385;
	run(&rc, lut_task(&rc, &r, 0x6984, 16, 8), false, "needs more than the 513");
	r.tab[LUT_LO].end = 16384;
	rc.n = 0;
	run(&rc, lut_task(&rc, &r, 0x6984, 16, 8), true, NULL);
	t_w(0, NPU_DPU_LUT_ACCESS_DATA, 0);	/* entry 513 of LO */
	rc.n = 0;
	run(&rc, lut_task(&rc, &r, 0x6984, 16, 8), false, "past entry 512");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lut_eval),
		cmocka_unit_test(test_lut_entries_needed),
		cmocka_unit_test_setup_teardown(test_lut_task, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_lut_read_back, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_lut_refusals, t_setup, t_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
