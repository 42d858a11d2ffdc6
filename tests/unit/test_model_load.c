// SPDX-License-Identifier: MIT
/*
 * The model container's verifying loader and the runtime's create /
 * destroy, on the container the build compiles (the Fashion-MNIST model,
 * build/models/fmnist/fmnist.rkb, written by the host tool's writer):
 *   - each header field damaged gives its own status, and a CRC that does
 *     not match is caught before anything else is read;
 *   - records damaged behind a recomputed CRC (the checks the CRC cannot
 *     do) give the status of the record, naming it in the message;
 *   - an op type outside the op table, on any op, is refused naming the
 *     op, the type and the types there are, by the loader and at create;
 *   - every truncation and 3000 random corruptions (fixed seed, CRC
 *     recomputed by zlib's crc32, independent of ours) are refused or run
 *     without a memory error (ASan), and leave the DMA pool as it was;
 *   - 1000 create / destroy cycles leave the pool exactly as before, and
 *     a run after them gives the bytes of the run before them;
 *   - a SHAPES section (dynamic shapes) written here from docs/FORMAT.md,
 *     holding set 0's records again as set 1: accepted, set 1 runs as set
 *     0 does, and each of its defects is refused naming "shape set 1";
 *   - the fp16 container of the same network (fmnist_fp16.rkb): accepted,
 *     and each fp16 rule broken behind a recomputed CRC refused by name.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <cmocka.h>

#include "runtime/model_run.h"

#include "npu_fixture.h"
#include "test_blob_util.h"

#define MODEL_PATH	"build/models/fmnist/fmnist.rkb"
#define MODEL_FP16_PATH	"build/models/fmnist/fmnist_fp16.rkb"
#define CYCLES		1000u
#define RANDOM_CASES	3000u

static uint8_t *good;
static size_t good_size;
static struct dma_pool pool;

static int setup(void **state)
{
	(void)state;
	good = fx_read_file("test_model_load", MODEL_PATH, &good_size);
	if (!good)
		return -1;
	fx_attach(0x1);
	return dma_pool_init_default(&pool);
}

static int teardown(void **state)
{
	(void)state;
	free(good);
	return fx_teardown(NULL);
}

static uint8_t *copy(void)
{
	uint8_t *b = malloc(good_size);

	assert_non_null(b);
	memcpy(b, good, good_size);
	return b;
}

static void put32(uint8_t *b, size_t at, uint32_t v)
{
	memcpy(b + at, &v, sizeof(v));
}

/* Where section `type`'s entry lies in blob b's section table. */
static size_t section_entry(const uint8_t *b, uint32_t type)
{
	struct rkb_header h;

	memcpy(&h, b, sizeof(h));
	for (uint32_t i = 0; i < h.section_count; i++) {
		struct rkb_section s;
		size_t at = h.section_offset + i * sizeof(s);

		memcpy(&s, b + at, sizeof(s));
		if (s.type == type)
			return at;
	}
	fail_msg("no section %u", type);
	return 0;
}

static int load(const uint8_t *b, size_t n, char *err, size_t len)
{
	struct rkb_model m;
	int rc = rkb_model_load(b, n, &m, err, len);

	if (!rc)
		rkb_model_unload(&m);
	return rc;
}

/* Blob b of n bytes, damaged (CRC recomputed when crc): status want,
 * the message naming field. */
static void expect_refused(uint8_t *b, size_t n, bool crc, int want, const char *field)
{
	char err[256];
	int rc;

	if (crc)
		fix_crc(b, n);
	rc = load(b, n, err, sizeof(err));
	if (rc != want || !strstr(err, field))
		fail_msg("damaged %s: status %d (%s) \"%s\", want %d naming '%s'", field, rc,
			 rkb_strerror(rc), err, want, field);
}

/* A damaged copy of the good container, freed after. */
static void expect_status(uint8_t *b, bool crc, int want, const char *field)
{
	expect_refused(b, good_size, crc, want, field);
	free(b);
}

static void test_valid(void **state)
{
	char err[256];

	(void)state;
	assert_int_equal(load(good, good_size, err, sizeof(err)), RKB_OK);
}

static void test_header_fields(void **state)
{
	uint8_t *b;

	(void)state;
	b = copy(); b[0] ^= 1; expect_status(b, true, RKB_E_MAGIC, "magic");
	b = copy(); b[4] = RKB_VERSION_MAJOR + 1; expect_status(b, true, RKB_E_VERSION, "version");
	b = copy(); put32(b, offsetof(struct rkb_header, header_bytes), 60);
	expect_status(b, true, RKB_E_HEADER, "header_bytes");
	b = copy(); put32(b, offsetof(struct rkb_header, file_bytes), (uint32_t)good_size + 64);
	expect_status(b, true, RKB_E_TRUNCATED, "file_bytes");
	b = copy(); b[good_size - 1] ^= 0x40; expect_status(b, false, RKB_E_CHECKSUM, "crc32");
	b = copy(); put32(b, offsetof(struct rkb_header, target), 3568);
	expect_status(b, true, RKB_E_HEADER, "target");
	b = copy(); put32(b, offsetof(struct rkb_header, flags), 1);
	expect_status(b, true, RKB_E_HEADER, "flags");
	b = copy(); put32(b, offsetof(struct rkb_header, reserved) + 8, 1);
	expect_status(b, true, RKB_E_HEADER, "reserved");
	b = copy(); put32(b, offsetof(struct rkb_header, section_count), 0x10000);
	expect_status(b, true, RKB_E_SECTION, "section_count");
	b = copy(); put32(b, offsetof(struct rkb_header, section_offset), 0xfffffff0u);
	expect_status(b, true, RKB_E_SECTION, "section_offset");
	/* a section inside the header: 4-byte aligned, inside the file */
	b = copy();
	put32(b, section_entry(b, RKB_SEC_STRINGS) + offsetof(struct rkb_section, offset),
	      sizeof(struct rkb_header) - 8u);
	expect_status(b, true, RKB_E_SECTION, "section STRINGS");
}

static void test_records(void **state)
{
	size_t t, o, io, pl;
	uint8_t *b;
	float nan = __builtin_nanf("");

	(void)state;
	t = section(good, RKB_SEC_TENSORS);
	o = section(good, RKB_SEC_OPS);
	io = section(good, RKB_SEC_OUTPUTS);
	pl = section(good, RKB_SEC_PLAN);

	b = copy(); memcpy(b + t + offsetof(struct rkb_tensor, scale), &nan, sizeof(nan));
	expect_status(b, true, RKB_E_TENSOR, "scale");
	b = copy(); put32(b, t + offsetof(struct rkb_tensor, zp), 200);
	expect_status(b, true, RKB_E_TENSOR, "zp");
	b = copy(); put32(b, t + offsetof(struct rkb_tensor, dtype), 4);
	expect_status(b, true, RKB_E_TENSOR, "dtype");
	/* fp16 and int32 (raw sums) take scale 1 and zero point 0 */
	b = copy(); put32(b, t + offsetof(struct rkb_tensor, dtype), RKB_DT_FP16);
	expect_status(b, true, RKB_E_TENSOR, "fp16 with scale");
	b = copy(); put32(b, t + offsetof(struct rkb_tensor, dtype), RKB_DT_INT32);
	expect_status(b, true, RKB_E_TENSOR, "int32 with scale");
	/* an int8 output read as int32 sums */
	b = copy(); put32(b, io + offsetof(struct rkb_io, kind), RKB_IO_INT32);
	expect_status(b, true, RKB_E_IO, "output[0].kind");
	b = copy(); put32(b, t + offsetof(struct rkb_tensor, name), 0x7fffffff);
	expect_status(b, true, RKB_E_STRING, "name");
	b = copy(); put32(b, t + offsetof(struct rkb_tensor, arena_offset), 0x7fffffc0);
	expect_status(b, true, RKB_E_PLAN, "arena");
	/* op 0's input moved onto its own output */
	b = copy(); put32(b, t + sizeof(struct rkb_tensor) + offsetof(struct rkb_tensor,
								    arena_offset), 0);
	expect_status(b, true, RKB_E_PLAN, "writes over");
	b = copy(); put32(b, o + offsetof(struct rkb_op, in), 99);
	expect_status(b, true, RKB_E_OP, "tensor index");
	b = copy(); put32(b, o + offsetof(struct rkb_op, weights) + 4, 64);
	expect_status(b, true, RKB_E_OP, "weights");
	b = copy(); put32(b, o + offsetof(struct rkb_op, type), 9);
	expect_status(b, true, RKB_E_OP, "type");
	b = copy(); put32(b, o + offsetof(struct rkb_op, kh), 2);
	expect_status(b, true, RKB_E_OP, "op[0]");
	/* power-of-two requantisation claimed for scales that are not */
	b = copy(); put32(b, o + offsetof(struct rkb_op, flags), RKB_OP_F_POW2);
	expect_status(b, true, RKB_E_OP, "refuses");
	/* op 1 (the pool) made to read op 2's output: read before written */
	b = copy(); put32(b, o + sizeof(struct rkb_op) + offsetof(struct rkb_op, in), 3);
	expect_status(b, true, RKB_E_OP, "op[1]");
	b = copy(); put32(b, io + offsetof(struct rkb_io, dims), 2);
	expect_status(b, true, RKB_E_IO, "output[0]");
	b = copy(); put32(b, pl + offsetof(struct rkb_plan, tasks), 7);
	expect_status(b, true, RKB_E_PLAN, "plan.tasks");
	/* fields docs/FORMAT.md says are 0 for the op's type, each refused by
	 * name: op 1 is a pool, op 0 a convolution without scratch */
	b = copy(); put32(b, o + sizeof(struct rkb_op) + offsetof(struct rkb_op, w_zp), 1);
	expect_status(b, true, RKB_E_OP, "op[1].w_zp");
	b = copy(); put32(b, o + sizeof(struct rkb_op) + offsetof(struct rkb_op, act), 1);
	expect_status(b, true, RKB_E_OP, "op[1].act");
	b = copy(); put32(b, o + sizeof(struct rkb_op) + offsetof(struct rkb_op, weights), 64);
	expect_status(b, true, RKB_E_OP, "op[1].weights.offset");
	b = copy(); put32(b, o + sizeof(struct rkb_op) + offsetof(struct rkb_op, scratch_bytes), 64);
	expect_status(b, true, RKB_E_OP, "op[1].scratch_bytes");
	b = copy(); put32(b, o + offsetof(struct rkb_op, scratch_offset), 64);
	expect_status(b, true, RKB_E_OP, "op[0].scratch_offset");
	b = copy(); put32(b, o + offsetof(struct rkb_op, pool), 1);
	expect_status(b, true, RKB_E_OP, "op[0].pool");
	/* the output is [1, 10]: dims past its rank are 0 */
	b = copy(); put32(b, io + offsetof(struct rkb_io, dims) + 3 * sizeof(uint32_t), 1);
	expect_status(b, true, RKB_E_IO, "dims[3]");
	b = copy(); b[section(b, RKB_SEC_STRINGS) + 8] = 'x';
	fix_crc(b, good_size);
	{
		/* a name changed, still terminated: accepted */
		char err[256];

		assert_int_equal(load(b, good_size, err, sizeof(err)), RKB_OK);
	}
	free(b);
}

/*
 * An op type no row of the op table (runtime/op_kinds.h) holds, on each op
 * of the container behind a recomputed CRC: the loader refuses it with
 * RKB_E_OP naming the op by index and name, the type, and the types it
 * takes; rkb_ctx_create refuses it the same way, taking nothing.
 */
static void test_unknown_op_type(void **state)
{
	static const uint32_t bad[] = { 0, RKB_OP_CONVERT + 1, 9, 0x80000001u, 0xffffffffu };
	size_t o = section(good, RKB_SEC_OPS), str = section(good, RKB_SEC_STRINGS);
	struct rkb_section ops;
	struct dma_pool_stats before, after;

	(void)state;
	memcpy(&ops, good + section_entry(good, RKB_SEC_OPS), sizeof(ops));
	assert_true(ops.count >= 2);
	fx_pool_snapshot(&pool, &before);
	for (uint32_t i = 0; i < ops.count; i++) {
		struct rkb_op op;

		memcpy(&op, good + o + i * sizeof(op), sizeof(op));
		for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
			char want[160], err[256];
			struct rkb_ctx *ctx = NULL;
			uint8_t *b = copy();
			int rc;

			snprintf(want, sizeof(want), "op[%u] '%s'.type: %u is not an op type", i,
				 (const char *)good + str + op.name, bad[k]);
			put32(b, o + i * sizeof(op) + offsetof(struct rkb_op, type), bad[k]);
			expect_refused(b, good_size, true, RKB_E_OP, want);
			/* what it takes, by name and number */
			assert_int_equal(load(b, good_size, err, sizeof(err)), RKB_E_OP);
			assert_non_null(strstr(err, "conv 1, add 2, pool 3, cpu 4"));
			rc = rkb_ctx_create(&fx_dev, &pool, b, good_size, 1, 0, &ctx, err,
					    sizeof(err));
			assert_int_equal(rc, RKB_E_OP);
			assert_null(ctx);
			assert_non_null(strstr(err, want));
			free(b);
		}
	}
	fx_pool_snapshot(&pool, &after);
	fx_assert_pool_equal(&before, &after);
}

/* Create, run once on a fixed input, destroy; the output in out. */
static int run_once(const uint8_t *b, size_t n, int8_t *out, size_t out_n)
{
	const struct rkb_io_fmt raw = { .kind = RKB_IO_INT8 };
	struct rkb_ctx *ctx;
	char err[256];
	int rc = rkb_ctx_create(&fx_dev, &pool, b, n, 1, 0, &ctx, err, sizeof(err));

	if (rc)
		return rc;
	{
		const struct rkb_model *m = rkb_ctx_model(ctx);
		size_t in_n = rkb_io_elems(&m->inputs[0]);
		int8_t *in = malloc(in_n);

		assert_non_null(in);
		for (size_t i = 0; i < in_n; i++)
			in[i] = (int8_t)(i * 37u + 11u);
		rc = rkb_input_set(ctx, 0, in, in_n, &raw);
		if (!rc)
			rc = rkb_run(ctx);
		if (!rc && out)
			rc = rkb_output_get(ctx, 0, out, out_n, &raw);
		free(in);
	}
	rkb_ctx_destroy(ctx);
	return rc;
}

static void test_truncated_and_random(void **state)
{
	struct dma_pool_stats before, after;
	uint32_t seed = 20261124;
	unsigned int accepted = 0;
	size_t records = section(good, RKB_SEC_CONSTANTS) - sizeof(struct rkb_header);

	(void)state;
	fx_pool_snapshot(&pool, &before);
	for (size_t n = 0; n < good_size; n += n < 512 ? 1 : 509) {
		uint8_t *b = malloc(n ? n : 1);
		char err[256];

		assert_non_null(b);
		memcpy(b, good, n);
		if (n >= sizeof(struct rkb_header))
			put32(b, offsetof(struct rkb_header, file_bytes), (uint32_t)n);
		if (n >= sizeof(struct rkb_header))
			fix_crc(b, n);
		assert_int_not_equal(load(b, n, err, sizeof(err)), RKB_OK);
		free(b);
	}
	for (unsigned int i = 0; i < RANDOM_CASES; i++) {
		uint8_t *b = copy();
		unsigned int flips = 1 + i % 4;

		/* Damage after the header, in the section table and the records
		 * (the constants are weights: any value is valid there). */
		for (unsigned int k = 0; k < flips; k++) {
			size_t at;

			seed = seed * 1103515245u + 12345u;
			at = sizeof(struct rkb_header) + (seed >> 8) % records;
			b[at] ^= (uint8_t)(1u << ((seed >> 4) % 8));
		}
		fix_crc(b, good_size);
		if (run_once(b, good_size, NULL, 0) == RKB_OK)
			accepted++;
		free(b);
	}
	fx_pool_snapshot(&pool, &after);
	fx_assert_pool_equal(&before, &after);
	printf("test_model_load: %u of %u randomly damaged containers still valid and run\n",
	       accepted, RANDOM_CASES);
}

static void test_create_destroy_cycles(void **state)
{
	struct dma_pool_stats before, after;
	int8_t first[16], again[16];

	(void)state;
	fx_pool_snapshot(&pool, &before);
	assert_int_equal(run_once(good, good_size, first, 10), RKB_OK);
	for (unsigned int i = 0; i < CYCLES; i++) {
		struct rkb_ctx *ctx;
		char err[256];

		assert_int_equal(rkb_ctx_create(&fx_dev, &pool, good, good_size, 1, 0, &ctx, err,
						sizeof(err)), RKB_OK);
		rkb_ctx_destroy(ctx);
	}
	assert_int_equal(run_once(good, good_size, again, 10), RKB_OK);
	fx_pool_snapshot(&pool, &after);
	fx_assert_pool_equal(&before, &after);
	assert_memory_equal(first, again, 10);
}

/* The SHAPES section of a container with shape sets. */
struct shapes_blob {
	uint8_t *b;
	size_t size;
	size_t shapes;		/* offset of the SHAPES bytes */
	uint32_t shapes_bytes;
	size_t table;		/* offset of the section table */
	uint32_t n_sections;
};

static uint32_t get32(const uint8_t *b, size_t at)
{
	uint32_t v;

	memcpy(&v, b + at, sizeof(v));
	return v;
}

/* good + a SHAPES section with one more set, a copy of set 0's records
 * (docs/FORMAT.md: an rkb_shape_set header, then TENSORS, OPS, INPUTS,
 * OUTPUTS), and a new section table after it; `extra` bytes of zeros
 * follow the set inside the section. */
static struct shapes_blob with_shape_set(size_t extra)
{
	static const uint32_t order[] = { RKB_SEC_TENSORS, RKB_SEC_OPS, RKB_SEC_INPUTS,
					  RKB_SEC_OUTPUTS };
	struct rkb_header h;
	struct shapes_blob s = { 0 };
	struct rkb_shape_set set;
	size_t at;

	memcpy(&h, good, sizeof(h));
	memset(&set, 0, sizeof(set));
	set.n_tensors = get32(good, h.section_offset);	/* filled below, per section */
	s.size = good_size + sizeof(set) + extra + (h.section_count + 1) * 16u;
	for (uint32_t i = 0; i < h.section_count; i++)
		s.size += get32(good, h.section_offset + i * 16u + 8);	/* at most all */
	s.b = calloc(1, s.size);
	assert_non_null(s.b);
	memcpy(s.b, good, good_size);
	s.shapes = (good_size + 3u) & ~(size_t)3u;
	at = s.shapes + sizeof(set);
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++)
		for (uint32_t i = 0; i < h.section_count; i++) {
			size_t e = h.section_offset + i * 16u;

			if (get32(good, e) != order[k])
				continue;
			memcpy(s.b + at, good + get32(good, e + 4), get32(good, e + 8));
			at += get32(good, e + 8);
			if (order[k] == RKB_SEC_TENSORS)
				set.n_tensors = get32(good, e + 12);
			else if (order[k] == RKB_SEC_OPS)
				set.n_ops = get32(good, e + 12);
			else if (order[k] == RKB_SEC_INPUTS)
				set.n_inputs = get32(good, e + 12);
			else
				set.n_outputs = get32(good, e + 12);
		}
	memcpy(&set.plan, good + section(good, RKB_SEC_PLAN), sizeof(set.plan));
	memcpy(s.b + s.shapes, &set, sizeof(set));
	at += extra;
	s.shapes_bytes = (uint32_t)(at - s.shapes);
	s.table = at;
	memcpy(s.b + s.table, good + h.section_offset, h.section_count * 16u);
	s.n_sections = h.section_count + 1;
	put32(s.b, s.table + h.section_count * 16u, RKB_SEC_SHAPES);
	put32(s.b, s.table + h.section_count * 16u + 4, (uint32_t)s.shapes);
	put32(s.b, s.table + h.section_count * 16u + 8, s.shapes_bytes);
	put32(s.b, s.table + h.section_count * 16u + 12, 1);
	s.size = s.table + s.n_sections * 16u;
	put32(s.b, offsetof(struct rkb_header, section_offset), (uint32_t)s.table);
	put32(s.b, offsetof(struct rkb_header, section_count), s.n_sections);
	put32(s.b, offsetof(struct rkb_header, file_bytes), (uint32_t)s.size);
	fix_crc(s.b, s.size);
	return s;
}

static void expect_shapes_status(struct shapes_blob *s, int want, const char *field)
{
	char err[256];
	int rc;

	fix_crc(s->b, s->size);
	rc = load(s->b, s->size, err, sizeof(err));
	if (rc != want || !strstr(err, field))
		fail_msg("damaged %s: status %d (%s) \"%s\", want %d naming '%s'", field, rc,
			 rkb_strerror(rc), err, want, field);
	free(s->b);
}

static void test_shape_sets(void **state)
{
	const struct rkb_io_fmt raw = { .kind = RKB_IO_INT8 };
	struct dma_pool_stats before, after;
	struct shapes_blob s = with_shape_set(0);
	size_t set1 = s.shapes + sizeof(struct rkb_shape_set), in_n;
	size_t inputs = set1 + get32(s.b, s.shapes) * sizeof(struct rkb_tensor) +
			get32(s.b, s.shapes + 4) * sizeof(struct rkb_op);
	int8_t first[16], again[16], *in;
	struct rkb_ctx *ctx;
	struct rkb_model m;
	char err[256];

	(void)state;
	fx_pool_snapshot(&pool, &before);
	assert_int_equal(rkb_model_load(s.b, s.size, &m, err, sizeof(err)), RKB_OK);
	assert_int_equal(m.n_shapes, 2);
	rkb_model_unload(&m);
	assert_int_equal(rkb_ctx_create(&fx_dev, &pool, s.b, s.size, 1, 0, &ctx, err,
					sizeof(err)), RKB_OK);
	in_n = rkb_io_elems(&rkb_ctx_model(ctx)->inputs[0]);
	in = malloc(in_n);
	assert_non_null(in);
	for (size_t i = 0; i < in_n; i++)
		in[i] = (int8_t)(i * 29u + 3u);
	assert_int_equal(rkb_input_set(ctx, 0, in, in_n, &raw), RKB_OK);
	assert_int_equal(rkb_run(ctx), RKB_OK);
	assert_int_equal(rkb_output_get(ctx, 0, first, 10, &raw), RKB_OK);
	assert_int_equal(rkb_ctx_set_shape(ctx, 2, err, sizeof(err)), RKB_E_ARG);
	assert_int_equal(rkb_ctx_set_shape(ctx, 1, err, sizeof(err)), RKB_OK);
	assert_int_equal(rkb_ctx_model(ctx)->shape, 1);
	assert_int_equal(rkb_input_set(ctx, 0, in, in_n, &raw), RKB_OK);
	assert_int_equal(rkb_run(ctx), RKB_OK);
	assert_int_equal(rkb_output_get(ctx, 0, again, 10, &raw), RKB_OK);
	assert_memory_equal(first, again, 10);
	rkb_ctx_destroy(ctx);
	free(in);
	free(s.b);

	/* each defect of set 1, named */
	s = with_shape_set(0);
	{
		float nan = __builtin_nanf("");

		memcpy(s.b + set1 + offsetof(struct rkb_tensor, scale), &nan, sizeof(nan));
	}
	expect_shapes_status(&s, RKB_E_TENSOR, "shape set 1: tensor[0]");
	s = with_shape_set(0);
	put32(s.b, s.shapes + offsetof(struct rkb_shape_set, n_inputs), 2);
	expect_shapes_status(&s, RKB_E_SECTION, "shape set 1: n_inputs");
	s = with_shape_set(0);
	put32(s.b, s.shapes + offsetof(struct rkb_shape_set, n_ops), 0x7fffffff);
	expect_shapes_status(&s, RKB_E_SECTION, "shape set 1: n_inputs/n_outputs/n_tensors/n_ops");
	s = with_shape_set(0);
	put32(s.b, s.table + (s.n_sections - 1) * 16u + 8, s.shapes_bytes - 4);
	expect_shapes_status(&s, RKB_E_SECTION, "end inside set 1");
	s = with_shape_set(8);
	expect_shapes_status(&s, RKB_E_SECTION, "8 of its");
	s = with_shape_set(0);
	put32(s.b, s.table + (s.n_sections - 1) * 16u + 12, 0);
	expect_shapes_status(&s, RKB_E_SECTION, "SHAPES");
	s = with_shape_set(0);
	put32(s.b, inputs + offsetof(struct rkb_io, name), 0);
	expect_shapes_status(&s, RKB_E_IO, "shape set 1: input[0]: name");
	s = with_shape_set(0);
	put32(s.b, s.shapes + offsetof(struct rkb_shape_set, plan) +
	      offsetof(struct rkb_plan, tasks), 99);
	expect_shapes_status(&s, RKB_E_PLAN, "shape set 1: plan.tasks");

	/* random damage inside SHAPES: refused or run, the pool as it was */
	{
		uint32_t seed = 20261125;

		for (unsigned int i = 0; i < RANDOM_CASES / 6; i++) {
			s = with_shape_set(0);
			seed = seed * 1103515245u + 12345u;
			s.b[s.shapes + (seed >> 8) % s.shapes_bytes] ^=
				(uint8_t)(1u << ((seed >> 4) % 8));
			fix_crc(s.b, s.size);
			if (rkb_ctx_create(&fx_dev, &pool, s.b, s.size, 1, 0, &ctx, err,
					   sizeof(err)) == RKB_OK) {
				if (rkb_ctx_set_shape(ctx, 1, err, sizeof(err)) == RKB_OK)
					(void)rkb_run(ctx);
				rkb_ctx_destroy(ctx);
			}
			free(s.b);
		}
	}
	fx_pool_snapshot(&pool, &after);
	fx_assert_pool_equal(&before, &after);
}

static void test_fp16_records(void **state)
{
	size_t n, t, o, io;
	uint8_t *fp16 = fx_read_file("test_model_load", MODEL_FP16_PATH, &n), *b;
	struct rkb_op op0;
	char err[256];

	(void)state;
	assert_non_null(fp16);
	assert_int_equal(load(fp16, n, err, sizeof(err)), RKB_OK);
	b = malloc(n);
	assert_non_null(b);
	t = section(fp16, RKB_SEC_TENSORS);
	o = section(fp16, RKB_SEC_OPS);
	io = section(fp16, RKB_SEC_INPUTS);
	memcpy(&op0, fp16 + o, sizeof(op0));
	/* op 0 writing int8 from fp16 */
	memcpy(b, fp16, n);
	put32(b, t + op0.out * sizeof(struct rkb_tensor) + offsetof(struct rkb_tensor, dtype),
	      RKB_DT_INT8);
	expect_refused(b, n, true, RKB_E_OP, "element types");
	/* an fp16 input read as int8 values */
	memcpy(b, fp16, n);
	put32(b, io + offsetof(struct rkb_io, kind), RKB_IO_INT8);
	expect_refused(b, n, true, RKB_E_IO, "for an input fp16 tensor");
	/* an fp16 convolution with a weight scale */
	memcpy(b, fp16, n);
	put32(b, o + offsetof(struct rkb_op, w_scale_count), 1);
	expect_refused(b, n, true, RKB_E_OP, "w_scale_count");
	/* a bias of another size than the op's fp32 channels */
	memcpy(b, fp16, n);
	assert_true(op0.bias.bytes >= 32);
	put32(b, o + offsetof(struct rkb_op, bias) + offsetof(struct rkb_range, bytes),
	      op0.bias.bytes - 16);
	expect_refused(b, n, true, RKB_E_OP, "bias");
	free(b);
	free(fp16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_header_fields),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_unknown_op_type),
		cmocka_unit_test(test_fp16_records),
		cmocka_unit_test(test_truncated_and_random),
		cmocka_unit_test(test_create_destroy_cycles),
		cmocka_unit_test(test_shape_sets),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
