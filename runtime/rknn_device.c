/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "hal.h"
#include "rknn_api.h"
#include "runtime/rknn_device.h"
#include "runtime/rknn_handle.h"

/*
 * dev_lock guards the device chosen (bound_*), the memory records
 * (mem_list and what its entries hold) and the counts contexts share
 * (rknn_device_lock). Locks taken under it: a pool's, and during the
 * default bring-up the driver's; it is never taken under another.
 */
static struct hal_lock dev_lock = HAL_LOCK_INITIALIZER;
static struct npu_dev *bound_dev;
static struct dma_pool *bound_pool;
/* The defaults, when the application binds nothing. */
static struct npu_dev default_dev;
static struct dma_pool default_pool;

void rknn_device_lock(void)
{
	hal_lock(&dev_lock);
}

void rknn_device_unlock(void)
{
	hal_unlock(&dev_lock);
}

int rknn_device_bind(struct npu_dev *dev, struct dma_pool *pool)
{
	if (!dev || !pool)
		return RKNN_ERR_PARAM_INVALID;
	hal_lock(&dev_lock);
	bound_dev = dev;
	bound_pool = pool;
	hal_unlock(&dev_lock);
	return RKNN_SUCC;
}

/* The first context brings the default device up, the others wait for it
 * on the lock (docs/PORTING.md: the one critical section that polls). */
static int device_get_locked(struct npu_dev **dev, struct dma_pool **pool)
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

int rknn_device_get(struct npu_dev **dev, struct dma_pool **pool)
{
	int rc;

	hal_lock(&dev_lock);
	rc = device_get_locked(dev, pool);
	hal_unlock(&dev_lock);
	return rc;
}

/* rknn_tensor_mem.priv_data (under dev_lock): the pool buffer, and how many bindings
 * (rknn_set_io_mem, rknn_matmul_set_io_mem, ...) still let the NPU reach
 * it. Every live one is on mem_list, which tells the runtime's memory from
 * a hand-made rknn_tensor_mem by address alone. */
struct rknn_mem_priv {
	struct dma_buf buf;
	unsigned int users;
	uint32_t size;			/* as asked (buf.size is rounded up) */
	bool destroyed;			/* by rknn_destroy_mem, while still bound */
	struct dma_pool *pool;		/* buf's */
	const rknn_tensor_mem *mem;
	struct rknn_mem_priv *next;
};

static struct rknn_mem_priv *mem_list;

static struct rknn_mem_priv *mem_find(const rknn_tensor_mem *mem)
{
	for (struct rknn_mem_priv *p = mem_list; mem && p; p = p->next)
		if (p->mem == mem)
			return p;
	return NULL;
}

static const struct dma_buf *buf_locked(const rknn_tensor_mem *mem, const char *who)
{
	struct rknn_mem_priv *p = mem_find(mem);

	if (!p) {
		hal_err("%s: memory %p was not made by rknn_create_mem (or was destroyed): only "
			"the runtime's NPU memory can be bound", who, (const void *)mem);
		return NULL;
	}
	if (p->destroyed) {
		hal_err("%s: memory %p was destroyed (rknn_destroy_mem) while bound: bind "
			"other memory", who, (const void *)mem);
		return NULL;
	}
	if (mem->virt_addr != p->buf.cpu || mem->phys_addr != p->buf.phys ||
	    mem->size != p->size || mem->priv_data != p) {
		hal_err("%s: memory %p: its virt_addr, phys_addr, size or priv_data were changed "
			"after rknn_create_mem", who, (const void *)mem);
		return NULL;
	}
	return &p->buf;
}

size_t rknn_mem_room(const void *p)
{
	const uint8_t *at = p;
	size_t room = 0;

	hal_lock(&dev_lock);
	for (const struct rknn_mem_priv *m = mem_list; m; m = m->next) {
		const uint8_t *start = m->buf.cpu;

		if (!m->destroyed && at >= start && at < start + m->size) {
			room = m->size - (size_t)(at - start);
			break;
		}
	}
	hal_unlock(&dev_lock);
	return room;
}

const struct dma_buf *rknn_mem_buf(const rknn_tensor_mem *mem, const char *who)
{
	const struct dma_buf *buf;

	hal_lock(&dev_lock);
	buf = buf_locked(mem, who);
	hal_unlock(&dev_lock);
	return buf;
}

const struct dma_buf *rknn_mem_hold(rknn_tensor_mem *mem, const char *who)
{
	const struct dma_buf *buf;

	hal_lock(&dev_lock);
	buf = buf_locked(mem, who);
	if (buf)
		((struct rknn_mem_priv *)mem->priv_data)->users++;
	hal_unlock(&dev_lock);
	return buf;
}

rknn_tensor_mem *rknn_create_mem(rknn_context ctx, uint32_t size)
{
	struct npu_dev *dev;
	struct dma_pool *pool;
	rknn_tensor_mem *mem = NULL;
	struct rknn_mem_priv *priv;
	void *obj;

	if (rknn_handle_enter(ctx, RKNN_HANDLE_ANY, "rknn_create_mem", &obj))
		return NULL;
	if (!size) {
		hal_err("rknn_create_mem: 0 bytes: a size above 0 is needed");
		goto out;
	}
	if (rknn_device_get(&dev, &pool))
		goto out;
	mem = calloc(1, sizeof(*mem));
	priv = calloc(1, sizeof(*priv));
	if (!mem || !priv || dma_pool_alloc(pool, size, DMA_POOL_MIN_ALIGN, &priv->buf)) {
		hal_err("rknn_create_mem: cannot allocate %u bytes of NPU memory", size);
		free(mem);
		free(priv);
		mem = NULL;
		goto out;
	}
	memset(priv->buf.cpu, 0, size);
	priv->size = size;
	mem->virt_addr = priv->buf.cpu;
	mem->phys_addr = priv->buf.phys;
	mem->fd = -1;
	mem->size = size;
	mem->priv_data = priv;
	priv->mem = mem;
	priv->pool = pool;
	hal_lock(&dev_lock);
	priv->next = mem_list;
	mem_list = priv;
	hal_unlock(&dev_lock);
out:
	rknn_handle_leave(ctx);
	return mem;
}

/* The pool buffer and the records of priv go back (dev_lock held). */
static void mem_free_locked(struct rknn_mem_priv *priv)
{
	struct rknn_mem_priv **link;

	dma_pool_free(priv->pool, &priv->buf);
	for (link = &mem_list; *link != priv; link = &(*link)->next)
		;
	*link = priv->next;
	free((void *)priv->mem);
	free(priv);
}

void rknn_mem_drop(rknn_tensor_mem *mem)
{
	struct rknn_mem_priv *priv;

	hal_lock(&dev_lock);
	priv = mem_find(mem);
	if (priv && priv->users && !--priv->users && priv->destroyed)
		mem_free_locked(priv);
	hal_unlock(&dev_lock);
}

/*
 * Memory still bound to a context (the vendor's demos destroy memory
 * before its context) is not freed under the NPU: it dies at once for the
 * caller — binding it again, or running the context that holds it, is
 * refused — and goes back to the pool when its last binding ends.
 */
int rknn_destroy_mem(rknn_context ctx, rknn_tensor_mem *mem)
{
	struct rknn_mem_priv *priv;
	void *obj;
	int rc;

	rc = rknn_handle_enter(ctx, RKNN_HANDLE_ANY, "rknn_destroy_mem", &obj);
	if (rc)
		return rc;
	rc = RKNN_ERR_PARAM_INVALID;
	hal_lock(&dev_lock);
	if (buf_locked(mem, "rknn_destroy_mem")) {
		priv = mem->priv_data;
		priv->destroyed = true;
		if (!priv->users)
			mem_free_locked(priv);
		rc = RKNN_SUCC;
	}
	hal_unlock(&dev_lock);
	rknn_handle_leave(ctx);
	return rc;
}
