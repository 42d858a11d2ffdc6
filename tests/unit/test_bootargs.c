/* SPDX-License-Identifier: MIT */
/*
 * boot/bootargs.c: splitting, quoting, limits and bad input, checked
 * against the syntax written in bootargs.h (expected values are spelled
 * out here, not produced by the parser).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <unistd.h>

#include "boot/bootargs.h"
#include "hal.h"

static struct bootargs args;

static void test_empty(void **state)
{
	assert_int_equal(bootargs_parse(&args, NULL), 0);
	assert_int_equal(args.count, 0);
	assert_null(bootargs_get(&args, "rkbare.selftest"));
	assert_int_equal(bootargs_parse(&args, ""), 0);
	assert_int_equal(args.count, 0);
	assert_int_equal(bootargs_parse(&args, " \t  "), 0);
	assert_int_equal(args.count, 0);
}

static void test_key_values_and_flags(void **state)
{
	const char line[] = "  rkbare.selftest=crash\tquiet rkbare.fault=poll=3,core=1  x-y_z.1=  ";

	assert_int_equal(bootargs_parse(&args, line), 0);
	assert_int_equal(args.count, 4);
	assert_string_equal(bootargs_get(&args, "rkbare.selftest"), "crash");
	assert_string_equal(bootargs_get(&args, "quiet"), "");
	/* Only the first '=' separates key from value. */
	assert_string_equal(bootargs_get(&args, "rkbare.fault"), "poll=3,core=1");
	assert_string_equal(bootargs_get(&args, "x-y_z.1"), "");
	assert_null(bootargs_get(&args, "rkbare"));
	assert_null(bootargs_get(&args, "rkbare.selftest=crash"));
	/* Order is kept. */
	assert_string_equal(args.option[0].key, "rkbare.selftest");
	assert_string_equal(args.option[3].key, "x-y_z.1");
	/* The caller's string is not modified. */
	assert_string_equal(line, "  rkbare.selftest=crash\tquiet rkbare.fault=poll=3,core=1  x-y_z.1=  ");
}

static void test_quoting(void **state)
{
	assert_int_equal(bootargs_parse(&args, "a=\"x  y=z\" b=\"\" c=\"q\""), 0);
	assert_int_equal(args.count, 3);
	assert_string_equal(bootargs_get(&args, "a"), "x  y=z");
	assert_string_equal(bootargs_get(&args, "b"), "");
	assert_string_equal(bootargs_get(&args, "c"), "q");
}

static void test_last_duplicate_wins(void **state)
{
	assert_int_equal(bootargs_parse(&args, "k=1 j=2 k=3"), 0);
	assert_string_equal(bootargs_get(&args, "k"), "3");
	assert_string_equal(bootargs_get(&args, "j"), "2");
}

static void assert_rejected(const char *line, int err)
{
	/* Start from a parsed state: a failure must leave nothing behind. */
	assert_int_equal(bootargs_parse(&args, "before=1"), 0);
	assert_int_equal(bootargs_parse(&args, line), err);
	assert_int_equal(args.count, 0);
	assert_null(bootargs_get(&args, "before"));
}

static void test_bad_input(void **state)
{
	assert_rejected("=x", -EINVAL);
	assert_rejected("a=1 =2", -EINVAL);
	assert_rejected("k=\"abc", -EINVAL);
	assert_rejected("k=\"a\"b", -EINVAL);
	assert_rejected("k=a\"b\"", -EINVAL);
	assert_rejected("k!=1", -EINVAL);
	assert_rejected("\"k=1\"", -EINVAL);
	assert_rejected("k\xc3\xa9=1", -EINVAL);
	assert_rejected("k=a\x01", -EINVAL);
	assert_rejected("k=\"a\x7f\"", -EINVAL);
}

static void test_limits(void **state)
{
	char line[BOOTARGS_MAX_LEN + 2];
	char key[BOOTARGS_MAX_KEY + 2];
	size_t n;
	unsigned int i;

	/* Key length: 64 accepted, 65 refused. */
	memset(key, 'k', BOOTARGS_MAX_KEY);
	key[BOOTARGS_MAX_KEY] = '\0';
	snprintf(line, sizeof(line), "%s=1", key);
	assert_int_equal(bootargs_parse(&args, line), 0);
	assert_string_equal(bootargs_get(&args, key), "1");
	key[BOOTARGS_MAX_KEY] = 'k';
	key[BOOTARGS_MAX_KEY + 1] = '\0';
	snprintf(line, sizeof(line), "%s=1", key);
	assert_rejected(line, -ENAMETOOLONG);

	/* Option count: 32 accepted, 33 refused. */
	line[0] = '\0';
	for (i = 0, n = 0; i < BOOTARGS_MAX_OPTIONS; i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "o%u=%u ", i, i);
	assert_int_equal(bootargs_parse(&args, line), 0);
	assert_int_equal(args.count, BOOTARGS_MAX_OPTIONS);
	assert_string_equal(bootargs_get(&args, "o31"), "31");
	snprintf(line + n, sizeof(line) - n, "o32=32");
	assert_rejected(line, -E2BIG);

	/* Line length: 1024 bytes accepted, 1025 refused. */
	memset(line, 'v', sizeof(line));
	memcpy(line, "k=", 2);
	line[BOOTARGS_MAX_LEN] = '\0';
	assert_int_equal(bootargs_parse(&args, line), 0);
	assert_int_equal(strlen(bootargs_get(&args, "k")), BOOTARGS_MAX_LEN - 2);
	line[BOOTARGS_MAX_LEN] = 'v';
	line[BOOTARGS_MAX_LEN + 1] = '\0';
	assert_rejected(line, -E2BIG);
}

static void test_unknown_rkbare_keys(void **state)
{
	static const char *const known[] = { "rkbare.selftest", "rkbare.fault" };

	assert_int_equal(bootargs_parse(&args,
		"rkbare.selftest=crash rkbare.typo=1 console=ttyAMA0 rkbarex=1 rkbare.=2 rkbare.fault"),
		0);
	/* rkbare.typo and "rkbare." are ours and unknown; the rest is not ours. */
	assert_int_equal(bootargs_warn_unknown(&args, known, 2), 2);
	assert_int_equal(bootargs_warn_unknown(&args, known, 0), 4);
	assert_int_equal(bootargs_parse(&args, "console=ttyS2"), 0);
	assert_int_equal(bootargs_warn_unknown(&args, known, 2), 0);
}

/* rkbare.cores= and rkbare infer --core: cores below 3, comma-separated,
 * each once, nothing else. */
static void test_core_list(void **state)
{
	static const struct {
		const char *v;
		uint32_t mask;	/* 0: refused */
	} cases[] = {
		{ "0", 0x1 }, { "2", 0x4 }, { "0,1,2", 0x7 }, { "2,0", 0x5 },
		{ "", 0 }, { "3", 0 }, { "0,0", 0 }, { "0,", 0 }, { ",1", 0 }, { "01", 0 },
		{ "a", 0 }, { "0;1", 0 }, { "1,2,3", 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t mask = 0xdead;
		int rc = bootargs_core_list(cases[i].v, 3, &mask);

		if (cases[i].mask ? rc || mask != cases[i].mask : rc != -EINVAL || mask)
			fail_msg("'%s': %d, mask 0x%x", cases[i].v, rc, mask);
	}
}

/* A control byte in the line is named by its code in the message, and the
 * host's log shows control bytes as \xHH, never raw (a terminal escape in
 * a name must not reach the terminal). */
static void test_escapes_not_echoed(void **state)
{
	FILE *log = tmpfile();
	char text[512] = "";
	size_t n;
	int saved;

	(void)state;
	assert_non_null(log);
	fflush(stderr);
	saved = dup(fileno(stderr));
	assert_true(saved >= 0);
	assert_true(dup2(fileno(log), fileno(stderr)) >= 0);
	assert_int_equal(bootargs_parse(&args, "rkbare.app=\033[2Jx"), -EINVAL);
	hal_err("name '%s'", "y\033[31mRED\033[0m\x7f");
	fflush(stderr);
	assert_true(dup2(saved, fileno(stderr)) >= 0);
	close(saved);
	rewind(log);
	n = fread(text, 1, sizeof(text) - 1, log);
	text[n] = '\0';
	fclose(log);
	assert_non_null(strstr(text, "control character in value (byte 0x1b) at column 12"));
	assert_non_null(strstr(text, "name 'y\\x1b[31mRED\\x1b[0m\\x7f'"));
	assert_null(strchr(text, '\033'));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_key_values_and_flags),
		cmocka_unit_test(test_quoting),
		cmocka_unit_test(test_last_duplicate_wins),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_unknown_rkbare_keys),
		cmocka_unit_test(test_core_list),
		cmocka_unit_test(test_escapes_not_echoed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
