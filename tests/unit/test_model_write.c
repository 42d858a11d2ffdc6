// SPDX-License-Identifier: MIT
/*
 * The container writer (tools/onnx/model_write.c) dispatches through the
 * op-kind table (runtime/op_kinds.h), on a graph built here by hand:
 *   - a max pool, an add and a CPU Sigmoid become records of types 3, 2 and
 *     4 (docs/FORMAT.md) that the verifying loader accepts, with the fields
 *     each type uses: the pool's window and method, the add's second input,
 *     the CPU op's type name; and plan.tasks 2, one task for the pool and
 *     one for the add, none for the CPU op (docs/FORMAT.md);
 *   - an op whose kind is no container type (0, what a zeroed op holds, or
 *     past the last) is refused naming the node and the kind, and nothing
 *     is returned; never written as some other type;
 *   - a conv whose output only an add reads becomes one conv record with the
 *     add's other input as its residual (in[1]), the add's output and
 *     activation (docs/FORMAT.md 2.4), one task, which the loader accepts;
 *     not with no_fusion, not when the conv's output is also a graph output
 *     or read again, not with per-channel weight scales;
 *   - three int8 tables in a row on the DPU's lookup table become records
 *     5, 4, 5: the second the CPU's Lut, as a table task must not follow
 *     another (docs/HARDWARE.md §4.4); all three CPU ops with no_fusion; and
 *     the loader refuses the container edited to have two in a row, or a
 *     table of another size than 256;
 *   - an fp16 map whose convolution writes fewer lanes than the map's
 *     32-channel groups (42 channels: 48 lanes of 64) shares its arena
 *     bytes with no other tensor, so the lanes a later convolution reads
 *     past the kernels stay zero.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "runtime/cpu_ops.h"
#include "runtime/model.h"
#include "test_blob_util.h"
#include "tools/onnx/model_write.h"

/* g written and loaded by the verifying loader (either failing the test):
 * the container's size; *blob is the caller's to free. */
static size_t write_load(const struct imp_graph *g, struct rkb_model *m, void **blob)
{
	char err[256] = "";
	size_t size = 0;

	if (model_write(g, NULL, blob, &size, err, sizeof(err)))
		fail_msg("model_write: %s", err);
	if (rkb_model_load(*blob, size, m, err, sizeof(err)))
		fail_msg("rkb_model_load: %s", err);
	return size;
}

enum { T_X, T_P, T_A, T_S, N_TENSORS };
enum { N_OPS = 3 };

/* x 16x4x4 → max pool 2x2 / 2 → p 16x2x2 → p + p → a; p → Sigmoid → s. */
static void graph(struct imp_graph *g, struct imp_tensor *t, struct imp_op *op,
		  struct imp_io *in, struct imp_io *out)
{
	const float scale = 0.05f, sig_scale = 1.0f / 256.0f;
	const int32_t sig_zp = -128;

	t[T_X] = (struct imp_tensor){ .name = "x", .c = 16, .h = 4, .w = 4, .scale = scale };
	t[T_P] = (struct imp_tensor){ .name = "p", .c = 16, .h = 2, .w = 2, .scale = scale };
	t[T_A] = (struct imp_tensor){ .name = "a", .c = 16, .h = 2, .w = 2, .scale = 2 * scale };
	t[T_S] = (struct imp_tensor){ .name = "s", .c = 16, .h = 2, .w = 2, .scale = sig_scale,
				      .zp = sig_zp };
	op[0] = (struct imp_op){ .kind = IMP_POOL, .node = "pool1", .in = { T_X, -1 },
				 .out = T_P, .kh = 2, .kw = 2, .stride_y = 2, .stride_x = 2,
				 .pool = LOWER_POOL_MAX };
	op[1] = (struct imp_op){ .kind = IMP_ADD, .node = "add1", .in = { T_P, T_P },
				 .out = T_A };
	op[2] = (struct imp_op){ .kind = IMP_CPU, .node = "sig1", .in = { T_P, -1 }, .out = T_S,
				 .cpu_type = "Sigmoid" };
	*in = (struct imp_io){ .tensor = T_X, .name = "x", .kind = IMP_IO_FLOAT, .rank = 4,
			       .dims = { 1, 16, 4, 4 } };
	out[0] = (struct imp_io){ .tensor = T_A, .name = "a", .kind = IMP_IO_FLOAT, .rank = 4,
				  .dims = { 1, 16, 2, 2 } };
	out[1] = (struct imp_io){ .tensor = T_S, .name = "s", .kind = IMP_IO_FLOAT, .rank = 4,
				  .dims = { 1, 16, 2, 2 } };
	*g = (struct imp_graph){ .n_tensors = N_TENSORS, .n_ops = N_OPS, .n_inputs = 1,
				 .n_outputs = 2, .tensors = t, .ops = op, .inputs = in,
				 .outputs = out };
}

static void test_types_written(void **state)
{
	struct imp_tensor t[N_TENSORS];
	struct imp_op op[N_OPS];
	struct imp_io in, out[2];
	struct imp_graph g;
	struct rkb_model m;
	void *blob = NULL;

	(void)state;
	graph(&g, t, op, &in, out);
	write_load(&g, &m, &blob);
	assert_int_equal(m.n_ops, N_OPS);
	assert_int_equal(m.ops[0].type, 3);	/* pool */
	assert_int_equal(m.ops[0].pool, 1);	/* max */
	assert_int_equal(m.ops[0].kh, 2);
	assert_int_equal(m.ops[0].stride_x, 2);
	assert_int_equal(m.ops[0].in[1], RKB_NONE);
	assert_int_equal(m.ops[1].type, 2);	/* add */
	assert_int_equal(m.ops[1].in[0], T_P);
	assert_int_equal(m.ops[1].in[1], T_P);
	assert_int_equal(m.ops[2].type, 4);	/* CPU */
	assert_string_equal(m.strings + m.ops[2].cpu_type, "Sigmoid");
	assert_int_equal(m.ops[2].kh, 0);
	assert_int_equal(m.plan.tasks, 2);
	rkb_model_unload(&m);
	free(blob);
}

static void test_unknown_kind(void **state)
{
	/* 0: a zeroed op; the type after the last and 99: past the table */
	static const int bad[] = { 0, RKB_OP_CONVERT + 1, 99 };

	(void)state;
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		struct imp_tensor t[N_TENSORS];
		struct imp_op op[N_OPS];
		struct imp_io in, out[2];
		struct imp_graph g;
		char err[256] = "", want[64];
		void *blob = (void *)&g;
		size_t size = 1;

		graph(&g, t, op, &in, out);
		op[1].kind = (enum imp_op_kind)bad[k];
		assert_int_equal(model_write(&g, NULL, &blob, &size, err, sizeof(err)), -ENOTSUP);
		snprintf(want, sizeof(want), "node 'add1': op kind %d", bad[k]);
		if (!strstr(err, want))
			fail_msg("kind %d: \"%s\", want it to name '%s'", bad[k], err, want);
		assert_null(blob);
		assert_int_equal(size, 0);
	}
}

/* x 16x4x4 → 1x1 conv → c; c + x → a (ReLU). */
enum { F_X, F_C, F_A, F_TENSORS };
#define F_C_N	16

struct fuse_graph {
	struct imp_tensor t[F_TENSORS];
	struct imp_op op[2];
	struct imp_io in, out[2];
	int8_t w[F_C_N * F_C_N];
	float w_scale[F_C_N];
	int32_t bias[F_C_N];
	struct imp_graph g;
};

static void fuse_graph(struct fuse_graph *f)
{
	memset(f, 0, sizeof(*f));
	for (int i = 0; i < F_C_N * F_C_N; i++)
		f->w[i] = (int8_t)(i % 7 - 3);
	for (int i = 0; i < F_C_N; i++)
		f->w_scale[i] = 0.01f;
	f->t[F_X] = (struct imp_tensor){ .name = "x", .c = F_C_N, .h = 4, .w = 4, .scale = 0.05f };
	f->t[F_C] = (struct imp_tensor){ .name = "c", .c = F_C_N, .h = 4, .w = 4, .scale = 0.04f,
					 .zp = 3 };
	f->t[F_A] = (struct imp_tensor){ .name = "a", .c = F_C_N, .h = 4, .w = 4, .scale = 0.1f,
					 .zp = -9 };
	f->op[0] = (struct imp_op){ .kind = IMP_CONV, .node = "conv1", .in = { F_X, -1 },
				    .out = F_C, .kh = 1, .kw = 1, .stride_y = 1, .stride_x = 1,
				    .weights = f->w, .w_scale = f->w_scale, .w_scale_count = 1,
				    .bias = f->bias };
	f->op[1] = (struct imp_op){ .kind = IMP_ADD, .node = "add1", .in = { F_C, F_X },
				    .out = F_A, .act = LOWER_ACT_RELU };
	f->in = (struct imp_io){ .tensor = F_X, .name = "x", .kind = IMP_IO_FLOAT, .rank = 4,
				 .dims = { 1, F_C_N, 4, 4 } };
	f->out[0] = (struct imp_io){ .tensor = F_A, .name = "a", .kind = IMP_IO_FLOAT, .rank = 4,
				     .dims = { 1, F_C_N, 4, 4 } };
	f->out[1] = f->out[0];
	f->out[1].tensor = F_C;
	f->out[1].name = "c";
	f->g = (struct imp_graph){ .n_tensors = F_TENSORS, .n_ops = 2, .n_inputs = 1,
				   .n_outputs = 1, .tensors = f->t, .ops = f->op,
				   .inputs = &f->in, .outputs = f->out };
}

/* Ops of the written container, loaded by the verifying loader. */
static uint32_t written_ops(struct fuse_graph *f, struct rkb_model *m, void **blob)
{
	write_load(&f->g, m, blob);
	return m->n_ops;
}

static void test_fuse_residual(void **state)
{
	struct fuse_graph f;
	struct rkb_model m;
	void *blob = NULL;

	(void)state;
	fuse_graph(&f);
	assert_int_equal(written_ops(&f, &m, &blob), 1);
	assert_int_equal(m.ops[0].type, RKB_OP_CONV);
	assert_int_equal(m.ops[0].in[0], F_X);
	assert_int_equal(m.ops[0].in[1], F_X);
	assert_int_equal(m.ops[0].out, F_A);
	assert_int_equal(m.ops[0].act, RKB_ACT_RELU);
	assert_int_equal(m.plan.tasks, 1);
	rkb_model_unload(&m);
	free(blob);

	/* kept apart: asked to, the conv's output also a graph output, read
	 * twice (c + c), per-channel weight scales */
	for (int k = 0; k < 4; k++) {
		fuse_graph(&f);
		if (k == 0)
			f.g.no_fusion = true;
		else if (k == 1)
			f.g.n_outputs = 2;
		else if (k == 2)
			f.op[1].in[1] = F_C;
		else {
			f.op[0].w_scale_count = F_C_N;
			f.w_scale[5] = 0.02f;
		}
		if (written_ops(&f, &m, &blob) != 2)
			fail_msg("case %d: fused", k);
		assert_int_equal(m.ops[0].type, RKB_OP_CONV);
		assert_int_equal(m.ops[0].in[1], RKB_NONE);
		assert_int_equal(m.ops[1].type, RKB_OP_ADD);
		rkb_model_unload(&m);
		free(blob);
	}
}

/*
 * fp16: x 20x4x4 → 1x1 conv → p 42x4x4 → 1x1 conv → q 64x4x4 → 1x1 conv →
 * y 64x4x4. An fp16 conv writes kernel groups of 16 (HARDWARE.md §5.4): p's
 * kernels write 48 lanes, while the map holds whole 32-channel groups, 64
 * lanes, all of which q's conv reads (times zero weights past 42). Lanes 48
 * to 63 are then only zero if p's bytes are its own: any tensor sharing
 * them (before or after it, in this run or the last) leaves its bytes
 * there, and an int8 map's bytes can be an fp16 NaN, which a zero weight
 * does not cancel.
 */
enum { H_X, H_P, H_Q, H_Y, H_TENSORS };

static void test_fp16_partial_groups(void **state)
{
	static const unsigned int ch[H_TENSORS] = { 20, 42, 64, 64 };
	static const char *const names[H_TENSORS] = { "x", "p", "q", "y" };
	uint16_t w[64 * 64];
	struct imp_tensor t[H_TENSORS];
	struct imp_op op[3];
	struct imp_io in, out;
	struct imp_graph g;
	struct rkb_model m;
	void *blob = NULL;
	uint32_t lo, hi;

	(void)state;
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		w[i] = 0x2c00;	/* fp16 1/16 */
	for (int i = 0; i < H_TENSORS; i++)
		t[i] = (struct imp_tensor){ .name = names[i], .c = ch[i], .h = 4, .w = 4,
					    .scale = 1.0f, .fp16 = true };
	for (int i = 0; i < 3; i++)
		op[i] = (struct imp_op){ .kind = IMP_CONV, .node = names[i + 1],
					 .in = { i, -1 }, .out = i + 1, .kh = 1, .kw = 1,
					 .stride_y = 1, .stride_x = 1, .weights_f16 = w };
	in = (struct imp_io){ .tensor = H_X, .name = "x", .kind = IMP_IO_FLOAT, .rank = 4,
			      .dims = { 1, 20, 4, 4 } };
	out = (struct imp_io){ .tensor = H_Y, .name = "y", .kind = IMP_IO_FLOAT, .rank = 4,
			       .dims = { 1, 64, 4, 4 } };
	g = (struct imp_graph){ .n_tensors = H_TENSORS, .n_ops = 3, .n_inputs = 1,
				.n_outputs = 1, .tensors = t, .ops = op, .inputs = &in,
				.outputs = &out };
	write_load(&g, &m, &blob);
	assert_int_equal(m.tensors[H_P].c_mem, 64);
	lo = m.tensors[H_P].arena_offset;
	hi = lo + m.tensors[H_P].arena_bytes;
	for (int i = 0; i < H_TENSORS; i++)
		if (i != H_P && m.tensors[i].arena_offset < hi &&
		    lo < m.tensors[i].arena_offset + m.tensors[i].arena_bytes)
			fail_msg("p's bytes [%u, %u) are shared with %s's [%u, +%u)", lo, hi,
				 names[i], m.tensors[i].arena_offset, m.tensors[i].arena_bytes);
	rkb_model_unload(&m);
	free(blob);
}

/* x 16x2x2 → three int8 tables in a row → y3. */
enum { L_OPS = 3 };

static void test_int8_tables(void **state)
{
	static int8_t table[L_OPS][RKB_CPU_LUT_ENTRIES];
	struct imp_tensor t[L_OPS + 1];
	struct imp_op op[L_OPS];
	struct imp_io in, out;
	struct imp_graph g;
	struct rkb_model m;
	struct rkb_op rec;
	char err[256] = "";
	void *blob = NULL;
	size_t size = 0, ops;

	(void)state;
	for (unsigned int k = 0; k <= L_OPS; k++)
		t[k] = (struct imp_tensor){ .name = k ? "y" : "x", .c = 16, .h = 2, .w = 2,
					    .scale = 0.05f };
	for (unsigned int k = 0; k < L_OPS; k++) {
		for (unsigned int i = 0; i < RKB_CPU_LUT_ENTRIES; i++)
			table[k][i] = (int8_t)(255 - i - 128);
		op[k] = (struct imp_op){ .kind = IMP_LUT, .node = "table", .in = { (int)k, -1 },
					 .out = (int)k + 1, .cpu_type = "Lut",
					 .cpu_params = table[k],
					 .cpu_params_bytes = RKB_CPU_LUT_ENTRIES };
	}
	t[1].name = "y1";
	t[2].name = "y2";
	in = (struct imp_io){ .tensor = 0, .name = "x", .kind = IMP_IO_FLOAT, .rank = 4,
			      .dims = { 1, 16, 2, 2 } };
	out = (struct imp_io){ .tensor = L_OPS, .name = "y", .kind = IMP_IO_FLOAT, .rank = 4,
			       .dims = { 1, 16, 2, 2 } };
	g = (struct imp_graph){ .n_tensors = L_OPS + 1, .n_ops = L_OPS, .n_inputs = 1,
				.n_outputs = 1, .tensors = t, .ops = op, .inputs = &in,
				.outputs = &out };
	size = write_load(&g, &m, &blob);
	assert_int_equal(m.ops[0].type, RKB_OP_LUT);
	assert_int_equal(m.ops[1].type, RKB_OP_CPU);
	assert_string_equal(m.strings + m.ops[1].cpu_type, "Lut");
	assert_int_equal(m.ops[2].type, RKB_OP_LUT);
	assert_int_equal(m.plan.tasks, 2);
	rkb_model_unload(&m);

	/* op 1 edited back into a table task: two in a row */
	ops = section(blob, RKB_SEC_OPS);
	memcpy(&rec, (uint8_t *)blob + ops + sizeof(rec), sizeof(rec));
	rec.type = RKB_OP_LUT;
	rec.cpu_type = 0;
	memcpy((uint8_t *)blob + ops + sizeof(rec), &rec, sizeof(rec));
	fix_crc(blob, size);
	assert_int_not_equal(rkb_model_load(blob, size, &m, err, sizeof(err)), RKB_OK);
	if (!strstr(err, "op[1]") || !strstr(err, "right after op[0]"))
		fail_msg("two tables in a row: \"%s\"", err);
	/* a table of 255 entries */
	memcpy(&rec, (uint8_t *)blob + ops, sizeof(rec));
	rec.weights.bytes = RKB_CPU_LUT_ENTRIES - 1u;
	memcpy((uint8_t *)blob + ops, &rec, sizeof(rec));
	fix_crc(blob, size);
	assert_int_not_equal(rkb_model_load(blob, size, &m, err, sizeof(err)), RKB_OK);
	if (!strstr(err, "op[0]") || !strstr(err, "weights (table)"))
		fail_msg("a 255-entry table: \"%s\"", err);
	free(blob);

	g.no_fusion = true;
	write_load(&g, &m, &blob);
	for (unsigned int k = 0; k < L_OPS; k++)
		assert_int_equal(m.ops[k].type, RKB_OP_CPU);
	assert_int_equal(m.plan.tasks, 0);
	rkb_model_unload(&m);
	free(blob);
}

/*
 * x int8 28x4x4 → convert → f fp16 → convert → y int8 → convert → z fp16:
 * NPU convert records (one task each) where the DPU takes the scales; f,
 * whose 28 channels the task writes of 32 in memory, keeps its bytes to
 * itself (z, written after f's last read, may not take them); a scale
 * whose inverse is past fp16 (1e-6) leaves the CPU's Cast; so does
 * --no-fusion; a record between two int8 maps is refused naming the op.
 */
enum { C_X, C_F, C_Y, C_Z, C_TENSORS, C_CH = 28 };

static void test_converts(void **state)
{
	static const char *const names[C_TENSORS] = { "x", "f", "y", "z" };
	struct imp_tensor t[C_TENSORS];
	struct imp_op op[C_TENSORS - 1];
	struct imp_io in, out;
	struct imp_graph g;
	struct rkb_model m;
	struct rkb_tensor rec;
	char err[256] = "";
	void *blob = NULL;
	size_t size, tensors;
	uint32_t lo, hi;

	(void)state;
	for (int i = 0; i < C_TENSORS; i++) {
		bool fp16 = i == C_F || i == C_Z;

		t[i] = (struct imp_tensor){ .name = names[i], .c = C_CH, .h = 4, .w = 4,
					    .scale = fp16 ? 1.0f : i == C_X ? 0.05f : 0.1f,
					    .zp = fp16 ? 0 : i == C_X ? 3 : -5, .fp16 = fp16 };
	}
	for (int i = 0; i < C_TENSORS - 1; i++)
		op[i] = (struct imp_op){ .kind = IMP_CONVERT, .node = names[i + 1],
					 .in = { i, -1 }, .out = i + 1, .cpu_type = "Cast" };
	in = (struct imp_io){ .tensor = C_X, .name = "x", .kind = IMP_IO_FLOAT, .rank = 4,
			      .dims = { 1, C_CH, 4, 4 } };
	out = (struct imp_io){ .tensor = C_Z, .name = "z", .kind = IMP_IO_FLOAT, .rank = 4,
			       .dims = { 1, C_CH, 4, 4 } };
	g = (struct imp_graph){ .n_tensors = C_TENSORS, .n_ops = C_TENSORS - 1, .n_inputs = 1,
				.n_outputs = 1, .tensors = t, .ops = op, .inputs = &in,
				.outputs = &out };
	size = write_load(&g, &m, &blob);
	for (int i = 0; i < C_TENSORS - 1; i++)
		assert_int_equal(m.ops[i].type, RKB_OP_CONVERT);
	assert_int_equal(m.plan.tasks, C_TENSORS - 1);
	assert_int_equal(m.tensors[C_F].c_mem, 32);
	lo = m.tensors[C_F].arena_offset;
	hi = lo + m.tensors[C_F].arena_bytes;
	for (int i = 0; i < C_TENSORS; i++)
		if (i != C_F && m.tensors[i].arena_offset < hi &&
		    lo < m.tensors[i].arena_offset + m.tensors[i].arena_bytes)
			fail_msg("f's bytes [%u, %u) are shared with %s's", lo, hi, names[i]);
	rkb_model_unload(&m);
	/* f edited into an int8 map: a convert between two int8 ones */
	tensors = section(blob, RKB_SEC_TENSORS);
	memcpy(&rec, (uint8_t *)blob + tensors + C_F * sizeof(rec), sizeof(rec));
	rec.dtype = RKB_DT_INT8;
	memcpy((uint8_t *)blob + tensors + C_F * sizeof(rec), &rec, sizeof(rec));
	fix_crc(blob, size);
	assert_int_not_equal(rkb_model_load(blob, size, &m, err, sizeof(err)), RKB_OK);
	if (!strstr(err, "op[0]") || !strstr(err, "convert between maps other than"))
		fail_msg("a convert between int8 maps: \"%s\"", err);
	free(blob);

	t[C_Y].scale = 1e-6f;
	write_load(&g, &m, &blob);
	assert_int_equal(m.ops[0].type, RKB_OP_CONVERT);
	assert_int_equal(m.ops[1].type, RKB_OP_CPU);
	assert_string_equal(m.strings + m.ops[1].cpu_type, "Cast");
	rkb_model_unload(&m);
	free(blob);

	t[C_Y].scale = 0.1f;
	g.no_fusion = true;
	write_load(&g, &m, &blob);
	for (int i = 0; i < C_TENSORS - 1; i++)
		assert_int_equal(m.ops[i].type, RKB_OP_CPU);
	assert_int_equal(m.plan.tasks, 0);
	rkb_model_unload(&m);
	free(blob);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_types_written),
		cmocka_unit_test(test_unknown_kind),
		cmocka_unit_test(test_fuse_residual),
		cmocka_unit_test(test_int8_tables),
		cmocka_unit_test(test_fp16_partial_groups),
		cmocka_unit_test(test_converts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
