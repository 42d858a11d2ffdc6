/* SPDX-License-Identifier: MIT */
/*
 * What the loader's two halves share (runtime/model_load.c: the file, its
 * sections and shape sets; runtime/model_check.c: every record of a shape
 * set against the lowering's rules and the plan). Nothing outside runtime/
 * includes it.
 */
#ifndef RKBARE_RUNTIME_MODEL_CHECK_H
#define RKBARE_RUNTIME_MODEL_CHECK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "runtime/model.h"

/* Limits well above any model this NPU runs, that keep every product of
 * dimensions far from overflowing. */
#define RKB_MAX_DIM		65536u
#define RKB_MAX_KERNEL		64u
#define RKB_MAX_RECORDS		65536u

struct rkb_loader {
	const uint8_t *b;
	size_t size;
	struct rkb_model *m;
	char *err;
	size_t err_len;
	uint32_t set;		/* the shape set being checked */
};

/* A message naming the field into l->err (prefixed by the shape set
 * after set 0); returns status. */
static inline int fail(struct rkb_loader *l, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static inline int fail(struct rkb_loader *l, int status, const char *fmt, ...)
{
	va_list ap;
	int at = 0;

	if (!l->err_len)
		return status;
	/* set 0 is the model as older loaders read it: no prefix */
	if (l->set)
		at = snprintf(l->err, l->err_len, "shape set %u: ", l->set);
	if (at < 0 || (size_t)at >= l->err_len)
		at = 0;
	va_start(ap, fmt);
	vsnprintf(l->err + at, l->err_len - (size_t)at, fmt, ap);
	va_end(ap);
	return status;
}

/* off + bytes within limit, in 64 bits. */
static inline bool range_ok(uint64_t off, uint64_t bytes, uint64_t limit)
{
	return off <= limit && bytes <= limit - off;
}

/* The checks the op kinds' own (op_kinds.c) share with the rest: a STRINGS
 * offset; a constant range of op i of `expected` bytes inside CONSTANTS; a
 * tensor holding c_aligned channels and bytes; op i's output shape. Each
 * returns RKB_OK or fails naming the field. */
int rkb_check_name(struct rkb_loader *l, uint32_t off, const char *what, uint32_t i);
int rkb_check_const(struct rkb_loader *l, uint32_t i, const char *field,
		    const struct rkb_range *r, uint64_t expected);
int rkb_check_fits(struct rkb_loader *l, uint32_t i, const char *role, uint32_t t,
		   unsigned int c_aligned, size_t bytes);
int rkb_check_out_shape(struct rkb_loader *l, uint32_t i, unsigned int c, unsigned int h,
			unsigned int w);
/* The placeholder NPU addresses the checks lower against. */
extern const struct rkb_op_addrs rkb_check_addrs;

/* Every check of the selected shape set's records (model_check.c). */
int rkb_check_set(struct rkb_loader *l);

#endif /* RKBARE_RUNTIME_MODEL_CHECK_H */
