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
#include <stdint.h>

#include "drivers/npu/npu.h"
#include "runtime/dma_pool.h"

/* Every context handle points at a struct whose first word is one of these. */
#define RKNN_MATMUL_CTX_MAGIC	0x6d6d6378u	/* "mmcx" */
#define RKNN_MODEL_CTX_MAGIC	0x6d646378u	/* "mdcx" */

/* 0 or an RKNN_ERR_* code; *dev and *pool valid on success. */
int rknn_device_get(struct npu_dev **dev, struct dma_pool **pool);
/* Use dev (powered) and pool instead of the defaults. */
int rknn_device_bind(struct npu_dev *dev, struct dma_pool *pool);
/* Is h a live matmul or model context? */
bool rknn_handle_valid(uint64_t h);

/* Count a binding of mem (rknn_create_mem's) to a context, or its end:
 * rknn_destroy_mem refuses memory the NPU may still reach. */
struct rknn_tensor_mem;
void rknn_mem_use(struct rknn_tensor_mem *mem, bool use);

#endif /* RKBARE_RUNTIME_RKNN_DEVICE_H */
