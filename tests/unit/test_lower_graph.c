/* SPDX-License-Identifier: MIT */
/*
 * Whole graphs from one PC kick per core: a convolution (several CBUF
 * tasks), a max pooling of its output and an element-wise add, lowered into
 * ONE chained program and run with a single kick; then two independent
 * graphs on two cores in one submit. The results must equal those of the
 * same ops kicked one by one (each op is checked against CPU references in
 * test_lower_conv / test_lower_pool / test_lower_eltwise), proving the
 * chaining (facts §2.4, §3.5) and the per-core ranges (§2.5).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hal.h"
#include "drivers/npu/npu.h"
#include "runtime/layout.h"
#include "runtime/lower_conv.h"
#include "runtime/lower_eltwise.h"
#include "runtime/lower_pool.h"
#include "runtime/regcmd.h"
#include "sim/sim.h"
#include "sim/sim_host.h"

#define MAX_TASKS	64u
/* Input 72 × 72 × 64 int8 = 10.1 CBUF banks, weights 2 banks: row-split. */
#define S		72u

static struct sim_soc *soc;
static struct npu_dev dev;
static uint8_t *dma_base;
static size_t dma_size, dma_used;

static void *dma_alloc(size_t size)
{
	size_t at = layout_align(dma_used, 4096);

	if (at + size > dma_size)
		fail_msg("test DMA region exhausted");
	dma_used = at + size;
	memset(dma_base + at, 0, size);
	return dma_base + at;
}

static uint32_t phys(const void *p)
{
	return (uint32_t)hal_virt_to_phys(p);
}

static int setup(void **state)
{
	struct sim_config cfg = { .powered_at_reset = false };
	void *base;

	(void)state;
	soc = sim_host_attach(&cfg);
	assert_non_null(soc);
	assert_int_equal(hal_dma_region(&base, &dma_size), 0);
	dma_base = base;
	dma_used = 0;
	assert_int_equal(npu_init(&dev, &rk3588_npu_board), NPU_OK);
	assert_int_equal(npu_power_on(&dev, 0x3), NPU_OK);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sim_host_detach(soc);
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
	in_n = dma_alloc(cs.in_bytes);
	w_n = dma_alloc(cs.weight_bytes);
	bias_n = dma_alloc(cs.bias_bytes);
	g->c_bytes = cs.out_bytes;
	g->c = dma_alloc(cs.out_bytes);
	layout_nhwc_to_nc1hwc2(NPU_PREC_INT8, in, in_n, S, S, 64, cs.in_c_aligned);
	assert_int_equal(lower_conv_pack(&g->conv, &cs, w, bias, w_n, bias_n, NULL), 0);
	g->conv.in_addr = phys(in_n);
	g->conv.weight_addr = phys(w_n);
	g->conv.bias_addr = phys(bias_n);
	g->conv.out_addr = phys(g->c);

	g->pool = (struct lower_pool_op){
		.prec = NPU_PREC_INT8, .method = LOWER_POOL_MAX, .in_h = S, .in_w = S, .c = 96,
		.kh = 2, .kw = 2, .stride_y = 2, .stride_x = 2, .in_addr = phys(g->c),
	};
	assert_int_equal(lower_pool_check(&g->pool, &ps), 0);
	g->p_bytes = ps.out_bytes;
	g->p = dma_alloc(ps.out_bytes);
	g->pool.out_addr = phys(g->p);

	q_n = dma_alloc(ps.out_bytes);
	for (size_t i = 0; i < ps.out_bytes; i++)
		q_n[i] = (uint8_t)rand();
	g->add = (struct lower_add_op){
		.h = S / 2, .w = S / 2, .c = 96, .a_scale = 0.6f, .b_scale = 0.3f, .out_scale = 0.8f,
		.a_zp = -3, .b_zp = 1, .out_zp = 0, .act = LOWER_ACT_RELU6,
		.a_addr = phys(g->p), .b_addr = phys(q_n),
	};
	g->out_bytes = ps.out_bytes;
	g->out = dma_alloc(ps.out_bytes);
	g->add.out_addr = phys(g->out);
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

	memset(&sub, 0, sizeof(sub));
	sub.flags = NPU_JOB_PC | NPU_JOB_BLOCK | NPU_JOB_PINGPONG;
	sub.core_mask = core_mask;
	sub.tasks = tasks;
	sub.task_count = sub.task_number = count;
	memcpy(sub.subcore_task, ranges, sizeof(sub.subcore_task));
	if (npu_submit(&dev, &sub) != NPU_OK)
		fail_msg("submit failed (%s)", sim_soc_last_error(soc));
	for (unsigned int c = 0; c < NPU_CORE_COUNT; c++)
		if (core_mask & (1u << c))
			assert_int_equal(sub.core[c].kicks, kicks_expected);
	assert_int_equal(sub.task_counter, count);
}

/* Run each op as its own program and kick; returns the final output copy. */
static uint8_t *run_op_by_op(const struct graph *g)
{
	static uint64_t entries[MAX_TASKS * 160];
	struct rc_task rt[MAX_TASKS];
	struct npu_task tasks[MAX_TASKS];
	uint8_t *copy = malloc(g->out_bytes);

	for (int op = 0; op < 3; op++) {
		struct rc_program p;
		uint64_t *q = dma_alloc(sizeof(entries));
		struct npu_subcore_task r[NPU_SUBCORE_SLOTS] = { { 0, 0 } };

		rc_program_init(&p, q, sizeof(entries) / 8, rt, MAX_TASKS);
		if (op == 0)
			assert_int_equal(lower_conv(&p, &g->conv), 0);
		else if (op == 1)
			assert_int_equal(lower_pool(&p, &g->pool), 0);
		else
			assert_int_equal(lower_add(&p, &g->add), 0);
		assert_int_equal(rc_program_link(&p, phys(q)), 0);
		assert_int_equal(rc_program_tasks(&p, phys(q), 0, p.task_count, tasks), 0);
		r[0].task_number = (uint32_t)p.task_count;
		submit(tasks, (uint32_t)p.task_count, 0x1, r, 1);
	}
	memcpy(copy, g->out, g->out_bytes);
	return copy;
}

static void graph_one_kick(void **state)
{
	struct graph g;
	struct rc_task rt[MAX_TASKS];
	struct npu_task tasks[MAX_TASKS];
	struct npu_subcore_task r[NPU_SUBCORE_SLOTS] = { { 0, 0 } };
	struct rc_program p;
	size_t cap = rc_program_size(MAX_TASKS, CONV_TASK_MAX_ENTRIES);
	uint64_t *q;
	uint8_t *want;

	(void)state;
	graph_init(&g, 11);
	want = run_op_by_op(&g);
	memset(g.c, 0, g.c_bytes);
	memset(g.p, 0, g.p_bytes);
	memset(g.out, 0, g.out_bytes);

	q = dma_alloc(cap * 8);
	rc_program_init(&p, q, cap, rt, MAX_TASKS);
	graph_lower(&p, &g);
	assert_true(p.task_count >= 4);		/* conv tiles + pool + add */
	assert_int_equal(rc_program_link(&p, phys(q)), 0);
	assert_int_equal(rc_program_tasks(&p, phys(q), 0, p.task_count, tasks), 0);
	r[0].task_number = (uint32_t)p.task_count;
	submit(tasks, (uint32_t)p.task_count, 0x1, r, 1);	/* one kick */
	assert_memory_equal(g.out, want, g.out_bytes);
	free(want);
}

/* Two graphs, one chain per core, one submit: core c runs slot c. */
static void graphs_on_two_cores(void **state)
{
	struct graph g[2];
	struct rc_task rt[MAX_TASKS];
	struct npu_task tasks[MAX_TASKS];
	struct npu_subcore_task r[NPU_SUBCORE_SLOTS] = { { 0, 0 } };
	struct rc_program p;
	size_t cap = rc_program_size(MAX_TASKS, CONV_TASK_MAX_ENTRIES), first_count;
	uint64_t *q;
	uint8_t *want[2];

	(void)state;
	for (int i = 0; i < 2; i++) {
		graph_init(&g[i], 20 + (uint32_t)i);
		want[i] = run_op_by_op(&g[i]);
		memset(g[i].out, 0, g[i].out_bytes);
	}
	q = dma_alloc(cap * 8);
	rc_program_init(&p, q, cap, rt, MAX_TASKS);
	graph_lower(&p, &g[0]);
	first_count = p.task_count;
	graph_lower(&p, &g[1]);
	assert_int_equal(rc_program_link_range(&p, phys(q), 0, first_count), 0);
	assert_int_equal(rc_program_link_range(&p, phys(q), first_count,
					       p.task_count - first_count), 0);
	assert_int_equal(rc_program_tasks(&p, phys(q), 0, first_count, tasks), 0);
	assert_int_equal(rc_program_tasks(&p, phys(q), first_count, p.task_count - first_count,
					  tasks + first_count), 0);
	r[0] = (struct npu_subcore_task){ 0, (uint32_t)first_count };
	r[1] = (struct npu_subcore_task){ (uint32_t)first_count,
					  (uint32_t)(p.task_count - first_count) };
	submit(tasks, (uint32_t)p.task_count, 0x3, r, 1);
	for (int i = 0; i < 2; i++) {
		assert_memory_equal(g[i].out, want[i], g[i].out_bytes);
		free(want[i]);
	}
}

/* One convolution cut into per-core ranges (rc_program_split) and run on
 * several cores at once (BSP slots: with 2 cores core c takes slot c, with
 * 3 slot c + 2) equals the single-core run. */
static void conv_on_three_cores(void **state)
{
	struct graph g;
	struct rc_task rt[MAX_TASKS];
	struct npu_task tasks[MAX_TASKS];
	struct npu_subcore_task r[NPU_SUBCORE_SLOTS] = { { 0, 0 } }, parts[NPU_CORE_COUNT];
	struct rc_program p;
	size_t cap = rc_program_size(MAX_TASKS, CONV_TASK_MAX_ENTRIES);
	uint64_t *q;
	uint8_t *want;
	int n;

	(void)state;
	assert_int_equal(npu_power_on(&dev, 0x7), NPU_OK);
	graph_init(&g, 31);
	q = dma_alloc(cap * 8);
	rc_program_init(&p, q, cap, rt, MAX_TASKS);
	assert_int_equal(lower_conv(&p, &g.conv), 0);
	assert_int_equal(rc_program_link(&p, phys(q)), 0);
	assert_int_equal(rc_program_tasks(&p, phys(q), 0, p.task_count, tasks), 0);
	r[0].task_number = (uint32_t)p.task_count;
	submit(tasks, (uint32_t)p.task_count, 0x1, r, 1);
	want = malloc(g.c_bytes);
	memcpy(want, g.c, g.c_bytes);
	memset(g.c, 0, g.c_bytes);

	n = rc_program_split(&p, 0, p.task_count, NPU_CORE_COUNT, parts);
	assert_true(n >= 2);	/* the 72-row input gives two row bands */
	memset(r, 0, sizeof(r));
	for (int c = 0; c < n; c++) {
		assert_int_equal(rc_program_link_range(&p, phys(q), parts[c].task_start,
						       parts[c].task_number), 0);
		assert_int_equal(rc_program_tasks(&p, phys(q), parts[c].task_start,
						  parts[c].task_number, tasks + parts[c].task_start), 0);
		r[n == 3 ? c + 2 : c] = parts[c];
	}
	submit(tasks, (uint32_t)p.task_count, (1u << n) - 1u, r, 1);
	assert_memory_equal(g.c, want, g.c_bytes);
	free(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(graph_one_kick, setup, teardown),
		cmocka_unit_test_setup_teardown(graphs_on_two_cores, setup, teardown),
		cmocka_unit_test_setup_teardown(conv_on_three_cores, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
