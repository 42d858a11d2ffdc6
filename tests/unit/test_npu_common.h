/* SPDX-License-Identifier: MIT */
/*
 * Shared fixture of the NPU driver tests: the NPU model (sim/) behind the
 * host MMIO seam with access counting, a bump allocator over the host DMA
 * region, and int8 matmul tasks built here from the published register
 * values (HARDWARE.md §4.8 A, MTX int8 matmul as a 1x1 convolution;
 * layouts §5.1/§5.3/§5.4), independent of runtime/. Results are checked
 * against a plain CPU matmul.
 */
#ifndef TEST_NPU_COMMON_H
#define TEST_NPU_COMMON_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "hal.h"
#include "drivers/npu/npu.h"
#include "sim/sim.h"

/* ---- model behind the MMIO seam, with access counting ---- */

struct mmio_counts {
	uint64_t reads;
	uint64_t writes;
};

static struct sim_soc *t_soc;
static struct mmio_counts t_mmio;
/* Writes to one watched register address. */
static uint64_t t_watch_addr;
static unsigned int t_watch_writes;
/* Log of writes inside one window [t_log_base, t_log_base + t_log_size). */
#define T_LOG_MAX	64u
struct t_write { uint64_t addr; uint32_t value; };
static uint64_t t_log_base, t_log_size;
static struct t_write t_log[T_LOG_MAX];
static unsigned int t_log_count;

static uint32_t t_read32(void *ctx, uint64_t phys)
{
	uint32_t v = 0;

	t_mmio.reads++;
	if (sim_soc_read32(ctx, phys, &v)) {
		fail_msg("MMIO read of unmodelled address 0x%llx", (unsigned long long)phys);
	}
	return v;
}

static void t_write32(void *ctx, uint64_t phys, uint32_t value)
{
	t_mmio.writes++;
	if (phys == t_watch_addr)
		t_watch_writes++;
	if (phys - t_log_base < t_log_size && t_log_count < T_LOG_MAX)
		t_log[t_log_count++] = (struct t_write){ phys - t_log_base, value };
	if (sim_soc_write32(ctx, phys, value))
		fail_msg("MMIO write of unmodelled address 0x%llx", (unsigned long long)phys);
}

/* NPU DMA sees only the host DMA region as RAM. */
static uint8_t *t_bus_map(void *ctx, uint64_t phys, size_t len)
{
	(void)ctx;
	if (phys < HAL_HOST_DMA_PHYS || len > HAL_HOST_DMA_SIZE ||
	    phys - HAL_HOST_DMA_PHYS > HAL_HOST_DMA_SIZE - len)
		return NULL;
	return hal_host_phys_base() + phys;
}

static const struct sim_bus t_bus = { .map = t_bus_map };
static struct hal_host_mmio_ops t_ops = { .read32 = t_read32, .write32 = t_write32 };

static inline void t_model_create(bool powered)
{
	struct sim_config cfg = { .powered_at_reset = powered };

	t_soc = sim_soc_create(&t_bus, &cfg);
	assert_non_null(t_soc);
	t_ops.ctx = t_soc;
	hal_host_set_mmio(&t_ops);
	memset(&t_mmio, 0, sizeof(t_mmio));
	t_watch_addr = 0;
	t_watch_writes = 0;
	t_log_size = 0;
	t_log_count = 0;
}

static inline void t_model_destroy(void)
{
	hal_host_set_mmio(NULL);
	sim_soc_destroy(t_soc);
	t_soc = NULL;
}

static inline uint32_t t_peek(uint64_t phys)
{
	uint32_t v = 0;

	assert_int_equal(sim_soc_read32(t_soc, phys, &v), 0);
	return v;
}

static inline void t_poke(uint64_t phys, uint32_t value)
{
	assert_int_equal(sim_soc_write32(t_soc, phys, value), 0);
}

/* ---- DMA memory: bump allocator over the host DMA region ---- */

static size_t t_dma_used;

static inline void *t_dma_alloc(size_t size, size_t align)
{
	void *base;
	size_t total, off;

	assert_int_equal(hal_dma_region(&base, &total), 0);
	off = (t_dma_used + align - 1) & ~(align - 1);
	assert_true(off + size <= total);
	t_dma_used = off + size;
	memset((uint8_t *)base + off, 0, size);
	return (uint8_t *)base + off;
}

static inline uint32_t t_phys(const void *p)
{
	uint64_t a = hal_virt_to_phys(p);

	assert_true(a < (1ull << 32));
	return (uint32_t)a;
}

/* ---- deterministic data ---- */

static uint32_t t_rng = 0x2545F491u;

static inline uint32_t t_rand(void)
{
	t_rng ^= t_rng << 13;
	t_rng ^= t_rng >> 17;
	t_rng ^= t_rng << 5;
	return t_rng;
}

/* ---- int8 matmul C[M][N] (int32) = A[M][K] * B[K][N] as one NPU task ---- */

struct mm {
	unsigned int m, k, n;		/* M multiple of 4, K and N multiples of 32 */
	int8_t *a;			/* row-major M x K (CPU copy) */
	int8_t *b;			/* row-major K x N (CPU copy) */
	int8_t *in;			/* NPU input, NC1HWC2 (W = 1, H = M, C = K) */
	int8_t *wt;			/* NPU weights, [N/32][K/32][32 oc][32 ic] */
	int32_t *out;			/* NPU output, NC1HWC2 int32 (C2 = 4) */
	uint64_t *rc;			/* regcmd */
	uint32_t body;			/* qwords before the tail */
};

#define MM_RC_QWORDS	128u
#define MM_INT8_C2	16u		/* int8 channels per 16-byte atom */
#define MM_INT32_C2	4u		/* int32 channels per atom */
#define MM_KGROUP	32u		/* int8 kernels / input channels per weight group */

static inline size_t mm_in_off(const struct mm *t, unsigned int h, unsigned int c)
{
	/* §5.1: ((c / C2) * H * W + h * W + w) * 16 + c % C2, W = 1 */
	return ((size_t)(c / MM_INT8_C2) * t->m + h) * 16u + c % MM_INT8_C2;
}

static inline size_t mm_wt_off(const struct mm *t, unsigned int oc, unsigned int ic)
{
	/* §5.4 int8: [OC/32][IC/32][kh][kw][32 oc][32 ic], kh = kw = 1 */
	size_t group = (size_t)(oc / MM_KGROUP) * (t->k / MM_KGROUP) + ic / MM_KGROUP;

	return group * MM_KGROUP * MM_KGROUP + (oc % MM_KGROUP) * MM_KGROUP + ic % MM_KGROUP;
}

static inline size_t mm_out_idx(const struct mm *t, unsigned int h, unsigned int c)
{
	/* §5.3: NC1HWC2 in the output precision, int32 → 4 channels per atom */
	return ((size_t)(c / MM_INT32_C2) * t->m + h) * MM_INT32_C2 + c % MM_INT32_C2;
}

#define RC(blk, reg, v)	npu_rc_entry(NPU_##blk##_TARGET, (v), NPU_##blk##_##reg)

/* The body of §4.8 A (MTX order). Returns the qword count. */
static inline uint32_t mm_emit_body(const struct mm *t, uint64_t *rc)
{
	uint32_t in = t_phys(t->in), wt = t_phys(t->wt), out = t_phys(t->out);
	unsigned int m = t->m, k = t->k, n = t->n;
	uint32_t data_banks = (m * k + NPU_CBUF_BANK_BYTES - 1) / NPU_CBUF_BANK_BYTES;
	uint32_t s_ptr = NPU_FV(DPU, S_POINTER, POINTER_PP_EN, 1) |
			 NPU_FV(DPU, S_POINTER, EXECUTER_PP_EN, 1) |
			 NPU_FV(DPU, S_POINTER, POINTER_PP_MODE, 1);
	uint32_t i = 0;

	rc[i++] = RC(DPU, S_POINTER, s_ptr);
	rc[i++] = RC(CNA, CONV_CON1, 0);
	rc[i++] = RC(CNA, CONV_CON2, NPU_FV(CNA, CONV_CON2, FEATURE_GRAINS, m + 1));
	rc[i++] = RC(CNA, CONV_CON3, NPU_FV(CNA, CONV_CON3, CONV_X_STRIDE, 1) |
				     NPU_FV(CNA, CONV_CON3, CONV_Y_STRIDE, 1));
	rc[i++] = RC(CNA, DATA_SIZE0, NPU_FV(CNA, DATA_SIZE0, DATAIN_WIDTH, 1) |
				      NPU_FV(CNA, DATA_SIZE0, DATAIN_HEIGHT, m));
	rc[i++] = RC(CNA, DATA_SIZE1, NPU_FV(CNA, DATA_SIZE1, DATAIN_CHANNEL_REAL, k - 1) |
				      NPU_FV(CNA, DATA_SIZE1, DATAIN_CHANNEL, k));
	rc[i++] = RC(CNA, DATA_SIZE2, NPU_FV(CNA, DATA_SIZE2, DATAOUT_WIDTH, 1));
	rc[i++] = RC(CNA, DATA_SIZE3, NPU_FV(CNA, DATA_SIZE3, DATAOUT_ATOMICS, m));
	rc[i++] = RC(CNA, WEIGHT_SIZE0, k * n);
	rc[i++] = RC(CNA, WEIGHT_SIZE1, NPU_FV(CNA, WEIGHT_SIZE1, WEIGHT_BYTES_PER_KERNEL, k));
	rc[i++] = RC(CNA, WEIGHT_SIZE2, NPU_FV(CNA, WEIGHT_SIZE2, WEIGHT_WIDTH, 1) |
					NPU_FV(CNA, WEIGHT_SIZE2, WEIGHT_HEIGHT, 1) |
					NPU_FV(CNA, WEIGHT_SIZE2, WEIGHT_KERNELS, n));
	rc[i++] = RC(CNA, CBUF_CON0, NPU_FV(CNA, CBUF_CON0, DATA_BANK, data_banks) |
				     NPU_FV(CNA, CBUF_CON0, WEIGHT_BANK, NPU_CBUF_BANKS - data_banks));
	rc[i++] = RC(CNA, CBUF_CON1, NPU_FV(CNA, CBUF_CON1, DATA_ENTRIES, (k + 63) / 64));
	rc[i++] = RC(CNA, CVT_CON0, NPU_FV(CNA, CVT_CON0, CVT_BYPASS, 1) |
				    NPU_FV(CNA, CVT_CON0, CVT_TYPE, 1) |
				    NPU_FV(CNA, CVT_CON0, DATA_SIGN, 1));
	rc[i++] = RC(CNA, CVT_CON1, NPU_FV(CNA, CVT_CON1, CVT_SCALE0, 1));
	rc[i++] = RC(CNA, CVT_CON2, NPU_FV(CNA, CVT_CON2, CVT_SCALE1, 1));
	rc[i++] = RC(CNA, CVT_CON3, NPU_FV(CNA, CVT_CON3, CVT_SCALE2, 1));
	rc[i++] = RC(CNA, CVT_CON4, NPU_FV(CNA, CVT_CON4, CVT_SCALE3, 1));
	rc[i++] = RC(CNA, FC_CON0, 0);
	rc[i++] = RC(CNA, FC_CON1, 0);
	rc[i++] = RC(CNA, PAD_CON0, 0);
	rc[i++] = RC(CNA, FEATURE_DATA_ADDR, in);
	rc[i++] = RC(CNA, FC_CON2, 0);
	rc[i++] = RC(CNA, DMA_CON0, NPU_FV(CNA, DMA_CON0, WEIGHT_BURST_LEN, 15) |
				    NPU_FV(CNA, DMA_CON0, DATA_BURST_LEN, 15));
	rc[i++] = RC(CNA, DMA_CON1, NPU_FV(CNA, DMA_CON1, LINE_STRIDE, 4));
	rc[i++] = RC(CNA, DMA_CON2, NPU_FV(CNA, DMA_CON2, SURF_STRIDE, 4 * (m / 4 - 1)));
	rc[i++] = RC(CNA, FC_DATA_SIZE0, NPU_FV(CNA, FC_DATA_SIZE0, DMA_WIDTH, 1) |
					 NPU_FV(CNA, FC_DATA_SIZE0, DMA_HEIGHT, m));
	rc[i++] = RC(CNA, FC_DATA_SIZE1, NPU_FV(CNA, FC_DATA_SIZE1, DMA_CHANNEL, k));
	rc[i++] = RC(CNA, DCOMP_CTRL, 0);
	rc[i++] = RC(CNA, DCOMP_REGNUM, 0);
	rc[i++] = RC(CNA, DCOMP_ADDR0, wt);
	rc[i++] = RC(CNA, CVT_CON5, 0);
	rc[i++] = RC(CNA, PAD_CON1, 0);
	rc[i++] = RC(CORE, MISC_CFG, 0);
	rc[i++] = RC(CORE, DATAOUT_SIZE_0, NPU_FV(CORE, DATAOUT_SIZE_0, DATAOUT_HEIGHT, m - 1) |
					   NPU_FV(CORE, DATAOUT_SIZE_0, DATAOUT_WIDTH, 0));
	rc[i++] = RC(CORE, DATAOUT_SIZE_1, NPU_FV(CORE, DATAOUT_SIZE_1, DATAOUT_CHANNEL, n - 1));
	rc[i++] = RC(CORE, CLIP_TRUNCATE, 0);
	rc[i++] = RC(CORE, RESERVED_3030, 0);
	rc[i++] = RC(DPU, FEATURE_MODE_CFG, NPU_FV(DPU, FEATURE_MODE_CFG, BURST_LEN, 15) |
					    NPU_FV(DPU, FEATURE_MODE_CFG, OUTPUT_MODE, 2));
	rc[i++] = RC(DPU, DATA_FORMAT, NPU_FV(DPU, DATA_FORMAT, OUT_PRECISION, NPU_PREC_INT32));
	rc[i++] = RC(DPU, OFFSET_PEND, 0);
	rc[i++] = RC(DPU, DST_BASE_ADDR, out);
	rc[i++] = RC(DPU, DST_SURF_STRIDE, NPU_FV(DPU, DST_SURF_STRIDE, DST_SURF_STRIDE, m));
	rc[i++] = RC(DPU, DATA_CUBE_WIDTH, 0);
	rc[i++] = RC(DPU, DATA_CUBE_HEIGHT, NPU_FV(DPU, DATA_CUBE_HEIGHT, HEIGHT, m - 1));
	rc[i++] = RC(DPU, DATA_CUBE_NOTCH_ADDR, 0);
	rc[i++] = RC(DPU, DATA_CUBE_CHANNEL, NPU_FV(DPU, DATA_CUBE_CHANNEL, ORIG_CHANNEL, n - 1) |
					     NPU_FV(DPU, DATA_CUBE_CHANNEL, CHANNEL, n - 1));
	rc[i++] = RC(DPU, BS_CFG, NPU_FV(DPU, BS_CFG, BS_RELU_BYPASS, 1) |
				  NPU_FV(DPU, BS_CFG, BS_MUL_BYPASS, 1) |
				  NPU_FV(DPU, BS_CFG, BS_ALU_BYPASS, 1) |
				  NPU_FV(DPU, BS_CFG, BS_BYPASS, 1));
	rc[i++] = RC(DPU, BS_ALU_CFG, 0);
	rc[i++] = RC(DPU, BS_MUL_CFG, 0);
	rc[i++] = RC(DPU, BS_RELUX_CMP_VALUE, 0);
	rc[i++] = RC(DPU, BS_OW_CFG, NPU_FV(DPU, BS_OW_CFG, SIZE_E_2, 7) |
				     NPU_FV(DPU, BS_OW_CFG, SIZE_E_1, 7) |
				     NPU_FV(DPU, BS_OW_CFG, SIZE_E_0, 7) |
				     NPU_FV(DPU, BS_OW_CFG, OD_BYPASS, 1));
	rc[i++] = RC(DPU, BS_OW_OP, 0);
	rc[i++] = RC(DPU, WDMA_SIZE_0, NPU_FV(DPU, WDMA_SIZE_0, CHANNEL_WDMA, n - 1));
	rc[i++] = RC(DPU, WDMA_SIZE_1, NPU_FV(DPU, WDMA_SIZE_1, HEIGHT_WDMA, m - 1) |
				       NPU_FV(DPU, WDMA_SIZE_1, WIDTH_WDMA, 0));
	rc[i++] = RC(DPU, BN_CFG, NPU_FV(DPU, BN_CFG, BN_RELU_BYPASS, 1) |
				  NPU_FV(DPU, BN_CFG, BN_MUL_BYPASS, 1) |
				  NPU_FV(DPU, BN_CFG, BN_ALU_BYPASS, 1) |
				  NPU_FV(DPU, BN_CFG, BN_BYPASS, 1));
	rc[i++] = RC(DPU, EW_CFG, NPU_FV(DPU, EW_CFG, EW_RELU_BYPASS, 1) |
				  NPU_FV(DPU, EW_CFG, EW_OP_CVT_BYPASS, 1) |
				  NPU_FV(DPU, EW_CFG, EW_LUT_BYPASS, 1) |
				  NPU_FV(DPU, EW_CFG, EW_OP_BYPASS, 1) |
				  NPU_FV(DPU, EW_CFG, EW_BYPASS, 1));
	rc[i++] = RC(DPU, EW_CVT_SCALE_VALUE, NPU_FV(DPU, EW_CVT_SCALE_VALUE, EW_OP_CVT_SCALE, 1));
	rc[i++] = RC(DPU, OUT_CVT_OFFSET, 0);
	rc[i++] = RC(DPU, OUT_CVT_SCALE, NPU_FV(DPU, OUT_CVT_SCALE, OUT_CVT_SCALE, 1));
	rc[i++] = RC(DPU, OUT_CVT_SHIFT, 0);
	rc[i++] = RC(DPU, SURFACE_ADD, NPU_FV(DPU, SURFACE_ADD, SURF_ADD, m * 8));
	/* Whole fetch units: body + 4-qword tail even (§3.6). */
	if (i % 2)
		rc[i++] = 0;
	return i;
}

/* Tail (§3.3): next task's address and fetch amount, marker, op-enable. */
static inline void mm_emit_tail(struct mm *t, uint32_t next_addr, uint32_t next_body)
{
	uint64_t *tail = t->rc + t->body;
	/* In-stream chaining rule (§2.4, vendor captures): ceil(next_body / 2) + 1. */
	uint32_t next_amount = next_body ? (next_body + 1) / 2 + 1 : 0;

	tail[0] = RC(PC, BASE_ADDRESS, next_addr);
	tail[1] = RC(PC, REGISTER_AMOUNTS, next_amount);
	tail[2] = npu_rc_entry(NPU_RC_TARGET_MARKER, 0, 0);
	tail[3] = npu_rc_entry(NPU_RC_TARGET_OP_EN, NPU_EN_CNA | NPU_EN_CORE | NPU_EN_DPU,
			       NPU_RC_OP_EN_OFFSET);
}

/* Allocate and fill one matmul with random operands; weights may be shared. */
static inline void mm_init(struct mm *t, unsigned int m, unsigned int k, unsigned int n,
		    const struct mm *share_weights)
{
	unsigned int i, j;

	memset(t, 0, sizeof(*t));
	t->m = m;
	t->k = k;
	t->n = n;
	t->a = test_malloc((size_t)m * k);
	t->in = t_dma_alloc((size_t)m * k, 64);
	t->out = t_dma_alloc((size_t)m * n * sizeof(int32_t), 64);
	t->rc = t_dma_alloc(MM_RC_QWORDS * sizeof(uint64_t), 64);
	for (i = 0; i < m; i++)
		for (j = 0; j < k; j++) {
			int8_t v = (int8_t)t_rand();

			t->a[i * k + j] = v;
			t->in[mm_in_off(t, i, j)] = v;
		}
	if (share_weights) {
		t->b = share_weights->b;
		t->wt = share_weights->wt;
	} else {
		t->b = test_malloc((size_t)k * n);
		t->wt = t_dma_alloc((size_t)k * n, 64);
		for (i = 0; i < k; i++)
			for (j = 0; j < n; j++) {
				int8_t v = (int8_t)t_rand();

				t->b[i * n + j] = v;
				t->wt[mm_wt_off(t, j, i)] = v;
			}
	}
	/* Poison the output so a task that did not run cannot pass. */
	memset(t->out, 0xA5, (size_t)m * n * sizeof(int32_t));
	t->body = mm_emit_body(t, t->rc);
	assert_true(t->body + NPU_RC_TAIL_QWORDS <= MM_RC_QWORDS);
	mm_emit_tail(t, 0, 0);
}

static inline void mm_free(struct mm *t, bool owns_weights)
{
	test_free(t->a);
	if (owns_weights)
		test_free(t->b);
}

/* Chain tasks[i] → tasks[i + 1] in the stream; the last one ends the chain. */
static inline void mm_chain(struct mm *tasks, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++) {
		if (i + 1 < count)
			mm_emit_tail(&tasks[i], t_phys(tasks[i + 1].rc), tasks[i + 1].body);
		else
			mm_emit_tail(&tasks[i], 0, 0);
	}
}

/* Task descriptor as the vendor runtime fills it (§4.8 A). */
static inline void mm_task_desc(const struct mm *t, struct npu_task *d)
{
	memset(d, 0, sizeof(*d));
	d->enable_mask = NPU_EN_CNA | NPU_EN_CORE | NPU_EN_DPU;
	d->int_mask = NPU_INT_DPU;
	d->int_clear = NPU_INT_CLEAR_ALL;
	d->regcfg_amount = t->body;
	d->regcmd_addr = t_phys(t->rc);
}

/* CPU reference, written from the matmul definition only. */
static inline int mm_check(const struct mm *t)
{
	unsigned int i, j, l;
	int bad = 0;

	for (i = 0; i < t->m; i++)
		for (j = 0; j < t->n; j++) {
			int32_t want = 0;

			for (l = 0; l < t->k; l++)
				want += (int32_t)t->a[i * t->k + l] * t->b[l * t->n + j];
			if (t->out[mm_out_idx(t, i, j)] != want) {
				if (!bad)
					print_error("C[%u][%u] = %d, want %d\n", i, j,
						    t->out[mm_out_idx(t, i, j)], want);
				bad++;
			}
		}
	return bad;
}

static inline struct npu_buf mm_out_buf(const struct mm *t)
{
	return (struct npu_buf){ t->out, (size_t)t->m * t->n * sizeof(int32_t) };
}

/* A one-core submit of tasks[start, start + count) on core c. */
static inline void t_submit_init(struct npu_submit *s, struct npu_task *tasks, uint32_t task_count,
			  unsigned int core, uint32_t start, uint32_t count)
{
	memset(s, 0, sizeof(*s));
	s->flags = NPU_JOB_PC | NPU_JOB_BLOCK | NPU_JOB_PINGPONG;
	s->core_mask = 1u << core;
	s->task_start = start;
	s->task_number = count;
	s->subcore_task[core].task_start = start;
	s->subcore_task[core].task_number = count;
	s->tasks = tasks;
	s->task_count = task_count;
}

#endif /* TEST_NPU_COMMON_H */
