// SPDX-License-Identifier: MIT
/*
 * Views (docs/FORMAT.md, container 2.4): the parts of a Concat written in
 * place by their producers, on a graph built here by hand: x 16x4x4 → max
 * pool → a, x → avg pool → b, a and b channels 0.. and 16.. of cat
 * (32x2x2), cat → Sigmoid → s.
 *   - the writer places a and b inside cat, one surface (2·2·16 bytes)
 *     apart, writes no op for the Concat, and the loader accepts it;
 *   - each rule of a view broken behind a recomputed CRC (CRC-32 by zlib)
 *     is refused naming the view: an offset off the atom, two views over
 *     one channel, an arena offset that is not the parent's plus the
 *     surfaces before the view, a parent that is a graph output, a view
 *     of itself, reserved not 0, a channel no view holds;
 *   - a part that would overrun the next (a producer writing more than the
 *     part's channels) is refused by the writer naming both tensors.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <cmocka.h>

#include "runtime/model.h"
#include "tools/onnx/model_write.h"

#include "test_blob_util.h"

enum { T_X, T_A, T_B, T_CAT, T_S, N_TENSORS };
enum { N_OPS = 3 };
/* Bytes of one 16-channel int8 surface of a 2x2 map. */
#define SURFACE	(2u * 2u * 16u)

struct fixture {
	struct imp_tensor t[N_TENSORS];
	struct imp_op op[N_OPS];
	struct imp_io in, out;
	struct imp_view views[2];
	struct imp_graph g;
};

static void graph(struct fixture *f)
{
	const float scale = 0.05f;

	f->t[T_X] = (struct imp_tensor){ .name = "x", .c = 16, .h = 4, .w = 4, .scale = scale };
	f->t[T_A] = (struct imp_tensor){ .name = "a", .c = 16, .h = 2, .w = 2, .scale = scale };
	f->t[T_B] = (struct imp_tensor){ .name = "b", .c = 16, .h = 2, .w = 2, .scale = scale };
	f->t[T_CAT] = (struct imp_tensor){ .name = "cat", .c = 32, .h = 2, .w = 2,
					   .scale = scale };
	f->t[T_S] = (struct imp_tensor){ .name = "s", .c = 32, .h = 2, .w = 2,
					 .scale = 1.0f / 256.0f, .zp = -128 };
	f->op[0] = (struct imp_op){ .kind = IMP_POOL, .node = "max", .in = { T_X, -1 },
				    .out = T_A, .kh = 2, .kw = 2, .stride_y = 2, .stride_x = 2,
				    .pool = LOWER_POOL_MAX };
	f->op[1] = f->op[0];
	f->op[1].node = "avg";
	f->op[1].out = T_B;
	f->op[1].pool = LOWER_POOL_AVG;
	f->op[2] = (struct imp_op){ .kind = IMP_CPU, .node = "sig", .in = { T_CAT, -1 },
				    .out = T_S, .cpu_type = "Sigmoid" };
	f->in = (struct imp_io){ .tensor = T_X, .name = "x", .kind = IMP_IO_FLOAT, .rank = 4,
				 .dims = { 1, 16, 4, 4 } };
	f->out = (struct imp_io){ .tensor = T_S, .name = "s", .kind = IMP_IO_FLOAT, .rank = 4,
				  .dims = { 1, 32, 2, 2 } };
	f->views[0] = (struct imp_view){ T_A, T_CAT, 0 };
	f->views[1] = (struct imp_view){ T_B, T_CAT, 16 };
	f->g = (struct imp_graph){ .n_tensors = N_TENSORS, .n_ops = N_OPS, .n_inputs = 1,
				   .n_outputs = 1, .n_views = 2, .tensors = f->t, .ops = f->op,
				   .inputs = &f->in, .outputs = &f->out, .views = f->views };
}

static uint8_t *written(size_t *size)
{
	struct fixture f;
	char err[256] = "";
	void *blob = NULL;

	graph(&f);
	if (model_write(&f.g, NULL, &blob, size, err, sizeof(err)))
		fail_msg("model_write: %s", err);
	return blob;
}

static void test_written_in_place(void **state)
{
	struct rkb_model m;
	char err[256] = "";
	size_t size;
	uint8_t *b = written(&size);

	(void)state;
	if (rkb_model_load(b, size, &m, err, sizeof(err)))
		fail_msg("rkb_model_load: %s", err);
	assert_int_equal(m.n_ops, N_OPS);
	assert_int_equal(m.n_views, 2);
	assert_int_equal(m.tensors[T_A].arena_offset, m.tensors[T_CAT].arena_offset);
	assert_int_equal(m.tensors[T_B].arena_offset, m.tensors[T_CAT].arena_offset + SURFACE);
	assert_int_equal(m.tensors[T_CAT].c_mem, 32);
	rkb_model_unload(&m);
	free(b);
}

/* One view field of the written container changed: refused naming want. */
static void expect_refused(size_t view, size_t field, uint32_t value, const char *want)
{
	struct rkb_model m;
	char err[256] = "";
	size_t size;
	uint8_t *b = written(&size);
	size_t at = section(b, RKB_SEC_VIEWS) + view * sizeof(struct rkb_view) + field;
	int rc;

	memcpy(b + at, &value, sizeof(value));
	fix_crc(b, size);
	rc = rkb_model_load(b, size, &m, err, sizeof(err));
	if (!rc)
		rkb_model_unload(&m);
	if (rc != RKB_E_PLAN || !strstr(err, want))
		fail_msg("view %zu field +%zu = %u: status %d \"%s\", want RKB_E_PLAN naming "
			 "'%s'", view, field, value, rc, err, want);
	free(b);
}

static void test_views_refused(void **state)
{
	(void)state;
	/* off the 16-channel atom */
	expect_refused(1, offsetof(struct rkb_view, c_offset), 8, "view[1] 'b'");
	/* b's arena offset is then not 16 channels in */
	expect_refused(1, offsetof(struct rkb_view, c_offset), 32, "view[1] 'b'");
	/* over a's channels (a's offset stays where it was: first the arena) */
	expect_refused(1, offsetof(struct rkb_view, c_offset), 0, "view[1] 'b'");
	/* the graph output as the parent */
	expect_refused(1, offsetof(struct rkb_view, parent), T_S, "view[1] 'b'");
	/* a view of itself */
	expect_refused(0, offsetof(struct rkb_view, parent), T_A, "view[0]");
	expect_refused(0, offsetof(struct rkb_view, reserved), 1, "view[0]");
	/* a viewed twice: b's channels in no view */
	expect_refused(1, offsetof(struct rkb_view, tensor), T_A, "view[1]");
}

static void test_overrun_refused(void **state)
{
	struct fixture f;
	char err[256] = "";
	void *blob = NULL;
	size_t size = 0;

	(void)state;
	graph(&f);
	/* 24-channel parts: a's pool writes 32, over b's first 8 */
	f.t[T_X].c = f.t[T_A].c = f.t[T_B].c = 24;
	f.t[T_CAT].c = f.t[T_S].c = 48;
	f.in.dims[1] = 24;
	f.out.dims[1] = 48;
	f.views[1].c_offset = 24;
	assert_int_equal(model_write(&f.g, NULL, &blob, &size, err, sizeof(err)), -EINVAL);
	if (!strstr(err, "'b'") || !strstr(err, "'cat'"))
		fail_msg("\"%s\", want it to name 'b' and 'cat'", err);
	assert_null(blob);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_written_in_place),
		cmocka_unit_test(test_views_refused),
		cmocka_unit_test(test_overrun_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
