/* SPDX-License-Identifier: MIT */
/*
 * The NPU model: a functional model of the RK3588 NPU (three cores) and of
 * the PMU/CRU bits that gate it, answering 32-bit register accesses at their
 * physical addresses. Used by host tests (through hal/host) and by the QEMU
 * image (through the qemu-virt board's data-abort handler).
 *
 * It must behave like the silicon as documented in
 * docs/HARDWARE.md, not like our regcmd builder.
 * Every reading of an UNSURE fact is recorded in sim/ASSUMPTIONS.md.
 */
#ifndef RKBARE_SIM_H
#define RKBARE_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Physical memory as the NPU's DMA sees it. */
struct sim_bus {
	/* CPU pointer for [phys, phys + len), or NULL when any byte of the
	 * range is not RAM (the model then raises a DMA error). */
	uint8_t *(*map)(void *ctx, uint64_t phys, size_t len);
	void *ctx;
};

struct sim_soc;

struct sim_config {
	/* true: PMU domains on, clocks ungated, resets released at creation
	 * (boot firmware left the NPU on); false: everything off. */
	bool powered_at_reset;
};

struct sim_soc *sim_soc_create(const struct sim_bus *bus, const struct sim_config *cfg);
void sim_soc_destroy(struct sim_soc *soc);

/* Register access. Return 0, or -1 when the address is in no modelled
 * window (the caller then treats it as a real bus error). */
int sim_soc_read32(struct sim_soc *soc, uint64_t phys, uint32_t *value);
int sim_soc_write32(struct sim_soc *soc, uint64_t phys, uint32_t value);

/*
 * Fault injection, also reachable from bootargs (rkbare.fault=SPEC).
 * SPEC is a comma-separated list; unknown words give -EINVAL:
 *   hang              the next job never completes
 *   poll=N            completion becomes visible only after N status reads
 *   dma_read          the next job ends with DMA_READ_ERROR
 *   dma_write         the next job ends with DMA_WRITE_ERROR
 *   half_status       each finished status pair shows the bit of the
 *                     register group that did NOT run (normally the one
 *                     that ran): exact compares fail, rknpu_fuzz_status
 *                     still matches
 *   bad_version       PC VERSION reads a wrong value
 *   late              the next job completes only after the driver gave up
 *                     (first status read after a soft reset sees its bits)
 *   reset_stuck=N     core N stays in reset whatever the CRU is told
 *   core=N            restrict the faults above to core N (default: all);
 *                     with reset_stuck, N must name the same core (a
 *                     contradiction is refused)
 * hang, dma_read, dma_write and late are consumed by the next job; the
 * others persist. An empty SPEC clears every fault (sim/ASSUMPTIONS.md A24).
 */
int sim_soc_set_fault(struct sim_soc *soc, const char *spec);

/*
 * Bound the work of one kick: a kick whose tasks need more than
 * `macs_per_kick` multiply-accumulates (pooling and element-wise elements
 * count as one each) stops before the task that would exceed it and never
 * completes — what a job slower than its caller's timeout looks like on
 * silicon, so untrusted streams cannot hold a caller for long. 0 removes the
 * bound (the default).
 */
void sim_soc_set_work_budget(struct sim_soc *soc, uint64_t macs_per_kick);

/* Human-readable reason of the last model error (malformed stream,
 * access to an unpowered core, ...), or "" when none. */
const char *sim_soc_last_error(const struct sim_soc *soc);

#endif /* RKBARE_SIM_H */
