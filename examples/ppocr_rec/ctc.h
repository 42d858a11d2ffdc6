/* SPDX-License-Identifier: MIT */
/*
 * The decoder of a CTC text recogniser such as PaddleOCR's PP-OCRv4 rec:
 * from its per-step class probabilities [T, C] to text, as PaddleOCR's
 * CTCLabelDecode does (ppocr/postprocess/rec_postprocess.py), in
 * freestanding C so it runs in the bare-metal image as well as on the
 * host:
 *
 * 1. per step the likeliest class (the first of equal maxima);
 * 2. a class equal to the previous step's is dropped (repeats merged), and
 *    so is class 0, the blank;
 * 3. class i (1 <= i <= lines) is the i-th line of the character
 *    dictionary (ppocr_keys_v1.txt: one UTF-8 character per line); with
 *    use_space_char, class lines + 1 is a space. The text's score is the
 *    mean probability of the kept steps.
 */
#ifndef RKBARE_EXAMPLES_CTC_H
#define RKBARE_EXAMPLES_CTC_H

#include <stddef.h>
#include <stdint.h>

/* A character dictionary: the text, one entry per line ('\n' ends a line;
 * a last line without one counts), and where each line starts. */
struct ctc_dict {
	const char *text;
	size_t len;
	const uint32_t *start;	/* lines + 1 offsets: line i is start[i] .. start[i + 1] - 1 */
	uint32_t lines;
	int space;		/* class lines + 1 is a space (use_space_char) */
};

/* Lines of a dictionary text (the size of the start table: lines + 1). */
uint32_t ctc_dict_lines(const char *text, size_t len);

/* Fills start (ctc_dict_lines(text, len) + 1 entries) and d. */
void ctc_dict_init(struct ctc_dict *d, const char *text, size_t len, uint32_t *start,
		   int space);

/* Classes of the dictionary's recogniser: blank, the lines, the space. */
static inline uint32_t ctc_dict_classes(const struct ctc_dict *d)
{
	return 1u + d->lines + (d->space ? 1u : 0u);
}

/*
 * Greedy decoding of p (steps x classes floats, row-major): the kept
 * classes, at most max of them, into out; *score (may be NULL) the mean
 * probability of the kept steps (0 when none). Returns how many were kept
 * (possibly more than max: only max are stored).
 */
size_t ctc_greedy(const float *p, uint32_t steps, uint32_t classes, uint32_t *out, size_t max,
		  float *score);

/*
 * The text of classes idx[0..n) into buf (len bytes, NUL-terminated,
 * truncated at a character boundary). A class outside the dictionary is
 * written as '?'. Returns the bytes written, without the NUL.
 */
size_t ctc_text(const struct ctc_dict *d, const uint32_t *idx, size_t n, char *buf, size_t len);

#endif
