/* SPDX-License-Identifier: MIT */
/*
 * The DPU lookup table (sim/ASSUMPTIONS.md A35): its storage, filled
 * through LUT_ACCESS_CFG / LUT_ACCESS_DATA, and the evaluation of one
 * value against the LE and LO tables (index, interpolation, the range
 * and overflow selection). Pure functions of their arguments, so the unit
 * tests can drive them directly.
 */
#ifndef RKBARE_SIM_LUT_H
#define RKBARE_SIM_LUT_H

#include <stdbool.h>
#include <stdint.h>

#include "rkbare/npu_values.h"

/* The table memory of one core: one storage for both register groups
 * (NVDLA's LUT, from which the DPU's derives, has one). */
struct sim_lut_store {
	uint16_t t[NPU_LUT_TABLES][NPU_LUT_ENTRIES];
	bool written[NPU_LUT_TABLES][NPU_LUT_ENTRIES];
	unsigned addr;		/* next entry LUT_ACCESS_DATA reaches */
	unsigned table;
	bool write;
	bool overrun;		/* a write went past the last entry */
};

/* One table's range and out-of-range slopes, from the registers. */
struct sim_lut_table {
	int64_t start, end;	/* covered inputs, both ends included */
	unsigned sel;		/* index_select: input units per entry = 2^sel */
	int64_t uflow_scale, oflow_scale;
	unsigned uflow_shift, oflow_shift;
};

struct sim_lut_cfg {
	struct sim_lut_table tab[NPU_LUT_TABLES];
	unsigned hybrid, oflow, uflow;	/* table chosen in each case */
};

/* Register writes that reach the storage. */
void sim_lut_access_cfg(struct sim_lut_store *s, uint32_t value);
void sim_lut_access_data(struct sim_lut_store *s, uint32_t value);
/* An MMIO read of LUT_ACCESS_DATA: with access type read (0), the entry at
 * the address, which then moves on (NVDLA's read-back; A35); otherwise, or
 * past the table, 0. */
uint32_t sim_lut_read_data(struct sim_lut_store *s);

/* Entries table `id` needs under `tab`: the one at each end of its range,
 * and those between (0 when the range runs backwards). */
unsigned sim_lut_entries_needed(const struct sim_lut_table *tab);

/* The LUT's output for the input x (inputs and output in the LUT's integer
 * units), with every entry the ranges need present in t. */
int64_t sim_lut_eval(const struct sim_lut_cfg *cfg,
		     const uint16_t t[NPU_LUT_TABLES][NPU_LUT_ENTRIES], int64_t x);

#endif /* RKBARE_SIM_LUT_H */
