/* SPDX-License-Identifier: MIT */
/*
 * Internals of the NPU model shared by its files: the per-core register
 * file with its ping-pong groups, the PC state, fault state, and the
 * interfaces between the stages (soc.c → pc.c → exec_*.c).
 */
#ifndef RKBARE_SIM_INTERNAL_H
#define RKBARE_SIM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rkbare/npu_regs.h"
#include "sim/lut.h"
#include "sim/sim.h"
#include "sim/sim_power.h"

/* Physical windows (HARDWARE.md §1.1). */
#define SIM_NPU_BASE		0xFDAB0000ull
#define SIM_NPU_WINDOW		0x10000u	/* per core, = NPU_CORE_STRIDE */

#define SIM_REG_WORDS		(SIM_NPU_WINDOW / 4u)
#define SIM_GROUPS		2u		/* ping-pong register groups */
#define SIM_ERR_LEN		256u

/*
 * Reset value of INTERRUPT_MASK: "all enabled" (HARDWARE.md §7.2). Boards were
 * seen reading 0x8001FFFF; bit 31 is undocumented, so the model uses the
 * 17 documented-width event bits (ASSUMPTIONS.md A3).
 */
#define SIM_INT_MASK_RESET	NPU_INT_CLEAR_ALL

/* Per-block ping-pong pointer state (HARDWARE.md §2.9). */
struct sim_pp {
	uint8_t pointer;	/* group register writes land in (mode 0) */
	uint8_t executer;	/* group the next task executes */
	uint32_t ctrl;		/* pp_en / pp_mode bits and undocumented 29:28 */
};

/* A job's completion held back by a fault. */
struct sim_pending {
	bool active;
	uint32_t raw;		/* status bits to publish */
};

/*
 * Working buffers of the data path, one per use, kept from task to task
 * and grown on demand: a model's tasks ask for the same sizes again, and
 * a fresh host allocation per task costs page faults on every touch.
 */
enum sim_scratch_slot {
	SIM_SCR_ACC,		/* the CORE's accumulators */
	SIM_SCR_DPU_OUT,	/* the DPU's output cube */
	SIM_SCR_DPU_IN,		/* a DPU-only task's MRDMA input */
	SIM_SCR_DPU_BIAS,	/* per-channel BS operands */
	SIM_SCR_PPU_IN,		/* a standalone PPU task's input */
	SIM_SCR_CONV_IN,	/* padded input, widened */
	SIM_SCR_CONV_WT,	/* weights, widened */
	SIM_SCR_CONV_U8,	/* padded input, biased to unsigned bytes */
	SIM_SCR_CONV_PACKED,	/* weights in the dot-product unit's order */
	SIM_SCR_CONV_SUMS,	/* the unit's int32 sums */
	SIM_SCR_CONV_KSUM,	/* per-kernel weight sums */
	SIM_SCR_NOTCH,		/* the DPU notch layout check, a bit per atom */
	SIM_SCR_COUNT
};

struct sim_scratch {
	void *p;
	size_t cap;
};

struct sim_core {
	unsigned index;
	struct sim_soc *soc;

	/* Register words by in-core offset / 4; ping-pong blocks keep one
	 * copy per group, the others use group 0 only. */
	uint32_t regs[SIM_GROUPS][SIM_REG_WORDS];
	struct sim_pp pp[NPU_BLOCK_COUNT];
	/* The DPU's lookup tables: memory, not a register group. */
	struct sim_lut_store lut;

	uint32_t raw_status;
	uint32_t task_counter;

	/* Work of the current kick (sim_soc_set_work_budget): multiply-
	 * accumulates charged so far, and whether the budget ran out. */
	uint64_t work_used;
	bool stalled;

	/* Fault state (sim_soc_set_fault). */
	unsigned poll_remaining;	/* status reads left before it shows */
	struct sim_pending held;	/* completion hidden by poll=N */
	struct sim_pending late;	/* completion shown after a reset */

	struct sim_scratch scratch[SIM_SCR_COUNT];
};

/* A buffer of at least `bytes` for `slot`, valid until the slot is asked
 * again; NULL when memory runs out. */
void *sim_scratch(struct sim_core *c, enum sim_scratch_slot slot, size_t bytes);
void sim_scratch_release(struct sim_core *c);

/* Fault flags; one-shot ones are consumed by the next job. */
enum sim_fault {
	SIM_FAULT_HANG		= 1u << 0,	/* one-shot */
	SIM_FAULT_DMA_READ	= 1u << 1,	/* one-shot */
	SIM_FAULT_DMA_WRITE	= 1u << 2,	/* one-shot */
	SIM_FAULT_LATE		= 1u << 3,	/* one-shot */
	SIM_FAULT_POLL		= 1u << 4,
	SIM_FAULT_HALF_STATUS	= 1u << 5,
	SIM_FAULT_BAD_VERSION	= 1u << 6,
};

#define SIM_ALL_CORES	(-1)

struct sim_soc {
	struct sim_bus bus;
	struct sim_power *power;
	struct sim_core core[NPU_CORE_COUNT];

	uint32_t faults;
	unsigned poll_reads;		/* N of poll=N */
	int fault_core;			/* SIM_ALL_CORES or a core index */
	uint64_t work_budget;		/* per kick, 0 = unlimited */

	char err[SIM_ERR_LEN];
};

/* Record a diagnostic (sim_soc_last_error). */
void sim_error(struct sim_soc *soc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- register file (regfile.c) ---- */

/* True for blocks that have S_STATUS/S_POINTER and two register groups. */
bool sim_block_is_pingpong(int block);
/* Group a register write to this block lands in. */
unsigned sim_write_group(const struct sim_core *c, int block);
/* Store a configuration register (not S_STATUS, S_POINTER, OP_EN) of a ping-pong block or
 * any register of another block. */
void sim_reg_store(struct sim_core *c, uint16_t offset, uint32_t value);
/* S_POINTER write / read. */
void sim_pointer_write(struct sim_core *c, int block, uint32_t value);
uint32_t sim_pointer_read(const struct sim_core *c, int block);
/* After a task: toggle pointer/executer of the blocks that ran. */
void sim_pp_task_done(struct sim_core *c, uint32_t enable_mask);
/* Return a core to its reset state (HARDWARE.md §7.2). */
void sim_core_reset(struct sim_core *c);

/* ---- PC (pc.c) ---- */

uint32_t sim_pc_read(struct sim_core *c, uint16_t offset);
void sim_pc_write(struct sim_core *c, uint16_t offset, uint32_t value);
/* Slave-mode start through GLOBAL OPERATION_ENABLE. */
void sim_pc_global_enable(struct sim_core *c, uint32_t enable_mask);
bool sim_fault_applies(const struct sim_core *c, uint32_t fault);

/* ---- execution (exec.c) ---- */

/* Result of running one task. */
enum sim_exec_result {
	SIM_EXEC_OK = 0,
	SIM_EXEC_READ_ERROR,	/* DMA read outside RAM, or refused config */
	SIM_EXEC_WRITE_ERROR,	/* DMA write outside RAM */
	SIM_EXEC_STALL,		/* the kick's work budget ran out: never completes */
};

/* Charge `work` multiply-accumulates (or element operations) of the task
 * about to run to the kick; true when that exceeds the budget, and the
 * task must not run. */
bool sim_charge(struct sim_core *c, uint64_t work);

/* Read a register of `block` as the executing group sees it. */
uint32_t sim_exec_reg(const struct sim_core *c, int block, uint16_t offset);

/*
 * Run the blocks in enable_mask on the executing register groups.
 * write_output false models a DMA write error (nothing is stored).
 */
enum sim_exec_result sim_exec_task(struct sim_core *c, uint32_t enable_mask,
				   bool write_output);

#endif /* RKBARE_SIM_INTERNAL_H */
