// SPDX-License-Identifier: MIT
/* DMA verifier (dma_verify.h): the ranges a command stream lets the NPU touch. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rkbare/npu_regs.h"
#include "runtime/dma_verify.h"

/* The registers whose values decide an address or an extent. */
#define DV_TRACKED(X) \
	X(CNA, CONV_CON1) X(CNA, DATA_SIZE0) X(CNA, DATA_SIZE1) X(CNA, DMA_CON1) \
	X(CNA, DMA_CON2) X(CNA, FEATURE_DATA_ADDR) X(CNA, DCOMP_ADDR0) X(CNA, WEIGHT_SIZE0) \
	X(DPU, FEATURE_MODE_CFG) X(DPU, DATA_FORMAT) X(DPU, DST_BASE_ADDR) \
	X(DPU, DST_SURF_STRIDE) X(DPU, DATA_CUBE_WIDTH) X(DPU, DATA_CUBE_HEIGHT) \
	X(DPU, DATA_CUBE_CHANNEL) X(DPU, BS_OW_CFG) X(DPU, SURFACE_ADD) \
	X(DPU_RDMA, SRC_BASE_ADDR) X(DPU_RDMA, BRDMA_CFG) X(DPU_RDMA, BS_BASE_ADDR) \
	X(DPU_RDMA, NRDMA_CFG) X(DPU_RDMA, BN_BASE_ADDR) X(DPU_RDMA, ERDMA_CFG) \
	X(DPU_RDMA, EW_BASE_ADDR) X(DPU_RDMA, EW_SURF_STRIDE) X(DPU_RDMA, FEATURE_MODE_CFG) \
	X(PPU_RDMA, CUBE_IN_WIDTH) X(PPU_RDMA, CUBE_IN_HEIGHT) X(PPU_RDMA, CUBE_IN_CHANNEL) \
	X(PPU_RDMA, SRC_BASE_ADDR) X(PPU_RDMA, SRC_LINE_STRIDE) X(PPU_RDMA, SRC_SURF_STRIDE) \
	X(PPU_RDMA, DATA_FORMAT) X(PPU, DATA_CUBE_OUT_WIDTH) X(PPU, DATA_CUBE_OUT_HEIGHT) \
	X(PPU, DATA_CUBE_OUT_CHANNEL) X(PPU, DST_BASE_ADDR) X(PPU, DST_SURF_STRIDE) \
	X(PPU, DATA_FORMAT)

enum dv_slot {
#define DV_SLOT(b, r) DV_##b##_##r,
	DV_TRACKED(DV_SLOT)
#undef DV_SLOT
	DV_SLOT_COUNT
};
_Static_assert(DV_SLOT_COUNT <= DV_REGS, "dv_state too small");

static const struct {
	uint16_t offset;
	const char *name;
} slots[DV_SLOT_COUNT] = {
#define DV_DESC(b, r) [DV_##b##_##r] = { NPU_##b##_##r, #b " " #r },
	DV_TRACKED(DV_DESC)
#undef DV_DESC
};

/* Field of a tracked register's current value. */
#define DV_F(s, b, r, f)	NPU_FG(b, r, f, (s)->v[DV_##b##_##r])
#define DV_R(s, b, r)		((s)->v[DV_##b##_##r])

/* CNA DMA_CON2.SURF_STRIDE is signed 28-bit (HARDWARE.md §5.2, A9). */
#define CNA_SURF_STRIDE_BITS	28u
/* Stride and address fields that count 16-byte units in bits [31:4]. */
#define DV_ALIGN16(v)		((uint64_t)((v) & ~0xFu))
/* DPU FEATURE_MODE_CFG.output_mode bit: the result goes to memory. */
#define DPU_OUT_TO_MEMORY	2u
/* PC fetch granularity in qwords (HARDWARE.md §2.4). */
#define PC_FETCH_UNIT_QWORDS	2u

struct dv_ctx {
	const struct dv_range *owned;
	size_t n_owned;
	uint32_t task;
	char *err;
	size_t err_len;
};

static int dv_fail(const struct dv_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->err_len) {
		va_start(ap, fmt);
		vsnprintf(c->err, c->err_len, fmt, ap);
		va_end(ap);
	}
	return -EFAULT;
}

void dv_state_reset(struct dv_state *s)
{
	memset(s, 0, sizeof(*s));
}

static unsigned prec_bytes(uint32_t prec)
{
	switch (prec) {
	case NPU_PREC_INT8:
		return 1;
	case NPU_PREC_INT16:
	case NPU_PREC_FP16:
	case NPU_PREC_BF16:
		return 2;
	default:
		return 4;
	}
}

/* Channels per 16-byte atom: int4 packs two a byte (HARDWARE.md §5.7). */
static uint64_t prec_c2(uint32_t prec)
{
	return prec == NPU_PREC_INT4 ? 2u * NPU_ATOM_BYTES : NPU_ATOM_BYTES / prec_bytes(prec);
}

/* [addr, addr + extent) must lie inside one owned buffer. */
static int check(const struct dv_ctx *c, const char *reg, uint64_t addr, uint64_t extent)
{
	for (size_t i = 0; i < c->n_owned; i++) {
		const struct dv_range *r = &c->owned[i];

		if (addr >= r->addr && extent <= r->size && addr - r->addr <= r->size - extent)
			return 0;
	}
	return dv_fail(c, "task %u: %s 0x%08llx + %llu bytes lies outside every buffer the "
		       "job owns", c->task, reg, (unsigned long long)addr,
		       (unsigned long long)extent);
}

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1u) / b;
}

/* CNA: the feature slice (signed surface stride) and the weights. */
static int check_cna(const struct dv_ctx *c, const struct dv_state *s)
{
	uint64_t w = DV_F(s, CNA, DATA_SIZE0, DATAIN_WIDTH);
	uint64_t h = DV_F(s, CNA, DATA_SIZE0, DATAIN_HEIGHT);
	uint64_t ch = DV_F(s, CNA, DATA_SIZE1, DATAIN_CHANNEL);
	uint64_t c2 = prec_c2(DV_F(s, CNA, CONV_CON1, IN_PRECISION));
	int64_t line = DV_F(s, CNA, DMA_CON1, LINE_STRIDE);
	uint32_t surf_raw = DV_F(s, CNA, DMA_CON2, SURF_STRIDE);
	int64_t surf = (surf_raw & (1u << (CNA_SURF_STRIDE_BITS - 1u))) ?
		       (int64_t)surf_raw - (1ll << CNA_SURF_STRIDE_BITS) : (int64_t)surf_raw;
	uint64_t row_pitch = (uint64_t)line / 4u * NPU_ATOM_BYTES, extent;
	int64_t surf_pitch = (line + surf) * (int64_t)NPU_ATOM_BYTES;
	int rc;

	if (!w || !h || !ch)
		return dv_fail(c, "task %u: CNA DATA_SIZE0/1: an empty %llux%llux%llu input",
			       c->task, (unsigned long long)w, (unsigned long long)h,
			       (unsigned long long)ch);
	if (div_up(ch, c2) > 1u && surf_pitch <= 0)
		return dv_fail(c, "task %u: CNA DMA_CON1/DMA_CON2: a surface of %lld bytes",
			       c->task, (long long)surf_pitch);
	extent = (div_up(ch, c2) - 1u) * (uint64_t)(surf_pitch > 0 ? surf_pitch : 0) +
		 (h - 1u) * row_pitch + w * NPU_ATOM_BYTES;
	rc = check(c, "CNA FEATURE_DATA_ADDR", DV_R(s, CNA, FEATURE_DATA_ADDR), extent);
	if (!rc)
		rc = check(c, "CNA DCOMP_ADDR0 (weights)", DV_R(s, CNA, DCOMP_ADDR0),
			   DV_R(s, CNA, WEIGHT_SIZE0));
	return rc;
}

/* Bytes from the first to past the last element of a DPU/PPU output cube
 * written in kernel groups of kg channels, `group` bytes apart, surfaces of
 * c2 channels `surf` bytes apart inside a group (A16); plain NC1HWC2 is
 * kg = c2 and group = surf. */
static uint64_t cube_extent(uint64_t w, uint64_t h, uint64_t ch, uint64_t c2, uint64_t kg,
			    uint64_t surf, uint64_t group)
{
	uint64_t last = ch - 1u, end;

	/* the last channel, and the last of the full group before it */
	end = (last / kg) * group + ((last % kg) / c2) * surf;
	if (last / kg) {
		uint64_t full = (last / kg - 1u) * group + ((kg - 1u) / c2) * surf;

		if (full > end)
			end = full;
	}
	return end + w * h * NPU_ATOM_BYTES;
}

static int check_dpu(const struct dv_ctx *c, const struct dv_state *s)
{
	uint64_t w = DV_R(s, DPU, DATA_CUBE_WIDTH) + 1ull;
	uint64_t h = DV_R(s, DPU, DATA_CUBE_HEIGHT) + 1ull;
	uint64_t ch = DV_F(s, DPU, DATA_CUBE_CHANNEL, CHANNEL) + 1ull;
	uint64_t c2 = NPU_ATOM_BYTES / prec_bytes(DV_F(s, DPU, DATA_FORMAT, OUT_PRECISION));
	uint64_t kg = (DV_F(s, DPU, BS_OW_CFG, SIZE_E_0) + 1ull) * c2;

	if (!(DV_F(s, DPU, FEATURE_MODE_CFG, OUTPUT_MODE) & DPU_OUT_TO_MEMORY))
		return 0;
	return check(c, "DPU DST_BASE_ADDR", DV_R(s, DPU, DST_BASE_ADDR),
		     cube_extent(w, h, ch, c2, kg, DV_ALIGN16(DV_R(s, DPU, DST_SURF_STRIDE)),
				 DV_ALIGN16(DV_R(s, DPU, SURFACE_ADD))));
}

/* DPU_RDMA: main input (a DPU task without the CORE), BS/BN per-channel
 * operands (int32 per channel, A19) and the EW operand (A20). */
static int check_dpu_rdma(const struct dv_ctx *c, const struct dv_state *s, uint32_t enable)
{
	uint64_t w = DV_R(s, DPU, DATA_CUBE_WIDTH) + 1ull;
	uint64_t h = DV_R(s, DPU, DATA_CUBE_HEIGHT) + 1ull;
	uint64_t ch = DV_F(s, DPU, DATA_CUBE_CHANNEL, CHANNEL) + 1ull;
	uint32_t erdma = DV_R(s, DPU_RDMA, ERDMA_CFG);
	int rc = 0;

	if (!(enable & NPU_EN_CORE) &&
	    !DV_F(s, DPU_RDMA, FEATURE_MODE_CFG, MRDMA_DISABLE)) {
		uint64_t c2 = NPU_ATOM_BYTES /
			      prec_bytes(DV_F(s, DPU_RDMA, FEATURE_MODE_CFG, IN_PRECISION));

		rc = check(c, "DPU_RDMA SRC_BASE_ADDR", DV_R(s, DPU_RDMA, SRC_BASE_ADDR),
			   div_up(ch, c2) * w * h * NPU_ATOM_BYTES);
	}
	if (!rc && DV_F(s, DPU_RDMA, BRDMA_CFG, BRDMA_DATA_USE))
		rc = check(c, "DPU_RDMA BS_BASE_ADDR", DV_R(s, DPU_RDMA, BS_BASE_ADDR), ch * 4u);
	if (!rc && DV_F(s, DPU_RDMA, NRDMA_CFG, NRDMA_DATA_USE))
		rc = check(c, "DPU_RDMA BN_BASE_ADDR", DV_R(s, DPU_RDMA, BN_BASE_ADDR), ch * 4u);
	if (!rc && !NPU_FG(DPU_RDMA, ERDMA_CFG, ERDMA_DISABLE, erdma)) {
		uint32_t code = NPU_FG(DPU_RDMA, ERDMA_CFG, ERDMA_DATA_SIZE, erdma);
		uint64_t bytes = code ? 1u << (code - 1u) : 1u, c2 = NPU_ATOM_BYTES / bytes;
		uint64_t extent = NPU_FG(DPU_RDMA, ERDMA_CFG, ERDMA_DATA_MODE, erdma) ?
				  cube_extent(w, h, ch, c2, c2,
					      DV_ALIGN16(DV_R(s, DPU_RDMA, EW_SURF_STRIDE)),
					      DV_ALIGN16(DV_R(s, DPU_RDMA, EW_SURF_STRIDE))) :
				  ch * bytes;

		rc = check(c, "DPU_RDMA EW_BASE_ADDR", DV_R(s, DPU_RDMA, EW_BASE_ADDR), extent);
	}
	return rc;
}

static int check_ppu_rdma(const struct dv_ctx *c, const struct dv_state *s)
{
	uint64_t w = DV_R(s, PPU_RDMA, CUBE_IN_WIDTH) + 1ull;
	uint64_t h = DV_R(s, PPU_RDMA, CUBE_IN_HEIGHT) + 1ull;
	uint64_t ch = DV_R(s, PPU_RDMA, CUBE_IN_CHANNEL) + 1ull;
	uint32_t size = DV_F(s, PPU_RDMA, DATA_FORMAT, IN_PRECISION);
	/* an element size code (npu_regs.h); 4-bit counted as a byte */
	uint64_t c2 = NPU_ATOM_BYTES / (size == NPU_PPU_RDMA_IN_32BIT ? 4u :
					size == NPU_PPU_RDMA_IN_16BIT ? 2u : 1u);
	uint64_t line = DV_ALIGN16(DV_R(s, PPU_RDMA, SRC_LINE_STRIDE));
	uint64_t surf = DV_ALIGN16(DV_R(s, PPU_RDMA, SRC_SURF_STRIDE));

	return check(c, "PPU_RDMA SRC_BASE_ADDR", DV_R(s, PPU_RDMA, SRC_BASE_ADDR),
		     (div_up(ch, c2) - 1u) * surf + (h - 1u) * line + w * NPU_ATOM_BYTES);
}

static int check_ppu(const struct dv_ctx *c, const struct dv_state *s)
{
	uint64_t w = DV_R(s, PPU, DATA_CUBE_OUT_WIDTH) + 1ull;
	uint64_t h = DV_R(s, PPU, DATA_CUBE_OUT_HEIGHT) + 1ull;
	uint64_t ch = DV_R(s, PPU, DATA_CUBE_OUT_CHANNEL) + 1ull;
	uint64_t c2 = NPU_ATOM_BYTES / prec_bytes(DV_F(s, PPU, DATA_FORMAT, PROC_PRECISION));

	uint64_t surf = DV_ALIGN16(DV_R(s, PPU, DST_SURF_STRIDE));

	return check(c, "PPU DST_BASE_ADDR", DV_ALIGN16(DV_R(s, PPU, DST_BASE_ADDR)),
		     cube_extent(w, h, ch, c2, c2, surf, surf));
}

static void track(struct dv_state *s, uint16_t offset, uint32_t value)
{
	for (unsigned i = 0; i < DV_SLOT_COUNT; i++) {
		if (slots[i].offset == offset) {
			s->v[i] = value;
			return;
		}
	}
}

int dv_check_task(struct dv_state *s, const uint64_t *entries, size_t count, uint32_t index,
		  const struct dv_range *owned, size_t n_owned, char *err, size_t err_len)
{
	const struct dv_ctx c = { owned, n_owned, index, err, err_len };
	uint32_t next = 0, amount = 0, enable = 0;
	bool op_en = false;
	int rc = 0;

	for (size_t i = 0; i < count && !op_en; i++) {
		uint16_t target = npu_rc_target(entries[i]), offset = npu_rc_offset(entries[i]);
		uint32_t value = npu_rc_value(entries[i]);

		if (target == NPU_RC_TARGET_OP_EN) {
			enable = value;
			op_en = true;
		} else if (target == NPU_PC_TARGET && offset == NPU_PC_BASE_ADDRESS) {
			next = (uint32_t)DV_ALIGN16(value);
		} else if (target == NPU_PC_TARGET && offset == NPU_PC_REGISTER_AMOUNTS) {
			amount = NPU_FG(PC, REGISTER_AMOUNTS, PC_DATA_AMOUNT, value);
		} else if (entries[i] && target != NPU_RC_TARGET_MARKER) {
			track(s, offset, value);
		}
	}
	if (!op_en)
		return dv_fail(&c, "task %u: no op-enable entry in its %zu fetched qwords", index,
			       count);
	if (enable & NPU_EN_CNA)
		rc = check_cna(&c, s);
	if (!rc && (enable & NPU_EN_DPU))
		rc = check_dpu(&c, s);
	if (!rc && (enable & NPU_EN_DPU_RDMA))
		rc = check_dpu_rdma(&c, s, enable);
	if (!rc && (enable & NPU_EN_PPU_RDMA))
		rc = check_ppu_rdma(&c, s);
	if (!rc && (enable & NPU_EN_PPU))
		rc = check_ppu(&c, s);
	if (!rc && next)
		rc = check(&c, "PC BASE_ADDRESS (next task)", next,
			   ((uint64_t)amount + 1u) * PC_FETCH_UNIT_QWORDS * sizeof(uint64_t));
	return rc;
}

int dv_check_job(const struct npu_task *tasks, uint32_t task_count, const uint64_t *stream_cpu,
		 uint32_t stream_addr, size_t stream_qwords, const struct dv_range *owned,
		 size_t n_owned, char *err, size_t err_len)
{
	struct dv_state s;

	dv_state_reset(&s);
	for (uint32_t i = 0; i < task_count; i++) {
		const struct dv_ctx c = { owned, n_owned, i, err, err_len };
		uint64_t at = tasks[i].regcmd_addr;
		uint64_t n = (uint64_t)tasks[i].regcfg_amount + NPU_RC_TAIL_QWORDS;
		int rc;

		if (at < stream_addr || (at - stream_addr) % sizeof(uint64_t) ||
		    (at - stream_addr) / sizeof(uint64_t) > stream_qwords ||
		    n > stream_qwords - (at - stream_addr) / sizeof(uint64_t))
			return dv_fail(&c, "task %u: its %llu qwords at 0x%08llx lie outside the "
				       "command stream", i, (unsigned long long)n,
				       (unsigned long long)at);
		rc = check(&c, "PC BASE_ADDRESS (task fetch)", at, n * sizeof(uint64_t));
		if (!rc)
			rc = dv_check_task(&s, stream_cpu + (at - stream_addr) / sizeof(uint64_t),
					   (size_t)n, i, owned, n_owned, err, err_len);
		if (rc)
			return rc;
	}
	return 0;
}
