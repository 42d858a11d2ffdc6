/* SPDX-License-Identifier: MIT */
/*
 * PMU power domains and CRU clock gates / soft resets that gate the NPU
 * (docs/HARDWARE.md §B.2-B.3). Internal to sim/.
 */
#ifndef RKBARE_SIM_POWER_H
#define RKBARE_SIM_POWER_H

#include <stdbool.h>
#include <stdint.h>

struct sim_power;

struct sim_power *sim_power_create(bool powered_at_reset);
void sim_power_destroy(struct sim_power *pw);

/* 0 if phys is in the PMU or CRU window (access done), -1 otherwise. */
int sim_power_read32(struct sim_power *pw, uint64_t phys, uint32_t *value);
int sim_power_write32(struct sim_power *pw, uint64_t phys, uint32_t value);

/* Core n answers register accesses only when its power domain (and the
 * parents) are on, its ACLK/HCLK are ungated and its A/H resets released. */
bool sim_power_core_accessible(const struct sim_power *pw, unsigned core);

/* True (once) when core n's A/H resets were asserted since the last call:
 * the NPU model then returns the core to its reset state. */
bool sim_power_take_reset(struct sim_power *pw, unsigned core);

/* Fault: core n stays in reset whatever is written to the CRU. */
void sim_power_hold_reset(struct sim_power *pw, unsigned core, bool hold);

/* Why the last access was refused, for diagnostics. */
const char *sim_power_why_inaccessible(const struct sim_power *pw, unsigned core);

/* The last power-sequencing mistake seen (child powered before its parent,
 * domain powered off with its bus not idle, ...), or "" when none. */
const char *sim_power_last_diag(const struct sim_power *pw);

#endif /* RKBARE_SIM_POWER_H */
