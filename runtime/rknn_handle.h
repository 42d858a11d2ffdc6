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
 * Concurrency: nothing in the runtime locks (lock hooks are not part of
 * the porting interface yet), so concurrent use is detected and refused,
 * never run. Every call on a context takes the context's busy flag for
 * its duration; calls that drive the NPU or the DMA pool also take the
 * device's. A second caller finding either taken gets
 * RKNN_ERR_DEVICE_UNAVAILABLE and a log line; the first is undisturbed.
 * The flags are taken with compare-and-swap (GCC __atomic builtins), which
 * the freestanding image has too.
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
 * *obj, with h's busy flag taken (and the device's too when `device`):
 * RKNN_SUCC, RKNN_ERR_CTX_INVALID (not a live handle) or
 * RKNN_ERR_DEVICE_UNAVAILABLE (in use by another caller), with a message
 * naming `who`. On failure nothing is taken.
 */
int rknn_handle_enter(uint64_t h, enum rknn_handle_kind kind, const char *who, bool device,
		      void **obj);
/* The flags rknn_handle_enter took are given back. */
void rknn_handle_leave(uint64_t h, bool device);
/* Entered h dies (its object being freed by the caller): its slot is free
 * again, its flags given back, and h and copies of it are refused. */
void rknn_handle_retire(uint64_t h, bool device);

/* The device's flag alone (calls that make a context, not on one). */
int rknn_device_enter(const char *who);
void rknn_device_leave(void);

#endif /* RKBARE_RUNTIME_RKNN_HANDLE_H */
