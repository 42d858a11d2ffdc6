/* SPDX-License-Identifier: MIT */
/* How far a run's values are from a float32 reference (rkbare compare,
 * rkbare infer --reference): cosine similarity and absolute errors. */
#ifndef RKBARE_TOOLS_ACCURACY_H
#define RKBARE_TOOLS_ACCURACY_H

#include <stddef.h>

struct accuracy {
	double cosine;		/* 1 when both are all zero, 0 when only one is */
	double max_abs_err;
	double max_abs_ref;	/* the reference's largest magnitude, for scale */
};

/* got against ref, n values each. */
void accuracy_compare(const float *got, const float *ref, size_t n, struct accuracy *out);

#endif /* RKBARE_TOOLS_ACCURACY_H */
