/* SPDX-License-Identifier: MIT */
/*
 * NPU job path through the model: the PC kick sequence against the BSP
 * sequence as published (HARDWARE.md §2.5), single / chained / batched
 * jobs, three cores at once, and every injectable fault. Every job result is
 * compared with a CPU matmul (test_npu_common.h).
 */
#include "test_npu_common.h"

/* HARDWARE.md §1.1, §2.1 (offsets written out from the published table) */
#define NPU_CORE_BASE(c)	(0xFDAB0000ull + 0x10000ull * (c))
#define PC_OPERATION_ENABLE	0x08u
#define PC_BASE_ADDRESS		0x10u
#define PC_REGISTER_AMOUNTS	0x14u
#define PC_INTERRUPT_MASK	0x20u
#define PC_INTERRUPT_CLEAR	0x24u
#define PC_INTERRUPT_STATUS	0x28u
#define PC_TASK_CON		0x30u
#define PC_TASK_DMA_BASE_ADDR	0x34u
#define CNA_S_POINTER		0x1004u
#define CORE_S_POINTER		0x3004u
/* CRU SOFTRST_CON30: core 0's SRST_A_RKNN0 (bit 6) and SRST_H_RKNN0 (bit 8),
 * written with the upper half as the write mask (HARDWARE.md §7.2). */
#define CRU_SOFTRST_CON30	0xFD7C0A78ull
#define SRST_CORE0_BITS		((1u << 6) | (1u << 8))

#define SHORT_TIMEOUT_MS	20u

static struct npu_dev dev;

static int setup(void **state)
{
	(void)state;
	t_model_create(false);
	t_dma_used = 0;
	assert_int_equal(npu_init(&dev, &rk3588_npu_board), NPU_OK);
	assert_int_equal(npu_power_on(&dev, 0x7), NPU_OK);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	t_model_destroy();
	return 0;
}

/* ---- rknpu_fuzz_status against the rule as stated in HARDWARE.md §2.8 ---- */

static uint32_t fuzz_reference(uint32_t s)
{
	/* Any bit of a pair → both bits; pairs are {0,1} ... {10,11}. */
	uint32_t low = (s | (s >> 1)) & 0x555u;

	return (low | (low << 1)) & 0xFFFu;
}

static void fuzz_status_rule(void **state)
{
	uint32_t s;

	(void)state;
	for (s = 0; s < (1u << 18); s++)
		assert_int_equal(rknpu_fuzz_status(s), fuzz_reference(s));
	assert_int_equal(rknpu_fuzz_status(0x100), 0x300);
	assert_int_equal(rknpu_fuzz_status(0xC0000000u | 0x1F000u), 0);
	assert_int_equal(rknpu_fuzz_status(0xFFFFFFFFu), 0xFFF);
}

/* ---- one task ---- */

static void run_single(unsigned int core, unsigned int m, unsigned int k, unsigned int n)
{
	struct mm t;
	struct npu_task task;
	struct npu_submit s;
	struct npu_buf out;

	mm_init(&t, m, k, n, NULL);
	mm_task_desc(&t, &task);
	out = mm_out_buf(&t);
	t_submit_init(&s, &task, 1, core, 0, 1);
	s.outputs = &out;
	s.output_count = 1;
	assert_int_equal(npu_submit(&dev, &s), NPU_OK);
	assert_int_equal(mm_check(&t), 0);
	assert_int_equal(s.task_counter, 1);
	assert_int_equal(s.core[core].kicks, 1);
	assert_int_equal(rknpu_fuzz_status(task.int_status), NPU_INT_DPU);
	assert_true(s.hw_ticks > 0);
	mm_free(&t, true);
}

static void single_task(void **state)
{
	(void)state;
	run_single(0, 4, 32, 32);
	run_single(0, 8, 64, 64);
	run_single(1, 16, 96, 32);
	run_single(2, 4, 32, 96);
}

/* The kick writes exactly the BSP PC sequence (HARDWARE.md §2.5 steps 1-9),
 * framed by the stale-status clear before and the clear after. */
static void kick_sequence_is_bsp(void **state)
{
	static const unsigned int cores[] = { 0, 2 };

	(void)state;
	for (unsigned int i = 0; i < 2; i++) {
		unsigned int core = cores[i];
		struct mm t;
		struct npu_task task;
		struct npu_submit s;
		uint64_t reads0, writes0;
		const struct t_write *w = t_log;

		mm_init(&t, 4, 32, 32, NULL);
		mm_task_desc(&t, &task);
		t_submit_init(&s, &task, 1, core, 0, 1);
		if (i)
			s.flags &= ~NPU_JOB_PINGPONG;
		t_log_base = NPU_CORE_BASE(core);
		t_log_size = 0x10000;
		t_log_count = 0;
		reads0 = t_mmio.reads;
		writes0 = t_mmio.writes;
		assert_int_equal(npu_submit(&dev, &s), NPU_OK);
		assert_int_equal(mm_check(&t), 0);

		const struct t_write want[] = {
			{ PC_INTERRUPT_CLEAR, 0x1FFFF },
			{ PC_BASE_ADDRESS, 1 },
			{ CNA_S_POINTER, 0xE + 0x10000000u * core },
			{ CORE_S_POINTER, 0xE + 0x10000000u * core },
			{ PC_BASE_ADDRESS, t_phys(t.rc) },
			/* BSP: (regcfg_amount + 4 + 2 - 1) / 2 - 1 */
			{ PC_REGISTER_AMOUNTS, (t.body + 4 + 2 - 1) / 2 - 1 },
			{ PC_INTERRUPT_MASK, 0x300 },
			{ PC_INTERRUPT_CLEAR, 0x300 },
			/* ((0x6 | pp) << 12) | n; ping-pong on the first core only */
			{ PC_TASK_CON, ((0x6u | (i ? 0u : 1u)) << 12) | 1u },
			{ PC_TASK_DMA_BASE_ADDR, 0 },
			{ PC_OPERATION_ENABLE, 1 },
			{ PC_OPERATION_ENABLE, 0 },
			{ PC_INTERRUPT_CLEAR, 0x1FFFF },
		};
		assert_int_equal(t_log_count, sizeof(want) / sizeof(want[0]));
		for (unsigned int j = 0; j < t_log_count; j++) {
			assert_int_equal(w[j].addr, want[j].addr);
			assert_int_equal(w[j].value, want[j].value);
		}
		print_message("core %u: one-task job: %llu MMIO writes, %llu reads "
			      "(reads include the completion polls)\n", core,
			      (unsigned long long)(t_mmio.writes - writes0),
			      (unsigned long long)(t_mmio.reads - reads0));
		mm_free(&t, true);
	}
}

/* The board probes' options: CNA/CORE S_POINTER without the core bits
 * (core-bits), and each kick's RAW_STATUS reported (irq-bits). */
static void probe_options(void **state)
{
	const unsigned int core = 1;
	unsigned int seen = 0;
	struct mm t;
	struct npu_task task;
	struct npu_submit s;

	(void)state;
	mm_init(&t, 4, 32, 32, NULL);
	mm_task_desc(&t, &task);
	t_submit_init(&s, &task, 1, core, 0, 1);
	s.flags |= NPU_JOB_NO_CORE_BITS;
	t_log_base = NPU_CORE_BASE(core);
	t_log_size = 0x10000;
	t_log_count = 0;
	assert_int_equal(npu_submit(&dev, &s), NPU_OK);
	assert_int_equal(mm_check(&t), 0);
	for (unsigned int j = 0; j < t_log_count; j++)
		if (t_log[j].addr == CNA_S_POINTER || t_log[j].addr == CORE_S_POINTER) {
			assert_int_equal(t_log[j].value, 0xE);
			seen++;
		}
	assert_int_equal(seen, 2);
	/* RAW_STATUS: every block's event (CNA, CORE, DPU), no DMA error, and
	 * under the mask what INTERRUPT_STATUS showed */
	assert_int_equal(rknpu_fuzz_status(task.raw_status),
			 NPU_INT_CNA_FEATURE_0 | NPU_INT_CNA_FEATURE_1 | NPU_INT_CNA_WEIGHT_0 |
			 NPU_INT_CNA_WEIGHT_1 | NPU_INT_CNA_CSC_0 | NPU_INT_CNA_CSC_1 |
			 NPU_INT_CORE_0 | NPU_INT_CORE_1 | NPU_INT_DPU);
	assert_int_equal(task.raw_status & (NPU_INT_DMA_READ_ERROR | NPU_INT_DMA_WRITE_ERROR), 0);
	assert_int_equal(task.raw_status & task.int_mask, task.int_status & task.int_mask);
	mm_free(&t, true);
}

/* ---- chained and batched jobs ---- */

static void run_chain(unsigned int core, size_t count, uint32_t expect_kicks)
{
	struct mm *t = test_malloc(count * sizeof(*t));
	struct npu_task *tasks = test_malloc(count * sizeof(*tasks));
	struct npu_submit s;
	uint64_t reads0, writes0;
	size_t i;
	int bad = 0;

	mm_init(&t[0], 4, 32, 32, NULL);
	for (i = 1; i < count; i++)
		mm_init(&t[i], 4, 32, 32, &t[0]);
	mm_chain(t, count);
	for (i = 0; i < count; i++)
		mm_task_desc(&t[i], &tasks[i]);
	t_submit_init(&s, tasks, (uint32_t)count, core, 0, (uint32_t)count);
	reads0 = t_mmio.reads;
	writes0 = t_mmio.writes;
	assert_int_equal(npu_submit(&dev, &s), NPU_OK);
	reads0 = t_mmio.reads - reads0;
	writes0 = t_mmio.writes - writes0;
	for (i = 0; i < count; i++)
		bad += mm_check(&t[i]) != 0;
	assert_int_equal(bad, 0);
	assert_int_equal(s.core[core].kicks, expect_kicks);
	assert_int_equal(s.task_counter, count);
	print_message("core %u: %zu chained tasks in %u kicks, hw time %llu ticks, "
		      "MMIO %llu writes + %llu reads\n", core, count, s.core[core].kicks,
		      (unsigned long long)s.hw_ticks, (unsigned long long)writes0,
		      (unsigned long long)reads0);
	for (i = 0; i < count; i++)
		mm_free(&t[i], i == 0);
	test_free(t);
	test_free(tasks);
}

static void chained_tasks(void **state)
{
	(void)state;
	run_chain(0, 8, 1);
}

static void more_than_4095_tasks(void **state)
{
	(void)state;
	/* 4095 + 4095 + 810: three kicks, each after the previous completed. */
	run_chain(1, 9000, 3);
}

/* Three cores, each with more than one kick: a core re-kicks as soon as
 * its own batch completes while the others still run. */
static void three_cores_batched(void **state)
{
	const uint32_t per_core = NPU_MAX_TASKS_PER_KICK + 300u;
	const size_t count = 3u * per_core;
	struct mm *t = test_malloc(count * sizeof(*t));
	struct npu_task *tasks = test_malloc(count * sizeof(*tasks));
	struct npu_submit s;
	unsigned int c;
	size_t i;
	int bad = 0;

	(void)state;
	mm_init(&t[0], 4, 32, 32, NULL);
	for (i = 1; i < count; i++)
		mm_init(&t[i], 4, 32, 32, &t[0]);
	for (c = 0; c < 3; c++)
		mm_chain(&t[c * per_core], per_core);
	for (i = 0; i < count; i++)
		mm_task_desc(&t[i], &tasks[i]);
	memset(&s, 0, sizeof(s));
	s.flags = NPU_JOB_PC | NPU_JOB_BLOCK | NPU_JOB_PINGPONG;
	s.core_mask = 0x7;
	s.tasks = tasks;
	s.task_count = (uint32_t)count;
	for (c = 0; c < 3; c++) {
		s.subcore_task[c + 2].task_start = c * per_core;
		s.subcore_task[c + 2].task_number = per_core;
	}
	assert_int_equal(npu_submit(&dev, &s), NPU_OK);
	for (i = 0; i < count; i++)
		bad += mm_check(&t[i]) != 0;
	assert_int_equal(bad, 0);
	for (c = 0; c < 3; c++) {
		assert_int_equal(s.core[c].kicks, 2);
		assert_int_equal(s.core[c].tasks_done, per_core);
	}
	for (i = 0; i < count; i++)
		mm_free(&t[i], i == 0);
	test_free(t);
	test_free(tasks);
}

static void task_number_zero_skipped(void **state)
{
	struct mm t;
	struct npu_task task;
	struct npu_submit s;

	(void)state;
	mm_init(&t, 4, 32, 32, NULL);
	mm_task_desc(&t, &task);
	t_submit_init(&s, &task, 1, 0, 0, 1);
	/* Two cores in use: slots [0] and [1]; core 1's range is empty. */
	s.core_mask = 0x3;
	assert_int_equal(npu_submit(&dev, &s), NPU_OK);
	assert_int_equal(mm_check(&t), 0);
	assert_int_equal(s.core[0].kicks, 1);
	assert_int_equal(s.core[1].kicks, 0);
	mm_free(&t, true);
}

/* ---- three cores ---- */

#define PER_CORE 3u

static void three_jobs(struct mm t[3][PER_CORE], struct npu_task tasks[3 * PER_CORE],
		       struct npu_submit *s)
{
	unsigned int c, i;

	for (c = 0; c < 3; c++) {
		for (i = 0; i < PER_CORE; i++)
			mm_init(&t[c][i], 4u * (c + 1), 32, 32 * (i + 1), NULL);
		mm_chain(t[c], PER_CORE);
		for (i = 0; i < PER_CORE; i++)
			mm_task_desc(&t[c][i], &tasks[c * PER_CORE + i]);
	}
	memset(s, 0, sizeof(*s));
	s->flags = NPU_JOB_PC | NPU_JOB_BLOCK | NPU_JOB_PINGPONG;
	s->core_mask = 0x7;
	s->tasks = tasks;
	s->task_count = 3 * PER_CORE;
	/* BSP rule with three cores: core c takes subcore_task[c + 2]. */
	for (c = 0; c < 3; c++) {
		s->subcore_task[c + 2].task_start = c * PER_CORE;
		s->subcore_task[c + 2].task_number = PER_CORE;
	}
	/* Slots 0 and 1 must be ignored: make them wrong on purpose. */
	s->subcore_task[0].task_start = 7;
	s->subcore_task[0].task_number = 2;
	s->subcore_task[1].task_number = 9;
}

static void free_three(struct mm t[3][PER_CORE])
{
	for (unsigned int c = 0; c < 3; c++)
		for (unsigned int i = 0; i < PER_CORE; i++)
			mm_free(&t[c][i], true);
}

static int check_core(struct mm t[3][PER_CORE], unsigned int c)
{
	int bad = 0;

	for (unsigned int i = 0; i < PER_CORE; i++)
		bad += mm_check(&t[c][i]) != 0;
	return bad;
}

static void three_cores_at_once(void **state)
{
	struct mm t[3][PER_CORE];
	struct npu_task tasks[3 * PER_CORE];
	struct npu_submit s;

	(void)state;
	three_jobs(t, tasks, &s);
	assert_int_equal(npu_submit(&dev, &s), NPU_OK);
	for (unsigned int c = 0; c < 3; c++) {
		assert_int_equal(check_core(t, c), 0);
		assert_int_equal(s.core[c].kicks, 1);
		assert_int_equal(s.core[c].tasks_done, PER_CORE);
	}
	assert_int_equal(s.task_counter, 3 * PER_CORE);
	free_three(t);
}

static void one_core_hangs_others_finish(void **state)
{
	struct mm t[3][PER_CORE];
	struct npu_task tasks[3 * PER_CORE];
	struct npu_submit s;

	(void)state;
	three_jobs(t, tasks, &s);
	s.timeout_ms = SHORT_TIMEOUT_MS;
	assert_int_equal(sim_soc_set_fault(t_soc, "hang,core=1"), 0);
	assert_int_equal(npu_submit(&dev, &s), NPU_ERR_TIMEOUT);
	assert_int_equal(s.core[0].err, NPU_OK);
	assert_int_equal(s.core[1].err, NPU_ERR_TIMEOUT);
	assert_int_equal(s.core[2].err, NPU_OK);
	assert_int_equal(check_core(t, 0), 0);
	assert_int_equal(check_core(t, 2), 0);
	assert_int_equal(dev.timeouts[1], 1);
	free_three(t);

	/* All three cores healthy again. */
	three_jobs(t, tasks, &s);
	assert_int_equal(npu_submit(&dev, &s), NPU_OK);
	for (unsigned int c = 0; c < 3; c++)
		assert_int_equal(check_core(t, c), 0);
	free_three(t);
}

/* ---- cores owned by the job in flight (npu.h: several CPUs) ---- */

/* A job on core 0 left in flight: another job for core 0 (alone or in a
 * mask with core 1) is refused without touching a core, one for core 1
 * runs and ends while it is there; once the first is polled to its end,
 * core 0 takes jobs again. Every result is bit-exact. */
static void cores_owned_by_job_in_flight(void **state)
{
	struct mm t[3];
	struct npu_task task[3];
	struct npu_submit s[3], both;
	struct npu_buf out[3];
	struct npu_inflight first, refused;
	int ret;

	(void)state;
	for (unsigned int i = 0; i < 3; i++) {
		mm_init(&t[i], 8, 64, 32, NULL);
		mm_task_desc(&t[i], &task[i]);
		out[i] = mm_out_buf(&t[i]);
		t_submit_init(&s[i], &task[i], 1, i == 1 ? 1 : 0, 0, 1);
		s[i].outputs = &out[i];
		s[i].output_count = 1;
	}
	assert_int_equal(npu_submit_start(&dev, &s[0], &first), NPU_OK);
	assert_int_equal(dev.busy_mask, 0x1);
	t_mmio.writes = 0;
	assert_int_equal(npu_submit_start(&dev, &s[2], &refused), NPU_ERR_BUSY);
	both = s[2];
	both.core_mask = 0x3;
	both.subcore_task[1] = both.subcore_task[0];
	assert_int_equal(npu_submit_start(&dev, &both, &refused), NPU_ERR_BUSY);
	assert_int_equal(t_mmio.writes, 0);	/* all or none: core 1 was not taken */
	assert_int_equal(dev.busy_mask, 0x1);
	assert_int_equal(npu_submit(&dev, &s[1]), NPU_OK);	/* core 1 is free */
	assert_int_equal(mm_check(&t[1]), 0);
	do
		ret = npu_submit_poll(&dev, &first);
	while (ret == NPU_PENDING);
	assert_int_equal(ret, NPU_OK);
	assert_int_equal(mm_check(&t[0]), 0);
	assert_int_equal(dev.busy_mask, 0);
	assert_int_equal(npu_submit(&dev, &s[2]), NPU_OK);
	assert_int_equal(mm_check(&t[2]), 0);
	for (unsigned int i = 0; i < 3; i++)
		mm_free(&t[i], true);
}

/* ---- faults ---- */

static int submit_one(unsigned int core, uint32_t timeout_ms, struct mm *t,
		      struct npu_task *task)
{
	struct npu_submit s;

	mm_init(t, 8, 64, 32, NULL);
	mm_task_desc(t, task);
	t_submit_init(&s, task, 1, core, 0, 1);
	s.timeout_ms = timeout_ms;
	return npu_submit(&dev, &s);
}

/* No completion is left pending behind a job: read the status long enough
 * for any held-back completion (poll=N) to show. */
static void assert_no_pending_status(unsigned int core)
{
	for (unsigned int i = 0; i < 64; i++)
		assert_int_equal(t_peek(NPU_CORE_BASE(core) + PC_INTERRUPT_STATUS) & 0x3FFFu, 0);
}

/* After a fault, the next job on the same core is bit-exact. */
static void next_job_exact(unsigned int core)
{
	struct mm t;
	struct npu_task task;

	assert_int_equal(submit_one(core, 0, &t, &task), NPU_OK);
	assert_int_equal(mm_check(&t), 0);
	assert_no_pending_status(core);
	mm_free(&t, true);
}

/* Core 0's A/H resets asserted and then released in the logged writes. */
static bool core0_reset_pulsed(void)
{
	bool asserted = false;

	for (unsigned int i = 0; i < t_log_count; i++) {
		uint32_t mask = t_log[i].value >> 16, v = t_log[i].value & 0xFFFFu;

		if ((mask & SRST_CORE0_BITS) != SRST_CORE0_BITS)
			continue;
		if ((v & SRST_CORE0_BITS) == SRST_CORE0_BITS)
			asserted = true;
		else if (!(v & SRST_CORE0_BITS) && asserted)
			return true;
	}
	return false;
}

static void hang_times_out_then_recovers(void **state)
{
	struct mm t;
	struct npu_task task;
	uint64_t t0, took;

	(void)state;
	assert_int_equal(sim_soc_set_fault(t_soc, "hang"), 0);
	t_log_base = CRU_SOFTRST_CON30;
	t_log_size = sizeof(uint32_t);
	t_log_count = 0;
	t0 = hal_time_us();
	assert_int_equal(submit_one(0, SHORT_TIMEOUT_MS, &t, &task), NPU_ERR_TIMEOUT);
	took = hal_time_us() - t0;
	/* the caller's timeout, not the default (500 ms): a generous margin
	 * for a loaded machine, still far below the default */
	assert_true(took >= SHORT_TIMEOUT_MS * 1000u);
	if (took >= NPU_DEFAULT_TIMEOUT_MS * 1000u / 2u)
		fail_msg("a %u ms timeout took %llu us", SHORT_TIMEOUT_MS,
			 (unsigned long long)took);
	/* the only documented way to stop a running core: the CRU reset */
	if (!core0_reset_pulsed())
		fail_msg("no A/H reset of core 0 after the timeout (%u writes to SOFTRST_CON30)",
			 t_log_count);
	t_log_size = 0;
	assert_int_equal(dev.timeouts[0], 1);
	assert_int_equal(dev.powered_mask, 0x7);
	mm_free(&t, true);
	next_job_exact(0);
	next_job_exact(0);
}

/* timeout_ms 0 is the default timeout, not "no wait". */
static void zero_timeout_is_default(void **state)
{
	struct mm t;
	struct npu_task task;
	uint64_t t0;

	(void)state;
	assert_int_equal(sim_soc_set_fault(t_soc, "hang"), 0);
	t0 = hal_time_us();
	assert_int_equal(submit_one(0, 0, &t, &task), NPU_ERR_TIMEOUT);
	assert_true(hal_time_us() - t0 >= NPU_DEFAULT_TIMEOUT_MS * 1000u);
	mm_free(&t, true);
	next_job_exact(0);
}

static void dma_read_error(void **state)
{
	struct mm t;
	struct npu_task task;

	(void)state;
	assert_int_equal(sim_soc_set_fault(t_soc, "dma_read"), 0);
	assert_int_equal(submit_one(0, 0, &t, &task), NPU_ERR_DMA_READ);
	assert_true(task.int_status & NPU_INT_DMA_READ_ERROR);
	mm_free(&t, true);
	next_job_exact(0);
}

static void dma_write_error(void **state)
{
	struct mm t;
	struct npu_task task;

	(void)state;
	assert_int_equal(sim_soc_set_fault(t_soc, "dma_write"), 0);
	assert_int_equal(submit_one(2, 0, &t, &task), NPU_ERR_DMA_WRITE);
	assert_true(task.int_status & NPU_INT_DMA_WRITE_ERROR);
	mm_free(&t, true);
	next_job_exact(2);
}

static void input_outside_ram_is_dma_error(void **state)
{
	struct mm t;
	struct npu_task task;
	struct npu_submit s;
	unsigned int i;

	(void)state;
	mm_init(&t, 4, 32, 32, NULL);
	/* Point the feature read below the RAM the model's bus maps. */
	for (i = 0; i < t.body; i++)
		if (npu_rc_offset(t.rc[i]) == NPU_CNA_FEATURE_DATA_ADDR)
			t.rc[i] = RC(CNA, FEATURE_DATA_ADDR, 0x1000);
	mm_task_desc(&t, &task);
	t_submit_init(&s, &task, 1, 0, 0, 1);
	assert_int_equal(npu_submit(&dev, &s), NPU_ERR_DMA_READ);
	mm_free(&t, true);
	next_job_exact(0);
}

static void half_status_completes(void **state)
{
	struct mm t;
	struct npu_task task;

	(void)state;
	assert_int_equal(sim_soc_set_fault(t_soc, "half_status"), 0);
	assert_int_equal(submit_one(1, 0, &t, &task), NPU_OK);
	assert_int_equal(mm_check(&t), 0);
	/* Only one bit of the DPU pair was raised, the job still completed. */
	assert_true((task.int_status & NPU_INT_DPU) == NPU_INT_DPU_0 ||
		    (task.int_status & NPU_INT_DPU) == NPU_INT_DPU_1);
	mm_free(&t, true);
}

static void slow_completion_polled(void **state)
{
	struct mm t;
	struct npu_task task;

	(void)state;
	assert_int_equal(sim_soc_set_fault(t_soc, "poll=50"), 0);
	assert_int_equal(submit_one(0, 0, &t, &task), NPU_OK);
	assert_int_equal(mm_check(&t), 0);
	mm_free(&t, true);
}

static void late_completion_ignored(void **state)
{
	struct mm t[2];
	struct npu_task task, tasks[2];
	struct npu_submit s;

	(void)state;
	assert_int_equal(sim_soc_set_fault(t_soc, "late"), 0);
	assert_int_equal(submit_one(0, SHORT_TIMEOUT_MS, &t[0], &task), NPU_ERR_TIMEOUT);
	mm_free(&t[0], true);

	/*
	 * The late DPU bits land after the reset. The next job's first task
	 * ends in the PPU pair, so the kick's own INTERRUPT_CLEAR (first
	 * task's mask) does not remove them, and its completion is held back
	 * for 20 status reads: a driver that kicked over the stale bits would
	 * take them for this job's completion and return with the real one
	 * still pending.
	 */
	mm_init(&t[0], 4, 32, 32, NULL);
	mm_init(&t[1], 8, 32, 64, NULL);
	mm_chain(t, 2);
	mm_task_desc(&t[0], &tasks[0]);
	mm_task_desc(&t[1], &tasks[1]);
	tasks[0].int_mask = NPU_INT_PPU;
	t_submit_init(&s, tasks, 2, 0, 0, 2);
	assert_int_equal(sim_soc_set_fault(t_soc, "poll=20"), 0);
	assert_int_equal(npu_submit(&dev, &s), NPU_OK);
	assert_int_equal(mm_check(&t[0]), 0);
	assert_int_equal(mm_check(&t[1]), 0);
	assert_int_equal(s.task_counter, 2);
	assert_no_pending_status(0);
	mm_free(&t[0], true);
	mm_free(&t[1], true);
	next_job_exact(0);
}

/* ---- bad jobs are refused before any register is touched ---- */

static void invalid_jobs(void **state)
{
	struct mm t;
	struct npu_task task, bad, pair[2];
	struct npu_submit s;
	uint64_t mmio0;

	(void)state;
	mm_init(&t, 4, 32, 32, NULL);
	mm_task_desc(&t, &task);
	mmio0 = t_mmio.reads + t_mmio.writes;

	bad = task;
	bad.regcmd_addr += 8;		/* not 16-byte aligned */
	t_submit_init(&s, &bad, 1, 0, 0, 1);
	assert_int_equal(npu_submit(&dev, &s), NPU_ERR_INVAL);

	bad = task;
	bad.int_mask = NPU_INT_DPU_0;	/* not a whole pair: could never complete */
	t_submit_init(&s, &bad, 1, 0, 0, 1);
	assert_int_equal(npu_submit(&dev, &s), NPU_ERR_INVAL);

	bad = task;
	bad.regcmd_addr = 0xFFFFFFF0u;	/* fetch would cross 4 GiB */
	t_submit_init(&s, &bad, 1, 0, 0, 1);
	assert_int_equal(npu_submit(&dev, &s), NPU_ERR_INVAL);

	bad = task;
	bad.regcfg_amount = 0xFFFFFFFEu;	/* fetch count would wrap */
	t_submit_init(&s, &bad, 1, 0, 0, 1);
	assert_int_equal(npu_submit(&dev, &s), NPU_ERR_INVAL);

	bad = task;
	bad.regcfg_amount = 2u * 0x10000u - 4u + 1u;	/* one past REGISTER_AMOUNTS' 16 bits */
	t_submit_init(&s, &bad, 1, 0, 0, 1);
	assert_int_equal(npu_submit(&dev, &s), NPU_ERR_INVAL);

	bad = task;
	bad.regcmd_addr = 0xFFFFFFFFFFFFFFF0ull;	/* beyond 32 bits, would wrap */
	t_submit_init(&s, &bad, 1, 0, 0, 1);
	assert_int_equal(npu_submit(&dev, &s), NPU_ERR_INVAL);

	/* a range one past the descriptors: the one past is a valid task, so
	 * only the range check can refuse it */
	pair[0] = pair[1] = task;
	t_submit_init(&s, pair, 1, 0, 0, 2);
	assert_int_equal(npu_submit(&dev, &s), NPU_ERR_INVAL);

	t_submit_init(&s, &task, 1, 0, 0, 1);
	s.flags = NPU_JOB_BLOCK;		/* no PC flag */
	assert_int_equal(npu_submit(&dev, &s), NPU_ERR_INVAL);

	t_submit_init(&s, &task, 1, 0, 0, 1);
	s.core_mask = 0x8;
	assert_int_equal(npu_submit(&dev, &s), NPU_ERR_INVAL);

	t_submit_init(&s, &task, 1, 0, 0, 1);
	s.tasks = NULL;
	assert_int_equal(npu_submit(&dev, &s), NPU_ERR_INVAL);

	t_submit_init(&s, &task, 1, 0, 0, 1);
	s.task_dma_base = 0x1008;	/* TASK_DMA_BASE_ADDR bits 3:0 are read-only */
	assert_int_equal(npu_submit(&dev, &s), NPU_ERR_INVAL);

	assert_int_equal(t_mmio.reads + t_mmio.writes, mmio0);

	/* A core that was not brought up. */
	assert_int_equal(npu_power_off(&dev), NPU_OK);
	assert_int_equal(npu_power_on(&dev, 0x1), NPU_OK);
	t_submit_init(&s, &task, 1, 2, 0, 1);
	assert_int_equal(npu_submit(&dev, &s), NPU_ERR_NOT_POWERED);
	mm_free(&t, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fuzz_status_rule),
		cmocka_unit_test_setup_teardown(single_task, setup, teardown),
		cmocka_unit_test_setup_teardown(kick_sequence_is_bsp, setup, teardown),
		cmocka_unit_test_setup_teardown(probe_options, setup, teardown),
		cmocka_unit_test_setup_teardown(chained_tasks, setup, teardown),
		cmocka_unit_test_setup_teardown(more_than_4095_tasks, setup, teardown),
		cmocka_unit_test_setup_teardown(three_cores_batched, setup, teardown),
		cmocka_unit_test_setup_teardown(task_number_zero_skipped, setup, teardown),
		cmocka_unit_test_setup_teardown(three_cores_at_once, setup, teardown),
		cmocka_unit_test_setup_teardown(one_core_hangs_others_finish, setup, teardown),
		cmocka_unit_test_setup_teardown(cores_owned_by_job_in_flight, setup, teardown),
		cmocka_unit_test_setup_teardown(hang_times_out_then_recovers, setup, teardown),
		cmocka_unit_test_setup_teardown(zero_timeout_is_default, setup, teardown),
		cmocka_unit_test_setup_teardown(dma_read_error, setup, teardown),
		cmocka_unit_test_setup_teardown(dma_write_error, setup, teardown),
		cmocka_unit_test_setup_teardown(input_outside_ram_is_dma_error, setup, teardown),
		cmocka_unit_test_setup_teardown(half_status_completes, setup, teardown),
		cmocka_unit_test_setup_teardown(slow_completion_polled, setup, teardown),
		cmocka_unit_test_setup_teardown(late_completion_ignored, setup, teardown),
		cmocka_unit_test_setup_teardown(invalid_jobs, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
