/* SPDX-License-Identifier: MIT */
/*
 * RK3588 NPU driver: power/clock/reset bring-up of the three cores, job
 * submission through the Program Controller (PC) and polled completion.
 *
 * The driver names no address: everything SoC-specific (register windows,
 * power-domain bits, clock gates, reset lines) comes from a struct npu_board
 * filled by the board (board/rk3588/npu_board.c). The qemu-virt board uses
 * the same table because the NPU model emulates the same SoC.
 *
 * The job model mirrors the Rockchip BSP rknpu submit (task descriptors,
 * task ranges, sub-core slots) with structures of our own
 * (rockchip-linux/kernel drivers/rknpu/include/rknpu_ioctl.h, restated).
 */
#ifndef RKBARE_NPU_H
#define RKBARE_NPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal.h"
#include "rkbare/npu_regs.h"

/* ---- board description ---- */

/* One bit of a Rockchip hi-word-masked control register (CRU, PMU). */
struct npu_hw_bit {
	uint16_t reg;		/* offset from the block base (CRU or PMU) */
	uint8_t bit;
};

/* A multi-bit field of a hi-word-masked selector register. */
struct npu_hw_field {
	uint16_t reg;
	uint8_t shift;
	uint8_t width;
	uint16_t value;		/* value the driver programs */
	const char *name;	/* for diagnostics */
};

/* PMU register offsets (HARDWARE.md §B.2). */
struct npu_pmu_layout {
	uint16_t pwr_con;	/* PWR_GATE_SFTCON: 1 = power off (W1-mask) */
	uint16_t pwr_status;	/* PWR_GATE_ST: 1 = off */
	uint16_t bus_idle_req;	/* BUS_IDLE_SFTCON: 1 = request idle (W1-mask) */
	uint16_t bus_idle_ack;
	uint16_t bus_idle_st;
	uint16_t mem_pwr;	/* MEMPWR_GATE_SFTCON: 1 = memory off (W1-mask) */
	uint16_t chain_status;	/* PWR_CHAIN1_ST: 1 = chain up */
	uint16_t mem_status;	/* PWR_MEM_ST: 1 = memory off */
	uint16_t repair_status;	/* BISR_STATUS: 1 = domain on */
};

#define NPU_BIT_NONE	0xFFu	/* "this domain has no such bit" */
#define NPU_MAX_DOMAINS	4u
#define NPU_MAX_ROOT_GATES 8u
#define NPU_MAX_CLK_SELS 6u

/* One PMU power domain (HARDWARE.md §B.2). */
struct npu_domain {
	const char *name;
	uint8_t parent;		/* index in npu_board.domains, NPU_BIT_NONE for the root */
	uint8_t pwr_bit;	/* PWR_GATE_SFTCON / PWR_GATE_ST bit */
	uint8_t repair_bit;	/* BISR_STATUS "on" bit, or NPU_BIT_NONE: use pwr_status */
	uint8_t mem_bit;	/* MEM_ST / CHAIN_ST bit, or NPU_BIT_NONE */
	uint8_t idle_bit;	/* BUS_IDLE req/ack/st bit, or NPU_BIT_NONE */
};

/* One NPU core: its register window, domain, bus clocks and resets. */
struct npu_core_desc {
	uintptr_t base;		/* CPU address of the core's register window */
	uint8_t domain;		/* index in npu_board.domains */
	struct npu_hw_bit aclk_gate;	/* CRU CLKGATE_CON: 1 = gated */
	struct npu_hw_bit hclk_gate;
	struct npu_hw_bit srst_a;	/* CRU SOFTRST_CON: 1 = asserted */
	struct npu_hw_bit srst_h;
	uint32_t irq;		/* GIC SPI number (INTID = irq + 32) */
};

struct npu_board {
	const char *name;
	uintptr_t cru_base;	/* CPU addresses of the CRU and PMU windows */
	uintptr_t pmu_base;
	struct npu_pmu_layout pmu;
	/* Domains in power-on order (parents before children). */
	struct npu_domain domains[NPU_MAX_DOMAINS];
	unsigned int domain_count;
	/* Shared NPU clocks ungated before any domain switches. */
	struct npu_hw_bit root_gates[NPU_MAX_ROOT_GATES];
	unsigned int root_gate_count;
	/* Clock selectors (source and divider of the NPU clocks). */
	struct npu_hw_field clk_sels[NPU_MAX_CLK_SELS];
	unsigned int clk_sel_count;
	struct npu_core_desc cores[NPU_CORE_COUNT];
};

extern const struct npu_board rk3588_npu_board;

/* ---- job model ---- */

/* One task: a regcmd program the PC fetches (BSP struct rknpu_task). */
struct npu_task {
	uint32_t flags;
	uint32_t op_idx;
	uint32_t enable_mask;	/* informational: the stream's op-enable entry kicks the blocks */
	uint32_t int_mask;	/* completion events of this task, pair form (e.g. NPU_INT_DPU) */
	uint32_t int_clear;
	uint32_t int_status;	/* last task of each kick: INTERRUPT_STATUS at completion,
				 * plus any DMA error bits of RAW_STATUS */
	uint32_t raw_status;	/* last task of each kick: RAW_STATUS at completion, every
				 * bit (the board probe irq-bits reads the undocumented ones) */
	uint32_t regcfg_amount;	/* qwords of the body, without the 4-qword tail */
	uint32_t regcfg_offset;
	uint64_t regcmd_addr;	/* NPU (physical) address, 16-byte aligned, < 4 GiB */
};

/* Job flags (BSP RKNPU_JOB_*). */
#define NPU_JOB_PC		(1u << 0)	/* submit through the PC (required) */
#define NPU_JOB_BLOCK		(1u << 1)	/* wait for completion (npu_submit always does) */
#define NPU_JOB_PINGPONG	(1u << 2)	/* TASK_CON.task_pp_en */
/* CNA/CORE S_POINTER without the 0x10000000·core bits every driver ORs in
 * (UNSURE, HARDWARE.md §9.4): only for the board probe that asks whether
 * they matter (core-bits). */
#define NPU_JOB_NO_CORE_BITS	(1u << 3)

#define NPU_SUBCORE_SLOTS	5u
#define NPU_DEFAULT_TIMEOUT_MS	500u	/* mainline rocket's job timeout */

struct npu_subcore_task {
	uint32_t task_start;
	uint32_t task_number;
};

/* A CPU buffer the NPU reads or writes, for cache maintenance. */
struct npu_buf {
	void *cpu;
	size_t size;
};

/* What one core did for a submit. */
struct npu_core_result {
	uint64_t hw_ticks;	/* sum over kicks of hal_counter() kick → completion seen */
	uint32_t tasks_done;	/* sum of TASK_STATUS task counters over the kicks */
	uint32_t kicks;
	int err;		/* NPU_OK or this core's npu_err */
};

struct npu_submit {
	uint32_t flags;		/* NPU_JOB_* */
	uint32_t timeout_ms;	/* per PC kick; 0 = NPU_DEFAULT_TIMEOUT_MS */
	uint32_t task_start;	/* informational: slots below select the ranges */
	uint32_t task_number;
	uint32_t core_mask;	/* bit n = core n; 0 ("auto" in the BSP) = core 0 */
	/* TASK_DMA_BASE_ADDR of every kick (HARDWARE.md §2.1, a multiple of 16):
	 * 0, as every driver writes; the board probe A4-dma-base sets it. */
	uint32_t task_dma_base;
	/*
	 * Task ranges, BSP rule (HARDWARE.md §2.5): with 1 or 2 cores in core_mask,
	 * core c runs subcore_task[c]; with 3 cores, subcore_task[c + 2].
	 * A range with task_number 0 is skipped.
	 */
	struct npu_subcore_task subcore_task[NPU_SUBCORE_SLOTS];
	struct npu_task *tasks;
	uint32_t task_count;	/* entries in tasks[], for range checks */

	/* Cache maintenance done by the driver: inputs are cleaned before the
	 * kick (each task's regcmd is cleaned by the driver too; the task
	 * descriptors are read by the CPU only), outputs are cleaned and
	 * invalidated before and invalidated after completion. */
	const struct npu_buf *inputs;
	unsigned int input_count;
	const struct npu_buf *outputs;
	unsigned int output_count;

	/* Results. */
	uint64_t hw_ticks;	/* longest core's hw_ticks */
	uint32_t task_counter;	/* tasks completed, all cores */
	struct npu_core_result core[NPU_CORE_COUNT];
};

/* ---- errors ---- */

enum npu_err {
	NPU_OK = 0,
	NPU_ERR_INVAL = -1,		/* bad argument or job description */
	NPU_ERR_NOT_POWERED = -2,	/* job for a core that is not brought up */
	NPU_ERR_PD_ON = -3,		/* domain did not report on */
	NPU_ERR_PD_MEM_CHAIN = -4,	/* memory repair: chain did not come up */
	NPU_ERR_PD_MEM_OFF = -5,	/* memory repair: memory did not turn off */
	NPU_ERR_PD_MEM_ON = -6,		/* memory repair: memory did not turn on */
	NPU_ERR_PD_IDLE_ACK = -7,	/* bus idle request not acknowledged */
	NPU_ERR_PD_IDLE_ST = -8,	/* bus idle state did not follow */
	NPU_ERR_PD_OFF = -9,		/* domain did not report off */
	NPU_ERR_RESET = -10,		/* core reset lines did not release */
	NPU_ERR_VERSION = -11,		/* PC VERSION is not the RK3588 NPU's */
	NPU_ERR_STALE = -12,		/* interrupt status would not clear before a kick */
	NPU_ERR_TIMEOUT = -13,		/* job did not complete; core was reset */
	NPU_ERR_DMA_READ = -14,		/* DMA_READ_ERROR raised */
	NPU_ERR_DMA_WRITE = -15,	/* DMA_WRITE_ERROR raised */
	NPU_ERR_BUSY = -16,		/* a core of the job runs another job */
};

/* ---- device ---- */

/*
 * Several CPUs may submit to one device at once: each core runs one job at
 * a time, and a job owns its cores from npu_submit_start until its last
 * kick on them ends (busy_mask). Jobs on different cores run
 * concurrently; a job whose cores are taken gets NPU_ERR_BUSY from
 * npu_submit_start, or waits in npu_submit_start_wait. Only the owner of
 * a core touches its registers; the fields below change under `lock`,
 * held for bookkeeping only, never while a core runs. npu_init,
 * npu_power_on and npu_power_off are not run concurrently with anything
 * on the device.
 */
struct npu_dev {
	const struct npu_board *board;
	struct hal_lock lock;		/* the fields below */
	uint32_t powered_mask;		/* cores brought up by npu_power_on */
	uint32_t lost_mask;		/* cores a failed reset left down */
	uint32_t busy_mask;		/* cores a job in flight owns */
	uint32_t version;		/* VERSION + (VERSION_NUM & 0xFFFF) */
	uint32_t timeouts[NPU_CORE_COUNT];	/* jobs that timed out, per core */
};

/* Bind the driver to a board table; touches no hardware. */
int npu_init(struct npu_dev *dev, const struct npu_board *board);

/* Clocks, power domains, core clocks, reset pulse and version check for the
 * cores in core_mask (parents included). Domains already on are left alone. */
int npu_power_on(struct npu_dev *dev, uint32_t core_mask);

/* Reset, version check and status clear of one core whose recovery
 * failed (lost_mask); on success it is powered again. npu_submit calls it
 * before using a lost core, so one failed reset does not end the core.
 * Not while a job owns the core. */
int npu_core_restart(struct npu_dev *dev, unsigned int core);

/* Reverse of npu_power_on for every core brought up. */
int npu_power_off(struct npu_dev *dev);

/* The cores powered now (powered_mask, read under the device's lock). */
uint32_t npu_powered_mask(struct npu_dev *dev);

/* Run a job to completion (or error) on the cores of submit->core_mask.
 * Cores run concurrently; each core's range is split into kicks of at most
 * NPU_MAX_TASKS_PER_KICK tasks. npu_submit_start_wait + npu_submit_poll
 * until done. */
int npu_submit(struct npu_dev *dev, struct npu_submit *submit);

/* One core's share of a job in flight. */
struct npu_core_run {
	uint32_t next;		/* first task not yet kicked */
	uint32_t end;		/* one past the core's last task */
	uint32_t last;		/* last task of the kick in flight */
	uint64_t kick_ticks;	/* hal_counter() when the kick began */
	uint64_t deadline_us;
	bool active;
};

/* A job started by npu_submit_start, for npu_submit_poll. */
struct npu_inflight {
	struct npu_submit *submit;
	struct npu_core_run runs[NPU_CORE_COUNT];
	uint32_t timeout_ms;
	unsigned int pending;	/* cores still running */
	uint32_t owned;		/* cores of busy_mask this job holds */
};

/* How long npu_submit_start_wait waits for cores another job owns: a job
 * of the runtime's ends well within it, as every kick is bounded by its
 * timeout. A build that slows everything down (ThreadSanitizer's, with
 * several threads waiting their turn on one core) may set its own. And
 * how often it looks. */
#ifndef NPU_CORE_WAIT_MS
#define NPU_CORE_WAIT_MS	5000u
#endif
#define NPU_CORE_WAIT_POLL_US	20u

/* npu_submit_poll's answer while a core still runs. */
#define NPU_PENDING	1

/* Validate and start a job (caches cleaned, every core kicked) and return
 * at once: the CPU is free while the NPU runs. NPU_OK, or an npu_err with
 * nothing in flight (NPU_ERR_BUSY: another job owns one of its cores).
 * submit must stay valid until the job is done. */
int npu_submit_start(struct npu_dev *dev, struct npu_submit *submit, struct npu_inflight *job);

/* npu_submit_start, waiting up to NPU_CORE_WAIT_MS while another job owns
 * one of the cores (busy-polling: the other job ends on another CPU, or
 * in an interrupt handler that polls it). Jobs waiting for one core are
 * served in no particular order. */
int npu_submit_start_wait(struct npu_dev *dev, struct npu_submit *submit,
			  struct npu_inflight *job);

/* One polling pass over the cores of a started job, kicking a core's next
 * range when its kick has finished: NPU_PENDING while any core runs, then
 * the job's status once (outputs invalidated, submit's results filled).
 * Each kick has its own deadline, so polling always ends. A core is given
 * back to other jobs as soon as its part ends. */
int npu_submit_poll(struct npu_dev *dev, struct npu_inflight *job);

/* Text of an npu_err (or of any other negative value). */
const char *npu_strerror(int err);

/*
 * Normalise an interrupt status word (BSP rknpu_fuzz_status): each of the
 * six ping-pong pairs with either bit set becomes both bits set; bits 12
 * and above are dropped.
 */
uint32_t rknpu_fuzz_status(uint32_t status);

#endif /* RKBARE_NPU_H */
