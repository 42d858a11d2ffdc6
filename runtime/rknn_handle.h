/* SPDX-License-Identifier: MIT */
/*
 * Handles of the rknn-compatible APIs (rknn_context, rknn_matmul_ctx) and
 * the guards against concurrent use.
 *
 * A handle is an index into a static table and the generation of that
 * slot: a handle that was destroyed, one that was never made and a
 * garbage value are told apart from a live one by comparing numbers in the
 * table, never by reading memory the handle points at (which may have been
 * freed, or never have been a context).
 *
 * Concurrency (docs/PORTING.md "Concurrency"): the table is under a lock
 * of its own (hal.h). Every call on a context holds the context's busy
 * flag for its duration, so a second caller on the same context at the
 * same time is refused with RKNN_ERR_DEVICE_UNAVAILABLE, never run; calls
 * on different contexts run concurrently, each taking the lock of the
 * shared state it touches (the DMA pool, the device's memory records, the
 * NPU cores it runs on).
 */
#ifndef RKBARE_RUNTIME_RKNN_HANDLE_H
#define RKBARE_RUNTIME_RKNN_HANDLE_H

#include <stdbool.h>
#include <stdint.h>

/* Live contexts of both kinds at once. */
#define RKNN_MAX_HANDLES	256u

enum rknn_handle_kind {
	RKNN_HANDLE_ANY = 0,	/* lookups only: a context of either kind */
	RKNN_HANDLE_MODEL = 1,
	RKNN_HANDLE_MATMUL = 2,
};

/* A new handle for obj, or 0 when the table is full (with a message). */
uint64_t rknn_handle_new(enum rknn_handle_kind kind, void *obj);

/*
 * The object behind h (of that kind, or either with RKNN_HANDLE_ANY) into
 * *obj, with h's busy flag taken: RKNN_SUCC, RKNN_ERR_CTX_INVALID (not a
 * live handle) or RKNN_ERR_DEVICE_UNAVAILABLE (another call is on it),
 * with a message naming `who`. On failure nothing is taken.
 */
int rknn_handle_enter(uint64_t h, enum rknn_handle_kind kind, const char *who, void **obj);
/* The flag rknn_handle_enter took is given back. */
void rknn_handle_leave(uint64_t h);
/* Entered h dies (its object being freed by the caller): its slot is free
 * again, and h and copies of it are refused. */
void rknn_handle_retire(uint64_t h);

#endif /* RKBARE_RUNTIME_RKNN_HANDLE_H */
