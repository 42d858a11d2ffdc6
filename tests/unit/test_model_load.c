// SPDX-License-Identifier: MIT
/*
 * The model container's verifying loader and the runtime's create /
 * destroy, on the container the build compiles (the Fashion-MNIST model,
 * build/models/fmnist/fmnist.rkb, written by the host tool's writer):
 *   - each header field damaged gives its own status, and a CRC that does
 *     not match is caught before anything else is read;
 *   - records damaged behind a recomputed CRC (the checks the CRC cannot
 *     do) give the status of the record, naming it in the message;
 *   - every truncation and 3000 random corruptions (fixed seed, CRC
 *     recomputed by zlib's crc32, independent of ours) are refused or run
 *     without a memory error (ASan), and leave the DMA pool as it was;
 *   - 1000 create / destroy cycles leave the pool exactly as before, and
 *     a run after them gives the bytes of the run before them.
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

#define MODEL_PATH	"build/models/fmnist/fmnist.rkb"
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

/* The CRC as the specification defines it, computed by zlib. */
static void fix_crc(uint8_t *b, size_t n)
{
	uint32_t crc;

	memset(b + offsetof(struct rkb_header, crc32), 0, sizeof(uint32_t));
	crc = (uint32_t)crc32(0L, b, (uInt)n);
	memcpy(b + offsetof(struct rkb_header, crc32), &crc, sizeof(crc));
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

/* Offset of section `type` in blob b, from its table. */
static size_t section(const uint8_t *b, uint32_t type)
{
	struct rkb_header h;

	memcpy(&h, b, sizeof(h));
	for (uint32_t i = 0; i < h.section_count; i++) {
		struct rkb_section s;

		memcpy(&s, b + h.section_offset + i * sizeof(s), sizeof(s));
		if (s.type == type)
			return s.offset;
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

static void expect_status(uint8_t *b, bool crc, int want, const char *field)
{
	char err[256];
	int rc;

	if (crc)
		fix_crc(b, good_size);
	rc = load(b, good_size, err, sizeof(err));
	if (rc != want || !strstr(err, field))
		fail_msg("damaged %s: status %d (%s) \"%s\", want %d naming '%s'", field, rc,
			 rkb_strerror(rc), err, want, field);
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
	/* op 1 (the pool) made to read op 2's output: read before written */
	b = copy(); put32(b, o + sizeof(struct rkb_op) + offsetof(struct rkb_op, in), 3);
	expect_status(b, true, RKB_E_OP, "op[1]");
	b = copy(); put32(b, io + offsetof(struct rkb_io, dims), 2);
	expect_status(b, true, RKB_E_IO, "output[0]");
	b = copy(); put32(b, pl + offsetof(struct rkb_plan, tasks), 7);
	expect_status(b, true, RKB_E_PLAN, "plan.tasks");
	b = copy(); b[section(b, RKB_SEC_STRINGS) + 8] = 'x';
	fix_crc(b, good_size);
	{
		/* a name changed, still terminated: accepted */
		char err[256];

		assert_int_equal(load(b, good_size, err, sizeof(err)), RKB_OK);
	}
	free(b);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_header_fields),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_truncated_and_random),
		cmocka_unit_test(test_create_destroy_cycles),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
