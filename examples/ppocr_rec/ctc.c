/* SPDX-License-Identifier: MIT */
/* CTC greedy decoding and the dictionary lookup (ctc.h). */
#include <string.h>

#include "examples/ppocr_rec/ctc.h"

uint32_t ctc_dict_lines(const char *text, size_t len)
{
	uint32_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += text[i] == '\n';
	return n + (len && text[len - 1] != '\n');
}

void ctc_dict_init(struct ctc_dict *d, const char *text, size_t len, uint32_t *start,
		   int space)
{
	uint32_t line = 0;

	start[0] = 0;
	for (size_t i = 0; i < len; i++)
		if (text[i] == '\n')
			start[++line] = (uint32_t)i + 1;
	if (len && text[len - 1] != '\n')
		start[++line] = (uint32_t)len + 1;	/* as if a '\n' followed */
	d->text = text;
	d->len = len;
	d->start = start;
	d->lines = line;
	d->space = space;
}

size_t ctc_greedy(const float *p, uint32_t steps, uint32_t classes, uint32_t *out, size_t max,
		  float *score)
{
	uint32_t prev = classes;	/* no class: the first step's is never a repeat */
	size_t kept = 0;
	float sum = 0.0f;

	for (uint32_t t = 0; t < steps && classes; t++) {
		const float *row = p + (size_t)t * classes;
		uint32_t best = 0;

		for (uint32_t c = 1; c < classes; c++)
			if (row[c] > row[best])
				best = c;
		if (best != 0 && best != prev) {
			if (kept < max)
				out[kept] = best;
			kept++;
			sum += row[best];
		}
		prev = best;
	}
	if (score)
		*score = kept ? sum / (float)kept : 0.0f;
	return kept;
}

size_t ctc_text(const struct ctc_dict *d, const uint32_t *idx, size_t n, char *buf, size_t len)
{
	size_t at = 0;

	if (!len)
		return 0;
	for (size_t i = 0; i < n; i++) {
		const char *s = "?";
		size_t k = 1;

		if (idx[i] >= 1 && idx[i] <= d->lines) {
			s = d->text + d->start[idx[i] - 1];
			k = d->start[idx[i]] - 1 - d->start[idx[i] - 1];
			if (k && s[k - 1] == '\r')
				k--;	/* a dictionary with CRLF line ends */
		} else if (d->space && idx[i] == d->lines + 1) {
			s = " ";
		}
		if (at + k >= len)
			break;
		memcpy(buf + at, s, k);
		at += k;
	}
	buf[at] = '\0';
	return at;
}
