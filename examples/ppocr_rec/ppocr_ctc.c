/* SPDX-License-Identifier: MIT */
/*
 * Text from the class probabilities of a CTC text recogniser (PP-OCRv4 rec:
 * output softmax_11.tmp_0, [N, T, C]) written as .npy by `rkbare infer` or
 * onnxruntime, decoded as PaddleOCR's CTCLabelDecode does (ctc.h):
 *
 *   ppocr_ctc PROBS.npy DICT.txt [--no-space]
 *
 * DICT.txt: the character dictionary (ppocr_keys_v1.txt), one character a
 * line; classes are the blank, its lines and a space (--no-space: none).
 * Prints one line per sample, "text I: score S: TEXT". Build:
 *
 *   cc examples/ppocr_rec/ppocr_ctc.c examples/ppocr_rec/ctc.c \
 *      tools/onnx/npy.c tools/cli_parse.c -I. -lm
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "examples/ppocr_rec/ctc.h"
#include "tools/cli_parse.h"
#include "tools/onnx/npy.h"

/* Largest probabilities file read, and the largest dictionary. */
#define MAX_PROBS_BYTES	(256u << 20)
#define MAX_DICT_BYTES	(16u << 20)
/* Characters decoded per sample, and the bytes of one text. */
#define MAX_CHARS	1024u
#define MAX_TEXT	(MAX_CHARS * 8u)

static int usage(void)
{
	fprintf(stderr, "usage: ppocr_ctc PROBS.npy DICT.txt [--no-space]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *probs = NULL, *dict_path = NULL;
	struct npy_array a = { 0 };
	struct ctc_dict d;
	uint32_t *start = NULL, idx[MAX_CHARS];
	char *dict = NULL, *text = NULL, err[160];
	size_t dict_len;
	uint32_t steps, classes;
	int space = 1, rc = 1;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--no-space"))
			space = 0;
		else if (argv[i][0] == '-')
			return usage();
		else if (!probs)
			probs = argv[i];
		else if (!dict_path)
			dict_path = argv[i];
		else
			return usage();
	}
	if (!dict_path)
		return usage();
	dict = (char *)cli_read_file("ppocr_ctc", dict_path, MAX_DICT_BYTES, &dict_len);
	if (!dict)
		return 1;
	start = malloc(((size_t)ctc_dict_lines(dict, dict_len) + 1) * sizeof(*start));
	text = malloc(MAX_TEXT);
	if (!start || !text) {
		fprintf(stderr, "ppocr_ctc: out of memory\n");
		goto out;
	}
	ctc_dict_init(&d, dict, dict_len, start, space);
	if (npy_read(probs, MAX_PROBS_BYTES, &a, err, sizeof(err))) {
		fprintf(stderr, "ppocr_ctc: %s\n", err);
		goto out;
	}
	/* [N, T, C] or [T, C] */
	if (a.dtype != NPY_F32 || a.rank < 2 || a.rank > 3 || !a.count) {
		fprintf(stderr, "ppocr_ctc: %s: float32 [N, T, C] probabilities expected\n", probs);
		goto out;
	}
	steps = (uint32_t)a.shape[a.rank - 2];
	classes = (uint32_t)a.shape[a.rank - 1];
	if (classes != ctc_dict_classes(&d)) {
		fprintf(stderr, "ppocr_ctc: %s has %u classes; %s gives %u (blank, %u lines%s)\n",
			probs, classes, dict_path, ctc_dict_classes(&d), d.lines,
			space ? ", space" : "");
		goto out;
	}
	for (uint64_t s = 0; s < a.count / ((uint64_t)steps * classes); s++) {
		float score;
		size_t n = ctc_greedy((const float *)a.data + s * steps * classes, steps, classes,
				      idx, MAX_CHARS, &score);

		ctc_text(&d, idx, n < MAX_CHARS ? n : MAX_CHARS, text, MAX_TEXT);
		printf("text %llu: score %.3f: %s\n", (unsigned long long)s, (double)score, text);
	}
	rc = 0;
out:
	npy_free(&a);
	free(dict);
	free(start);
	free(text);
	return rc;
}
