/* SPDX-License-Identifier: MIT */
/*
 * The device behind the rknn-compatible APIs (rknn_api.h, rknn_matmul_api.h):
 * the NPU and DMA pool every context uses, either handed over by the
 * application (rknn_matmul_bind) or brought up with the board defaults by
 * the first context, as librknnrt opens its device.
 */
#ifndef RKBARE_RUNTIME_RKNN_DEVICE_H
#define RKBARE_RUNTIME_RKNN_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/npu/npu.h"
#include "runtime/dma_pool.h"

/* 0 or an RKNN_ERR_* code; *dev and *pool valid on success. */
int rknn_device_get(struct npu_dev **dev, struct dma_pool **pool);
/* Use dev (powered) and pool instead of the defaults. */
int rknn_device_bind(struct npu_dev *dev, struct dma_pool *pool);
/*
 * The pool buffer behind mem when rknn_create_mem made mem and
 * rknn_destroy_mem has not freed it, and its fields still say where that
 * buffer is; else NULL, with a message naming who. mem itself is read only
 * once it is known to be one of the runtime's: a hand-made or freed
 * rknn_tensor_mem is refused without being touched. Called with the
 * device taken (rknn_handle.h), as are rknn_create_mem and rknn_destroy_mem.
 */
struct rknn_tensor_mem;
const struct dma_buf *rknn_mem_buf(const struct rknn_tensor_mem *mem, const char *who);

/* Bytes from p to the end of the live rknn_create_mem buffer that holds
 * p (as asked, not rounded), or 0 when no such buffer holds it. */
size_t rknn_mem_room(const void *p);

/* Count a binding of mem (rknn_mem_buf's) to a context, or its end:
 * memory rknn_destroy_mem was called on goes back to the pool with the
 * end of its last binding, never while the NPU may still reach it. */
void rknn_mem_use(struct rknn_tensor_mem *mem, bool use);

#endif /* RKBARE_RUNTIME_RKNN_DEVICE_H */
