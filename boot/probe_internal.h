/* SPDX-License-Identifier: MIT */
/*
 * What the board probes share (boot/probe.c, boot/probe_more.c): a probe's
 * environment and table row, the helpers that run jobs and report, and the
 * hand-built flying DPU task (A21, A35, A36). Internal to boot/.
 */
#ifndef RKBARE_BOOT_PROBE_INTERNAL_H
#define RKBARE_BOOT_PROBE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/probe_decide.h"
#include "compiler/regcmd.h"
#include "drivers/npu/npu.h"
#include "rkbare/rknn_matmul_api.h"
#include "runtime/dma_pool.h"

/* run() result besides a reading and PROBE_NONE / PROBE_AMBIGUOUS: a job
 * that did not complete, which decides nothing. */
#define PROBE_FAILED		(-3)

#define PROBE_ERR_LEN		64u

struct probe_env {
	struct npu_dev *npu;
	struct dma_pool *pool;
	uint32_t rng;
	char err[PROBE_ERR_LEN];	/* why the last job failed */
};

struct probe {
	const char *id;
	const char *decides;		/* the question it settles */
	/* Its readings, the model's first, NULL-terminated. */
	const char *readings[PROBE_MAX_READINGS + 1u];
	int (*run)(struct probe_env *env, const struct probe *self, char *seen, size_t len);
};

/* A job that did not complete: PROBE_FAILED, with the driver's error. */
int job_failed(struct probe_env *e, char *seen, size_t len, const char *what);
uint32_t rnd32(struct probe_env *e);
int8_t rnd8(struct probe_env *e);

/* A matmul through the matmul API and its operands on the host. */
struct mm {
	rknn_matmul_ctx ctx;
	rknn_matmul_io_attr io;
	rknn_tensor_mem *a, *b, *c;
	int8_t *ha, *hb;
	int m, k, n;
};
void mm_close(struct mm *x);
/* Σ_q A[i][q]·B[q][j] of the host operands. */
int32_t mm_acc(const struct mm *x, int i, int j);

/* How a chain is kicked, and what the kick left. */
struct kick {
	unsigned int core;
	uint32_t flags;			/* NPU_JOB_NO_CORE_BITS or 0 */
	uint32_t dma_base;		/* TASK_DMA_BASE_ADDR */
	uint32_t tasks_done;		/* out: TASK_STATUS at completion */
	uint32_t raw;			/* out: RAW_STATUS at completion */
};

/* One chain of `count` tasks on k->core, blocking; out is invalidated
 * after. 0, or the driver's error (in e->err too). */
int kick_chain(struct probe_env *e, struct npu_task *tasks, unsigned int count,
	       const struct dma_buf *out, struct kick *k);

/* One chain of `count` tasks on core 0, blocking; status (may be NULL)
 * gets the last task's INTERRUPT_STATUS. */
int submit_chain(struct probe_env *e, struct npu_task *tasks, unsigned int count,
		 const struct dma_buf *out, uint32_t *status);
/* Set `field` of the register at `offset` to `value` in every task; -1
 * when no task writes it. */
int patch_field(struct rc_program *p, uint16_t offset, uint32_t field, uint32_t value);
/* The program's tasks linked at prog and described for the driver. */
int finish_program(struct rc_program *p, const struct dma_buf *prog, struct npu_task *tasks);

/* The line saying how many of n results each reading explains. */
void say_counts(char *seen, size_t len, const char *what, size_t n, const unsigned int *m,
		unsigned int readings, const char *const *names);
/* The reading of an int probe (say_counts' line in seen). */
int say_int(char *seen, size_t len, const char *what, const void *ctx, probe_int_fn f,
	    const struct probe *pr, const int64_t *got, size_t n);

/* Element i of an int4 array packed two a byte, the low nibble first. */
void put_int4(uint8_t *p, size_t i, int v);

/*
 * The hand-built flying DPU task: one fp16 cube of DPUX_W pixels × 8
 * channels (one atom a pixel, one surface: in memory the values in order)
 * read through MRDMA with mrdma_fp16tofp32_en, written fp16 through OUT_CVT
 * fp32tofp16_en.
 */
enum { DPUX_W = 16, DPUX_C = 8, DPUX_N = DPUX_W * DPUX_C };
/* The LUT task on int8 data instead: the same bytes, 16 channels a pixel. */
enum { DPUX_INT8_C = 16, DPUX_INT8_N = DPUX_W * DPUX_INT8_C };
#define PROBE_FP16_ONE	0x3C00u	/* fp16 1.0 */

/* What the caller adds to the shared task: the LUT (A35), the add's EW
 * operand and the state it inherits (A36), or stages of its own. */
struct dpux_task {
	const struct probe_lut *lut;
	bool int8;			/* the LUT task on DPUX_INT8_N int8 values */
	/* A36: the operand cube's address, the case (INH_CASE_*) */
	uint32_t b_addr;
	int inherit;
	/* stages written in place of the LUT or the add (NULL: those) */
	void (*body)(struct rc_program *p, const struct dpux_task *t);
	/* a change to the finished task (NULL: none); non-zero fails the build */
	int (*patch)(struct rc_program *p, const struct dpux_task *t);
	const void *ctx;		/* the body's and patch's data */
};
/* One task on x (DPUX_N fp16 values, or DPUX_INT8_N int8 ones) into y: 0,
 * -1 when it could not be built, -2 when the job failed. */
int dpux_run(struct probe_env *e, const struct dpux_task *t, const void *x, void *y);

struct lower_conv_op;
/* One convolution through the builders (boot/probe.c run_conv): x NCHW, w
 * OHWI, y NCHW in the output precision, no bias or residual; `patch`
 * changes the finished program (-1 fails the build). */
int run_conv_patched(struct probe_env *e, const struct lower_conv_op *op, const void *x,
		     const void *w, void *y, int (*patch)(struct rc_program *p, const void *ctx),
		     const void *ctx);

/* An fp16 output × 4 when whole, else a value no reading predicts. */
int64_t quarters(uint16_t h);

/* ---- the probes of boot/probe_more.c ---- */
int probe_fp16_stages(struct probe_env *e, const struct probe *self, char *seen, size_t len);
int probe_i4_int32(struct probe_env *e, const struct probe *self, char *seen, size_t len);
int probe_i4_entries(struct probe_env *e, const struct probe *self, char *seen, size_t len);
int probe_i4_last_group(struct probe_env *e, const struct probe *self, char *seen, size_t len);
int probe_lut_mux(struct probe_env *e, const struct probe *self, char *seen, size_t len);
int probe_lut_read(struct probe_env *e, const struct probe *self, char *seen, size_t len);
int probe_lut_int(struct probe_env *e, const struct probe *self, char *seen, size_t len);
int probe_int16_acc(struct probe_env *e, const struct probe *self, char *seen, size_t len);
int probe_bf16_out(struct probe_env *e, const struct probe *self, char *seen, size_t len);
int probe_dilation(struct probe_env *e, const struct probe *self, char *seen, size_t len);
int probe_cvt_in(struct probe_env *e, const struct probe *self, char *seen, size_t len);
int probe_cvt_out(struct probe_env *e, const struct probe *self, char *seen, size_t len);

#endif /* RKBARE_BOOT_PROBE_INTERNAL_H */
