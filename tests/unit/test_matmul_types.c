/* SPDX-License-Identifier: MIT */
/*
 * The 13 matmul types (include/rkbare/rknn_matmul_api.h) end to end on the
 * NPU model, with per-layer, per-channel and per-group B (symmetric and
 * asymmetric), normal and native layouts, K segments and dynamic shapes,
 * against a reference written here from the vendor's definitions:
 *   weight-only types  C = A · (sB · (B − zB)), judged within the rounding
 *                      of B to fp16 (the documented conversion) and of C;
 *   integer sums       exact (int32, int16 saturated), or sA·sB·Σ(a − zA)(b − zB)
 *                      within one rounding of C.
 * Layouts are written here from the vendor's table (A (K/C2, M, C2), B
 * (N/G, K/32, G, 32) per 8192-row segment, C (N/C2, M, C2); int4 packed two
 * a byte, low nibble first), not with the runtime's helpers.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rkbare/rknn_matmul_api.h"

#include "npu_fixture.h"
#include "ref/ref_nn.h"

enum el { F16, I8, I4, I32, F32, I16, BF16 };

static const struct tcase {
	rknn_matmul_type type;
	enum el a, b, c;
	bool chan, group;	/* per-channel / per-group B accepted */
} types[] = {
	{ RKNN_FLOAT16_MM_INT8_TO_FLOAT32, F16, I8, F32, true, true },
	{ RKNN_FLOAT16_MM_INT8_TO_FLOAT16, F16, I8, F16, true, true },
	{ RKNN_FLOAT16_MM_INT4_TO_FLOAT32, F16, I4, F32, true, true },
	{ RKNN_FLOAT16_MM_INT4_TO_FLOAT16, F16, I4, F16, true, true },
	{ RKNN_FLOAT16_MM_INT4_TO_BFLOAT16, F16, I4, BF16, true, true },
	{ RKNN_INT8_MM_INT8_TO_FLOAT32, I8, I8, F32, true, false },
	{ RKNN_INT8_MM_INT4_TO_FLOAT16, I8, I4, F16, true, false },
	{ RKNN_INT8_MM_INT4_TO_INT32, I8, I4, I32, false, false },
	{ RKNN_INT4_MM_INT4_TO_INT16, I4, I4, I16, false, false },
};

static const struct tcase *tc_of(rknn_matmul_type t)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i].type == t)
			return &types[i];
	fail();
	return NULL;
}

static unsigned int bits(enum el e)
{
	return e == I4 ? 4 : e == I8 ? 8 : e == F16 || e == I16 || e == BF16 ? 16 : 32;
}

static int align_up(int v, int a)
{
	return (v + a - 1) / a * a;
}

/* ---- element storage, from the vendor's layout table ---- */

static void put(void *buf, enum el e, size_t i, double v)
{
	uint8_t *p = buf;

	switch (e) {
	case I4: {
		unsigned int nib = (unsigned int)((int)v & 15);

		p[i / 2] = (uint8_t)(i & 1 ? (p[i / 2] & 0x0f) | (nib << 4) :
					     (p[i / 2] & 0xf0) | nib);
		break;
	}
	case I8:
		p[i] = (uint8_t)(int8_t)v;
		break;
	case F16: {
		uint16_t h = ref_f32_to_f16((float)v);

		memcpy(p + 2 * i, &h, 2);
		break;
	}
	default:
		fail();
	}
}

static double get(const void *buf, enum el e, size_t i)
{
	const uint8_t *p = buf;
	int16_t s;
	int32_t w;
	uint16_t h;
	uint32_t u;
	float f;

	switch (e) {
	case F16:
		memcpy(&h, p + 2 * i, 2);
		return ref_f16_to_f32(h);
	case BF16:
		memcpy(&h, p + 2 * i, 2);
		u = (uint32_t)h << 16;
		memcpy(&f, &u, 4);
		return f;
	case F32:
		memcpy(&f, p + 4 * i, 4);
		return f;
	case I16:
		memcpy(&s, p + 2 * i, 2);
		return s;
	default:
		memcpy(&w, p + 4 * i, 4);
		return w;
	}
}

/* Native A (K/C2, M, C2) / C (N/C2, M, C2): C2 elements make 16 bytes. */
static size_t nc_index(enum el e, int rows, int row, int col)
{
	int c2 = 128 / (int)bits(e);

	return ((size_t)(col / c2) * rows + row) * c2 + col % c2;
}

/* Native B: (N/G, K/32, G, 32) per segment of 8192 rows of K. */
static size_t b_native_index(enum el e, int K, int N, int k, int n)
{
	int g = e == I4 ? 64 : e == I8 ? 32 : 16;
	int n_al = align_up(N, g), k0 = k / 8192 * 8192, kk = k - k0;
	int ks_al = align_up(K - k0 < 8192 ? K - k0 : 8192, 32);

	return (size_t)k0 * n_al + (size_t)(n / g) * g * ks_al + (size_t)(kk / 32) * g * 32 +
	       (size_t)(n % g) * 32 + kk % 32;
}

/* ---- one matmul ---- */

struct run {
	rknn_matmul_type type;
	int m, k, n;
	int qtype, group;	/* B_quant_type, group_size */
	bool asym, b_native, ac_native;
};

struct data {
	double *a, *b;		/* logical A (M × K), B (K × N) */
	float *sb;
	int32_t *zb;
	int nq;
	float sa;
	int32_t za;
};

static int qindex(const struct run *r, int k, int n)
{
	return r->qtype == 1 ? n : r->qtype == 2 ? k / r->group * r->n + n : 0;
}

static void make_data(const struct run *r, const struct tcase *t, struct data *d)
{
	d->a = calloc((size_t)r->m * r->k, sizeof(double));
	d->b = calloc((size_t)r->k * r->n, sizeof(double));
	d->nq = r->qtype == 0 ? 1 : r->qtype == 1 ? r->n : r->k / r->group * r->n;
	d->sb = calloc((size_t)d->nq, sizeof(float));
	d->zb = calloc((size_t)d->nq, sizeof(int32_t));
	assert_true(d->a && d->b && d->sb && d->zb);
	for (int i = 0; i < r->m * r->k; i++)
		d->a[i] = t->a == F16 ? ref_f16_to_f32(ref_f32_to_f16(
						(float)fx_rng_range(-1000, 1000) / 1000.0f)) :
			  t->a == I8 ? fx_rng_range(-128, 127) : fx_rng_range(-8, 7);
	for (int i = 0; i < r->k * r->n; i++)
		d->b[i] = t->b == I8 ? fx_rng_range(-128, 127) : fx_rng_range(-8, 7);
	for (int i = 0; i < d->nq; i++) {
		d->sb[i] = (float)fx_rng_range(100, 500) / 10000.0f;
		d->zb[i] = !r->asym ? 0 : t->b == I4 ? fx_rng_range(-8, 7) : fx_rng_range(-20, 20);
	}
	d->sa = 0.0125f;
	d->za = r->asym && t->a == I8 ? 5 : 0;
}

static void free_data(struct data *d)
{
	free(d->a);
	free(d->b);
	free(d->sb);
	free(d->zb);
}

static void set_quant(rknn_matmul_ctx ctx, const char *name, float *s, int ns, int32_t *z,
		      int nz)
{
	rknn_quant_params q = { .scale = s, .scale_len = ns, .zp = z, .zp_len = nz };

	strcpy(q.name, name);
	assert_int_equal(rknn_matmul_set_quant_params(ctx, &q), RKNN_SUCC);
}

/* Every C (m, n) against the reference. */
static void check(const struct run *r, const struct tcase *t, const struct data *d,
		  const void *cbuf)
{
	for (int i = 0; i < r->m; i++)
		for (int j = 0; j < r->n; j++) {
			size_t at = r->ac_native ? nc_index(t->c, r->m, i, j) : (size_t)i * r->n + j;
			double got = get(cbuf, t->c, at);

			if (t->a == F16) {
				double ref = 0, mag = 0, eps;

				for (int k = 0; k < r->k; k++) {
					int q = qindex(r, k, j);
					double w = (double)d->sb[q] * (d->b[(size_t)k * r->n + j] - d->zb[q]);

					ref += d->a[(size_t)i * r->k + k] * w;
					mag += fabs(d->a[(size_t)i * r->k + k] * w);
				}
				/* B in fp16 (2^-11 each, taken as 2^-10 with the fp32
				 * sums), then C's own rounding. */
				eps = t->c == F32 ? 0x1p-23 : t->c == F16 ? 0x1p-11 : 0x1p-8;
				if (fabs(got - ref) > mag * 0x1p-10 + fabs(ref) * eps + 1e-6)
					fail_msg("type %d M %d K %d N %d q %d: C[%d][%d] %g, want %g "
						 "(sum of |terms| %g)", r->type, r->m, r->k, r->n,
						 r->qtype, i, j, got, ref, mag);
			} else {
				int64_t acc = 0;
				int q = qindex(r, 0, j);

				for (int k = 0; k < r->k; k++)
					acc += (int64_t)(d->a[(size_t)i * r->k + k] - d->za) *
					       (int64_t)(d->b[(size_t)k * r->n + j] - d->zb[q]);
				if (t->c == I32 || t->c == I16) {
					int64_t want = t->c == I16 ? (acc > 32767 ? 32767 :
								      acc < -32768 ? -32768 : acc) : acc;

					if ((int64_t)got != want)
						fail_msg("type %d M %d K %d N %d: C[%d][%d] %lld, want "
							 "%lld", r->type, r->m, r->k, r->n, i, j,
							 (long long)got, (long long)want);
				} else {
					double want = (double)d->sa * (double)d->sb[q] * (double)acc;
					double eps = t->c == F32 ? 0x1p-23 : 0x1p-11;

					if (fabs(got - want) > fabs(want) * eps + 0x1p-24)
						fail_msg("type %d M %d K %d N %d: C[%d][%d] %.9g, want "
							 "%.9g", r->type, r->m, r->k, r->n, i, j, got,
							 want);
				}
			}
		}
}

static void run_one(const struct run *r)
{
	const struct tcase *t = tc_of(r->type);
	rknn_matmul_info info = { .M = r->m, .K = r->k, .N = r->n, .type = r->type,
				  .B_layout = r->b_native, .AC_layout = r->ac_native,
				  .B_quant_type = (int16_t)r->qtype,
				  .group_size = (int16_t)(r->qtype == 2 ? r->group : 0) };
	rknn_matmul_io_attr io;
	rknn_matmul_ctx ctx;
	rknn_tensor_mem *ma, *mb, *mc;
	struct data d;

	fx_rng_seed((uint64_t)r->type * 7919u + (uint64_t)r->m * 131u + (uint64_t)r->k * 17u +
		    (uint64_t)r->n + (uint64_t)r->qtype * 3u + r->asym);
	make_data(r, t, &d);
	assert_int_equal(rknn_matmul_create(&ctx, &info, &io), RKNN_SUCC);
	/* io_attr sizes exactly as the layouts give them. */
	assert_int_equal(io.A.size, r->ac_native ?
			 (size_t)align_up(r->k, 32) * r->m * bits(t->a) / 8 :
			 ((size_t)r->m * r->k * bits(t->a) + 7) / 8);
	assert_int_equal(io.B.size, r->b_native ?
			 (size_t)align_up(r->k, 32) * align_up(r->n, t->b == I4 ? 64 : 32) *
			 bits(t->b) / 8 : ((size_t)r->k * r->n * bits(t->b) + 7) / 8);
	assert_int_equal(io.C.size, (r->ac_native ? (size_t)align_up(r->n, t->b == I4 ? 64 : 32) :
				     (size_t)r->n) * r->m * bits(t->c) / 8);
	ma = rknn_create_mem(ctx, io.A.size);
	mb = rknn_create_mem(ctx, io.B.size);
	mc = rknn_create_mem(ctx, io.C.size);
	assert_true(ma && mb && mc);
	memset(ma->virt_addr, 0, io.A.size);
	memset(mb->virt_addr, 0, io.B.size);
	for (int i = 0; i < r->m; i++)
		for (int k = 0; k < r->k; k++)
			put(ma->virt_addr, t->a, r->ac_native ? nc_index(t->a, r->m, i, k) :
			    (size_t)i * r->k + k, d.a[(size_t)i * r->k + k]);
	for (int k = 0; k < r->k; k++)
		for (int j = 0; j < r->n; j++)
			put(mb->virt_addr, t->b, r->b_native ? b_native_index(t->b, r->k, r->n, k, j) :
			    (size_t)k * r->n + j, d.b[(size_t)k * r->n + j]);
	/* Quantisation first: B is read when it is bound. */
	set_quant(ctx, "B", d.sb, d.nq, d.zb, r->asym ? d.nq : 0);
	if (t->a == I8 && t->c != I32)
		set_quant(ctx, "A", &d.sa, 1, &d.za, 1);
	assert_int_equal(rknn_matmul_set_io_mem(ctx, ma, &io.A), RKNN_SUCC);
	assert_int_equal(rknn_matmul_set_io_mem(ctx, mb, &io.B), RKNN_SUCC);
	assert_int_equal(rknn_matmul_set_io_mem(ctx, mc, &io.C), RKNN_SUCC);
	assert_int_equal(rknn_matmul_run(ctx), RKNN_SUCC);
	check(r, t, &d, mc->virt_addr);
	assert_int_equal(rknn_destroy_mem(ctx, ma), RKNN_SUCC);
	assert_int_equal(rknn_destroy_mem(ctx, mb), RKNN_SUCC);
	assert_int_equal(rknn_destroy_mem(ctx, mc), RKNN_SUCC);
	assert_int_equal(rknn_matmul_destroy(ctx), RKNN_SUCC);
	free_data(&d);
}

/* M over {1, 2, 3, 4, 17, 64}, N at and off the alignment, every B
 * quantisation the type takes; K up to 10240 (two segments) on a sample. */
static void type_grid(rknn_matmul_type type)
{
	const struct tcase *t = tc_of(type);
	static const int ms[] = { 1, 2, 3, 4, 17, 64 };
	int g = t->b == I4 ? 64 : 32;
	/* Raw integer sums take no zero points. */
	bool raw = t->c == I32 || t->c == I16;

	for (size_t i = 0; i < sizeof(ms) / sizeof(ms[0]); i++) {
		struct run r = { .type = type, .m = ms[i], .k = 128, .n = i % 2 ? g : g + 6,
				 .b_native = i % 3 == 1, .ac_native = i % 2 == 1,
				 .asym = i % 2 == 0 && !raw };

		run_one(&r);
		if (t->chan) {
			r.qtype = 1;
			run_one(&r);
		}
		if (t->group) {
			r.qtype = 2;
			r.group = i % 2 ? 32 : 128;
			run_one(&r);
		}
	}
	/* K not a multiple of 32; K of two segments, M = 1 and 2. */
	run_one(&(struct run){ .type = type, .m = 3, .k = 100, .n = 10, .qtype = t->chan,
			       .asym = !raw });
	run_one(&(struct run){ .type = type, .m = 1, .k = 10240, .n = 20,
			       .qtype = t->group ? 2 : 0, .group = 256, .asym = !raw,
			       .b_native = true });
	run_one(&(struct run){ .type = type, .m = 2, .k = 10240, .n = g, .qtype = t->chan,
			       .ac_native = true });
}

#define TYPE_TEST(fn, type) \
	static void fn(void **state) \
	{ \
		(void)state; \
		type_grid(type); \
	}

TYPE_TEST(fp16_int8_fp32, RKNN_FLOAT16_MM_INT8_TO_FLOAT32)
TYPE_TEST(fp16_int8_fp16, RKNN_FLOAT16_MM_INT8_TO_FLOAT16)
TYPE_TEST(fp16_int4_fp32, RKNN_FLOAT16_MM_INT4_TO_FLOAT32)
TYPE_TEST(fp16_int4_fp16, RKNN_FLOAT16_MM_INT4_TO_FLOAT16)
TYPE_TEST(fp16_int4_bf16, RKNN_FLOAT16_MM_INT4_TO_BFLOAT16)
TYPE_TEST(int8_int8_fp32, RKNN_INT8_MM_INT8_TO_FLOAT32)
TYPE_TEST(int8_int4_fp16, RKNN_INT8_MM_INT4_TO_FLOAT16)
TYPE_TEST(int8_int4_int32, RKNN_INT8_MM_INT4_TO_INT32)
TYPE_TEST(int4_int4_int16, RKNN_INT4_MM_INT4_TO_INT16)

/* int4 × int4 sums past int16 saturate (the int16 output of the type). */
static void int16_saturates(void **state)
{
	rknn_matmul_info info = { .M = 2, .K = 4096, .N = 64, .type = RKNN_INT4_MM_INT4_TO_INT16 };
	struct fx_mm r;
	int16_t *c;

	(void)state;
	assert_int_equal(rknn_matmul_create(&r.ctx, &info, &r.io), RKNN_SUCC);
	r.a = rknn_create_mem(r.ctx, r.io.A.size);
	r.b = rknn_create_mem(r.ctx, r.io.B.size);
	r.c = rknn_create_mem(r.ctx, r.io.C.size);
	assert_true(r.a && r.b && r.c);
	/* Row 0: all −8 · −8 = 64 · 4096; row 1: −8 · 7 = −56 · 4096. */
	memset(r.a->virt_addr, 0x88, 2048);
	memset((uint8_t *)r.a->virt_addr + 2048, 0x77, 2048);
	memset(r.b->virt_addr, 0x88, r.io.B.size);
	assert_int_equal(rknn_matmul_set_io_mem(r.ctx, r.a, &r.io.A), RKNN_SUCC);
	assert_int_equal(rknn_matmul_set_io_mem(r.ctx, r.b, &r.io.B), RKNN_SUCC);
	assert_int_equal(rknn_matmul_set_io_mem(r.ctx, r.c, &r.io.C), RKNN_SUCC);
	assert_int_equal(rknn_matmul_run(r.ctx), RKNN_SUCC);
	c = r.c->virt_addr;
	for (int j = 0; j < 64; j++) {
		assert_int_equal(c[j], 32767);
		assert_int_equal(c[64 + j], -32768);
	}
	fx_mm_close(&r);
}

/* int4 × int4 split by N over several cores (64-column groups), normal and
 * native layouts, N off the alignment; the reference unpacks the nibbles
 * itself (even element in the low nibble) and saturates. */
static int i4_at(const uint8_t *p, size_t i)
{
	int v = (p[i / 2] >> (i % 2 ? 4 : 0)) & 0xf;

	return v >= 8 ? v - 16 : v;
}

static void int4_cores_case(int m, int k, int n, rknn_core_mask mask, bool native)
{
	rknn_matmul_info info = { .M = m, .K = k, .N = n, .type = RKNN_INT4_MM_INT4_TO_INT16,
				  .AC_layout = native, .B_layout = native };
	int k_al = (k + 31) / 32 * 32, n_al = (n + 63) / 64 * 64;
	struct fx_mm r;
	uint8_t *a, *b;
	const int16_t *c;

	assert_int_equal(rknn_matmul_create(&r.ctx, &info, &r.io), RKNN_SUCC);
	assert_int_equal(r.io.A.size, (uint32_t)(native ? m * k_al / 2 : (m * k + 1) / 2));
	assert_int_equal(r.io.B.size, (uint32_t)(native ? k_al * n_al / 2 : (k * n + 1) / 2));
	assert_int_equal(r.io.C.size, (uint32_t)(native ? m * n_al * 2 : m * n * 2));
	r.a = rknn_create_mem(r.ctx, r.io.A.size);
	r.b = rknn_create_mem(r.ctx, r.io.B.size);
	r.c = rknn_create_mem(r.ctx, r.io.C.size);
	assert_true(r.a && r.b && r.c);
	a = r.a->virt_addr;
	b = r.b->virt_addr;
	fx_rng_seed((uint64_t)m * 7919u + (uint64_t)k * 31u + (uint64_t)n + mask);
	memset(a, 0, r.io.A.size);
	memset(b, 0, r.io.B.size);
	/* values anywhere in -8..7; native padding stays 0 */
	for (int i = 0; i < m; i++)
		for (int q = 0; q < k; q++) {
			size_t at = native ? ((size_t)(q / 32) * m + i) * 32 + q % 32 :
				    (size_t)i * k + q;
			unsigned int v = fx_rng() & 0xf;

			a[at / 2] |= (uint8_t)(v << (at % 2 ? 4 : 0));
		}
	for (int q = 0; q < k; q++)
		for (int j = 0; j < n; j++) {
			size_t at = native ? (((size_t)(j / 64) * (k_al / 32) + q / 32) * 64 + j % 64) *
					     32 + q % 32 : (size_t)q * n + j;
			unsigned int v = fx_rng() & 0xf;

			b[at / 2] |= (uint8_t)(v << (at % 2 ? 4 : 0));
		}
	assert_int_equal(rknn_matmul_set_io_mem(r.ctx, r.a, &r.io.A), RKNN_SUCC);
	assert_int_equal(rknn_matmul_set_io_mem(r.ctx, r.b, &r.io.B), RKNN_SUCC);
	assert_int_equal(rknn_matmul_set_io_mem(r.ctx, r.c, &r.io.C), RKNN_SUCC);
	assert_int_equal(rknn_matmul_set_core_mask(r.ctx, mask), RKNN_SUCC);
	assert_int_equal(rknn_matmul_run(r.ctx), RKNN_SUCC);
	c = r.c->virt_addr;
	for (int i = 0; i < m; i++)
		for (int j = 0; j < n; j++) {
			int64_t want = 0;
			size_t at = native ? ((size_t)(j / 8) * m + i) * 8 + j % 8 : (size_t)i * n + j;

			for (int q = 0; q < k; q++)
				want += i4_at(a, native ? ((size_t)(q / 32) * m + i) * 32 + q % 32 :
						      (size_t)i * k + q) *
					i4_at(b, native ? (((size_t)(j / 64) * (k_al / 32) + q / 32) * 64 +
							   j % 64) * 32 + q % 32 : (size_t)q * n + j);
			want = want > INT16_MAX ? INT16_MAX : want < INT16_MIN ? INT16_MIN : want;
			if (c[at] != want)
				fail_msg("int4 %dx%dx%d mask 0x%x native %d: C[%d][%d] = %d, want %lld",
					 m, k, n, mask, native, i, j, c[at], (long long)want);
		}
	fx_mm_close(&r);
}

static void int4_cores(void **state)
{
	(void)state;
	int4_cores_case(5, 256, 192, RKNN_NPU_CORE_0_1_2, false);
	int4_cores_case(3, 96, 130, RKNN_NPU_CORE_0_1, true);
	int4_cores_case(17, 8192, 128, (rknn_core_mask)(RKNN_NPU_CORE_1 | RKNN_NPU_CORE_2), false);
	int4_cores_case(1, 64, 64, RKNN_NPU_CORE_0_1_2, true);
}

/* B is read once, when bound (and again after its quantisation changes),
 * never per run: writing B afterwards changes nothing until set_io_mem. */
static void b_read_when_bound(void **state)
{
	rknn_matmul_info info = { .M = 1, .K = 32, .N = 16, .type = RKNN_FLOAT16_MM_INT8_TO_FLOAT32 };
	struct fx_mm r;
	float *c;
	float two = 2.0f;

	(void)state;
	assert_int_equal(rknn_matmul_create(&r.ctx, &info, &r.io), RKNN_SUCC);
	r.a = rknn_create_mem(r.ctx, r.io.A.size);
	r.b = rknn_create_mem(r.ctx, r.io.B.size);
	r.c = rknn_create_mem(r.ctx, r.io.C.size);
	assert_true(r.a && r.b && r.c);
	for (int k = 0; k < 32; k++)
		put(r.a->virt_addr, F16, (size_t)k, 1.0);
	memset(r.b->virt_addr, 1, r.io.B.size);
	assert_int_equal(rknn_matmul_set_io_mem(r.ctx, r.a, &r.io.A), RKNN_SUCC);
	assert_int_equal(rknn_matmul_set_io_mem(r.ctx, r.b, &r.io.B), RKNN_SUCC);
	assert_int_equal(rknn_matmul_set_io_mem(r.ctx, r.c, &r.io.C), RKNN_SUCC);
	c = r.c->virt_addr;
	assert_int_equal(rknn_matmul_run(r.ctx), RKNN_SUCC);
	assert_true(c[0] == 32.0f);
	memset(r.b->virt_addr, 3, r.io.B.size);
	assert_int_equal(rknn_matmul_run(r.ctx), RKNN_SUCC);
	assert_true(c[0] == 32.0f);
	set_quant(r.ctx, "B", &two, 1, NULL, 0);	/* re-read with the new scale */
	assert_int_equal(rknn_matmul_run(r.ctx), RKNN_SUCC);
	assert_true(c[5] == 192.0f);
	fx_mm_close(&r);
}

/* A dynamic-shape context of a converted type: one B, several M. */
static void dynamic_converted(void **state)
{
	rknn_matmul_info info = { .type = RKNN_FLOAT16_MM_INT4_TO_FLOAT16, .B_quant_type = 2,
				  .group_size = 64 };
	rknn_matmul_shape shapes[] = { { 1, 128, 70 }, { 17, 128, 70 }, { 4, 128, 70 } };
	rknn_matmul_io_attr io[3];
	struct fx_mm r;

	(void)state;
	assert_int_equal(rknn_matmul_create_dynamic_shape(&r.ctx, &info, 3, shapes, io),
			 RKNN_SUCC);
	for (int i = 0; i < 3; i++)
		assert_int_equal(io[i].A.size, (uint32_t)shapes[i].M * 128 * 2);
	assert_int_equal(io[0].B.size, 128 * 70 / 2);
	fx_mm_bind(&r, &io[1]);
	for (int s = 0; s < 3; s++) {
		assert_int_equal(rknn_matmul_set_dynamic_shape(r.ctx, &shapes[s]), RKNN_SUCC);
		assert_int_equal(rknn_matmul_run(r.ctx), RKNN_SUCC);
	}
	fx_mm_close(&r);
}

/* rknn_B_normal_layout_to_native_layout for int4 and int8 B against the
 * vendor's block order, K in two segments. */
static void b_layout_types(void **state)
{
	static const rknn_matmul_type ts[] = { RKNN_FLOAT16_MM_INT4_TO_FLOAT32,
					       RKNN_FLOAT16_MM_INT8_TO_FLOAT16 };

	(void)state;
	for (size_t ti = 0; ti < 2; ti++) {
		const struct tcase *t = tc_of(ts[ti]);
		rknn_matmul_info info = { .M = 1, .K = 8230, .N = 70, .type = ts[ti],
					  .B_layout = 1 };
		rknn_matmul_io_attr io;
		rknn_matmul_ctx ctx;
		rknn_tensor_mem *out;
		uint8_t *in;
		size_t in_bytes = ((size_t)info.K * info.N * bits(t->b) + 7) / 8;

		assert_int_equal(rknn_matmul_create(&ctx, &info, &io), RKNN_SUCC);
		out = rknn_create_mem(ctx, io.B.size);
		in = calloc(in_bytes, 1);
		assert_true(out && in);
		fx_rng_seed(77 + ti);
		for (size_t i = 0; i < (size_t)info.K * info.N; i++)
			put(in, t->b, i, fx_rng_range(t->b == I4 ? -8 : -128, t->b == I4 ? 7 : 127));
		assert_int_equal(rknn_B_normal_layout_to_native_layout(in, out->virt_addr, info.K,
								       info.N, &info), RKNN_SUCC);
		for (int k = 0; k < info.K; k++)
			for (int n = 0; n < info.N; n++) {
				size_t src = (size_t)k * info.N + n;
				size_t dst = b_native_index(t->b, info.K, info.N, k, n);
				int want = t->b == I4 ? ((in[src / 2] >> (src & 1 ? 4 : 0)) & 15) :
						       in[src];
				int got = t->b == I4 ? ((((uint8_t *)out->virt_addr)[dst / 2] >>
							 (dst & 1 ? 4 : 0)) & 15) :
						       ((uint8_t *)out->virt_addr)[dst];

				assert_int_equal(got, want);
			}
		free(in);
		assert_int_equal(rknn_destroy_mem(ctx, out), RKNN_SUCC);
		assert_int_equal(rknn_matmul_destroy(ctx), RKNN_SUCC);
	}
}

static void expect_create_fails(rknn_matmul_info info)
{
	rknn_matmul_io_attr io;
	rknn_matmul_ctx ctx = 0;

	assert_int_equal(rknn_matmul_create(&ctx, &info, &io), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(ctx, 0);
}

/* Type × B_quant_type × group_size combinations and quantisation
 * parameters that do not fit, each refused. */
static void type_errors(void **state)
{
	rknn_matmul_info ok = { .M = 2, .K = 128, .N = 64, .type = RKNN_FLOAT16_MM_INT4_TO_FLOAT16,
				.B_quant_type = 2, .group_size = 64 };
	rknn_matmul_info i;
	rknn_matmul_io_attr io;
	rknn_matmul_ctx ctx;
	float s[4] = { 1, 1, 1, 1 };
	int32_t z[4] = { 0, 9, 0, 0 };
	rknn_quant_params q = { .name = "B", .scale = s, .scale_len = 3 };

	(void)state;
	i = ok, i.group_size = 48;			/* not 32/64/128/256 */
	expect_create_fails(i);
	i = ok, i.K = 96;				/* 64 does not divide 96 */
	expect_create_fails(i);
	i = ok, i.B_quant_type = 3;			/* undefined */
	expect_create_fails(i);
	i = ok, i.B_quant_type = 0;			/* group_size without per-group */
	expect_create_fails(i);
	i = ok, i.type = RKNN_INT8_MM_INT8_TO_FLOAT32;	/* per-group of integer sums */
	expect_create_fails(i);
	i = ok, i.type = RKNN_INT4_MM_INT4_TO_INT16, i.B_quant_type = 1, i.group_size = 0;
	expect_create_fails(i);				/* raw sums: per-layer only */
	i = ok, i.AC_quant_type = 1;
	expect_create_fails(i);
	i = ok, i.N = 8176;				/* padded to 8192 int4 columns */
	expect_create_fails(i);

	assert_int_equal(rknn_matmul_create(&ctx, &ok, &io), RKNN_SUCC);
	/* 128 / 64 · 64 = 128 scales needed, not 3. */
	assert_int_equal(rknn_matmul_set_quant_params(ctx, &q), RKNN_ERR_PARAM_INVALID);
	strcpy(q.name, "A");				/* weight-only: B alone */
	q.scale_len = 1;
	assert_int_equal(rknn_matmul_set_quant_params(ctx, &q), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_matmul_destroy(ctx), RKNN_SUCC);

	i = ok, i.B_quant_type = 1, i.group_size = 0, i.N = 4;
	assert_int_equal(rknn_matmul_create(&ctx, &i, &io), RKNN_SUCC);
	strcpy(q.name, "B");
	q.scale_len = 4;
	q.zp = z;
	q.zp_len = 4;					/* 9 is no int4 */
	assert_int_equal(rknn_matmul_set_quant_params(ctx, &q), RKNN_ERR_PARAM_INVALID);
	z[1] = -8;
	assert_int_equal(rknn_matmul_set_quant_params(ctx, &q), RKNN_SUCC);
	{
		float sg[4];
		int32_t zg[4];
		float first;
		rknn_quant_params g = { .name = "B", .scale = sg, .scale_len = 4, .zp = zg,
					.zp_len = 4 };

		assert_int_equal(rknn_matmul_get_quant_params(ctx, &g, &first), RKNN_SUCC);
		assert_int_equal(g.scale_len, 4);
		assert_int_equal(zg[1], -8);
	}
	assert_int_equal(rknn_matmul_destroy(ctx), RKNN_SUCC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_MATMUL_TEST(fp16_int8_fp32),
		FX_MATMUL_TEST(fp16_int8_fp16),
		FX_MATMUL_TEST(fp16_int4_fp32),
		FX_MATMUL_TEST(fp16_int4_fp16),
		FX_MATMUL_TEST(fp16_int4_bf16),
		FX_MATMUL_TEST(int8_int8_fp32),
		FX_MATMUL_TEST(int8_int4_fp16),
		FX_MATMUL_TEST(int8_int4_int32),
		FX_MATMUL_TEST(int4_int4_int16),
		FX_MATMUL_TEST(int16_saturates),
		FX_MATMUL_TEST(int4_cores),
		FX_MATMUL_TEST(b_read_when_bound),
		FX_MATMUL_TEST(dynamic_converted),
		FX_MATMUL_TEST(b_layout_types),
		FX_MATMUL_TEST(type_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
