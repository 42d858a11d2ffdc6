/* SPDX-License-Identifier: MIT */
/*
 * The fp16 functions the DPU's lookup table runs (container op type "lut",
 * runtime/op_kinds.c): which of the CPU's functions (cpu_ops.h enum
 * rkb_cpu_fn, with Unary's parameters) it takes, and the table of each.
 *
 * One table shape serves them all: a bounded g(x) in [-1, 1], entries
 * round(g · 2^14) (Q14), x rounded to 2^-12 (BN's factor 2^12), LE over
 * [-8, 8] in steps of 1/32, LO over [-16, 16) in steps of 1/16, LE where
 * both cover x, and past LO the end entries (slope 0: g has reached its
 * asymptote there). Two tasks:
 *   plain    out = LUT(x) · 2^-14                 sigmoid, tanh, hard-sigmoid
 *   times x  out = (x · 2^-14) ⊙ LUT(x)           swish (x · sigmoid(a·x)),
 *            (g = f(x) / x, 1/2 at 0)             hard-swish, GELU
 * g is within 3e-4 of the function (the entries' and the interpolation's
 * rounding, 2^-15 each; x's rounding, 2^-13 times g's slope; the linear
 * steps between entries), then the output is rounded to fp16 once; a
 * times-x function's error is x times g's.
 *
 * Taken only where the table holds g that closely: hard-sigmoid with both
 * knots on LE's entries (its linear pieces are then exact) and a slope of
 * at most 1, swish with a ≥ 1 (saturated by 16), GELU either form. The
 * rest stay CPU ops (Unary).
 */
#ifndef RKBARE_RUNTIME_NPU_FN_H
#define RKBARE_RUNTIME_NPU_FN_H

#include <stdbool.h>
#include <stdint.h>

#include "compiler/lower_eltwise.h"

/* Output factor of the table's Q14 entries. */
#define RKB_NPU_FN_OUT_SHIFT	14

/* Whether the table runs fn with attributes a, b. */
bool rkb_npu_fn_ok(int32_t fn, float a, float b);

/* fn's table into *lut and its form; -EINVAL when rkb_npu_fn_ok is false. */
int rkb_npu_fn_table(int32_t fn, float a, float b, struct lower_lut *lut, bool *times_x);

#endif /* RKBARE_RUNTIME_NPU_FN_H */
