/* SPDX-License-Identifier: MIT */
/*
 * The handle table and the busy flags (rknn_handle.h).
 *
 * A handle is HANDLE_TAG << 48 | generation << 16 | (slot index + 1): zero
 * is never a handle, and a pointer or a small integer passed as one fails
 * the tag. A slot's generation changes when its context is destroyed, so
 * a stale copy of the handle no longer matches, even once the slot holds
 * a new context.
 */
#include <stddef.h>

#include "hal.h"
#include "rknn_api.h"
#include "runtime/rknn_handle.h"

#define HANDLE_TAG		0x524bu		/* "RK" */
#define HANDLE_TAG_SHIFT	48
#define HANDLE_GEN_SHIFT	16
#define HANDLE_INDEX_MASK	0xffffu

_Static_assert(RKNN_MAX_HANDLES <= HANDLE_INDEX_MASK, "slot index must fit the handle");

enum slot_state {
	SLOT_FREE = 0,
	SLOT_IDLE,	/* live, no call on it */
	SLOT_BUSY,	/* live, a call is on it */
};

struct handle_slot {
	uint32_t state;		/* enum slot_state */
	uint32_t gen;		/* never 0 once used */
	uint32_t kind;
	void *obj;
};

/* The slots, under table_lock; a slot's object is its caller's while the
 * slot is BUSY. */
static struct hal_lock table_lock = HAL_LOCK_INITIALIZER;
static struct handle_slot slots[RKNN_MAX_HANDLES];

static uint64_t encode(uint32_t index, uint32_t gen)
{
	return (uint64_t)HANDLE_TAG << HANDLE_TAG_SHIFT | (uint64_t)gen << HANDLE_GEN_SHIFT |
	       (index + 1u);
}

/* The slot h names (not yet checked for liveness), or NULL. */
static struct handle_slot *slot_of(uint64_t h, uint32_t *gen)
{
	uint32_t index = (uint32_t)(h & HANDLE_INDEX_MASK);

	if (h >> HANDLE_TAG_SHIFT != HANDLE_TAG || !index || index > RKNN_MAX_HANDLES)
		return NULL;
	*gen = (uint32_t)(h >> HANDLE_GEN_SHIFT);
	return &slots[index - 1u];
}

uint64_t rknn_handle_new(enum rknn_handle_kind kind, void *obj)
{
	uint64_t h = 0;

	hal_lock(&table_lock);
	for (uint32_t i = 0; i < RKNN_MAX_HANDLES; i++) {
		struct handle_slot *s = &slots[i];

		if (s->state != SLOT_FREE)
			continue;
		if (!s->gen)
			s->gen = 1u;
		s->kind = kind;
		s->obj = obj;
		s->state = SLOT_IDLE;
		h = encode(i, s->gen);
		break;
	}
	hal_unlock(&table_lock);
	if (!h)
		hal_err("rknn: %u contexts are live: destroy one first", RKNN_MAX_HANDLES);
	return h;
}

int rknn_handle_enter(uint64_t h, enum rknn_handle_kind kind, const char *who, void **obj)
{
	uint32_t gen;
	struct handle_slot *s = slot_of(h, &gen);
	int rc = RKNN_ERR_CTX_INVALID;

	hal_lock(&table_lock);
	if (s && s->state != SLOT_FREE && s->gen == gen &&
	    (kind == RKNN_HANDLE_ANY || s->kind == (uint32_t)kind)) {
		rc = s->state == SLOT_BUSY ? RKNN_ERR_DEVICE_UNAVAILABLE : RKNN_SUCC;
		if (!rc) {
			s->state = SLOT_BUSY;
			*obj = s->obj;
		}
	}
	hal_unlock(&table_lock);
	if (rc == RKNN_ERR_DEVICE_UNAVAILABLE)
		hal_err("%s: the context is in use by another caller: concurrent calls on one "
			"context are refused, not run", who);
	else if (rc)
		hal_err("%s: 0x%llx is not a live %scontext (destroyed, or never made)", who,
			(unsigned long long)h, kind == RKNN_HANDLE_MATMUL ? "matmul " : "");
	return rc;
}

void rknn_handle_leave(uint64_t h)
{
	uint32_t gen;
	struct handle_slot *s = slot_of(h, &gen);

	if (!s)
		return;
	hal_lock(&table_lock);
	if (s->gen == gen && s->state == SLOT_BUSY)
		s->state = SLOT_IDLE;
	hal_unlock(&table_lock);
}

void rknn_handle_retire(uint64_t h)
{
	uint32_t gen;
	struct handle_slot *s = slot_of(h, &gen);

	if (!s)
		return;
	hal_lock(&table_lock);
	if (s->gen == gen && s->state != SLOT_FREE) {
		s->obj = NULL;
		s->kind = 0;
		/* Copies of h stop matching, even once the slot is used again. */
		s->gen = gen + 1u ? gen + 1u : 1u;
		s->state = SLOT_FREE;
	}
	hal_unlock(&table_lock);
}
