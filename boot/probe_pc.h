/* SPDX-License-Identifier: MIT */
/*
 * What the board probes of boot/probe_pc.c (the program controller, the
 * driver's kick, the CBUF) take from boot/probe.c beyond what every probe
 * shares (boot/probe_internal.h), and their entry points. Internal to the
 * probe image.
 */
#ifndef RKBARE_BOOT_PROBE_PC_H
#define RKBARE_BOOT_PROBE_PC_H

#include <stddef.h>
#include <stdint.h>

#include "boot/probe_internal.h"
#include "compiler/lower_pool.h"

/* A random fp16 value, a multiple of 1/64 within ±1/2 (sums stay exact). */
uint16_t rnd_f16(struct probe_env *e);

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
