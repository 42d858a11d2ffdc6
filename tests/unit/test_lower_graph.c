/* SPDX-License-Identifier: MIT */
/*
 * Whole graphs from one PC kick per core: a convolution (several CBUF
 * tasks), a max pooling of its output and an element-wise add, lowered into
 * ONE chained program and run with a single kick; then two independent
 * graphs on two cores in one submit. The results must equal those of the
 * same ops kicked one by one (each op is checked against CPU references in
 * test_lower_conv / test_lower_pool / test_lower_eltwise), proving the
 * chaining (HARDWARE.md §2.4, §3.5) and the per-core ranges (§2.5).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "compiler/layout.h"
#include "compiler/lower_conv.h"
#include "compiler/lower_eltwise.h"
#include "compiler/lower_pool.h"

#include "npu_fixture.h"

#define MAX_TASKS	64u
/* Input 72 × 72 × 64 int8 = 10.1 CBUF banks, weights 2 banks: row-split. */
#define S		72u

/* Two cores for the two-graph submit; conv_on_three_cores powers the third. */
static int setup(void **state)
{
	(void)state;
	fx_attach(0x3);
	return 0;
}

/* One graph: conv (in → c) , maxpool (c → p), add (p + q → out). */
struct graph {
	float w_scale;
	struct lower_conv_op conv;
	struct lower_pool_op pool;
	struct lower_add_op add;
	uint8_t *c, *p, *out;
	size_t c_bytes, p_bytes, out_bytes;
};

static void graph_init(struct graph *g, uint32_t seed)
{
	struct lower_conv_shape cs;
	struct lower_pool_shape ps;
	uint8_t *in, *w, *in_n, *w_n, *q_n;
	int32_t *bias, *bias_n;
	size_t n_in, n_w;

	memset(g, 0, sizeof(*g));
	srand(seed);
	g->w_scale = 0.01f;
	g->conv = (struct lower_conv_op){
		.in_h = S, .in_w = S, .in_c = 64, .out_c = 96, .kh = 3, .kw = 3,
		.stride_y = 1, .stride_x = 1, .same_padding = true, .in_scale = 0.05f,
		.in_zp = 2, .w_scale = &g->w_scale, .w_scale_count = 1, .out_scale = 0.6f,
		.out_zp = -3, .act = LOWER_ACT_RELU,
	};
	assert_int_equal(lower_conv_check(&g->conv, &cs), 0);
	n_in = (size_t)S * S * 64;
	n_w = (size_t)96 * 9 * 64;
	in = malloc(n_in);
	w = malloc(n_w);
	bias = malloc(96 * sizeof(*bias));
	for (size_t i = 0; i < n_in; i++)
		in[i] = (uint8_t)rand();
	for (size_t i = 0; i < n_w; i++)
		w[i] = (uint8_t)rand();
	for (int i = 0; i < 96; i++)
		bias[i] = rand() % 20000 - 10000;
	in_n = fx_dma_alloc(cs.in_bytes);
	w_n = fx_dma_alloc(cs.weight_bytes);
	bias_n = fx_dma_alloc(cs.bias_bytes);
	g->c_bytes = cs.out_bytes;
	g->c = fx_dma_alloc(cs.out_bytes);
	layout_nhwc_to_nc1hwc2(NPU_PREC_INT8, in, in_n, S, S, 64, cs.in_c_aligned);
	assert_int_equal(lower_conv_pack(&g->conv, &cs, w, bias, w_n, bias_n, NULL), 0);
	g->conv.in_addr = fx_phys(in_n);
	g->conv.weight_addr = fx_phys(w_n);
	g->conv.bias_addr = fx_phys(bias_n);
	g->conv.out_addr = fx_phys(g->c);

	g->pool = (struct lower_pool_op){
		.prec = NPU_PREC_INT8, .method = LOWER_POOL_MAX, .in_h = S, .in_w = S, .c = 96,
		.kh = 2, .kw = 2, .stride_y = 2, .stride_x = 2, .in_addr = fx_phys(g->c),
	};
	assert_int_equal(lower_pool_check(&g->pool, &ps), 0);
	g->p_bytes = ps.out_bytes;
	g->p = fx_dma_alloc(ps.out_bytes);
	g->pool.out_addr = fx_phys(g->p);

	q_n = fx_dma_alloc(ps.out_bytes);
	for (size_t i = 0; i < ps.out_bytes; i++)
		q_n[i] = (uint8_t)rand();
	g->add = (struct lower_add_op){
		.h = S / 2, .w = S / 2, .c = 96, .a_scale = 0.6f, .b_scale = 0.3f, .out_scale = 0.8f,
		.a_zp = -3, .b_zp = 1, .out_zp = 0, .act = LOWER_ACT_RELU6,
		.a_addr = fx_phys(g->p), .b_addr = fx_phys(q_n),
	};
	g->out_bytes = ps.out_bytes;
	g->out = fx_dma_alloc(ps.out_bytes);
	g->add.out_addr = fx_phys(g->out);
	free(in);
	free(w);
	free(bias);
}

/* Lower the three ops of g into p (appending). */
static void graph_lower(struct rc_program *p, const struct graph *g)
{
	assert_int_equal(lower_conv(p, &g->conv), 0);
	assert_int_equal(lower_pool(p, &g->pool), 0);
	assert_int_equal(lower_add(p, &g->add), 0);
}

static void submit(struct npu_task *tasks, uint32_t count, uint32_t core_mask,
		   const struct npu_subcore_task *ranges, unsigned int kicks_expected)
{
	struct npu_submit sub;

	fx_submit_init(&sub, tasks, count);
	sub.core_mask = core_mask;
	memcpy(sub.subcore_task, ranges, sizeof(sub.subcore_task));
	fx_submit(&sub, "graph");
	for (unsigned int c = 0; c < NPU_CORE_COUNT; c++)
		if (core_mask & (1u << c))
			assert_int_equal(sub.core[c].kicks, kicks_expected);
	assert_int_equal(sub.task_counter, count);
}

/* Link the whole of f and run it on core 0: one kick. */
static void run_chain(struct fx_program *f)
{
	struct npu_subcore_task r[NPU_SUBCORE_SLOTS] = { { 0, 0 } };

	fx_program_link(f, f->p.task_count);
	r[0].task_number = (uint32_t)f->p.task_count;
	submit(f->tasks, (uint32_t)f->p.task_count, 0x1, r, 1);
}

/* Run each op as its own program and kick; returns the final output copy. */
static uint8_t *run_op_by_op(const struct graph *g)
{
	uint8_t *copy = malloc(g->out_bytes);

	for (int op = 0; op < 3; op++) {
		struct fx_program f;

		fx_program_init(&f, MAX_TASKS, CONV_TASK_MAX_ENTRIES);
		if (op == 0)
			assert_int_equal(lower_conv(&f.p, &g->conv), 0);
		else if (op == 1)
			assert_int_equal(lower_pool(&f.p, &g->pool), 0);
		else
			assert_int_equal(lower_add(&f.p, &g->add), 0);
		run_chain(&f);
		fx_program_free(&f);
	}
	memcpy(copy, g->out, g->out_bytes);
	return copy;
}

static void graph_one_kick(void **state)
{
	struct graph g;
	struct fx_program f;
	uint8_t *want;

	(void)state;
	graph_init(&g, 11);
	want = run_op_by_op(&g);
	memset(g.c, 0, g.c_bytes);
	memset(g.p, 0, g.p_bytes);
	memset(g.out, 0, g.out_bytes);

	fx_program_init(&f, MAX_TASKS, CONV_TASK_MAX_ENTRIES);
	graph_lower(&f.p, &g);
	assert_true(f.p.task_count >= 4);	/* conv tiles + pool + add */
	run_chain(&f);				/* one kick */
	assert_memory_equal(g.out, want, g.out_bytes);
	fx_program_free(&f);
	free(want);
}

/* Two graphs, one chain per core, one submit: core c runs slot c. */
static void graphs_on_two_cores(void **state)
{
	struct graph g[2];
	struct fx_program f;
	struct rc_program *p = &f.p;
	struct npu_subcore_task r[NPU_SUBCORE_SLOTS] = { { 0, 0 } };
	size_t first_count;
	uint8_t *want[2];

	(void)state;
	for (int i = 0; i < 2; i++) {
		graph_init(&g[i], 20 + (uint32_t)i);
		want[i] = run_op_by_op(&g[i]);
		memset(g[i].out, 0, g[i].out_bytes);
	}
	fx_program_init(&f, MAX_TASKS, CONV_TASK_MAX_ENTRIES);
	graph_lower(p, &g[0]);
	first_count = p->task_count;
	graph_lower(p, &g[1]);
	assert_int_equal(rc_program_link_range(p, fx_phys(f.q), 0, first_count), 0);
	assert_int_equal(rc_program_link_range(p, fx_phys(f.q), first_count,
					       p->task_count - first_count), 0);
	assert_int_equal(rc_program_tasks(p, fx_phys(f.q), 0, first_count, f.tasks), 0);
	assert_int_equal(rc_program_tasks(p, fx_phys(f.q), first_count, p->task_count - first_count,
					  f.tasks + first_count), 0);
	r[0] = (struct npu_subcore_task){ 0, (uint32_t)first_count };
	r[1] = (struct npu_subcore_task){ (uint32_t)first_count,
					  (uint32_t)(p->task_count - first_count) };
	submit(f.tasks, (uint32_t)p->task_count, 0x3, r, 1);
	for (int i = 0; i < 2; i++) {
		assert_memory_equal(g[i].out, want[i], g[i].out_bytes);
		free(want[i]);
	}
	fx_program_free(&f);
}

/* One convolution cut into per-core ranges (rc_program_split) and run on
 * several cores at once (BSP slots: with 2 cores core c takes slot c, with
 * 3 slot c + 2) equals the single-core run. */
static void conv_on_three_cores(void **state)
{
	struct graph g;
	struct fx_program f;
	struct rc_program *p = &f.p;
	struct npu_subcore_task r[NPU_SUBCORE_SLOTS] = { { 0, 0 } }, parts[NPU_CORE_COUNT];
	uint8_t *want;
	int n;

	(void)state;
	assert_int_equal(npu_power_on(&fx_dev, 0x7), NPU_OK);
	graph_init(&g, 31);
	fx_program_init(&f, MAX_TASKS, CONV_TASK_MAX_ENTRIES);
	assert_int_equal(lower_conv(p, &g.conv), 0);
	run_chain(&f);
	want = malloc(g.c_bytes);
	memcpy(want, g.c, g.c_bytes);
	memset(g.c, 0, g.c_bytes);

	n = rc_program_split(p, 0, p->task_count, NPU_CORE_COUNT, parts);
	assert_true(n >= 2);	/* the 72-row input gives two row bands */
	for (int c = 0; c < n; c++) {
		assert_int_equal(rc_program_link_range(p, fx_phys(f.q), parts[c].task_start,
						       parts[c].task_number), 0);
		assert_int_equal(rc_program_tasks(p, fx_phys(f.q), parts[c].task_start,
						  parts[c].task_number, f.tasks + parts[c].task_start), 0);
		r[n == 3 ? c + 2 : c] = parts[c];
	}
	submit(f.tasks, (uint32_t)p->task_count, (1u << n) - 1u, r, 1);
	assert_memory_equal(g.c, want, g.c_bytes);
	fx_program_free(&f);
	free(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(graph_one_kick, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(graphs_on_two_cores, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(conv_on_three_cores, setup, fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
