/* SPDX-License-Identifier: MIT */
/* Cosine similarity and absolute errors against a reference (accuracy.h). */
#include "tools/accuracy.h"

#include <math.h>

void accuracy_compare(const float *got, const float *ref, size_t n, struct accuracy *out)
{
	double dot = 0, gg = 0, rr = 0, err = 0, top = 0;

	for (size_t i = 0; i < n; i++) {
		double g = got[i], r = ref[i];

		dot += g * r;
		gg += g * g;
		rr += r * r;
		/* written so that a NaN carries through */
		if (!(fabs(g - r) <= err))
			err = fabs(g - r);
		if (!(fabs(r) <= top))
			top = fabs(r);
	}
	if (gg == 0 && rr == 0)
		out->cosine = 1.0;
	else if (gg == 0 || rr == 0)
		out->cosine = 0.0;
	else
		out->cosine = dot / (sqrt(gg) * sqrt(rr));
	out->max_abs_err = err;
	out->max_abs_ref = top;
}
