// SPDX-License-Identifier: MIT
/*
 * The DPU lookup table (sim/ASSUMPTIONS.md A35). The TRM (RKNN_dpu_lut_*,
 * allbilly/rk3588 experimental/rk3588_trm.md) names the pieces: two tables
 * LE and LO, an access address and table id with auto-incrementing data
 * writes, a start and end point per table, an index_select per table
 * ("choose some bits to be the index"), under- and overflow slope scales
 * and shifts, and which table wins on a hybrid hit, an overflow and an
 * underflow. How they combine is NVDLA's LUT (the DPU derives from NVDLA's
 * SDP; nvdla.org hw/v1 "LUT programming", kept beside the TRM as
 * experimental/nvdla_lut_programming.md): index = (x - start) >> select,
 * linear interpolation between neighbouring entries, out-of-range inputs
 * extrapolated from the end entry with the slope, the priority bits
 * deciding when both or neither table covers x.
 */
#include "sim/lut.h"

#include "sim/exec.h"

void sim_lut_access_cfg(struct sim_lut_store *s, uint32_t value)
{
	s->addr = NPU_FG(DPU, LUT_ACCESS_CFG, LUT_ADDR, value);
	s->table = NPU_FG(DPU, LUT_ACCESS_CFG, LUT_TABLE_ID, value);
	s->write = NPU_FG(DPU, LUT_ACCESS_CFG, LUT_ACCESS_TYPE, value) == NPU_LUT_ACCESS_WRITE;
}

void sim_lut_access_data(struct sim_lut_store *s, uint32_t value)
{
	if (!s->write)
		return;
	/* NVDLA: writing past the last entry is undefined; a task that uses
	 * the LUT afterwards is refused (exec_dpu.c). */
	if (s->addr >= NPU_LUT_ENTRIES) {
		s->overrun = true;
		return;
	}
	s->t[s->table][s->addr] = (uint16_t)NPU_FG(DPU, LUT_ACCESS_DATA, LUT_ACCESS_DATA, value);
	s->written[s->table][s->addr] = true;
	s->addr++;
}

uint32_t sim_lut_read_data(struct sim_lut_store *s)
{
	if (s->write || s->addr >= NPU_LUT_ENTRIES)
		return 0;
	return s->t[s->table][s->addr++];
}

unsigned sim_lut_entries_needed(const struct sim_lut_table *tab)
{
	int64_t span = tab->end - tab->start;
	int64_t last;

	if (span < 0)
		return 0;
	last = span >> tab->sel;
	/* an end between two entries interpolates towards the next one */
	if (span & (((int64_t)1 << tab->sel) - 1))
		last++;
	return last >= (int64_t)NPU_LUT_ENTRIES ? NPU_LUT_ENTRIES + 1u : (unsigned)last + 1u;
}

/* Entries are signed 16-bit (silu.py stores its negative half that way). */
static int64_t inside(const struct sim_lut_table *tab, const uint16_t *t, int64_t x)
{
	int64_t off = x - tab->start;
	int64_t idx = off >> tab->sel;
	int64_t frac = off - (idx << tab->sel);
	int64_t y0 = (int16_t)t[idx];

	if (!frac)
		return y0;
	return y0 + sim_round_shift(((int16_t)t[idx + 1] - y0) * frac, tab->sel);
}

enum lut_where { LUT_HIT, LUT_UNDER, LUT_OVER };

static enum lut_where where(const struct sim_lut_table *tab, int64_t x)
{
	return x < tab->start ? LUT_UNDER : x > tab->end ? LUT_OVER : LUT_HIT;
}

int64_t sim_lut_eval(const struct sim_lut_cfg *cfg,
		     const uint16_t t[NPU_LUT_TABLES][NPU_LUT_ENTRIES], int64_t x)
{
	enum lut_where le = where(&cfg->tab[NPU_LUT_TABLE_LE], x);
	enum lut_where lo = where(&cfg->tab[NPU_LUT_TABLE_LO], x);
	const struct sim_lut_table *tab;
	unsigned id;
	enum lut_where w;

	if (le == LUT_HIT && lo == LUT_HIT)
		id = cfg->hybrid;
	else if (le == LUT_HIT)
		id = NPU_LUT_TABLE_LE;
	else if (lo == LUT_HIT)
		id = NPU_LUT_TABLE_LO;
	else if (le == LUT_UNDER && lo == LUT_UNDER)
		id = cfg->uflow;
	else if (le == LUT_OVER && lo == LUT_OVER)
		id = cfg->oflow;
	else
		id = cfg->hybrid;	/* one table under, the other over */
	tab = &cfg->tab[id];
	w = id == NPU_LUT_TABLE_LE ? le : lo;
	if (w == LUT_HIT)
		return inside(tab, t[id], x);
	if (w == LUT_UNDER)
		return sim_sat32((int16_t)t[id][0] +
				 sim_round_shift((x - tab->start) * tab->uflow_scale,
						 tab->uflow_shift));
	return sim_sat32(inside(tab, t[id], tab->end) +
			 sim_round_shift((x - tab->end) * tab->oflow_scale, tab->oflow_shift));
}
