/* SPDX-License-Identifier: MIT */
/* Where a container's ops run and how much work each is (rkbare compile's
 * NPU/CPU line, rkbare info's engine column). */
#ifndef RKBARE_TOOLS_OP_STATS_H
#define RKBARE_TOOLS_OP_STATS_H

#include <stdint.h>
#include <stdio.h>

#include "runtime/model.h"

/* "NPU", or "CPU" for an op the application's CPU runs (runtime/cpu_ops.h). */
const char *op_engine(const struct rkb_op *op);
/* An op's work in multiply-accumulates: a convolution's products (output
 * elements x window x input channels, one channel for depthwise); other
 * ops one per output element and window tap (pools), or per output
 * element (adds, CPU ops). */
uint64_t op_macs(const struct rkb_model *m, const struct rkb_op *op);
/* One line, prefixed by who: how many ops and what share of the work run
 * on the NPU and on the CPU; when the NPU runs both int8 and fp16 ops (a
 * hybrid container), the share of each (by the op's input). */
void op_stats_print(FILE *out, const char *who, const struct rkb_model *m);

#endif /* RKBARE_TOOLS_OP_STATS_H */
