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
	SLOT_CLAIMED,	/* being filled by rknn_handle_new */
};

struct handle_slot {
	uint32_t state;		/* enum slot_state, changed with compare-and-swap */
	uint32_t gen;		/* never 0 once used */
	uint32_t kind;
	void *obj;
};

static struct handle_slot slots[RKNN_MAX_HANDLES];
static uint32_t device_busy;

static bool take(uint32_t *flag, uint32_t from, uint32_t to)
{
	return __atomic_compare_exchange_n(flag, &from, to, false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

static void put(uint32_t *flag, uint32_t to)
{
	__atomic_store_n(flag, to, __ATOMIC_RELEASE);
}

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

int rknn_device_enter(const char *who)
{
	if (take(&device_busy, 0, 1))
		return RKNN_SUCC;
	hal_err("%s: the NPU device is in use by another caller: concurrent calls are "
		"refused, not run (one thread at a time drives the NPU)", who);
	return RKNN_ERR_DEVICE_UNAVAILABLE;
}

void rknn_device_leave(void)
{
	put(&device_busy, 0);
}

uint64_t rknn_handle_new(enum rknn_handle_kind kind, void *obj)
{
	for (uint32_t i = 0; i < RKNN_MAX_HANDLES; i++) {
		struct handle_slot *s = &slots[i];
		uint32_t gen;

		if (!take(&s->state, SLOT_FREE, SLOT_CLAIMED))
			continue;
		gen = s->gen ? s->gen : 1u;
		s->gen = gen;
		s->kind = kind;
		s->obj = obj;
		put(&s->state, SLOT_IDLE);
		return encode(i, gen);
	}
	hal_err("rknn: %u contexts are live: destroy one first", RKNN_MAX_HANDLES);
	return 0;
}

int rknn_handle_enter(uint64_t h, enum rknn_handle_kind kind, const char *who, bool device,
		      void **obj)
{
	uint32_t gen;
	struct handle_slot *s = slot_of(h, &gen);

	if (s && __atomic_load_n(&s->gen, __ATOMIC_ACQUIRE) == gen &&
	    take(&s->state, SLOT_IDLE, SLOT_BUSY)) {
		/* The slot may have changed hands between the two reads. */
		if (s->gen == gen && (kind == RKNN_HANDLE_ANY || s->kind == (uint32_t)kind)) {
			if (device && rknn_device_enter(who)) {
				put(&s->state, SLOT_IDLE);
				return RKNN_ERR_DEVICE_UNAVAILABLE;
			}
			*obj = s->obj;
			return RKNN_SUCC;
		}
		put(&s->state, SLOT_IDLE);
	} else if (s && __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == SLOT_BUSY &&
		   __atomic_load_n(&s->gen, __ATOMIC_ACQUIRE) == gen) {
		hal_err("%s: the context is in use by another caller: concurrent calls on one "
			"context are refused, not run", who);
		return RKNN_ERR_DEVICE_UNAVAILABLE;
	}
	hal_err("%s: 0x%llx is not a live %scontext (destroyed, or never made)", who,
		(unsigned long long)h, kind == RKNN_HANDLE_MATMUL ? "matmul " : "");
	return RKNN_ERR_CTX_INVALID;
}

void rknn_handle_leave(uint64_t h, bool device)
{
	uint32_t gen;
	struct handle_slot *s = slot_of(h, &gen);

	if (device)
		rknn_device_leave();
	if (s)
		put(&s->state, SLOT_IDLE);
}

void rknn_handle_retire(uint64_t h, bool device)
{
	uint32_t gen;
	struct handle_slot *s = slot_of(h, &gen);

	if (device)
		rknn_device_leave();
	if (!s)
		return;
	s->obj = NULL;
	s->kind = 0;
	/* Copies of h stop matching before the slot can be claimed again. */
	__atomic_store_n(&s->gen, gen + 1u ? gen + 1u : 1u, __ATOMIC_RELEASE);
	put(&s->state, SLOT_FREE);
}
