/* SPDX-License-Identifier: MIT */
/*
 * Register-command (regcmd) encoder: builds the 64-bit entry streams the
 * Program Controller fetches (HARDWARE.md §3), one task after another in a single
 * buffer, and chains them so a whole range runs from one PC kick.
 *
 * Usage:
 *   rc_program_init(&p, entries, cap, tasks, task_cap);
 *   rc_task_begin(&p);
 *   RC_WRITE(&p, CNA, CONV_CON1, NPU_FV(CNA, CONV_CON1, IN_PRECISION, ...));
 *   ...
 *   rc_task_end(&p, NPU_EN_CNA | NPU_EN_CORE | NPU_EN_DPU, NPU_INT_DPU);
 *   (more tasks)
 *   rc_program_link(&p, npu_address_of_entries);
 *
 * Errors are sticky: the first failure (buffer full, register outside its
 * block, too many tasks) is logged once, recorded in p.err, and every later
 * call does nothing, so a builder checks once at the end.
 */
#ifndef RKBARE_COMPILER_REGCMD_H
#define RKBARE_COMPILER_REGCMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/npu/npu.h"
#include "rkbare/npu_regs.h"

/* Task streams start on this boundary (Mesa lays tasks out 64-byte aligned;
 * the PC needs 16, HARDWARE.md §3.6). */
#define RC_TASK_ALIGN_BYTES	64u
#define RC_TASK_ALIGN_QWORDS	(RC_TASK_ALIGN_BYTES / sizeof(uint64_t))
/* The PC fetches two qwords at a time (HARDWARE.md §2.4, §3.6). */
#define RC_FETCH_QWORDS		2u

/* One task inside a program. */
struct rc_task {
	size_t start;		/* index of its first entry, a multiple of RC_TASK_ALIGN_QWORDS */
	size_t body;		/* entries before the tail, padded so body + tail is even */
	uint32_t enable_mask;	/* NPU_EN_* of the op-enable entry */
	uint32_t int_mask;	/* NPU_INT_* events that mark the task finished */
	/* Reads what the previous task wrote (a partial sum): must run after
	 * it, in the same chain. */
	bool after_previous;
	/* Reuses weights or data the previous task left in the CBUF (CBUF_CON0
	 * reuse bits); dropped when the task starts a chain of its own. */
	bool reuses_cbuf;
};

struct rc_program {
	uint64_t *q;		/* the entries (CPU view of the NPU buffer) */
	size_t cap;		/* capacity in entries */
	size_t len;		/* entries written, including alignment padding */
	struct rc_task *tasks;
	size_t task_cap;
	size_t task_count;
	bool in_task;		/* between rc_task_begin and rc_task_end */
	int err;		/* first error (negative errno), sticky */
};

void rc_program_init(struct rc_program *p, uint64_t *entries, size_t cap,
		     struct rc_task *tasks, size_t task_cap);

/* Start a task at the next 64-byte boundary. */
void rc_task_begin(struct rc_program *p);

/* Append a write of `value` to the register at in-core `offset` of `block`.
 * The block must be reachable from a stream and own the offset. */
void rc_emit(struct rc_program *p, enum npu_block block, uint16_t offset, uint32_t value);

/* Write a register by name: RC_WRITE(p, DPU, BS_CFG, value). */
#define RC_WRITE(p, BLOCK, REG, value) \
	rc_emit((p), NPU_BLOCK_##BLOCK, NPU_##BLOCK##_##REG, (value))

/* Mark the open task as depending on the one before it (see rc_task). */
void rc_task_after_previous(struct rc_program *p);
/* Mark the open task as reusing the previous task's CBUF contents. */
void rc_task_reuses_cbuf(struct rc_program *p);

/* Close the task: pad the body to the fetch granularity and append the
 * 4-entry tail (next-task placeholders, marker, op-enable). */
void rc_task_end(struct rc_program *p, uint32_t enable_mask, uint32_t int_mask);

/*
 * Chain tasks [first, first + count) into one PC program: every tail but the
 * last points at the next task (address and amount), the last ends the chain
 * with PC_BASE_ADDRESS 0 and PC_REGISTER_AMOUNTS 0 (HARDWARE.md §3.3, §3.5).
 * `npu_base` is the NPU address of entry 0. Returns 0 or a negative errno.
 */
int rc_program_link_range(struct rc_program *p, uint32_t npu_base, size_t first, size_t count);

/* Link all tasks as one chain. */
int rc_program_link(struct rc_program *p, uint32_t npu_base);

/*
 * Fill driver task descriptors for tasks [first, first + count): address,
 * body size, enable mask and the task's completion events. Only the last
 * task's events reach INTERRUPT_MASK: the driver programs the mask from the
 * last task of a kick (BSP, HARDWARE.md §2.5) and the PC raises it once the whole
 * chain has run (§3.5); no per-task interrupt is unmasked.
 */
int rc_program_tasks(const struct rc_program *p, uint32_t npu_base, size_t first,
		     size_t count, struct npu_task *out);

/*
 * Cut tasks [first, first + count) into at most `parts` contiguous ranges
 * of about equal length, one per core, each starting at a task that does
 * not read its predecessor's output. A range that starts on a task reusing
 * the CBUF gets its CBUF_CON0 reuse bits cleared (a new core has nothing
 * loaded). Fills ranges[0..n) and returns n (>= 1), or a negative errno.
 * Link each range with rc_program_link_range().
 */
int rc_program_split(struct rc_program *p, size_t first, size_t count,
		     unsigned int parts, struct npu_subcore_task *ranges);

/*
 * Every NPU address is a 32-bit field (HARDWARE.md §3.6): a buffer of
 * `bytes` at `addr` must end at or below 4 GiB, or the NPU would wrap into
 * low memory. 0, or -ERANGE with a message naming who and what.
 */
#define NPU_ADDR_SPACE		(1ull << 32)
int rc_check_extent(const char *who, const char *what, uint32_t addr, size_t bytes);

/* PC_REGISTER_AMOUNTS for a task of `total` entries including the tail:
 * the PC fetches (amount + 1) × 2 entries (HARDWARE.md §2.4). */
static inline uint32_t rc_register_amount(size_t total)
{
	return (uint32_t)((total + RC_FETCH_QWORDS - 1) / RC_FETCH_QWORDS - 1);
}

/* Entries a program of `tasks` tasks with at most `body` entries each needs. */
static inline size_t rc_program_size(size_t tasks, size_t body)
{
	size_t per = body + 1 + NPU_RC_TAIL_QWORDS;	/* +1: even padding */

	per = (per + RC_TASK_ALIGN_QWORDS - 1) / RC_TASK_ALIGN_QWORDS * RC_TASK_ALIGN_QWORDS;
	return tasks * per;
}

#endif /* RKBARE_COMPILER_REGCMD_H */
