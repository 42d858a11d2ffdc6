/* SPDX-License-Identifier: MIT */
/*
 * Job submission through the Program Controller and polled completion.
 *
 * The kick is the BSP PC path register for register (HARDWARE.md §2.5,
 * rockchip-linux/kernel drivers/rknpu/rknpu_job.c rknpu_job_subcore_commit_pc);
 * completion follows the BSP interrupt rule (fuzzed status == last task's
 * int_mask), polled as drivercraft/rknpu does (HARDWARE.md §2.7), with the
 * stale-status clear of HARDWARE.md §8 step 8 before every kick.
 */
#include "drivers/npu/npu_internal.h"

/*
 * UNSURE (HARDWARE.md §2.5, §9.4): both the BSP and mainline OR
 * 0x10000000 * core into the CNA/CORE S_POINTER value written before a kick;
 * bits 28-29 are reserved in Mesa's registers.xml. This is the only place
 * that choice lives.
 */
#define NPU_S_POINTER_CORE_UNIT	0x10000000u

/* REGISTER_AMOUNTS counts fetches of this many qwords (RK3588
 * pc_data_amount_scale, BSP rknpu_drv.c). */
#define NPU_PC_DATA_AMOUNT_SCALE 2u

/* BSP sub-core slots: 1- and 2-core jobs use slots 0-1 by core index,
 * 3-core jobs slots 2-4 (HARDWARE.md §2.5). */
#define NPU_SUBCORE_3CORE_FIRST	2u

/* Bounded stale-status clear: rounds of clear + re-read. */
#define NPU_CLEAR_ROUNDS	16u

#define NPU_INT_DMA_ERRORS	(NPU_INT_DMA_READ_ERROR | NPU_INT_DMA_WRITE_ERROR)
#define NPU_DMA_ADDR_LIMIT	(1ull << 32)
#define NPU_REGCMD_ALIGN	16u

static const uint32_t fuzz_pairs[] = {
	NPU_INT_CNA_FEATURE_0 | NPU_INT_CNA_FEATURE_1,
	NPU_INT_CNA_WEIGHT_0 | NPU_INT_CNA_WEIGHT_1,
	NPU_INT_CNA_CSC_0 | NPU_INT_CNA_CSC_1,
	NPU_INT_CORE_0 | NPU_INT_CORE_1,
	NPU_INT_DPU_0 | NPU_INT_DPU_1,
	NPU_INT_PPU_0 | NPU_INT_PPU_1,
};

uint32_t rknpu_fuzz_status(uint32_t status)
{
	uint32_t out = 0;
	unsigned int i;

	for (i = 0; i < sizeof(fuzz_pairs) / sizeof(fuzz_pairs[0]); i++)
		if (status & fuzz_pairs[i])
			out |= fuzz_pairs[i];
	return out;
}

/* BSP formula: ceil((body + tail) / scale) - 1 (HARDWARE.md §2.4). */
static uint32_t pc_data_amount(uint32_t regcfg_amount)
{
	return (regcfg_amount + NPU_RC_TAIL_QWORDS + NPU_PC_DATA_AMOUNT_SCALE - 1u) /
	       NPU_PC_DATA_AMOUNT_SCALE - 1u;
}

/* Largest body whose fetch count fits REGISTER_AMOUNTS.pc_data_amount. */
#define NPU_REGCFG_AMOUNT_MAX \
	((NPU_FG(PC, REGISTER_AMOUNTS, PC_DATA_AMOUNT, ~0u) + 1u) * NPU_PC_DATA_AMOUNT_SCALE - \
	 NPU_RC_TAIL_QWORDS)

/* Bytes the PC fetches for a task: whole fetch units of body + tail. */
static size_t regcmd_bytes(uint32_t regcfg_amount)
{
	return (size_t)(pc_data_amount(regcfg_amount) + 1u) *
	       NPU_PC_DATA_AMOUNT_SCALE * sizeof(uint64_t);
}

/* ---- validation ---- */

static int check_task(const struct npu_task *t, uint32_t index)
{
	if (!t->regcmd_addr || (t->regcmd_addr % NPU_REGCMD_ALIGN)) {
		hal_err("npu: task %u: regcmd address 0x%llx is zero or not %u-byte aligned",
			index, (unsigned long long)t->regcmd_addr, NPU_REGCMD_ALIGN);
		return NPU_ERR_INVAL;
	}
	if (t->regcfg_amount > NPU_REGCFG_AMOUNT_MAX || t->regcmd_addr >= NPU_DMA_ADDR_LIMIT ||
	    regcmd_bytes(t->regcfg_amount) > NPU_DMA_ADDR_LIMIT - t->regcmd_addr) {
		hal_err("npu: task %u: regcmd of %u qwords at 0x%llx does not fit the PC's 32-bit fetch",
			index, t->regcfg_amount, (unsigned long long)t->regcmd_addr);
		return NPU_ERR_INVAL;
	}
	/* The BSP completion test is fuzz(status) == int_mask: a mask that is
	 * not made of whole pairs could never match. */
	if (!t->int_mask || rknpu_fuzz_status(t->int_mask) != t->int_mask) {
		hal_err("npu: task %u: int_mask 0x%x is not a non-empty set of event pairs",
			index, t->int_mask);
		return NPU_ERR_INVAL;
	}
	if (!hal_phys_to_virt(t->regcmd_addr)) {
		hal_err("npu: task %u: regcmd address 0x%llx has no CPU mapping",
			index, (unsigned long long)t->regcmd_addr);
		return NPU_ERR_INVAL;
	}
	return NPU_OK;
}

/* ---- per-core run state ---- */

int npu_core_clear_status(struct npu_dev *dev, unsigned int core)
{
	uint32_t status = 0, raw = 0;
	unsigned int round;

	/* A completion that lands after a timeout (or a stale DMA error) must
	 * not be read as the next job's: clear, then verify it stays clear. */
	for (round = 0; round < NPU_CLEAR_ROUNDS; round++) {
		npu_core_write(dev, core, NPU_PC_INTERRUPT_CLEAR, NPU_INT_CLEAR_ALL);
		status = npu_core_read(dev, core, NPU_PC_INTERRUPT_STATUS);
		raw = npu_core_read(dev, core, NPU_PC_INTERRUPT_RAW_STATUS);
		if (!rknpu_fuzz_status(status) && !(raw & NPU_INT_DMA_ERRORS))
			return NPU_OK;
	}
	hal_err("npu: core %u: PC INTERRUPT_STATUS 0x%08x / RAW_STATUS 0x%08x not clear after %u rounds",
		core, status, raw, NPU_CLEAR_ROUNDS);
	return NPU_ERR_STALE;
}

static void clean_regcmds(const struct npu_task *tasks, uint32_t first, uint32_t last)
{
	uint32_t i;

	for (i = first; i <= last; i++)
		hal_dcache_clean(hal_phys_to_virt(tasks[i].regcmd_addr),
				 regcmd_bytes(tasks[i].regcfg_amount));
}

/* The BSP PC kick for tasks [first, last] (HARDWARE.md §2.5 steps 1-9). */
static void pc_kick(struct npu_dev *dev, unsigned int core, const struct npu_task *first,
		    const struct npu_task *last, uint32_t count, const struct npu_submit *s)
{
	bool pingpong = s->flags & NPU_JOB_PINGPONG;
	uint32_t core_bits = s->flags & NPU_JOB_NO_CORE_BITS ? 0u : NPU_S_POINTER_CORE_UNIT * core;
	uint32_t s_pointer = NPU_S_POINTER_PP(CNA) | core_bits;
	uint32_t task_con = NPU_FV(PC, TASK_CON, RESERVED_14, 1) |
			    NPU_FV(PC, TASK_CON, TASK_COUNT_CLEAR, 1) |
			    NPU_FV(PC, TASK_CON, TASK_PP_EN, pingpong) |
			    NPU_FV(PC, TASK_CON, TASK_NUMBER, count);

	/* regcmd stores and cache cleaning before the first MMIO write. */
	hal_wmb();
	npu_core_write(dev, core, NPU_PC_BASE_ADDRESS, NPU_FV(PC, BASE_ADDRESS, PC_SEL, 1));
	npu_core_write(dev, core, NPU_CNA_S_POINTER, s_pointer);
	npu_core_write(dev, core, NPU_CORE_S_POINTER, s_pointer);
	npu_core_write(dev, core, NPU_PC_BASE_ADDRESS, (uint32_t)first->regcmd_addr);
	npu_core_write(dev, core, NPU_PC_REGISTER_AMOUNTS,
		       NPU_FV(PC, REGISTER_AMOUNTS, PC_DATA_AMOUNT,
			      pc_data_amount(first->regcfg_amount)));
	npu_core_write(dev, core, NPU_PC_INTERRUPT_MASK, last->int_mask);
	npu_core_write(dev, core, NPU_PC_INTERRUPT_CLEAR, first->int_mask);
	npu_core_write(dev, core, NPU_PC_TASK_CON, task_con);
	npu_core_write(dev, core, NPU_PC_TASK_DMA_BASE_ADDR, s->task_dma_base);
	hal_mb();
	npu_core_write(dev, core, NPU_PC_OPERATION_ENABLE, NPU_FV(PC, OPERATION_ENABLE, OP_EN, 1));
	hal_mb();
	npu_core_write(dev, core, NPU_PC_OPERATION_ENABLE, 0);
	hal_mb();
}

/* Clear stale status and kick the next batch (≤ NPU_MAX_TASKS_PER_KICK). */
static int core_kick_next(struct npu_dev *dev, unsigned int core, struct npu_core_run *run,
			  struct npu_submit *s, uint32_t timeout_ms)
{
	uint32_t count = run->end - run->next;
	int err;

	if (count > NPU_MAX_TASKS_PER_KICK)
		count = NPU_MAX_TASKS_PER_KICK;
	err = npu_core_clear_status(dev, core);
	if (err)
		return err;
	run->last = run->next + count - 1u;
	clean_regcmds(s->tasks, run->next, run->last);
	run->kick_ticks = hal_counter();
	pc_kick(dev, core, &s->tasks[run->next], &s->tasks[run->last], count, s);
	run->deadline_us = hal_time_us() + (uint64_t)timeout_ms * 1000u;
	run->next += count;
	s->core[core].kicks++;
	return NPU_OK;
}

/*
 * Stop the core the only documented way (CRU A/H reset, HARDWARE.md §7.2) and
 * leave it ready for the next job. Returns why it was stopped, or the
 * bring-up error if the core did not come back (it is then marked off).
 */
static int core_recover(struct npu_dev *dev, unsigned int core, int why)
{
	int err;

	npu_core_write(dev, core, NPU_PC_INTERRUPT_CLEAR, NPU_INT_CLEAR_ALL);
	err = npu_core_reset(dev, core);
	if (!err)
		err = npu_core_probe(dev, core);
	if (!err)
		err = npu_core_clear_status(dev, core);
	if (err) {
		hal_err("npu: core %u did not recover from reset: %s", core, npu_strerror(err));
		npu_mark_core(dev, core, false);
		return err;
	}
	return why;
}

static uint32_t task_counter(const struct npu_dev *dev, unsigned int core)
{
	return NPU_FG(PC, TASK_STATUS, TASK_COUNTER,
		      npu_core_read(dev, core, NPU_PC_TASK_STATUS));
}

/* One poll of a core: 1 = kick finished (ok or error in *err), 0 = running. */
static int core_poll(struct npu_dev *dev, unsigned int core, struct npu_core_run *run,
		     struct npu_submit *s, int *err)
{
	struct npu_task *last = &s->tasks[run->last];
	/* Clock first: a status read after the deadline still counts. */
	uint64_t now = hal_time_us();
	uint32_t status = npu_core_read(dev, core, NPU_PC_INTERRUPT_STATUS);
	/* DMA errors are outside the task's mask: they show in the raw word. */
	uint32_t raw = npu_core_read(dev, core, NPU_PC_INTERRUPT_RAW_STATUS);
	uint32_t dma = (status | raw) & NPU_INT_DMA_ERRORS;

	if (rknpu_fuzz_status(status) != last->int_mask && !dma) {
		if (now <= run->deadline_us)
			return 0;
		hal_err("npu: core %u: job timed out in tasks up to %u, PC TASK_STATUS counter %u; resetting",
			core, run->last, task_counter(dev, core));
		hal_lock(&dev->lock);
		dev->timeouts[core]++;
		hal_unlock(&dev->lock);
		*err = core_recover(dev, core, NPU_ERR_TIMEOUT);
		return 1;
	}

	s->core[core].hw_ticks += hal_counter() - run->kick_ticks;
	s->core[core].tasks_done += task_counter(dev, core);
	last->int_status = status | dma;
	last->raw_status = raw;
	npu_core_write(dev, core, NPU_PC_INTERRUPT_CLEAR, NPU_INT_CLEAR_ALL);
	if (!dma) {
		*err = NPU_OK;
		return 1;
	}
	hal_err("npu: core %u: DMA %s error (PC INTERRUPT_STATUS 0x%08x, RAW_STATUS 0x%08x) in tasks up to %u",
		core, (dma & NPU_INT_DMA_READ_ERROR) ? "read" : "write", status, raw, run->last);
	/* The PC may be stopped mid-chain: start the next job from reset. */
	*err = core_recover(dev, core, (dma & NPU_INT_DMA_READ_ERROR) ?
				       NPU_ERR_DMA_READ : NPU_ERR_DMA_WRITE);
	return 1;
}

/* Select each core's task range by the BSP rule and check it; powered is
 * the device's powered_mask. */
static int plan(uint32_t powered, const struct npu_submit *s, uint32_t core_mask,
		struct npu_core_run runs[NPU_CORE_COUNT])
{
	unsigned int used = (unsigned int)__builtin_popcount(core_mask);
	unsigned int c;
	uint32_t i;
	int err;

	for (c = 0; c < NPU_CORE_COUNT; c++) {
		const struct npu_subcore_task *r;

		runs[c] = (struct npu_core_run){ 0 };
		if (!(core_mask & (1u << c)))
			continue;
		if (!(powered & (1u << c))) {
			hal_err("npu: submit: core %u is not powered on (powered 0x%x)",
				c, powered);
			return NPU_ERR_NOT_POWERED;
		}
		r = &s->subcore_task[used == NPU_CORE_COUNT ? c + NPU_SUBCORE_3CORE_FIRST : c];
		if (!r->task_number)
			continue;
		if (r->task_start > s->task_count ||
		    r->task_number > s->task_count - r->task_start) {
			hal_err("npu: submit: core %u range [%u, +%u) exceeds the %u task descriptors",
				c, r->task_start, r->task_number, s->task_count);
			return NPU_ERR_INVAL;
		}
		for (i = r->task_start; i < r->task_start + r->task_number; i++) {
			err = check_task(&s->tasks[i], i);
			if (err)
				return err;
		}
		runs[c].next = r->task_start;
		runs[c].end = r->task_start + r->task_number;
		runs[c].active = true;
	}
	return NPU_OK;
}

/* The cores of mask become job's, all or none (npu.h: busy_mask). */
static int claim(struct npu_dev *dev, struct npu_inflight *job, uint32_t mask,
		 uint32_t *powered, uint32_t *lost)
{
	int ret = NPU_OK;

	hal_lock(&dev->lock);
	if (dev->busy_mask & mask)
		ret = NPU_ERR_BUSY;
	else
		dev->busy_mask |= mask;
	*powered = dev->powered_mask;
	*lost = dev->lost_mask;
	hal_unlock(&dev->lock);
	if (!ret)
		job->owned = mask;
	return ret;
}

/* The cores of mask that job owns go back to other jobs. */
static void release(struct npu_dev *dev, struct npu_inflight *job, uint32_t mask)
{
	mask &= job->owned;
	if (!mask)
		return;
	hal_lock(&dev->lock);
	dev->busy_mask &= ~mask;
	hal_unlock(&dev->lock);
	job->owned &= ~mask;
}

int npu_submit_start(struct npu_dev *dev, struct npu_submit *s, struct npu_inflight *job)
{
	const uint32_t known = NPU_JOB_PC | NPU_JOB_BLOCK | NPU_JOB_PINGPONG |
			       NPU_JOB_NO_CORE_BITS;
	struct npu_core_run *runs = job ? job->runs : NULL;
	uint32_t core_mask, powered, lost, idle = 0;
	unsigned int c;
	int ret = NPU_OK;
	unsigned int i;

	if (!dev || !dev->board || !s || !job) {
		hal_err("npu: submit: no device, job or in-flight record");
		return NPU_ERR_INVAL;
	}
	job->submit = s;
	job->pending = 0;
	job->owned = 0;
	if (!(s->flags & NPU_JOB_PC) || (s->flags & ~known)) {
		hal_err("npu: submit: flags 0x%x: PC mode required, known flags 0x%x",
			s->flags, known);
		return NPU_ERR_INVAL;
	}
	if (s->task_dma_base & ~NPU_FV(PC, TASK_DMA_BASE_ADDR, DMA_BASE_ADDR, ~0u)) {
		hal_err("npu: submit: TASK_DMA_BASE_ADDR 0x%x is not a multiple of 16 (bits 3:0 "
			"are read-only)", s->task_dma_base);
		return NPU_ERR_INVAL;
	}
	core_mask = s->core_mask ? s->core_mask : 1u;
	if (core_mask & ~NPU_ALL_CORES) {
		hal_err("npu: submit: core mask 0x%x names a core beyond %u",
			core_mask, NPU_CORE_COUNT - 1u);
		return NPU_ERR_INVAL;
	}
	if (!s->tasks || !s->task_count) {
		hal_err("npu: submit: no task descriptors");
		return NPU_ERR_INVAL;
	}
	if ((s->input_count && !s->inputs) || (s->output_count && !s->outputs)) {
		hal_err("npu: submit: buffer count without a buffer list");
		return NPU_ERR_INVAL;
	}
	job->timeout_ms = s->timeout_ms ? s->timeout_ms : NPU_DEFAULT_TIMEOUT_MS;
	for (c = 0; c < NPU_CORE_COUNT; c++)
		s->core[c] = (struct npu_core_result){ 0 };
	s->hw_ticks = 0;
	s->task_counter = 0;
	ret = claim(dev, job, core_mask, &powered, &lost);
	if (ret)
		return ret;

	/* A core a failed reset left down gets one more bring-up per job. */
	for (c = 0; c < NPU_CORE_COUNT; c++) {
		if (!(core_mask & lost & (1u << c)))
			continue;
		ret = npu_core_restart(dev, c);
		if (ret)
			break;
		powered |= 1u << c;
	}
	if (!ret)
		ret = plan(powered, s, core_mask, runs);
	if (ret) {
		release(dev, job, core_mask);
		return ret;
	}

	/* The NPU is not cache-coherent: inputs to PoC, and no dirty output
	 * line may be evicted over what the NPU writes. */
	for (i = 0; i < s->input_count; i++)
		hal_dcache_clean(s->inputs[i].cpu, s->inputs[i].size);
	for (i = 0; i < s->output_count; i++)
		hal_dcache_flush(s->outputs[i].cpu, s->outputs[i].size);

	/* Kick every core; the cores run concurrently. */
	for (c = 0; c < NPU_CORE_COUNT; c++) {
		if (!runs[c].active)
			continue;
		s->core[c].err = core_kick_next(dev, c, &runs[c], s, job->timeout_ms);
		if (s->core[c].err)
			runs[c].active = false;
		else
			job->pending++;
	}
	for (c = 0; c < NPU_CORE_COUNT; c++)
		if (!runs[c].active)
			idle |= 1u << c;
	release(dev, job, idle);	/* nothing to run there, or its kick failed */
	return NPU_OK;
}

int npu_submit_start_wait(struct npu_dev *dev, struct npu_submit *s, struct npu_inflight *job)
{
	uint64_t deadline = hal_time_us() + (uint64_t)NPU_CORE_WAIT_MS * 1000u;
	int ret;

	while ((ret = npu_submit_start(dev, s, job)) == NPU_ERR_BUSY &&
	       hal_time_us() < deadline)
		hal_delay_us(NPU_CORE_WAIT_POLL_US);
	if (ret == NPU_ERR_BUSY)
		hal_err("npu: submit: cores 0x%x stayed busy with another job for %u ms",
			s->core_mask ? s->core_mask : 1u, NPU_CORE_WAIT_MS);
	return ret;
}

int npu_submit_poll(struct npu_dev *dev, struct npu_inflight *job)
{
	struct npu_submit *s;
	int ret = NPU_OK;
	unsigned int c, i;

	if (!dev || !job || !job->submit)
		return NPU_ERR_INVAL;
	s = job->submit;
	for (c = 0; c < NPU_CORE_COUNT && job->pending; c++) {
		struct npu_core_run *run = &job->runs[c];
		int err;

		if (!run->active || !core_poll(dev, c, run, s, &err))
			continue;
		if (!err && run->next < run->end)
			err = core_kick_next(dev, c, run, s, job->timeout_ms);
		else if (!err)
			run->active = false;
		if (err) {
			s->core[c].err = err;
			run->active = false;
		}
		if (!run->active) {
			job->pending--;
			release(dev, job, 1u << c);
		}
	}
	if (job->pending)
		return NPU_PENDING;

	for (i = 0; i < s->output_count; i++)
		hal_dcache_invalidate(s->outputs[i].cpu, s->outputs[i].size);
	for (c = 0; c < NPU_CORE_COUNT; c++) {
		if (s->core[c].hw_ticks > s->hw_ticks)
			s->hw_ticks = s->core[c].hw_ticks;
		s->task_counter += s->core[c].tasks_done;
		if (!ret && s->core[c].err)
			ret = s->core[c].err;
	}
	job->submit = NULL;	/* the status is given once */
	return ret;
}

int npu_submit(struct npu_dev *dev, struct npu_submit *s)
{
	struct npu_inflight job;
	int ret = npu_submit_start_wait(dev, s, &job);

	if (ret)
		return ret;
	do
		ret = npu_submit_poll(dev, &job);
	while (ret == NPU_PENDING);
	return ret;
}
