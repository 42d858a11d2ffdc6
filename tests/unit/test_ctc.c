/* SPDX-License-Identifier: MIT */
/*
 * examples/ppocr_rec/ctc.c, CTC greedy decoding and the dictionary, on
 * probabilities written by hand; the expected texts follow from the rules
 * ctc.h states (PaddleOCR's CTCLabelDecode), not from the code.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "examples/ppocr_rec/ctc.c"

/* A dictionary of three entries, the second two bytes of UTF-8, with a
 * CRLF end; classes: blank, a, é, c, space. */
static const char dict_text[] = "a\n\xc3\xa9\nc\r\n";
#define CLASSES	5u
#define STEPS	9u

static float probs[STEPS * CLASSES];

/* Step t's likeliest class c at probability p, the rest sharing 1 - p. */
static void step(uint32_t t, uint32_t c, float p)
{
	for (uint32_t k = 0; k < CLASSES; k++)
		probs[t * CLASSES + k] = k == c ? p : (1.0f - p) / (CLASSES - 1);
}

static void test_dictionary(void **state)
{
	uint32_t start[8];
	struct ctc_dict d;

	assert_int_equal(ctc_dict_lines(dict_text, strlen(dict_text)), 3);
	ctc_dict_init(&d, dict_text, strlen(dict_text), start, 1);
	assert_int_equal(d.lines, 3);
	assert_int_equal(ctc_dict_classes(&d), CLASSES);
	/* a last line without '\n' counts */
	assert_int_equal(ctc_dict_lines("a\nb", 3), 2);
	ctc_dict_init(&d, "a\nb", 3, start, 0);
	assert_int_equal(d.lines, 2);
	assert_int_equal(ctc_dict_classes(&d), 3);
}

static void test_greedy(void **state)
{
	/* a a blank a é é space c blank -> a, a, é, space, c: a repeat is merged
	 * only when adjacent, a blank separates two of the same */
	static const uint32_t seq[STEPS] = { 1, 1, 0, 1, 2, 2, 4, 3, 0 };
	static const float p[STEPS] = { 0.9f, 0.5f, 0.8f, 0.7f, 0.6f, 0.9f, 0.4f, 0.8f, 0.9f };
	uint32_t out[8], start[8];
	struct ctc_dict d;
	char buf[32];
	float score;
	size_t n;

	for (uint32_t t = 0; t < STEPS; t++)
		step(t, seq[t], p[t]);
	n = ctc_greedy(probs, STEPS, CLASSES, out, 8, &score);
	assert_int_equal(n, 5);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[1], 1);
	assert_int_equal(out[2], 2);
	assert_int_equal(out[3], 4);
	assert_int_equal(out[4], 3);
	/* the kept steps' probabilities: 0.9, 0.7, 0.6, 0.4, 0.8 */
	assert_float_equal(score, (0.9f + 0.7f + 0.6f + 0.4f + 0.8f) / 5.0f, 1e-6f);
	ctc_dict_init(&d, dict_text, strlen(dict_text), start, 1);
	assert_int_equal(ctc_text(&d, out, n, buf, sizeof(buf)), 6);
	assert_string_equal(buf, "aa\xc3\xa9 c");
	/* truncated at a character boundary: "aa" and é's two bytes need 5 */
	assert_int_equal(ctc_text(&d, out, n, buf, 4), 2);
	assert_string_equal(buf, "aa");
	/* fewer stored than kept */
	assert_int_equal(ctc_greedy(probs, STEPS, CLASSES, out, 2, NULL), 5);
}

static void test_ties_and_outside(void **state)
{
	uint32_t out[4], start[8], bad[2] = { 7, 0 };
	struct ctc_dict d;
	char buf[8];
	float score = -1.0f;

	/* equal maxima: the first class wins, here the blank */
	for (uint32_t k = 0; k < CLASSES; k++)
		probs[k] = 0.2f;
	assert_int_equal(ctc_greedy(probs, 1, CLASSES, out, 4, &score), 0);
	assert_float_equal(score, 0.0f, 0.0f);
	/* classes outside the dictionary are written '?'; without the space
	 * class, class lines + 1 is one of them */
	ctc_dict_init(&d, dict_text, strlen(dict_text), start, 0);
	bad[1] = d.lines + 1;
	assert_int_equal(ctc_text(&d, bad, 2, buf, sizeof(buf)), 2);
	assert_string_equal(buf, "??");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dictionary),
		cmocka_unit_test(test_greedy),
		cmocka_unit_test(test_ties_and_outside),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
