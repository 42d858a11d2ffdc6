/* SPDX-License-Identifier: MIT */
/*
 * rkbare's native API, for kernels and applications that link the driver
 * and runtime (docs/PORTING.md): a model container (docs/FORMAT.md) is
 * verified and compiled once by rkb_ctx_create(), then each inference is
 * rkb_input_set() / rkb_run() / rkb_output_get(), or rkb_run_start() and
 * later rkb_run_wait() to keep the CPU free while the NPU runs (the job
 * is polled, bounded by the driver's timeout). The caller owns the NPU
 * device (drivers/npu/npu.h: npu_init, npu_power_on) and the DMA pool
 * (runtime/dma_pool.h). A mask of several cores spreads a model over them
 * (rkb_ctx_set_cores); inputs, outputs, the arena and the constants can live
 * in the caller's memory (rkb_ctx_bind, rkb_ctx_set_arena,
 * rkb_ctx_set_constants); ops the NPU cannot run go to CPU implementations
 * (runtime/cpu_ops.h, rkb_cpu_op_register). For code written against
 * librknnrt, rknn_api.h offers the same runtime under the rknn names.
 */
#ifndef RKBARE_H
#define RKBARE_H

#include "drivers/npu/npu.h"
#include "runtime/dma_pool.h"
#include "runtime/cpu_ops.h"
#include "runtime/model_run.h"

#endif /* RKBARE_H */
