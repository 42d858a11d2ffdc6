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

/* 0 or an RKNN_ERR_* code; *dev and *pool valid on success. The first
 * call, unless rknn_device_bind came before, brings the default device up. */
int rknn_device_get(struct npu_dev **dev, struct dma_pool **pool);
/* Use dev (powered) and pool instead of the defaults. */
int rknn_device_bind(struct npu_dev *dev, struct dma_pool *pool);
/* The lock of the counts contexts share (a model copy's users, shared
 * weights' users); nothing else may be called while it is held. */
void rknn_device_lock(void);
void rknn_device_unlock(void);
/*
 * The pool buffer behind mem when rknn_create_mem made mem and
 * rknn_destroy_mem has not freed it, and its fields still say where that
 * buffer is; else NULL, with a message naming who. mem itself is read only
 * once it is known to be one of the runtime's: a hand-made or freed
 * rknn_tensor_mem is refused without being touched. The buffer stays
 * valid while mem is bound (rknn_mem_hold) or not destroyed.
 */
struct rknn_tensor_mem;
const struct dma_buf *rknn_mem_buf(const struct rknn_tensor_mem *mem, const char *who);

/* Bytes from p to the end of the live rknn_create_mem buffer that holds
 * p (as asked, not rounded), or 0 when no such buffer holds it. */
size_t rknn_mem_room(const void *p);

/* rknn_mem_buf, counting a binding of mem in the same step (so that no
 * rknn_destroy_mem on another CPU frees it in between); rknn_mem_drop
 * ends it. Memory rknn_destroy_mem was called on goes back to the pool
 * with the end of its last binding, never while the NPU may reach it. */
const struct dma_buf *rknn_mem_hold(struct rknn_tensor_mem *mem, const char *who);
void rknn_mem_drop(struct rknn_tensor_mem *mem);

#endif /* RKBARE_RUNTIME_RKNN_DEVICE_H */
