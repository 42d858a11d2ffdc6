/* SPDX-License-Identifier: MIT */
/*
 * Regcmd encoder: entry emission, the task tail and chaining (HARDWARE.md §3).
 * Entry layout and targets come from the register table (npu_regs.def).
 */
#include <errno.h>
#include <string.h>

#include "hal.h"
#include "compiler/regcmd.h"

static void rc_fail(struct rc_program *p, int err)
{
	if (!p->err)
		p->err = err;
}

void rc_program_init(struct rc_program *p, uint64_t *entries, size_t cap,
		     struct rc_task *tasks, size_t task_cap)
{
	memset(p, 0, sizeof(*p));
	p->q = entries;
	p->cap = cap;
	p->tasks = tasks;
	p->task_cap = task_cap;
}

static void rc_put(struct rc_program *p, uint64_t entry)
{
	if (p->err)
		return;
	if (p->len >= p->cap) {
		hal_err("regcmd: buffer full (%zu entries) in task %zu", p->cap, p->task_count);
		rc_fail(p, -ENOSPC);
		return;
	}
	p->q[p->len++] = entry;
}

void rc_task_begin(struct rc_program *p)
{
	if (p->err)
		return;
	if (p->in_task) {
		hal_err("regcmd: task %zu begun twice", p->task_count);
		rc_fail(p, -EINVAL);
		return;
	}
	if (p->task_count >= p->task_cap) {
		hal_err("regcmd: more than %zu tasks", p->task_cap);
		rc_fail(p, -ENOSPC);
		return;
	}
	/* Zero entries are no-ops; they only fill the gap to the boundary. */
	while (p->len % RC_TASK_ALIGN_QWORDS && !p->err)
		rc_put(p, 0);
	if (p->err)
		return;
	p->tasks[p->task_count] = (struct rc_task){ .start = p->len };
	p->in_task = true;
}

void rc_emit(struct rc_program *p, enum npu_block block, uint16_t offset, uint32_t value)
{
	if (p->err)
		return;
	if (!p->in_task) {
		hal_err("regcmd: register 0x%04x written outside a task", offset);
		rc_fail(p, -EINVAL);
		return;
	}
	if ((unsigned int)block >= NPU_BLOCK_COUNT || !npu_block_table[block].target ||
	    npu_block_of_offset(offset) != (int)block) {
		hal_err("regcmd: register 0x%04x cannot be written through block %s", offset,
			(unsigned int)block < NPU_BLOCK_COUNT ? npu_block_table[block].name : "?");
		rc_fail(p, -EINVAL);
		return;
	}
	rc_put(p, npu_rc_entry(npu_block_table[block].target, value, offset));
}

void rc_task_after_previous(struct rc_program *p)
{
	if (p->err)
		return;
	if (!p->in_task || !p->task_count) {
		hal_err("regcmd: task %zu cannot depend on a previous task", p->task_count);
		rc_fail(p, -EINVAL);
		return;
	}
	p->tasks[p->task_count].after_previous = true;
}

void rc_task_reuses_cbuf(struct rc_program *p)
{
	if (p->err)
		return;
	if (!p->in_task || !p->task_count) {
		hal_err("regcmd: task %zu cannot reuse a previous task's CBUF", p->task_count);
		rc_fail(p, -EINVAL);
		return;
	}
	p->tasks[p->task_count].reuses_cbuf = true;
}

/* A task that starts a chain on another core finds an empty CBUF. */
static void rc_drop_cbuf_reuse(struct rc_program *p, struct rc_task *t)
{
	const uint32_t reuse = NPU_FV(CNA, CBUF_CON0, WEIGHT_REUSE, 1) |
			       NPU_FV(CNA, CBUF_CON0, DATA_REUSE, 1);

	for (size_t i = t->start; i < t->start + t->body; i++) {
		uint64_t e = p->q[i];

		if (npu_rc_target(e) == NPU_CNA_TARGET && npu_rc_offset(e) == NPU_CNA_CBUF_CON0)
			p->q[i] = npu_rc_entry(NPU_CNA_TARGET, npu_rc_value(e) & ~reuse,
					       NPU_CNA_CBUF_CON0);
	}
	t->reuses_cbuf = false;
}

void rc_task_end(struct rc_program *p, uint32_t enable_mask, uint32_t int_mask)
{
	struct rc_task *t;

	if (p->err)
		return;
	if (!p->in_task) {
		hal_err("regcmd: task ended without rc_task_begin");
		rc_fail(p, -EINVAL);
		return;
	}
	if (enable_mask & ~NPU_EN_VALID) {
		hal_err("regcmd: enable mask 0x%x has undefined bits", enable_mask);
		rc_fail(p, -EINVAL);
		return;
	}
	t = &p->tasks[p->task_count];
	/* The op-enable entry must be the last one fetched, so an odd body is
	 * padded before the tail, not after it. */
	if ((p->len - t->start + NPU_RC_TAIL_QWORDS) % RC_FETCH_QWORDS)
		rc_put(p, 0);
	t->body = p->len - t->start;
	t->enable_mask = enable_mask;
	t->int_mask = int_mask;
	/* Tail (HARDWARE.md §3.3); the next-task pair is filled in by the link step. */
	rc_put(p, npu_rc_entry(NPU_PC_TARGET, 0, NPU_PC_BASE_ADDRESS));
	rc_put(p, npu_rc_entry(NPU_PC_TARGET, 0, NPU_PC_REGISTER_AMOUNTS));
	rc_put(p, npu_rc_entry(NPU_RC_TARGET_MARKER, 0, 0));
	rc_put(p, npu_rc_entry(NPU_RC_TARGET_OP_EN, enable_mask, NPU_RC_OP_EN_OFFSET));
	if (p->err)
		return;
	p->in_task = false;
	p->task_count++;
}

static int rc_check_range(const struct rc_program *p, size_t first, size_t count)
{
	if (p->err)
		return p->err;
	if (p->in_task) {
		hal_err("regcmd: task %zu is still open", p->task_count);
		return -EINVAL;
	}
	if (!count || first > p->task_count || count > p->task_count - first) {
		hal_err("regcmd: task range [%zu, +%zu) outside the %zu tasks built",
			first, count, p->task_count);
		return -EINVAL;
	}
	return 0;
}

int rc_program_link_range(struct rc_program *p, uint32_t npu_base, size_t first, size_t count)
{
	int ret = rc_check_range(p, first, count);

	if (ret)
		return ret;
	if (npu_base % RC_TASK_ALIGN_BYTES) {
		hal_err("regcmd: program address 0x%08x is not %u-byte aligned",
			npu_base, RC_TASK_ALIGN_BYTES);
		return -EINVAL;
	}
	if ((uint64_t)npu_base + p->len * sizeof(uint64_t) > UINT32_MAX) {
		hal_err("regcmd: program at 0x%08x runs past 4 GiB", npu_base);
		return -ERANGE;
	}
	for (size_t i = first; i < first + count; i++) {
		const struct rc_task *t = &p->tasks[i];
		uint64_t *tail = &p->q[t->start + t->body];
		uint32_t next_addr = 0, next_amount = 0;

		if (i + 1 < first + count) {
			const struct rc_task *n = &p->tasks[i + 1];

			next_addr = npu_base + (uint32_t)(n->start * sizeof(uint64_t));
			next_amount = rc_register_amount(n->body + NPU_RC_TAIL_QWORDS);
		}
		tail[0] = npu_rc_entry(NPU_PC_TARGET,
				       NPU_FV(PC, BASE_ADDRESS, PC_SOURCE_ADDR,
					      next_addr >> NPU_PC_BASE_ADDRESS__PC_SOURCE_ADDR_SHIFT),
				       NPU_PC_BASE_ADDRESS);
		tail[1] = npu_rc_entry(NPU_PC_TARGET,
				       NPU_FV(PC, REGISTER_AMOUNTS, PC_DATA_AMOUNT, next_amount),
				       NPU_PC_REGISTER_AMOUNTS);
	}
	return 0;
}

int rc_program_link(struct rc_program *p, uint32_t npu_base)
{
	return rc_program_link_range(p, npu_base, 0, p->task_count);
}

int rc_program_tasks(const struct rc_program *p, uint32_t npu_base, size_t first,
		     size_t count, struct npu_task *out)
{
	int ret = rc_check_range(p, first, count);

	if (ret)
		return ret;
	for (size_t i = 0; i < count; i++) {
		const struct rc_task *t = &p->tasks[first + i];

		out[i] = (struct npu_task){
			.enable_mask = t->enable_mask,
			.int_mask = t->int_mask,
			.int_clear = NPU_INT_CLEAR_ALL,
			.regcfg_amount = (uint32_t)t->body,
			.regcmd_addr = npu_base + t->start * sizeof(uint64_t),
		};
	}
	return 0;
}

int rc_program_split(struct rc_program *p, size_t first, size_t count,
		     unsigned int parts, struct npu_subcore_task *ranges)
{
	size_t start = first, end = first + count;
	unsigned int n = 0;
	int ret = rc_check_range(p, first, count);

	if (ret)
		return ret;
	if (!parts || p->tasks[first].after_previous) {
		hal_err("regcmd: cannot split tasks [%zu, +%zu) into %u parts", first, count, parts);
		return -EINVAL;
	}
	while (start < end) {
		size_t cut = n + 1 == parts ? end : start + (end - start) / (parts - n);

		if (cut <= start)
			cut = start + 1;
		while (cut < end && p->tasks[cut].after_previous)
			cut++;
		if (p->tasks[start].reuses_cbuf)
			rc_drop_cbuf_reuse(p, &p->tasks[start]);
		ranges[n].task_start = (uint32_t)start;
		ranges[n].task_number = (uint32_t)(cut - start);
		n++;
		start = cut;
	}
	return (int)n;
}

int rc_check_extent(const char *who, const char *what, uint32_t addr, size_t bytes)
{
	if ((uint64_t)addr + bytes > NPU_ADDR_SPACE) {
		hal_err("%s: the %s buffer (%zu bytes at 0x%08x) runs past 4 GiB", who, what,
			bytes, addr);
		return -ERANGE;
	}
	return 0;
}
