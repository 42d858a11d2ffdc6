/* SPDX-License-Identifier: MIT */
/*
 * What the board probes of boot/probe.c share with those of
 * boot/probe_pc.c (the program controller, the driver's kick, the CBUF):
 * the probe record, its environment and the helpers both use. Internal to
 * the probe image.
 */
#ifndef RKBARE_BOOT_PROBE_PC_H
#define RKBARE_BOOT_PROBE_PC_H

#include <stddef.h>
#include <stdint.h>

#include "boot/probe_decide.h"
#include "compiler/lower_pool.h"
#include "compiler/regcmd.h"
#include "drivers/npu/npu.h"
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

/* ---- probe.c's helpers ---- */

/* A job that did not complete: PROBE_FAILED, with the driver's error. */
int job_failed(struct probe_env *e, char *seen, size_t len, const char *what);
uint32_t rnd32(struct probe_env *e);
int8_t rnd8(struct probe_env *e);
/* A random fp16 value, a multiple of 1/64 within ±1/2 (sums stay exact). */
uint16_t rnd_f16(struct probe_env *e);

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

/* The int8 max pool 2x2/2 of POOL_C channels of POOL_HW² the pool probes
 * run, and its wrong results against the CPU (in and out NCHW). */
enum { POOL_C = 16, POOL_HW = 6 };
extern const struct lower_pool_op max_pool_op;
unsigned int max_pool_wrong(const int8_t *in, const int8_t *out);

/* ---- the probes of probe_pc.c ---- */

#define PROBE_FN(name) \
	int name(struct probe_env *e, const struct probe *self, char *seen, size_t len)
PROBE_FN(probe_dma_base);
PROBE_FN(probe_fall_through);
PROBE_FN(probe_amounts_high);
PROBE_FN(probe_con2_high);
PROBE_FN(probe_irq_bits);
PROBE_FN(probe_core_bits);
PROBE_FN(probe_grains);
PROBE_FN(probe_kernel_group);
PROBE_FN(probe_weight_stream);
PROBE_FN(probe_dw_wide);
PROBE_FN(probe_argb_lanes);
PROBE_FN(probe_argb_line);

#endif /* RKBARE_BOOT_PROBE_PC_H */
