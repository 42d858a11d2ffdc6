/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "hal.h"
#include "rknn_api.h"
#include "runtime/rknn_device.h"

static struct npu_dev *bound_dev;
static struct dma_pool *bound_pool;
/* The defaults, when the application binds nothing. */
static struct npu_dev default_dev;
static struct dma_pool default_pool;

int rknn_device_bind(struct npu_dev *dev, struct dma_pool *pool)
{
	if (!dev || !pool)
		return RKNN_ERR_PARAM_INVALID;
	bound_dev = dev;
	bound_pool = pool;
	return RKNN_SUCC;
}

int rknn_device_get(struct npu_dev **dev, struct dma_pool **pool)
{
	int err;

	if (!bound_dev) {
		err = npu_init(&default_dev, &rk3588_npu_board);
		if (!err)
			err = npu_power_on(&default_dev, (1u << NPU_CORE_COUNT) - 1);
		if (err) {
			hal_err("rknn: NPU bring-up failed: %s", npu_strerror(err));
			return RKNN_ERR_DEVICE_UNAVAILABLE;
		}
		if (dma_pool_init_default(&default_pool)) {
			hal_err("rknn: no DMA memory for the NPU");
			return RKNN_ERR_DEVICE_UNAVAILABLE;
		}
		bound_dev = &default_dev;
		bound_pool = &default_pool;
	}
	*dev = bound_dev;
	*pool = bound_pool;
	return RKNN_SUCC;
}

bool rknn_handle_valid(uint64_t h)
{
	const uint32_t *magic = (const uint32_t *)(uintptr_t)h;

	return magic && (*magic == RKNN_MATMUL_CTX_MAGIC || *magic == RKNN_MODEL_CTX_MAGIC);
}

/* rknn_tensor_mem.priv_data: the pool buffer, and how many bindings
 * (rknn_set_io_mem) still let the NPU reach it. */
struct rknn_mem_priv {
	struct dma_buf buf;
	unsigned int users;
};

rknn_tensor_mem *rknn_create_mem(rknn_context ctx, uint32_t size)
{
	struct npu_dev *dev;
	struct dma_pool *pool;
	rknn_tensor_mem *mem;
	struct rknn_mem_priv *priv;

	if (!rknn_handle_valid(ctx) || !size || rknn_device_get(&dev, &pool))
		return NULL;
	mem = calloc(1, sizeof(*mem));
	priv = calloc(1, sizeof(*priv));
	if (!mem || !priv || dma_pool_alloc(pool, size, DMA_POOL_MIN_ALIGN, &priv->buf)) {
		hal_err("rknn: cannot allocate %u bytes of NPU memory", size);
		free(mem);
		free(priv);
		return NULL;
	}
	memset(priv->buf.cpu, 0, size);
	mem->virt_addr = priv->buf.cpu;
	mem->phys_addr = priv->buf.phys;
	mem->fd = -1;
	mem->size = size;
	mem->priv_data = priv;
	return mem;
}

void rknn_mem_use(rknn_tensor_mem *mem, bool use)
{
	struct rknn_mem_priv *priv = mem->priv_data;

	if (use)
		priv->users++;
	else if (priv->users)
		priv->users--;
}

int rknn_destroy_mem(rknn_context ctx, rknn_tensor_mem *mem)
{
	struct npu_dev *dev;
	struct dma_pool *pool;
	struct rknn_mem_priv *priv;

	if (!rknn_handle_valid(ctx))
		return RKNN_ERR_CTX_INVALID;
	if (!mem || !mem->priv_data || rknn_device_get(&dev, &pool))
		return RKNN_ERR_PARAM_INVALID;
	priv = mem->priv_data;
	if (priv->users) {
		hal_err("rknn_destroy_mem: still bound by rknn_set_io_mem to %u context(s): "
			"destroy them (or bind other memory) first", priv->users);
		return RKNN_ERR_PARAM_INVALID;
	}
	if (dma_pool_free(pool, &priv->buf))
		return RKNN_ERR_PARAM_INVALID;
	free(priv);
	free(mem);
	return RKNN_SUCC;
}
