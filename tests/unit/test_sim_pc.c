/* SPDX-License-Identifier: MIT */
/*
 * NPU model, Program Controller side: identification and reset values
 * (HARDWARE.md §1.3, §7.2), the power gate, ping-pong register groups and their
 * status bits (§2.2, §2.9), multi-task chains (§3.5), malformed streams,
 * and every injected fault (sim.h). Streams are built by hand from the
 * facts (test_sim_util.h); results are checked against tests/ref.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "test_sim_util.h"
#include "ref/ref_nn.h"

#define RC_PA		(T_MEM + 0x000000u)
#define IN_PA		(T_MEM + 0x100000u)
#define WT_PA		(T_MEM + 0x200000u)
#define OUT_PA		(T_MEM + 0x300000u)	/* + task * OUT_STEP */
#define OUT_STEP	0x10000u
#define TASK_STEP	0x1000u			/* regcmd of task i at RC_PA + i * TASK_STEP */
#define OUT_FILL	0xCD

/* SOFTRST_CON30 (CRU + 0xA78): core 0 A/H resets, bits 6/8 (HARDWARE.md §7.1). */
#define CRU_SOFTRST_CON30	(T_CRU_BASE + 0xA78u)
#define CORE0_RESET_BITS	((1u << 6) | (1u << 8))

/* A small int8 1x1 convolution task: 4x4x16 input, 32 kernels, int32 out.
 * Each task `i` has its own weights (all = i + 1) and output buffer. */
static struct t_conv small_conv(unsigned i)
{
	struct t_conv t = {
		.prec = NPU_PREC_INT8, .h = 4, .w = 4, .c = 16, .oh = 4, .ow = 4, .oc = 32,
		.kh = 1, .kw = 1, .sy = 1, .sx = 1, .in_pa = IN_PA, .wt_pa = WT_PA + i * 0x1000u,
		.out_pa = OUT_PA + i * OUT_STEP, .in_row = 64, .in_surf = 256,
		.out_prec = NPU_PREC_INT32, .cvt_scale = 1, .out_surf = 256,
	};

	return t;
}

static void prepare_data(unsigned tasks)
{
	uint8_t *in = t_phys(IN_PA);

	for (unsigned i = 0; i < 256; i++)
		in[i] = (uint8_t)(int8_t)((int)(i * 7 % 23) - 11);
	for (unsigned t = 0; t < tasks; t++) {
		memset(t_phys(WT_PA + t * 0x1000u), (int)(t + 1), 32 * 16);
		memset(t_phys(OUT_PA + t * OUT_STEP), OUT_FILL, 8 * 256);
	}
}

/* Reference for small_conv(i): every output channel = (i + 1) * sum of the
 * 16 input channels of the pixel. */
static void check_output(unsigned task, bool written)
{
	const uint8_t *in = t_phys(IN_PA), *out = t_phys(OUT_PA + task * OUT_STEP);
	int32_t x[16 * 16], w[32 * 16];
	int64_t acc[16 * 32];
	struct ref_conv_shape sh = { .h = 4, .w = 4, .c = 16, .oh = 4, .ow = 4, .oc = 32,
				     .kh = 1, .kw = 1, .sy = 1, .sx = 1 };

	if (!written) {
		for (unsigned i = 0; i < 8 * 256; i++)
			assert_int_equal(out[i], OUT_FILL);
		return;
	}
	for (unsigned p = 0; p < 16; p++)
		for (unsigned ch = 0; ch < 16; ch++)
			x[p * 16 + ch] = (int8_t)in[p * 16 + ch];
	for (unsigned i = 0; i < 32 * 16; i++)
		w[i] = (int32_t)task + 1;
	ref_conv_int(&sh, x, w, 0, acc);
	for (unsigned y = 0; y < 4; y++)
	for (unsigned xx = 0; xx < 4; xx++)
	for (unsigned o = 0; o < 32; o++) {
		int32_t got;

		memcpy(&got, out + t_nc1hwc2(4, 4, 256, 4, o, y, xx), 4);
		assert_int_equal(got, acc[(y * 4 + xx) * 32 + o]);
	}
}

/* Store a chain of `n` tasks (tail of task i points at task i + 1). */
static uint32_t store_chain(unsigned n, unsigned *first_total)
{
	struct t_rc rc[4];
	uint32_t en = 0;

	assert_true(n <= 4);
	for (unsigned i = 0; i < n; i++) {
		struct t_conv t = small_conv(i);

		rc[i].n = 0;
		en = t_conv_body(&rc[i], &t);
	}
	for (unsigned i = 0; i < n; i++) {
		bool last = i + 1 == n;
		/* next task's amount: tail included, ceil(total / 2) - 1 (§2.4) */
		uint32_t next = last ? 0 : t_amount(rc[i + 1].n + NPU_RC_TAIL_QWORDS);

		t_rc_tail(&rc[i], last ? 0 : RC_PA + (i + 1) * TASK_STEP, next, en);
		t_rc_store(&rc[i], RC_PA + i * TASK_STEP);
	}
	*first_total = rc[0].n;
	return en;
}

static uint32_t run_one(unsigned core)
{
	unsigned total;

	prepare_data(1);
	store_chain(1, &total);
	t_kick(core, RC_PA, t_amount(total), 1, NPU_INT_DPU);
	return t_wait(core, NPU_INT_DPU);
}

/* ---- identification, reset values, power ---- */

static void test_identity_and_reset(void **state)
{
	for (unsigned core = 0; core < NPU_CORE_COUNT; core++) {
		assert_int_equal(t_r(core, NPU_PC_VERSION), 0x46495245u);	/* "FIRE" */
		assert_int_equal(t_r(core, NPU_PC_VERSION_NUM), 0);
		assert_int_equal(t_r(core, NPU_PC_INTERRUPT_MASK), 0x1FFFFu);
		assert_int_equal(t_r(core, NPU_PC_INTERRUPT_RAW_STATUS), 0);
		assert_int_equal(t_r(core, NPU_PC_TASK_STATUS) & 0xFFFu, 0);
		assert_int_equal(t_r(core, NPU_PC_OPERATION_ENABLE), 0);
		assert_int_equal(t_r(core, NPU_CNA_S_POINTER), 0);
	}
	/* registers read back; a CRU A/H reset returns them to reset values */
	t_w(0, NPU_PC_INTERRUPT_MASK, 0x300);
	t_w(0, NPU_CNA_S_POINTER, 0xE);
	assert_int_equal(t_r(0, NPU_PC_INTERRUPT_MASK), 0x300);
	assert_int_equal(t_r(0, NPU_CNA_S_POINTER), 0xE);
	hal_write32(CRU_SOFTRST_CON30, CORE0_RESET_BITS << 16 | CORE0_RESET_BITS);
	hal_write32(CRU_SOFTRST_CON30, CORE0_RESET_BITS << 16);
	assert_int_equal(t_r(0, NPU_PC_INTERRUPT_MASK), 0x1FFFFu);
	assert_int_equal(t_r(0, NPU_CNA_S_POINTER), 0);
}

static void test_unpowered_core(void **state)
{
	struct sim_config cfg = { .powered_at_reset = false };
	struct sim_soc *off = sim_host_attach(&cfg);

	assert_non_null(off);
	assert_string_equal(sim_soc_last_error(off), "");
	assert_int_equal(t_r(0, NPU_PC_VERSION), 0);
	assert_non_null(strstr(sim_soc_last_error(off), "not accessible"));
	t_w(1, NPU_PC_INTERRUPT_MASK, 0x300);	/* dropped, no crash */
	assert_non_null(strstr(sim_soc_last_error(off), "core 1 write"));
	sim_host_detach(off);
}

/* ---- ping-pong groups ---- */

static void test_pingpong_status_pairs(void **state)
{
	uint32_t s;

	/* S_POINTER 0xE (pp_en, executer_pp_en, pp_mode): consecutive tasks run
	 * in groups 0, 1, 0 and finish with DPU_0, DPU_1, DPU_0. */
	for (unsigned job = 0; job < 3; job++) {
		s = run_one(0);
		assert_int_equal(s, job % 2 ? NPU_INT_DPU_1 : NPU_INT_DPU_0);
		assert_int_equal(t_r(0, NPU_PC_INTERRUPT_RAW_STATUS) & 0xFFFu,
				 (NPU_INT_CNA_FEATURE_0 | NPU_INT_CNA_WEIGHT_0 | NPU_INT_CNA_CSC_0 |
				  NPU_INT_CORE_0 | NPU_INT_DPU_0) << (job % 2));
		assert_int_equal(NPU_FG(DPU, S_POINTER, EXECUTER, t_r(0, NPU_DPU_S_POINTER)),
				 (job + 1) % 2);
		check_output(0, true);
		t_w(0, NPU_PC_INTERRUPT_CLEAR, NPU_INT_CLEAR_ALL);
		assert_int_equal(t_r(0, NPU_PC_INTERRUPT_RAW_STATUS), 0);
	}
	/* Without ping-pong (S_POINTER 0, PC writes into group 0 only) the
	 * model runs group 0 every time. */
	for (int b = NPU_BLOCK_CNA; b <= NPU_BLOCK_PPU_RDMA; b++)
		if (npu_block_table[b].target)
			t_w(0, npu_block_table[b].offset + 4u,
			    NPU_FV(CNA, S_POINTER, EXECUTER_PP_CLEAR, 1) |
			    NPU_FV(CNA, S_POINTER, POINTER_PP_CLEAR, 1));
	assert_int_equal(t_r(0, NPU_DPU_S_POINTER), 0);
}

/* Kick without touching S_POINTER (the blocks keep their pointer state). */
static void kick_plain(uint32_t addr, uint32_t amount)
{
	t_w(0, NPU_PC_BASE_ADDRESS, 1);
	t_w(0, NPU_PC_BASE_ADDRESS, addr);
	t_w(0, NPU_PC_REGISTER_AMOUNTS, amount);
	t_w(0, NPU_PC_INTERRUPT_MASK, NPU_INT_DPU);
	t_w(0, NPU_PC_INTERRUPT_CLEAR, NPU_INT_CLEAR_ALL);
	t_w(0, NPU_PC_TASK_CON, 0x6001);
	t_w(0, NPU_PC_OPERATION_ENABLE, 1);
	t_w(0, NPU_PC_OPERATION_ENABLE, 0);
}

/*
 * The two register groups are separate storage: a second job that only
 * rewrites DST_BASE_ADDR works when ping-pong is off (it reuses group 0)
 * and is refused when ping-pong moved execution to the empty group 1.
 */
static void test_register_groups_are_separate(void **state)
{
	struct t_conv t = small_conv(0);
	struct t_rc full = { .n = 0 }, patch = { .n = 0 };
	uint32_t en;

	for (int pingpong = 0; pingpong <= 1; pingpong++) {
		/* group 0, pointer 0, executer 0 for every block */
		for (int b = NPU_BLOCK_CNA; b <= NPU_BLOCK_PPU_RDMA; b++)
			t_w(0, npu_block_table[b].offset + 4u,
			    NPU_FV(CNA, S_POINTER, EXECUTER_PP_CLEAR, 1) |
			    NPU_FV(CNA, S_POINTER, POINTER_PP_CLEAR, 1) |
			    (pingpong ? 0xEu : 0));
		full.n = 0;
		en = t_conv_body(&full, &t);
		/* the body starts with DPU / DPU_RDMA S_POINTER = 0xE: keep the
		 * chosen mode instead */
		for (unsigned i = 0; i < full.n; i++)
			if ((npu_rc_offset(full.q[i]) & 0x0FFFu) == 4u)
				full.q[i] = npu_rc_entry(npu_rc_target(full.q[i]),
							 pingpong ? 0xEu : 0, npu_rc_offset(full.q[i]));
		t_rc_tail(&full, 0, 0, en);
		prepare_data(2);
		t_rc_store(&full, RC_PA);
		kick_plain(RC_PA, t_amount(full.n));
		assert_int_not_equal(t_fuzz(t_wait(0, NPU_INT_DPU)) & NPU_INT_DPU, 0);
		check_output(0, true);

		patch.n = 0;
		T_DPU(&patch, DST_BASE_ADDR, OUT_PA + OUT_STEP);
		t_rc_tail(&patch, 0, 0, en);
		t_rc_store(&patch, RC_PA + TASK_STEP);
		kick_plain(RC_PA + TASK_STEP, t_amount(patch.n));
		if (pingpong) {
			assert_int_equal(t_wait(0, NPU_INT_DPU), NPU_INT_DMA_READ_ERROR);
			assert_non_null(strstr(sim_soc_last_error(t_soc), "refused"));
		} else {
			assert_int_not_equal(t_fuzz(t_wait(0, NPU_INT_DPU)) & NPU_INT_DPU, 0);
			/* weights of task 0 with task 1's output buffer */
			memcpy(t_phys(OUT_PA), t_phys(OUT_PA + OUT_STEP), 8 * 256);
			check_output(0, true);
		}
	}
}

/* ---- chains ---- */

static void test_chain_three_tasks(void **state)
{
	unsigned total;
	uint32_t s;

	prepare_data(3);
	store_chain(3, &total);
	t_kick(0, RC_PA, t_amount(total), 3, NPU_INT_DPU);
	s = t_wait(0, NPU_INT_DPU);
	assert_int_equal(s & (NPU_INT_DMA_READ_ERROR | NPU_INT_DMA_WRITE_ERROR), 0);
	assert_int_not_equal(t_fuzz(s) & NPU_INT_DPU, 0);
	assert_int_equal(t_r(0, NPU_PC_TASK_STATUS) & 0xFFFu, 3);
	for (unsigned i = 0; i < 3; i++)
		check_output(i, true);
}

static void test_chain_bounded_by_task_number(void **state)
{
	unsigned total;

	prepare_data(3);
	store_chain(3, &total);
	t_kick(0, RC_PA, t_amount(total), 2, NPU_INT_DPU);
	t_wait(0, NPU_INT_DPU);
	assert_int_equal(t_r(0, NPU_PC_TASK_STATUS) & 0xFFFu, 2);
	check_output(0, true);
	check_output(1, true);
	check_output(2, false);
}

/* A tail with amount 0 ends the chain, whatever TASK_NUMBER says (§3.5). */
static void test_chain_ended_by_amount_zero(void **state)
{
	unsigned total;
	uint32_t s;

	prepare_data(3);
	store_chain(2, &total);
	t_kick(0, RC_PA, t_amount(total), 3, NPU_INT_DPU);
	s = t_wait(0, NPU_INT_DPU);
	assert_int_equal(s & (NPU_INT_DMA_READ_ERROR | NPU_INT_DMA_WRITE_ERROR), 0);
	assert_int_equal(t_r(0, NPU_PC_TASK_STATUS) & 0xFFFu, 2);
	check_output(0, true);
	check_output(1, true);
	check_output(2, false);
}

/* Slave mode (pc_sel = 1): the CPU writes the block registers by MMIO and
 * starts them through GLOBAL OPERATION_ENABLE (HARDWARE.md §2.1, §4.7, A5). */
static void test_slave_mode_global_enable(void **state)
{
	struct t_conv t = small_conv(0);
	struct t_rc rc = { .n = 0 };
	uint32_t en;

	prepare_data(1);
	en = t_conv_body(&rc, &t);
	t_w(0, NPU_PC_BASE_ADDRESS, 1);
	for (unsigned i = 0; i < rc.n; i++)
		t_w(0, npu_rc_offset(rc.q[i]), npu_rc_value(rc.q[i]));
	/* the PC op_en in slave mode fetches nothing */
	t_w(0, NPU_PC_OPERATION_ENABLE, 1);
	t_w(0, NPU_PC_OPERATION_ENABLE, 0);
	assert_int_equal(t_r(0, NPU_PC_INTERRUPT_RAW_STATUS), 0);
	check_output(0, false);
	t_w(0, NPU_GLOBAL_OPERATION_ENABLE, en);
	assert_int_equal(t_r(0, NPU_PC_INTERRUPT_STATUS) & NPU_INT_DPU, NPU_INT_DPU_0);
	check_output(0, true);
}

/*
 * A task may end in a bare op_en, with neither marker nor tail: the
 * mainline Rocket driver takes the amount from its own regcmd_count and the
 * board-run element-wise streams of allbilly/rk3588
 * (experimental/kernel_6_18/elementwise.py, passing on RK3588 per
 * problem.md step 14) end so. The TRM's "must" is not what the silicon
 * enforces (sim/ASSUMPTIONS.md A7).
 */
static void test_bare_op_en(void **state)
{
	struct t_conv t = small_conv(0);
	struct t_rc rc = { .n = 0 };
	uint32_t en, s;

	prepare_data(1);
	en = t_conv_body(&rc, &t);
	rc.q[rc.n++] = npu_rc_entry(NPU_RC_TARGET_OP_EN, en, NPU_RC_OP_EN_OFFSET);
	if (rc.n % 2)
		rc.q[rc.n++] = 0;
	t_rc_store(&rc, RC_PA);
	t_kick(0, RC_PA, t_amount(rc.n), 1, NPU_INT_DPU);
	s = t_wait(0, NPU_INT_DPU);
	assert_int_equal(s & (NPU_INT_DMA_READ_ERROR | NPU_INT_DMA_WRITE_ERROR), 0);
	check_output(0, true);
}

/*
 * A4: a non-zero TASK_DMA_BASE_ADDR is added to every data address (TRM),
 * its read-only bits 3:0 dropped, and not to the regcmd fetch: the task
 * reads the copies of its input and weights one base on and writes its
 * output there, leaving the buffers it names alone.
 */
#define DMA_BASE	0x80000u
#define DMA_BASE_RO	0xFu	/* bits 3:0 read as 0 */

static void test_task_dma_base(void **state)
{
	uint8_t in[256], wt[32 * 16];
	unsigned total;
	uint32_t s;

	(void)state;
	prepare_data(1);
	store_chain(1, &total);
	memcpy(in, t_phys(IN_PA), sizeof(in));
	memcpy(wt, t_phys(WT_PA), sizeof(wt));
	memcpy(t_phys(IN_PA + DMA_BASE), in, sizeof(in));
	memcpy(t_phys(WT_PA + DMA_BASE), wt, sizeof(wt));
	memset(t_phys(OUT_PA + DMA_BASE), OUT_FILL, 8 * 256);
	/* what the stream names holds other data */
	memset(t_phys(IN_PA), 0x55, sizeof(in));
	memset(t_phys(WT_PA), 0x03, sizeof(wt));
	/* t_kick's order with the base written last */
	t_w(0, NPU_PC_BASE_ADDRESS, RC_PA);
	t_w(0, NPU_PC_REGISTER_AMOUNTS, t_amount(total));
	t_w(0, NPU_PC_INTERRUPT_MASK, NPU_INT_DPU);
	t_w(0, NPU_PC_INTERRUPT_CLEAR, NPU_INT_CLEAR_ALL);
	t_w(0, NPU_PC_TASK_CON, 0x6000u | 1u);
	t_w(0, NPU_PC_TASK_DMA_BASE_ADDR, DMA_BASE | DMA_BASE_RO);
	t_w(0, NPU_PC_OPERATION_ENABLE, 1);
	t_w(0, NPU_PC_OPERATION_ENABLE, 0);
	s = t_wait(0, NPU_INT_DPU);
	t_w(0, NPU_PC_TASK_DMA_BASE_ADDR, 0);
	assert_int_equal(s & (NPU_INT_DMA_READ_ERROR | NPU_INT_DMA_WRITE_ERROR), 0);
	memcpy(t_phys(IN_PA), in, sizeof(in));
	check_output(0, false);
	memcpy(t_phys(OUT_PA), t_phys(OUT_PA + DMA_BASE), 8 * 256);
	check_output(0, true);
}

/* ---- malformed streams: DMA error + diagnostic, never a crash ---- */

enum bad_kind {
	BAD_TARGET, BAD_OFFSET, BAD_MARKER_ALONE, BAD_NO_TAIL,
	BAD_PAST_RAM, BAD_IN_MMIO, BAD_CBUF, BAD_PC_REG, BAD_ENABLE, BAD_SLICE,
};

static void test_malformed_streams(void **state)
{
	static const struct { enum bad_kind kind; const char *why; } cases[] = {
		{ BAD_TARGET, "unknown target" },
		{ BAD_OFFSET, "outside block" },
		{ BAD_MARKER_ALONE, "marker is not followed by the op_en" },
		{ BAD_NO_TAIL, "missing tail" },
		{ BAD_PAST_RAM, "outside RAM" },
		{ BAD_IN_MMIO, "outside RAM" },
		{ BAD_CBUF, "CBUF_CON0" },
		{ BAD_PC_REG, "cannot be written from a stream" },
		{ BAD_ENABLE, "reserved bits" },
		{ BAD_SLICE, "does not fit 1 data banks" },
	};

	for (unsigned n = 0; n < sizeof(cases) / sizeof(cases[0]); n++) {
		struct t_conv t = small_conv(0);
		struct t_rc rc = { .n = 0 };
		uint32_t en, addr = RC_PA, amount, s;

		prepare_data(1);
		en = t_conv_body(&rc, &t);
		switch (cases[n].kind) {
		case BAD_TARGET:
			t_rc_w(&rc, 0x0401, 0x2004, 0);		/* "CMAC", not on RK3588 */
			break;
		case BAD_OFFSET:
			t_rc_w(&rc, NPU_CNA_TARGET, NPU_DPU_DATA_FORMAT, 0);
			break;
		case BAD_CBUF:
			T_CNA(&rc, CBUF_CON0, NPU_FV(CNA, CBUF_CON0, DATA_BANK, 4) |
					      NPU_FV(CNA, CBUF_CON0, WEIGHT_BANK, 9));
			break;
		case BAD_PC_REG:
			t_rc_w(&rc, NPU_PC_TARGET, NPU_PC_INTERRUPT_MASK, 0);
			break;
		case BAD_SLICE:
			/* 4 rows of 64 x 256 channels = 64 KiB in one 32 KiB bank */
			T_CNA(&rc, DATA_SIZE0, NPU_FV(CNA, DATA_SIZE0, DATAIN_WIDTH, 64) |
					       NPU_FV(CNA, DATA_SIZE0, DATAIN_HEIGHT, 4));
			T_CNA(&rc, DATA_SIZE1, NPU_FV(CNA, DATA_SIZE1, DATAIN_CHANNEL_REAL, 255) |
					       NPU_FV(CNA, DATA_SIZE1, DATAIN_CHANNEL, 256));
			T_CNA(&rc, WEIGHT_SIZE0, 256 * 32);
			T_CNA(&rc, WEIGHT_SIZE1, 256);
			T_CNA(&rc, CBUF_CON0, NPU_FV(CNA, CBUF_CON0, DATA_BANK, 1) |
					      NPU_FV(CNA, CBUF_CON0, WEIGHT_BANK, 11));
			T_CNA(&rc, CBUF_CON1, 256);
			T_CNA(&rc, DMA_CON1, 4 * 64);
			T_CNA(&rc, DMA_CON2, 0);
			break;
		default:
			break;
		}
		if (cases[n].kind == BAD_MARKER_ALONE) {
			t_rc_w(&rc, NPU_PC_TARGET, NPU_PC_BASE_ADDRESS, 0);
			rc.q[rc.n++] = npu_rc_entry(NPU_RC_TARGET_MARKER, 0, 0);
			t_rc_w(&rc, NPU_PC_TARGET, NPU_PC_REGISTER_AMOUNTS, 0);
			rc.q[rc.n++] = npu_rc_entry(NPU_RC_TARGET_OP_EN, en, NPU_RC_OP_EN_OFFSET);
		} else if (cases[n].kind == BAD_ENABLE) {
			t_rc_tail(&rc, 0, 0, en | 2u);		/* bit 1 is reserved */
		} else if (cases[n].kind != BAD_NO_TAIL) {
			t_rc_tail(&rc, 0, 0, en);
		}
		if (rc.n % 2)
			rc.q[rc.n++] = 0;
		amount = t_amount(rc.n);
		if (cases[n].kind == BAD_PAST_RAM) {
			addr = 0xEFFFF000u;
			amount = 0xFFFF;	/* 1 MiB of regcmd: runs into MMIO */
		} else if (cases[n].kind == BAD_IN_MMIO) {
			addr = 0xF0000000u;
		}
		t_rc_store(&rc, RC_PA);
		if (addr != RC_PA && addr < 0xF0000000u)
			t_rc_store(&rc, addr);
		t_kick(0, addr, amount, 1, NPU_INT_DPU);
		s = t_r(0, NPU_PC_INTERRUPT_RAW_STATUS);
		if (!(s & NPU_INT_DMA_READ_ERROR) || !strstr(sim_soc_last_error(t_soc), cases[n].why))
			fail_msg("case %u: raw status 0x%x, diagnostic '%s' (want '%s')", n, s,
				 sim_soc_last_error(t_soc), cases[n].why);
		assert_int_equal(t_fuzz(s) & NPU_INT_DPU, 0);
		/* the model keeps working */
		t_w(0, NPU_PC_INTERRUPT_CLEAR, NPU_INT_CLEAR_ALL);
		s = run_one(0);
		assert_int_not_equal(t_fuzz(s) & NPU_INT_DPU, 0);
		check_output(0, true);
		t_w(0, NPU_PC_INTERRUPT_CLEAR, NPU_INT_CLEAR_ALL);
	}
}

/* ---- faults ---- */

static void test_fault_spec_parsing(void **state)
{
	assert_int_equal(sim_soc_set_fault(t_soc, "bogus"), -EINVAL);
	assert_int_equal(sim_soc_set_fault(t_soc, "poll=x"), -EINVAL);
	assert_int_equal(sim_soc_set_fault(t_soc, "core=3"), -EINVAL);
	assert_int_equal(sim_soc_set_fault(t_soc, "hang,poll=3,core=2"), 0);
	assert_int_equal(sim_soc_set_fault(t_soc, ""), 0);
}

static void test_fault_bad_version(void **state)
{
	assert_int_equal(sim_soc_set_fault(t_soc, "bad_version"), 0);
	assert_int_not_equal(t_r(0, NPU_PC_VERSION), 0x46495245u);
	assert_int_equal(sim_soc_set_fault(t_soc, ""), 0);
	assert_int_equal(t_r(0, NPU_PC_VERSION), 0x46495245u);
}

static void test_fault_hang(void **state)
{
	assert_int_equal(sim_soc_set_fault(t_soc, "hang"), 0);
	prepare_data(1);
	assert_int_equal(run_one(0), 0);
	assert_int_equal(t_r(0, NPU_PC_TASK_STATUS) & 0xFFFu, 0);
	check_output(0, false);
	/* one-shot: the next job completes */
	assert_int_not_equal(t_fuzz(run_one(0)) & NPU_INT_DPU, 0);
	check_output(0, true);
}

static void test_fault_poll(void **state)
{
	unsigned total;

	assert_int_equal(sim_soc_set_fault(t_soc, "poll=5"), 0);
	prepare_data(1);
	store_chain(1, &total);
	t_kick(0, RC_PA, t_amount(total), 1, NPU_INT_DPU);
	for (int i = 0; i < 5; i++)
		assert_int_equal(t_r(0, NPU_PC_INTERRUPT_STATUS), 0);
	assert_int_equal(t_r(0, NPU_PC_INTERRUPT_STATUS), NPU_INT_DPU_0);
}

static void test_fault_dma_errors(void **state)
{
	assert_int_equal(sim_soc_set_fault(t_soc, "dma_read"), 0);
	prepare_data(1);
	assert_int_equal(run_one(0), NPU_INT_DMA_READ_ERROR);
	check_output(0, false);
	t_w(0, NPU_PC_INTERRUPT_CLEAR, NPU_INT_CLEAR_ALL);
	assert_int_equal(sim_soc_set_fault(t_soc, "dma_write"), 0);
	prepare_data(1);
	assert_int_equal(run_one(0), NPU_INT_DMA_WRITE_ERROR);
	check_output(0, false);
}

static void test_fault_half_status(void **state)
{
	uint32_t s;

	assert_int_equal(sim_soc_set_fault(t_soc, "half_status"), 0);
	s = run_one(0);
	/* group 0 executed, but the pair reports its other bit: an exact
	 * compare with DPU_0 fails, fuzz(status) == mask still holds */
	assert_int_equal(s, NPU_INT_DPU_1);
	assert_int_equal(t_fuzz(s), NPU_INT_DPU);
}

static void test_fault_late(void **state)
{
	assert_int_equal(sim_soc_set_fault(t_soc, "late"), 0);
	assert_int_equal(run_one(0), 0);
	/* the driver gives up and resets the core through the CRU */
	hal_write32(CRU_SOFTRST_CON30, CORE0_RESET_BITS << 16 | CORE0_RESET_BITS);
	hal_write32(CRU_SOFTRST_CON30, CORE0_RESET_BITS << 16);
	assert_int_not_equal(t_r(0, NPU_PC_INTERRUPT_RAW_STATUS) & NPU_INT_DPU, 0);
}

static void test_fault_reset_stuck_and_core(void **state)
{
	assert_int_equal(sim_soc_set_fault(t_soc, "reset_stuck=1"), 0);
	assert_int_equal(t_r(1, NPU_PC_VERSION), 0);
	assert_non_null(strstr(sim_soc_last_error(t_soc), "core 1"));
	assert_int_equal(t_r(0, NPU_PC_VERSION), 0x46495245u);
	assert_int_equal(sim_soc_set_fault(t_soc, ""), 0);
	assert_int_equal(t_r(1, NPU_PC_VERSION), 0x46495245u);

	/* core=N restricts a fault to one core */
	assert_int_equal(sim_soc_set_fault(t_soc, "dma_read,core=2"), 0);
	assert_int_not_equal(t_fuzz(run_one(0)) & NPU_INT_DPU, 0);
	assert_int_not_equal(t_fuzz(run_one(1)) & NPU_INT_DPU, 0);
	assert_int_equal(run_one(2), NPU_INT_DMA_READ_ERROR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_identity_and_reset, t_setup, t_teardown),
		cmocka_unit_test(test_unpowered_core),
		cmocka_unit_test_setup_teardown(test_pingpong_status_pairs, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_register_groups_are_separate, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_chain_three_tasks, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_chain_bounded_by_task_number, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_chain_ended_by_amount_zero, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_slave_mode_global_enable, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_bare_op_en, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_task_dma_base, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_malformed_streams, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_fault_spec_parsing, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_fault_bad_version, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_fault_hang, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_fault_poll, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_fault_dma_errors, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_fault_half_status, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_fault_late, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_fault_reset_stuck_and_core, t_setup, t_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
